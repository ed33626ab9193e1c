// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysfs: every documented attribute of /sys/class/npo/npoN exists, has the
 * documented format, and is read-only.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

FIXTURE(sysfs) {
	int ndev;
};

FIXTURE_SETUP(sysfs)
{
	self->ndev = npo_test_count_devices();
	if (self->ndev <= 0)
		SKIP(return, "no NPO device");
}

FIXTURE_TEARDOWN(sysfs)
{
}

static bool all_match(const char *s, int (*cls)(int))
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!cls((unsigned char)*s))
			return false;
	return true;
}

TEST_F(sysfs, attribute_formats)
{
	char name[32], v[128];
	unsigned int a, b, c;
	int i;

	NPO_TEST_SETUP_DONE();

	for (i = 0; i < self->ndev; i++) {
		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));

		ASSERT_EQ(0, npo_test_read_attr(name, "serial", v, sizeof(v)));
		EXPECT_EQ(16, strlen(v));
		EXPECT_TRUE(all_match(v, isxdigit)) TH_LOG("serial '%s'", v);

		ASSERT_EQ(0, npo_test_read_attr(name, "node_id", v, sizeof(v)));
		EXPECT_TRUE(all_match(v, isdigit)) TH_LOG("node_id '%s'", v);

		ASSERT_EQ(0, npo_test_read_attr(name, "num_ports", v, sizeof(v)));
		EXPECT_GE(atoi(v), 1);
		ASSERT_EQ(0, npo_test_read_attr(name, "lanes_per_port", v,
						sizeof(v)));
		EXPECT_GE(atoi(v), 1);
		ASSERT_EQ(0, npo_test_read_attr(name, "num_queues", v,
						sizeof(v)));
		EXPECT_GE(atoi(v), 1);

		ASSERT_EQ(0, npo_test_read_attr(name, "fw_version", v,
						sizeof(v)));
		EXPECT_EQ(3, sscanf(v, "%u.%u.%u", &a, &b, &c))
			TH_LOG("fw_version '%s'", v);
		ASSERT_EQ(0, npo_test_read_attr(name, "fw_error", v, sizeof(v)));
		EXPECT_STREQ("none", v);
		ASSERT_EQ(0, npo_test_read_attr(name, "hw_if_version", v,
						sizeof(v)));
		EXPECT_EQ(2, sscanf(v, "%u.%u", &a, &b)) TH_LOG("'%s'", v);
		EXPECT_EQ(1, a) TH_LOG("register interface major '%s'", v);
		ASSERT_EQ(0, npo_test_read_attr(name, "state", v, sizeof(v)));
		EXPECT_STREQ("ready", v);
	}
}

/* The emulated fabric numbers its nodes 1..N and derives serials from them. */
TEST_F(sysfs, node_ids_unique)
{
	char name[32], v[32];
	int i, j, ids[256];

	NPO_TEST_SETUP_DONE();

	for (i = 0; i < self->ndev && i < 256; i++) {
		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));
		ASSERT_EQ(0, npo_test_read_attr(name, "node_id", v, sizeof(v)));
		ids[i] = atoi(v);
		for (j = 0; j < i; j++)
			EXPECT_NE(ids[j], ids[i]);
	}
}

TEST_F(sysfs, attributes_read_only)
{
	static const char * const attrs[] = {
		"serial", "node_id", "fw_version", "fw_error", "state",
		"num_ports", "lanes_per_port", "num_queues", "hw_if_version",
	};
	char name[32], path[256];
	unsigned int i;

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, npo_test_device_name(0, name, sizeof(name)));
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), NPO_SYSFS_CLASS "/%s/%s", name,
			 attrs[i]);
		EXPECT_NE(0, npo_test_write_file(path, "1")) TH_LOG("%s", path);
	}
}

TEST_F(sysfs, debugfs_registers)
{
	char name[32], path[256], buf[4096];

	NPO_TEST_SETUP_DONE();

	if (!npo_test_is_root())
		SKIP(return, "needs root");
	ASSERT_EQ(0, npo_test_device_name(0, name, sizeof(name)));
	snprintf(path, sizeof(path), "/sys/kernel/debug/npo/%s/regs", name);
	ASSERT_EQ(0, npo_test_read_file(path, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "MAGIC = 0x314f504e")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "FW_VERSION = 0x01000000"));
}

TEST_HARNESS_MAIN
