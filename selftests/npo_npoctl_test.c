// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl dev: text and JSON show what the driver reports, and every error
 * (bad arguments, missing device, missing driver) gets a message and a
 * non-zero exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

FIXTURE(npoctl) {
	int ndev;
	char out[65536];
};

FIXTURE_SETUP(npoctl)
{
	self->ndev = npo_test_count_devices();
	if (self->ndev <= 0)
		SKIP(return, "no NPO device");
	if (npo_test_run(NULL, 0, "command -v npoctl >/dev/null"))
		SKIP(return, "npoctl not installed");
}

FIXTURE_TEARDOWN(npoctl)
{
	if (self->ndev > 0 && npo_test_is_root() && !npo_test_module_loaded())
		npo_test_reload("");
}

static const char *json_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
		json_object_get_string(v) : "";
}

static int64_t json_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
		json_object_get_int64(v) : -1;
}

TEST_F(npoctl, text_lists_every_device)
{
	char name[32], serial[32], fw[32], *line;
	int i, lines = 0;

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, npo_test_run(self->out, sizeof(self->out), "npoctl dev"));
	ASSERT_EQ(0, strncmp(self->out, "DEV ", 4)) TH_LOG("%s", self->out);
	for (line = self->out; (line = strchr(line, '\n')) && line[1]; line++)
		lines++;
	EXPECT_EQ(self->ndev, lines) TH_LOG("%s", self->out);
	for (i = 0; i < self->ndev; i++) {
		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));
		ASSERT_EQ(0, npo_test_read_attr(name, "serial", serial,
						sizeof(serial)));
		ASSERT_EQ(0, npo_test_read_attr(name, "fw_version", fw,
						sizeof(fw)));
		line = strstr(self->out, name);
		ASSERT_NE(NULL, line) TH_LOG("%s missing:\n%s", name, self->out);
		*strchrnul(line, '\n') = '\0';
		EXPECT_NE(NULL, strstr(line, serial)) TH_LOG("%s", line);
		EXPECT_NE(NULL, strstr(line, fw)) TH_LOG("%s", line);
		EXPECT_NE(NULL, strstr(line, "ready")) TH_LOG("%s", line);
		line[strlen(line)] = '\n';
	}
}

TEST_F(npoctl, json_matches_sysfs)
{
	struct json_object *doc, *dev;
	char name[32], v[64];
	int i;

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, npo_test_run(self->out, sizeof(self->out), "npoctl -j dev"));
	doc = json_tokener_parse(self->out);
	ASSERT_NE(NULL, doc) TH_LOG("not JSON: %s", self->out);
	ASSERT_TRUE(json_object_is_type(doc, json_type_array));
	ASSERT_EQ(self->ndev, (int)json_object_array_length(doc));
	for (i = 0; i < self->ndev; i++) {
		dev = json_object_array_get_idx(doc, i);
		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));
		EXPECT_STREQ(name, json_str(dev, "dev"));
		ASSERT_EQ(0, npo_test_read_attr(name, "serial", v, sizeof(v)));
		EXPECT_STREQ(v, json_str(dev, "serial"));
		ASSERT_EQ(0, npo_test_read_attr(name, "node_id", v, sizeof(v)));
		EXPECT_EQ(atoi(v), json_int(dev, "node_id"));
		ASSERT_EQ(0, npo_test_read_attr(name, "num_ports", v, sizeof(v)));
		EXPECT_EQ(atoi(v), json_int(dev, "ports"));
		ASSERT_EQ(0, npo_test_read_attr(name, "fw_version", v,
						sizeof(v)));
		EXPECT_STREQ(v, json_str(dev, "fw_version"));
		EXPECT_STREQ("ready", json_str(dev, "state"));
		EXPECT_EQ(12, strlen(json_str(dev, "pci")));
	}
	json_object_put(doc);
}

TEST_F(npoctl, show_one_device_pretty_json)
{
	struct json_object *doc, *dev, *caps;
	char name[32];

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, npo_test_device_name(self->ndev - 1, name, sizeof(name)));
	ASSERT_EQ(0, npo_test_run(self->out, sizeof(self->out),
				  "npoctl -j -p dev show %s", name));
	EXPECT_NE(NULL, strchr(self->out, '\n'));
	doc = json_tokener_parse(self->out);
	ASSERT_NE(NULL, doc);
	ASSERT_EQ(1, (int)json_object_array_length(doc));
	dev = json_object_array_get_idx(doc, 0);
	EXPECT_STREQ(name, json_str(dev, "dev"));
	EXPECT_EQ(0, strncmp("1.", json_str(dev, "hw_if_version"), 2));
	ASSERT_TRUE(json_object_object_get_ex(dev, "caps", &caps));
	EXPECT_TRUE(json_object_is_type(caps, json_type_array));
	EXPECT_GE(json_int(dev, "queues"), 1);
	json_object_put(doc);

	/* Text form of the same, by the other accepted spellings. */
	ASSERT_EQ(0, npo_test_run(self->out, sizeof(self->out),
				  "npoctl dev sh /dev/%s", name));
	EXPECT_NE(NULL, strstr(self->out, "firmware")) TH_LOG("%s", self->out);
}

TEST_F(npoctl, missing_device_fails)
{
	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(1, npo_test_run(self->out, sizeof(self->out),
				  "npoctl dev show npo250 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "npo250: no such device"))
		TH_LOG("%s", self->out);
	ASSERT_EQ(1, npo_test_run(self->out, sizeof(self->out),
				  "npoctl dev show eth0 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "eth0")) TH_LOG("%s", self->out);
}

TEST_F(npoctl, bad_arguments_fail)
{
	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl bogus 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "unknown object 'bogus'"));
	ASSERT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl dev show npo0 extra 2>&1"));
	ASSERT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl --frobnicate dev 2>&1"));
	ASSERT_EQ(2, npo_test_run(self->out, sizeof(self->out), "npoctl 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "Usage:"));
	ASSERT_EQ(0, npo_test_run(self->out, sizeof(self->out), "npoctl help"));
	ASSERT_EQ(0, npo_test_run(self->out, sizeof(self->out), "npoctl -V"));
	EXPECT_NE(NULL, strstr(self->out, "npoctl "));
}

TEST_F(npoctl, missing_driver_fails)
{
	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	ASSERT_EQ(0, npo_test_run(NULL, 0, "/sbin/modprobe -r npo"));
	ASSERT_EQ(1, npo_test_run(self->out, sizeof(self->out),
				  "npoctl dev 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "npo driver is not loaded"))
		TH_LOG("%s", self->out);
	ASSERT_EQ(0, npo_test_reload(""));
}

TEST_HARNESS_MAIN
