// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of npoctl's printing path: the same calls give the text form
 * and well-formed JSON with the same facts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "print.h"

/* Run the printing sequence with stdout captured. */
static char *capture(bool json, bool pretty)
{
	static char buf[4096];
	FILE *f = tmpfile();
	int saved = dup(1);
	size_t n;

	fflush(stdout);
	dup2(fileno(f), 1);
	print_begin(json, pretty);
	print_open_array(NULL);
	print_text("%-5s %s\n", "DEV", "NODE");
	print_open_object(NULL);
	print_string("dev", "%-5s", "npo0");
	print_uint("node_id", " %llu\n", 7);
	print_open_array("caps");
	print_string(NULL, "%s", "aer");
	print_close_array();
	print_bool("up", " %s\n", true);
	print_close_object();
	print_close_array();
	print_end();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

TEST(text_form)
{
	EXPECT_STREQ("DEV   NODE\nnpo0  7\naer yes\n", capture(false, false));
}

TEST(json_form)
{
	struct json_object *doc, *dev, *v;
	char *out = capture(true, false);

	EXPECT_EQ(NULL, strchr(out, ' ')) TH_LOG("%s", out);
	doc = json_tokener_parse(out);
	ASSERT_NE(NULL, doc) TH_LOG("%s", out);
	ASSERT_EQ(1, (int)json_object_array_length(doc));
	dev = json_object_array_get_idx(doc, 0);
	ASSERT_TRUE(json_object_object_get_ex(dev, "dev", &v));
	EXPECT_STREQ("npo0", json_object_get_string(v));
	ASSERT_TRUE(json_object_object_get_ex(dev, "node_id", &v));
	EXPECT_EQ(7, json_object_get_int64(v));
	ASSERT_TRUE(json_object_object_get_ex(dev, "caps", &v));
	EXPECT_STREQ("aer", json_object_get_string(json_object_array_get_idx(v, 0)));
	ASSERT_TRUE(json_object_object_get_ex(dev, "up", &v));
	EXPECT_TRUE(json_object_get_boolean(v));
	json_object_put(doc);
}

TEST(pretty_json_is_indented)
{
	char *out = capture(true, true);

	EXPECT_NE(NULL, strstr(out, "\n  {")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
