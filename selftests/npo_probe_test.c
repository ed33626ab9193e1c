// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: every NPO device is bound, has its character device and came up.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/npo.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

FIXTURE(probe) {
	int ndev;
};

FIXTURE_SETUP(probe)
{
	self->ndev = npo_test_count_devices();
	if (self->ndev < 0)
		SKIP(return, "npo driver not loaded");
	if (self->ndev == 0)
		SKIP(return, "no NPO device");
}

FIXTURE_TEARDOWN(probe)
{
}

TEST_F(probe, expected_device_count)
{
	int want = npo_test_expected_devices();

	NPO_TEST_SETUP_DONE();

	if (want < 0)
		SKIP(return, "NPO_EXPECT_DEVICES not set");
	ASSERT_EQ(want, self->ndev);
}

TEST_F(probe, every_device_ready)
{
	char name[32], state[32], fw[32];
	int i;

	NPO_TEST_SETUP_DONE();

	for (i = 0; i < self->ndev; i++) {
		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));
		ASSERT_EQ(0, npo_test_read_attr(name, "state", state,
						sizeof(state)));
		EXPECT_STREQ("ready", state) TH_LOG("%s", name);
		ASSERT_EQ(0, npo_test_read_attr(name, "fw_version", fw,
						sizeof(fw)));
		EXPECT_STRNE("none", fw) TH_LOG("%s", name);
	}
}

/* /dev/npoN is a character device whose number sysfs announces. */
TEST_F(probe, char_device_matches_sysfs)
{
	char name[32], path[64], devnum[32];
	unsigned int maj, min;
	struct stat st;
	int i;

	NPO_TEST_SETUP_DONE();

	for (i = 0; i < self->ndev; i++) {
		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));
		ASSERT_EQ(0, npo_test_read_attr(name, "dev", devnum,
						sizeof(devnum)));
		ASSERT_EQ(2, sscanf(devnum, "%u:%u", &maj, &min));
		snprintf(path, sizeof(path), "/dev/%s", name);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s: %s", path,
						     strerror(errno));
		EXPECT_TRUE(S_ISCHR(st.st_mode));
		EXPECT_EQ(maj, major(st.st_rdev));
		EXPECT_EQ(min, minor(st.st_rdev));
	}
}

/* The class device hangs off a PCI function bound to the npo driver. */
TEST_F(probe, bound_to_pci_driver)
{
	char name[32], link[256], target[256], drv[256];
	ssize_t n;
	int i;

	NPO_TEST_SETUP_DONE();

	for (i = 0; i < self->ndev; i++) {
		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));
		snprintf(link, sizeof(link), NPO_SYSFS_CLASS "/%s/device/driver",
			 name);
		n = readlink(link, target, sizeof(target) - 1);
		ASSERT_GT(n, 0) TH_LOG("%s: %s", link, strerror(errno));
		target[n] = '\0';
		snprintf(drv, sizeof(drv), "%s", strrchr(target, '/') + 1);
		EXPECT_STREQ("npo", drv);
	}
}

/* Removing a device while a file is open: the file fails cleanly. */
TEST_F(probe, unbind_while_open)
{
	char name[32], link[256], target[256], path[64];
	struct npo_dev_info info = { 0 };
	const char *addr;
	ssize_t n;
	int fd;

	NPO_TEST_SETUP_DONE();

	if (!npo_test_is_root())
		SKIP(return, "needs root");
	ASSERT_EQ(0, npo_test_device_name(0, name, sizeof(name)));
	snprintf(link, sizeof(link), NPO_SYSFS_CLASS "/%s/device", name);
	n = readlink(link, target, sizeof(target) - 1);
	ASSERT_GT(n, 0);
	target[n] = '\0';
	addr = strrchr(target, '/') + 1;

	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_GET_INFO, &info));

	ASSERT_EQ(0, npo_test_write_file("/sys/bus/pci/drivers/npo/unbind",
					 addr));
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_GET_INFO, &info));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(0, close(fd));

	ASSERT_EQ(0, npo_test_write_file("/sys/bus/pci/drivers/npo/bind",
					 addr));
	EXPECT_EQ(self->ndev, npo_test_count_devices());
}

TEST_HARNESS_MAIN
