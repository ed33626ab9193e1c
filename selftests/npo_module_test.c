// SPDX-License-Identifier: GPL-2.0-only
/*
 * Module lifetime: modprobe/modprobe -r cycles leave nothing behind, and a
 * file held open keeps the module pinned rather than freed under it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/npo.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

#define CYCLES 100

FIXTURE(module) {
	int ndev;
};

FIXTURE_SETUP(module)
{
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	self->ndev = npo_test_count_devices();
	if (self->ndev <= 0)
		SKIP(return, "no NPO device");
}

FIXTURE_TEARDOWN(module)
{
	if (self->ndev > 0 && !npo_test_module_loaded())
		npo_test_reload("");
}

static long meminfo_kb(const char *key)
{
	char buf[8192], *p;

	if (npo_test_read_file("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key) + 1, NULL, 10) : -1;
}

static int count_lines(const char *path, const char *needle)
{
	static char buf[1 << 20];
	char *p = buf;
	int n = 0;

	if (npo_test_read_file(path, buf, sizeof(buf)))
		return -1;
	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* 100 cycles of 8 devices take about a minute under TCG. */
TEST_F_TIMEOUT(module, load_unload_cycles_leave_nothing, 600)
{
	long slab_before, slab_after;
	int i;

	NPO_TEST_SETUP_DONE();

	/* Warm up caches that the first cycles would otherwise fill. */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, npo_test_reload(""));
	slab_before = meminfo_kb("SUnreclaim:");

	for (i = 0; i < CYCLES; i++) {
		ASSERT_EQ(0, npo_test_run(NULL, 0, "/sbin/modprobe -r npo 2>&1"))
			TH_LOG("cycle %d: unload", i);
		ASSERT_FALSE(exists("/sys/class/npo")) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, npo_test_run(NULL, 0, "/sbin/modprobe npo 2>&1"))
			TH_LOG("cycle %d: load", i);
		ASSERT_EQ(self->ndev, npo_test_count_devices())
			TH_LOG("cycle %d", i);
	}

	ASSERT_EQ(0, npo_test_run(NULL, 0, "/sbin/modprobe -r npo"));
	EXPECT_FALSE(exists("/sys/class/npo"));
	EXPECT_FALSE(exists("/sys/kernel/debug/npo"));
	EXPECT_FALSE(exists("/dev/npo0"));
	EXPECT_EQ(0, count_lines("/proc/devices", " npo\n"));
	EXPECT_EQ(0, count_lines("/proc/interrupts", "npo"));
	EXPECT_EQ(0, count_lines("/proc/iomem", ": npo\n"));
	slab_after = meminfo_kb("SUnreclaim:");
	/* 100 cycles of 8 devices: a leak of even one small object per
	 * device and cycle would show; allow noise from other caches.
	 */
	EXPECT_LT(slab_after - slab_before, 1024)
		TH_LOG("SUnreclaim grew from %ld to %ld kB", slab_before,
		       slab_after);
	ASSERT_EQ(0, npo_test_reload(""));
	EXPECT_EQ(1, count_lines("/proc/devices", " npo\n"));
	EXPECT_EQ(self->ndev, count_lines("/proc/interrupts", "npo"));
}

TEST_F(module, open_file_pins_module)
{
	char out[512];
	int fd;

	NPO_TEST_SETUP_DONE();
	fd = open("/dev/npo0", O_RDWR);

	ASSERT_GE(fd, 0);
	EXPECT_NE(0, npo_test_run(out, sizeof(out), "/sbin/modprobe -r npo 2>&1"));
	EXPECT_TRUE(npo_test_module_loaded());
	close(fd);
	EXPECT_EQ(0, npo_test_run(out, sizeof(out), "/sbin/modprobe -r npo 2>&1"))
		TH_LOG("%s", out);
	EXPECT_FALSE(npo_test_module_loaded());
}

TEST_F(module, module_parameters_documented)
{
	char out[4096];

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "/sbin/modinfo -F parm npo"));
	EXPECT_NE(NULL, strstr(out, "fw_name:")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "dbg_mask:")) TH_LOG("%s", out);
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "/sbin/modinfo -F alias npo"));
	EXPECT_NE(NULL, strstr(out, "pci:v00001234d00004E50")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
