// SPDX-License-Identifier: GPL-2.0-only
/*
 * Firmware flash with iproute2's own devlink, as an operator updates a
 * device: `devlink dev flash` writes an image to the slot the device did
 * not boot from while the old firmware runs on, `devlink dev reload action
 * fw_activate` boots it, and `devlink dev info` shows running and stored
 * versions.  A new image that does not come up (the device model's
 * "fwbootfail" fault, or a slot whose bits rotted) leaves the device on
 * its previous firmware, said so.  A corrupt, truncated, foreign or
 * untargeted file is refused before the flash changes, with a reason.
 * What the flash holds is checked from the device's registers too (BAR0
 * through sysfs), and a second device must not notice any of it.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <linux/npo_fw.h>

#include "kselftest_harness.h"
#include "npo_fw_validate.h"
#include "npo_test_lib.h"

#define FW_DIR		"/lib/firmware/"
#define GOOD_FW		"npo/npo-fw.bin"

/* Documentation/hardware.rst, "Firmware flash". */
#define REG_FW_VERSION		0x048
#define REG_FLASH_STATE		0x05c
#define REG_SLOT_A_VERSION	0x060
#define REG_SLOT_B_VERSION	0x064
#define FLASH_RUNNING(s)	((s) & 3)
#define FLASH_ACTIVE(s)		(((s) >> 2) & 3)
#define FLASH_PENDING(s)	(((s) >> 4) & 3)
#define FLASH_FAILED(s)		(((s) >> 6) & 3)
#define FLASH_FELL_BACK		(1u << 8)
#define SLOT_A			1
#define SLOT_B			2

FIXTURE(flash) {
	char name[32];		/* the device flashed: the last one */
	char other[32];		/* one that must not notice, "" if none */
	char handle[48];	/* pci/DOMAIN:BUS:DEV.FN */
	int index;
	long long other_resets;
	unsigned char image[NPO_FW_MAX_SIZE];
	size_t len;
	char out[16384];
};

/*
 * Leave the device with an empty flash running the host's firmware: the
 * driver reloaded first (a device left dead takes no erase), then both
 * slots erased, then reloaded again so that nothing from flash runs.
 */
static int reset_to_host_firmware(FIXTURE_DATA(flash) *self)
{
	char path[128];

	if (npo_test_reload(""))
		return -1;
	snprintf(path, sizeof(path), "/sys/kernel/debug/npo/%s/flash_erase",
		 self->name);
	if (npo_test_write_file(path, "a") || npo_test_write_file(path, "b"))
		return -1;
	if (npo_test_reload(""))
		return -1;
	return npo_test_bar_read(self->name, REG_SLOT_A_VERSION) ||
	       npo_test_bar_read(self->name, REG_SLOT_B_VERSION) ||
	       (npo_test_bar_read(self->name, REG_FLASH_STATE) & 0xffffff) != 3 ?
	       -1 : 0;
}

/* The other device's reset count, if there is another device. */
static long long other_resets(FIXTURE_DATA(flash) *self)
{
	return self->other[0] ? npo_test_reset_count(self->other) : 0;
}

FIXTURE_SETUP(flash)
{
	FILE *f;
	int n;

	if (!npo_test_is_root())
		SKIP(return, "needs root");
	n = npo_test_count_devices();
	if (n <= 0)
		SKIP(return, "no NPO device");
	NPO_TEST_NEED_DEVLINK();
	self->index = n - 1;
	ASSERT_EQ(0, npo_test_device_name(n - 1, self->name, sizeof(self->name)));
	if (n > 1)
		ASSERT_EQ(0, npo_test_device_name(0, self->other,
						  sizeof(self->other)));
	ASSERT_EQ(0, npo_test_devlink_handle(self->name, self->handle,
					     sizeof(self->handle)));
	f = fopen(FW_DIR GOOD_FW, "rb");
	ASSERT_NE(NULL, f);
	self->len = fread(self->image, 1, sizeof(self->image), f);
	fclose(f);
	ASSERT_GE(self->len, sizeof(struct npo_fw_header));
	/* Every test starts from an empty flash and the host's image. */
	ASSERT_EQ(0, reset_to_host_firmware(self));
	self->other_resets = other_resets(self);
	ASSERT_NE(-1, self->other_resets);
	ASSERT_NE(-1, npo_test_reset_count(self->name));
}

FIXTURE_TEARDOWN(flash)
{
	if (!self->handle[0])
		return;
	npo_test_fault(self->index, "clear");
	npo_test_run(NULL, 0, "rm -f " FW_DIR "npo/flash-*.bin");
	/* Back to the host's firmware, as the other tests expect. */
	EXPECT_EQ(0, reset_to_host_firmware(self))
		TH_LOG("%s's flash could not be emptied: later tests see it", self->name);
}

static struct npo_fw_header *hdr(FIXTURE_DATA(flash) *self)
{
	return (struct npo_fw_header *)self->image;
}

static struct npo_fw_section *section(FIXTURE_DATA(flash) *self, uint32_t type)
{
	struct npo_fw_section *s = (void *)(self->image + sizeof(*hdr(self)));
	uint32_t i;

	for (i = 0; i < le32toh(hdr(self)->num_sections); i++)
		if (le32toh(s[i].type) == type)
			return &s[i];
	return NULL;
}

static void reseal(FIXTURE_DATA(flash) *self)
{
	hdr(self)->crc32 = htole32(npo_fw_crc(self->image, self->len));
}

/* Write the image as it is now to /lib/firmware/npo/flash-NAME.bin. */
static int save(FIXTURE_DATA(flash) *self, const char *name, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), FW_DIR "npo/flash-%s.bin", name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	if (fwrite(self->image, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* The reference image as version MAJ.MIN.0, saved as flash-NAME.bin. */
static int make_version(FIXTURE_DATA(flash) *self, const char *name,
			unsigned int maj, unsigned int min)
{
	hdr(self)->fw_version = htole32(NPO_FW_VERSION(maj, min, 0));
	reseal(self);
	return save(self, name, self->len);
}

/* devlink's output (stdout and stderr) lands in self->out. */
static int flash(FIXTURE_DATA(flash) *self, const char *name)
{
	return npo_test_run(self->out, sizeof(self->out),
			    NPO_TEST_DEVLINK " dev flash %s file npo/flash-%s.bin 2>&1",
			    self->handle, name);
}

static int activate(FIXTURE_DATA(flash) *self)
{
	return npo_test_run(self->out, sizeof(self->out),
			    NPO_TEST_DEVLINK " dev reload %s action fw_activate 2>&1",
			    self->handle);
}

/*
 * `devlink -j dev info`'s versions: group "running" or "stored", name
 * "fw", "fw.slot_a"...; "" if absent.
 */
static int info_version(FIXTURE_DATA(flash) *self, const char *group,
			const char *name, char *buf, size_t len)
{
	struct json_object *root, *o = NULL;

	buf[0] = '\0';
	if (npo_test_run(self->out, sizeof(self->out),
			 NPO_TEST_DEVLINK " -j dev info %s 2>&1", self->handle))
		return -1;
	root = json_tokener_parse(self->out);
	/* The device's versions must be there; the one asked for may not. */
	if (!root || !json_object_object_get_ex(root, "info", &o) ||
	    !json_object_object_get_ex(o, self->handle, &o) ||
	    !json_object_object_get_ex(o, "versions", &o)) {
		json_object_put(root);
		return -1;
	}
	if (json_object_object_get_ex(o, group, &o) &&
	    json_object_object_get_ex(o, name, &o))
		snprintf(buf, len, "%s", json_object_get_string(o));
	json_object_put(root);
	return 0;
}

#define EXPECT_INFO(group, name, want) do {				\
		char _v[32];						\
		ASSERT_EQ(0, info_version(self, group, name, _v,	\
					  sizeof(_v)))			\
			TH_LOG("devlink dev info: %s", self->out);	\
		EXPECT_STREQ(want, _v) TH_LOG("%s %s", group, name);	\
	} while (0)

#define EXPECT_ATTR(attr, want) do {					\
		char _v[96];						\
		ASSERT_EQ(0, npo_test_read_attr(self->name, attr, _v,	\
						sizeof(_v)));		\
		EXPECT_STREQ(want, _v) TH_LOG("%s", attr);		\
	} while (0)

static long long reg(FIXTURE_DATA(flash) *self, unsigned int off)
{
	long long v = npo_test_bar_read(self->name, off);

	/* -1 compares equal to -1: an unreadable BAR must not pass. */
	if (v < 0)
		abort();
	return v;
}

/* The flash as the device has it, all of it, to compare before/after. */
static void flash_regs(FIXTURE_DATA(flash) *self, long long r[4])
{
	r[0] = reg(self, REG_FLASH_STATE);
	r[1] = reg(self, REG_SLOT_A_VERSION);
	r[2] = reg(self, REG_SLOT_B_VERSION);
	r[3] = reg(self, REG_FW_VERSION);
}

/* npoctl dev show's "flash" object agrees. */
static void expect_npoctl_flash(struct __test_metadata *_metadata,
				FIXTURE_DATA(flash) *self, const char *running,
				const char *slot_a, const char *slot_b)
{
	struct json_object *root, *dev, *f = NULL, *o;

	ASSERT_EQ(0, npo_test_run(self->out, sizeof(self->out),
				  "npoctl -j dev show %s", self->name));
	root = json_tokener_parse(self->out);
	ASSERT_NE(NULL, root) TH_LOG("%s", self->out);
	dev = json_object_get_type(root) == json_type_array ?
	      json_object_array_get_idx(root, 0) : root;
	EXPECT_TRUE(json_object_object_get_ex(dev, "flash", &f)) TH_LOG("%s", self->out);
	if (f) {
		EXPECT_TRUE(json_object_object_get_ex(f, "running", &o));
		EXPECT_STREQ(running, json_object_get_string(o));
		EXPECT_TRUE(json_object_object_get_ex(f, "slot_a", &o));
		EXPECT_STREQ(slot_a, json_object_get_string(o));
		EXPECT_TRUE(json_object_object_get_ex(f, "slot_b", &o));
		EXPECT_STREQ(slot_b, json_object_get_string(o));
	}
	json_object_put(root);
}

TEST_F(flash, flash_then_activate_a_then_b)
{
	long long resets = npo_test_reset_count(self->name);

	NPO_TEST_SETUP_DONE();

	EXPECT_INFO("running", "fw", "1.0.0");
	EXPECT_INFO("stored", "fw", "");
	EXPECT_ATTR("flash/running", "host");

	ASSERT_EQ(0, make_version(self, "1.1", 1, 1));
	ASSERT_EQ(0, flash(self, "1.1")) TH_LOG("%s", self->out);
	/* devlink showed the driver's steps as they happened. */
	EXPECT_NE(NULL, strstr(self->out, "Staging for flash slot a"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "Checking and writing flash slot a"))
		TH_LOG("%s", self->out);
	/* Written, not running: the old firmware runs on, no reset. */
	EXPECT_EQ(resets, npo_test_reset_count(self->name));
	EXPECT_EQ(NPO_FW_VERSION(1, 1, 0), reg(self, REG_SLOT_A_VERSION));
	EXPECT_EQ(SLOT_A, FLASH_PENDING(reg(self, REG_FLASH_STATE)));
	EXPECT_INFO("running", "fw", "1.0.0");
	EXPECT_INFO("stored", "fw", "1.1.0");
	EXPECT_INFO("stored", "fw.slot_a", "1.1.0");
	EXPECT_ATTR("flash/pending", "a");
	EXPECT_ATTR("fw_version", "1.0.0");

	ASSERT_EQ(0, activate(self)) TH_LOG("%s", self->out);
	EXPECT_LT(resets, npo_test_reset_count(self->name));
	EXPECT_EQ(NPO_FW_VERSION(1, 1, 0), reg(self, REG_FW_VERSION));
	EXPECT_EQ(SLOT_A, FLASH_RUNNING(reg(self, REG_FLASH_STATE)));
	EXPECT_EQ(0, FLASH_PENDING(reg(self, REG_FLASH_STATE)));
	EXPECT_INFO("running", "fw", "1.1.0");
	EXPECT_ATTR("fw_version", "1.1.0");
	EXPECT_ATTR("flash/running", "a");
	EXPECT_ATTR("flash/last_boot", "ok");
	EXPECT_ATTR("state", "ready");

	/* The next image goes to the other slot; A stays to fall back to. */
	ASSERT_EQ(0, make_version(self, "1.2", 1, 2));
	ASSERT_EQ(0, flash(self, "1.2")) TH_LOG("%s", self->out);
	EXPECT_EQ(SLOT_B, FLASH_PENDING(reg(self, REG_FLASH_STATE)));
	EXPECT_INFO("stored", "fw.slot_a", "1.1.0");
	EXPECT_INFO("stored", "fw.slot_b", "1.2.0");
	ASSERT_EQ(0, activate(self)) TH_LOG("%s", self->out);
	EXPECT_EQ(NPO_FW_VERSION(1, 2, 0), reg(self, REG_FW_VERSION));
	EXPECT_EQ(SLOT_B, FLASH_RUNNING(reg(self, REG_FLASH_STATE)));
	EXPECT_EQ(SLOT_B, FLASH_ACTIVE(reg(self, REG_FLASH_STATE)));
	EXPECT_ATTR("flash/running", "b");
	EXPECT_ATTR("flash/slot_a", "1.1.0");
	EXPECT_ATTR("flash/slot_b", "1.2.0");
	EXPECT_INFO("running", "fw", "1.2.0");
	expect_npoctl_flash(_metadata, self, "b", "1.1.0", "1.2.0");

	EXPECT_EQ(self->other_resets, other_resets(self));

	/* A driver reload keeps what the flash boots, not /lib/firmware's. */
	ASSERT_EQ(0, npo_test_reload(""));
	EXPECT_ATTR("fw_version", "1.2.0");
	EXPECT_ATTR("flash/running", "b");
}

TEST_F(flash, an_image_that_does_not_come_up_falls_back)
{
	char log[65536];
	size_t mark;
	long long s;

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, make_version(self, "1.1", 1, 1));
	ASSERT_EQ(0, flash(self, "1.1")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, activate(self)) TH_LOG("%s", self->out);
	ASSERT_EQ(NPO_FW_VERSION(1, 1, 0), reg(self, REG_FW_VERSION));

	ASSERT_EQ(0, make_version(self, "1.2", 1, 2));
	ASSERT_EQ(0, flash(self, "1.2")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, npo_test_fault(self->index, "fwbootfail"));
	mark = npo_test_dmesg_mark();
	EXPECT_NE(0, activate(self));
	EXPECT_NE(NULL, strstr(self->out, "did not come up")) TH_LOG("%s", self->out);
	s = reg(self, REG_FLASH_STATE);
	EXPECT_TRUE(s & FLASH_FELL_BACK);
	EXPECT_EQ(SLOT_B, FLASH_FAILED(s));
	EXPECT_EQ(SLOT_A, FLASH_RUNNING(s));
	EXPECT_EQ(SLOT_A, FLASH_ACTIVE(s));
	EXPECT_EQ(NPO_FW_VERSION(1, 1, 0), reg(self, REG_FW_VERSION));
	EXPECT_INFO("running", "fw", "1.1.0");
	/* The next reset boots what runs, not the failed image again. */
	EXPECT_INFO("stored", "fw", "1.1.0");
	EXPECT_ATTR("state", "ready");
	EXPECT_ATTR("flash/running", "a");
	EXPECT_ATTR("flash/last_boot", "slot b did not boot: no sign of life after start");
	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "firmware in flash slot b did not come up"))
		TH_LOG("%s", log);

	/* Bits of a stored image rot: the device boots the other slot. */
	ASSERT_EQ(0, flash(self, "1.2")) TH_LOG("%s", self->out);
	ASSERT_EQ(NPO_FW_VERSION(1, 2, 0), reg(self, REG_SLOT_B_VERSION));
	ASSERT_EQ(0, npo_test_fault(self->index, "flashcorrupt b"));
	EXPECT_EQ(0, reg(self, REG_SLOT_B_VERSION));
	EXPECT_INFO("stored", "fw.slot_b", "");
	EXPECT_NE(0, activate(self));
	s = reg(self, REG_FLASH_STATE);
	EXPECT_EQ(SLOT_A, FLASH_RUNNING(s));
	EXPECT_EQ(SLOT_B, FLASH_FAILED(s));
	EXPECT_ATTR("flash/last_boot", "slot b did not boot: CRC mismatch");
	EXPECT_INFO("running", "fw", "1.1.0");

	/* Nothing new to activate is refused, and nothing is reset. */
	s = npo_test_reset_count(self->name);
	EXPECT_NE(0, activate(self));
	EXPECT_NE(NULL, strstr(self->out, "no new firmware waits")) TH_LOG("%s", self->out);
	EXPECT_EQ(s, npo_test_reset_count(self->name));
	EXPECT_EQ(self->other_resets, other_resets(self));
}

/* Each bad file: refused with its reason, flash and device untouched. */
static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(flash) *self, const char *name,
			   const char *reason)
{
	long long before[4], after[4];
	long long resets = npo_test_reset_count(self->name);
	int i;

	flash_regs(self, before);
	EXPECT_NE(0, flash(self, name)) TH_LOG("%s was flashed", name);
	EXPECT_NE(NULL, strstr(self->out, reason))
		TH_LOG("%s: %s", name, self->out);
	flash_regs(self, after);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(before[i], after[i]) TH_LOG("%s: register %d", name, i);
	EXPECT_EQ(resets, npo_test_reset_count(self->name));
	EXPECT_ATTR("state", "ready");
}

TEST_F(flash, bad_files_are_refused_before_anything_is_written)
{
	struct npo_fw_section *sec;
	struct npo_fw_target *t;
	char log[65536];
	size_t mark;

	NPO_TEST_SETUP_DONE();

	/*
	 * Both slots hold an image that booted, so a refused file is aimed
	 * at a slot with something in it (A): a device that wrote before it
	 * checked would change SLOT_A_VERSION.
	 */
	ASSERT_EQ(0, make_version(self, "1.1", 1, 1));
	ASSERT_EQ(0, flash(self, "1.1")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, activate(self)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, make_version(self, "1.2", 1, 2));
	ASSERT_EQ(0, flash(self, "1.2")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, activate(self)) TH_LOG("%s", self->out);
	ASSERT_EQ(NPO_FW_VERSION(1, 1, 0), reg(self, REG_SLOT_A_VERSION));
	ASSERT_EQ(NPO_FW_VERSION(1, 2, 0), reg(self, REG_SLOT_B_VERSION));
	ASSERT_EQ(SLOT_B, FLASH_ACTIVE(reg(self, REG_FLASH_STATE)));
	/* The refused images are 1.3.0: a write would show as 1.3.0. */
	hdr(self)->fw_version = htole32(NPO_FW_VERSION(1, 3, 0));
	reseal(self);

	/* A payload bit flipped in transit. */
	self->image[self->len - 1] ^= 0x40;
	ASSERT_EQ(0, save(self, "corrupt", self->len));
	expect_refused(_metadata, self, "corrupt", "CRC mismatch");
	self->image[self->len - 1] ^= 0x40;

	ASSERT_EQ(0, save(self, "truncated", self->len - 8));
	expect_refused(_metadata, self, "truncated", "not a valid NPO firmware image");

	memcpy(self->image, "\x7f" "ELF", 4);
	ASSERT_EQ(0, save(self, "elf", self->len));
	expect_refused(_metadata, self, "elf", "not a valid NPO firmware image");
	hdr(self)->magic = htole32(NPO_FW_MAGIC);

	/* An image for another part. */
	sec = section(self, NPO_FW_SEC_TARGET);
	ASSERT_NE(NULL, sec);
	t = (void *)(self->image + le32toh(sec->offset));
	t->device = htole16(0x4e51);
	reseal(self);
	ASSERT_EQ(0, save(self, "other", self->len));
	mark = npo_test_dmesg_mark();
	expect_refused(_metadata, self, "other", "the image is for another device");
	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "for PCI device 1234:4e51, this is 1234:4e50"))
		TH_LOG("%s", log);
	t->device = htole16(0x4e50);

	/* An image that names no device loads, but is not flashed. */
	sec->type = htole32(99);
	reseal(self);
	ASSERT_EQ(0, save(self, "untargeted", self->len));
	expect_refused(_metadata, self, "untargeted", "names no target device");
	sec->type = htole32(NPO_FW_SEC_TARGET);

	/*
	 * What only the device checks: a preset with a reserved byte set
	 * passes the driver, and the device refuses it before writing.
	 */
	sec = section(self, NPO_FW_SEC_EQ_PRESETS);
	ASSERT_NE(NULL, sec);
	self->image[le32toh(sec->offset) + 1] = 1;
	reseal(self);
	ASSERT_EQ(0, save(self, "badsection", self->len));
	mark = npo_test_dmesg_mark();
	expect_refused(_metadata, self, "badsection", "the device refused the image");
	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "bad section")) TH_LOG("%s", log);
	self->image[le32toh(sec->offset) + 1] = 0;

	/* Nothing pending after all that; a good 1.3.0 then goes to A. */
	EXPECT_EQ(0, FLASH_PENDING(reg(self, REG_FLASH_STATE)));
	ASSERT_EQ(0, make_version(self, "1.3", 1, 3));
	ASSERT_EQ(0, flash(self, "1.3")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, activate(self)) TH_LOG("%s", self->out);
	EXPECT_INFO("running", "fw", "1.3.0");
	EXPECT_EQ(SLOT_A, FLASH_RUNNING(reg(self, REG_FLASH_STATE)));
	EXPECT_EQ(self->other_resets, other_resets(self));
}

TEST_HARNESS_MAIN
