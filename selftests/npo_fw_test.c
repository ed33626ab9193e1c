// SPDX-License-Identifier: GPL-2.0-only
/*
 * Firmware: the good image runs everywhere; every kind of corrupt image is
 * refused, leaves the device held safe and visible, and the kernel log says
 * why.  Each test reloads the driver with fw_name pointing at its image.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/npo.h>
#include <linux/npo_fw.h>

#include "kselftest_harness.h"
#include "npo_fw_validate.h"
#include "npo_test_lib.h"

#define FW_DIR "/lib/firmware/"
#define GOOD_FW "npo/npo-fw.bin"
#define TEST_FW "npo/selftest-fw.bin"

FIXTURE(fw) {
	unsigned char image[NPO_FW_MAX_SIZE];
	size_t len;
	int ndev;
};

FIXTURE_SETUP(fw)
{
	FILE *f;

	if (!npo_test_is_root())
		SKIP(return, "needs root");
	self->ndev = npo_test_count_devices();
	if (self->ndev <= 0)
		SKIP(return, "no NPO device");
	f = fopen(FW_DIR GOOD_FW, "rb");
	ASSERT_NE(NULL, f);
	self->len = fread(self->image, 1, sizeof(self->image), f);
	fclose(f);
	ASSERT_GE(self->len, sizeof(struct npo_fw_header));
}

FIXTURE_TEARDOWN(fw)
{
	unlink(FW_DIR TEST_FW);
	/* Leave the driver as the other tests expect it. */
	if (self->ndev > 0 && npo_test_is_root())
		npo_test_reload("");
}

static int write_image(const void *img, size_t len)
{
	FILE *f = fopen(FW_DIR TEST_FW, "wb");

	if (!f)
		return -1;
	if (fwrite(img, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/*
 * Load image, then check every device: state, fw_version, fw_error and the
 * log line naming the reason.
 */
static void expect_rejected(struct __test_metadata *_metadata,
			    FIXTURE_DATA(fw) *self, const void *img,
			    size_t len, const char *reason)
{
	char name[32], v[128], log[65536];
	size_t mark;
	int i;

	if (img)
		ASSERT_EQ(0, write_image(img, len));
	mark = npo_test_dmesg_mark();
	ASSERT_EQ(0, npo_test_reload("fw_name=" TEST_FW));
	ASSERT_EQ(self->ndev, npo_test_count_devices());
	for (i = 0; i < self->ndev; i++) {
		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));
		ASSERT_EQ(0, npo_test_read_attr(name, "state", v, sizeof(v)));
		EXPECT_STREQ("fw-error", v);
		ASSERT_EQ(0, npo_test_read_attr(name, "fw_version", v,
						sizeof(v)));
		EXPECT_STREQ("none", v);
		ASSERT_EQ(0, npo_test_read_attr(name, "fw_error", v, sizeof(v)));
		EXPECT_NE(NULL, strstr(v, reason)) TH_LOG("fw_error '%s'", v);
	}
	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, reason)) TH_LOG("log:\n%s", log);
	EXPECT_NE(NULL, strstr(log, "device held safe")) TH_LOG("log:\n%s", log);
}

static void set_le32(unsigned char *p, unsigned int v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

TEST_F(fw, good_image_runs)
{
	char name[32], v[64];
	int i;

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, write_image(self->image, self->len));
	ASSERT_EQ(0, npo_test_reload("fw_name=" TEST_FW));
	for (i = 0; i < self->ndev; i++) {
		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));
		ASSERT_EQ(0, npo_test_read_attr(name, "state", v, sizeof(v)));
		EXPECT_STREQ("ready", v);
		ASSERT_EQ(0, npo_test_read_attr(name, "fw_version", v,
						sizeof(v)));
		EXPECT_STREQ("1.0.0", v);
	}
}

TEST_F(fw, flipped_payload_bit_fails_crc)
{
	NPO_TEST_SETUP_DONE();
	self->image[self->len - 20] ^= 0x10;
	expect_rejected(_metadata, self, self->image, self->len,
			"CRC mismatch");
}

TEST_F(fw, wrong_crc_field)
{
	NPO_TEST_SETUP_DONE();
	self->image[offsetof(struct npo_fw_header, crc32)] ^= 1;
	expect_rejected(_metadata, self, self->image, self->len,
			"CRC mismatch");
}

TEST_F(fw, bad_magic)
{
	NPO_TEST_SETUP_DONE();
	memcpy(self->image, "ELF!", 4);
	expect_rejected(_metadata, self, self->image, self->len, "bad magic");
}

TEST_F(fw, truncated)
{
	NPO_TEST_SETUP_DONE();
	expect_rejected(_metadata, self, self->image, self->len - 8,
			"length mismatch");
}

TEST_F(fw, too_short)
{
	NPO_TEST_SETUP_DONE();
	expect_rejected(_metadata, self, self->image, 10, "size out of range");
}

/* Consistent length and CRC but a section out of bounds: only the device can tell. */
TEST_F(fw, section_out_of_bounds_checked_by_device)
{
	struct npo_fw_header *h = (void *)self->image;
	unsigned char *sec = self->image + sizeof(*h);

	NPO_TEST_SETUP_DONE();

	set_le32(sec + offsetof(struct npo_fw_section, length), 0x10000);
	/* Re-seal the CRC so that only the section is wrong. */
	h->crc32 = htole32(npo_fw_crc(self->image, self->len));
	expect_rejected(_metadata, self, self->image, self->len, "bad section");
}

TEST_F(fw, missing_file)
{
	NPO_TEST_SETUP_DONE();
	unlink(FW_DIR TEST_FW);
	expect_rejected(_metadata, self, NULL, 0, "cannot read image");
}

/* A device held safe still answers GET_INFO with its state. */
TEST_F(fw, held_safe_device_reports_state)
{
	struct npo_dev_info info = { 0 };
	char name[32], path[64];
	int fd;

	NPO_TEST_SETUP_DONE();

	memcpy(self->image, "BAD!", 4);
	expect_rejected(_metadata, self, self->image, self->len, "bad magic");
	ASSERT_EQ(0, npo_test_device_name(0, name, sizeof(name)));
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_GET_INFO, &info));
	EXPECT_EQ(NPO_DEV_STATE_FW_ERROR, info.state);
	EXPECT_EQ(0, info.fw_version);
	close(fd);
}

TEST_HARNESS_MAIN
