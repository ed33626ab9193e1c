// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host tests of libnpo's discovery, naming, errors and logging, against a
 * fake sysfs tree (NPO_SYSFS_ROOT) and device directory (NPO_DEV_ROOT).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "internal.h"

FIXTURE(fake_sysfs) {
	char root[64];
};

static void mkpath(const char *root, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdir(path, 0755);
}

FIXTURE_SETUP(fake_sysfs)
{
	strcpy(self->root, "/tmp/npo-sysfs-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	setenv("NPO_SYSFS_ROOT", self->root, 1);
	setenv("NPO_DEV_ROOT", self->root, 1);
}

FIXTURE_TEARDOWN(fake_sysfs)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->root);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->root);
	unsetenv("NPO_SYSFS_ROOT");
	unsetenv("NPO_DEV_ROOT");
}

TEST_F(fake_sysfs, driver_not_loaded_is_enoent)
{
	int n = -1;

	errno = 0;
	EXPECT_EQ(NULL, npo_get_device_list(&n));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, n);
}

TEST_F(fake_sysfs, no_devices_is_empty_list)
{
	struct npo_device_entry *list;
	int n = -1;

	mkpath(self->root, "class");
	mkpath(self->root, "class/npo");
	list = npo_get_device_list(&n);
	ASSERT_NE(NULL, list);
	EXPECT_EQ(0, n);
	npo_free_device_list(list);
}

TEST_F(fake_sysfs, devices_sorted_by_index_junk_ignored)
{
	static const char * const names[] = {
		"class/npo/npo10", "class/npo/npo2", "class/npo/npo0",
		"class/npo/npoX", "class/npo/eth0", "class/npo/npo01",
	};
	struct npo_device_entry *list;
	unsigned int i;
	int n;

	mkpath(self->root, "class");
	mkpath(self->root, "class/npo");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		mkpath(self->root, names[i]);
	list = npo_get_device_list(&n);
	ASSERT_NE(NULL, list);
	ASSERT_EQ(3, n);
	EXPECT_STREQ("npo0", list[0].name);
	EXPECT_EQ(0, list[0].index);
	EXPECT_STREQ("npo2", list[1].name);
	EXPECT_STREQ("npo10", list[2].name);
	EXPECT_EQ(10, list[2].index);
	npo_free_device_list(list);
}

TEST(parse_name)
{
	EXPECT_EQ(0, npo_parse_name("npo0"));
	EXPECT_EQ(12, npo_parse_name("npo12"));
	EXPECT_EQ(3, npo_parse_name("/dev/npo3"));
	EXPECT_EQ(7, npo_parse_name("7"));
	EXPECT_EQ(-1, npo_parse_name(""));
	EXPECT_EQ(-1, npo_parse_name("npo"));
	EXPECT_EQ(-1, npo_parse_name("npo-1"));
	EXPECT_EQ(-1, npo_parse_name("npo1x"));
	EXPECT_EQ(-1, npo_parse_name("npo01"));
	EXPECT_EQ(-1, npo_parse_name("eth0"));
	EXPECT_EQ(-1, npo_parse_name("npo99999999999999999999"));
}

TEST_F(fake_sysfs, open_errors)
{
	errno = 0;
	EXPECT_EQ(NULL, npo_open_device("bogus"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, npo_open_device(NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, npo_open_device("npo5"));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, npo_close_device(NULL));
}

static int open_fds(void)
{
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

/*
 * A node that is not an NPO device answers no GET_PARAM, as a driver of
 * another UAPI major would not answer in our layout: refused at open,
 * nothing left open.
 */
TEST_F(fake_sysfs, open_refuses_what_speaks_no_npo_uapi)
{
	struct npo_device_attr attr;
	char path[128];
	uint64_t v;
	FILE *f;
	int fds;

	snprintf(path, sizeof(path), "%s/npo4", self->root);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fclose(f);
	fds = open_fds();
	errno = 0;
	EXPECT_EQ(NULL, npo_open_device("/dev/npo4"));
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	EXPECT_EQ(fds, open_fds());
	EXPECT_EQ(-EINVAL, npo_query_device(NULL, &attr));
	EXPECT_EQ(-EINVAL, npo_query_param(NULL, NPO_PARAM_SERIAL, 0, &v));
}

/*
 * NPO_DEVICE_FDS: a malformed entry is EINVAL, a descriptor that is not
 * the device (a file, another character device) EBADF; blanks between
 * entries are fine, other devices' entries are not looked at.
 */
TEST_F(fake_sysfs, inherited_descriptors_checked)
{
	static const char *const malformed[] = {
		"npo1=", "npo1=x", "npo1=-3", "npo1=3x", "npo1= ,npo2=4",
		"npo1=99999999999",
	};
	char path[128], list[64];
	unsigned int i;
	int file, null;
	FILE *f;

	snprintf(path, sizeof(path), "%s/npo1", self->root);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fclose(f);
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		setenv("NPO_DEVICE_FDS", malformed[i], 1);
		errno = 0;
		EXPECT_EQ(NULL, npo_open_device("npo1"));
		EXPECT_EQ(EINVAL, errno) TH_LOG("'%s'", malformed[i]);
	}
	file = open(path, O_RDONLY);
	null = open("/dev/null", O_RDWR);
	ASSERT_GE(file, 0);
	ASSERT_GE(null, 0);
	snprintf(list, sizeof(list), "npo0=0, npo1=%d", file);
	setenv("NPO_DEVICE_FDS", list, 1);
	EXPECT_EQ(NULL, npo_open_device("npo1"));
	EXPECT_EQ(EBADF, errno);
	snprintf(list, sizeof(list), " npo1 =2, npo1=%d ", null);
	setenv("NPO_DEVICE_FDS", list, 1);
	EXPECT_EQ(NULL, npo_open_device("npo1"));
	EXPECT_EQ(EBADF, errno);
	/* Another device's entry only: npo1 is opened from its node. */
	setenv("NPO_DEVICE_FDS", "npo0=0", 1);
	EXPECT_EQ(NULL, npo_open_device("npo1"));
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	unsetenv("NPO_DEVICE_FDS");
	close(file);
	close(null);
}

static char last_msg[256];
static enum npo_log_level last_level;
static int calls;

static void capture(enum npo_log_level level, const char *msg, void *arg)
{
	(*(int *)arg)++;
	last_level = level;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

TEST(logging_is_opt_in_and_filtered)
{
	npo_log(NPO_LOG_ERR, "unheard %d", 1);
	npo_set_log_fn(capture, &calls);
	npo_log(NPO_LOG_DEBUG, "filtered");
	EXPECT_EQ(0, calls);
	npo_log(NPO_LOG_ERR, "heard %d", 2);
	EXPECT_EQ(1, calls);
	EXPECT_EQ(NPO_LOG_ERR, last_level);
	EXPECT_STREQ("heard 2", last_msg);
	npo_set_log_level(NPO_LOG_DEBUG);
	npo_log(NPO_LOG_DEBUG, "debug");
	EXPECT_EQ(2, calls);
	npo_set_log_fn(NULL, NULL);
	npo_log(NPO_LOG_ERR, "silent");
	EXPECT_EQ(2, calls);
}

TEST_HARNESS_MAIN
