// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of firmware image validation, the code the device model runs:
 * the built image is valid, each kind of damage gets its verdict, and no
 * damage at all makes the validator read out of bounds (ASan watches).
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "npo_fw_validate.h"

FIXTURE(image) {
	uint8_t *img;
	size_t len;
};

FIXTURE_SETUP(image)
{
	const char *path = getenv("FWIMAGE");
	FILE *f;

	if (!path)
		path = "build/firmware/npo/npo-fw.bin";
	f = fopen(path, "rb");
	ASSERT_NE(NULL, f) TH_LOG("%s (set FWIMAGE)", path);
	self->img = malloc(NPO_FW_MAX_SIZE);
	ASSERT_NE(NULL, self->img);
	self->len = fread(self->img, 1, NPO_FW_MAX_SIZE, f);
	fclose(f);
}

FIXTURE_TEARDOWN(image)
{
	free(self->img);
}

static struct npo_fw_header *hdr(FIXTURE_DATA(image) *self)
{
	return (struct npo_fw_header *)self->img;
}

static struct npo_fw_section *sec(FIXTURE_DATA(image) *self, int i)
{
	return (struct npo_fw_section *)(self->img + sizeof(struct npo_fw_header)) + i;
}

static void reseal(FIXTURE_DATA(image) *self)
{
	hdr(self)->crc32 = htole32(npo_fw_crc(self->img, self->len));
}

/* Validate a copy of exactly len bytes so ASan sees any overread. */
static enum npo_fw_verdict check(FIXTURE_DATA(image) *self)
{
	struct npo_fw_contents c;
	uint8_t *copy = malloc(self->len ? self->len : 1);
	enum npo_fw_verdict v;

	memcpy(copy, self->img, self->len);
	v = npo_fw_validate(copy, self->len, &c);
	free(copy);
	return v;
}

TEST_F(image, reference_image_valid)
{
	struct npo_fw_contents c;

	ASSERT_EQ(NPO_FW_VALID, npo_fw_validate(self->img, self->len, &c));
	EXPECT_EQ(NPO_FW_VERSION(1, 0, 0), c.fw_version);
	EXPECT_STREQ("npo-ref", c.name);
	EXPECT_EQ(11, c.num_presets);
	EXPECT_EQ(4, c.link.replay_limit);
	EXPECT_EQ(12, le16toh(c.link.detect_timeout_ms));
	EXPECT_NE(NULL, c.info);
	EXPECT_TRUE(c.has_target);
	EXPECT_EQ(0x1234, c.target_vendor);
	EXPECT_EQ(0x4e50, c.target_device);
}

TEST_F(image, size_limits)
{
	size_t len = self->len;

	self->len = 0;
	EXPECT_EQ(NPO_FW_BAD_SIZE, check(self));
	self->len = sizeof(struct npo_fw_header) - 1;
	EXPECT_EQ(NPO_FW_BAD_SIZE, check(self));
	self->len = len;
	EXPECT_EQ(NPO_FW_BAD_SIZE,
		  npo_fw_validate(self->img, NPO_FW_MAX_SIZE + 1,
				  &(struct npo_fw_contents){ 0 }));
}

TEST_F(image, header_damage)
{
	hdr(self)->magic ^= 1;
	EXPECT_EQ(NPO_FW_BAD_MAGIC, check(self));
	hdr(self)->magic ^= 1;

	hdr(self)->format_version = htole16(2);
	EXPECT_EQ(NPO_FW_BAD_FORMAT, check(self));
	hdr(self)->format_version = htole16(NPO_FW_FORMAT_VERSION);

	hdr(self)->flags = htole32(1);
	EXPECT_EQ(NPO_FW_BAD_FORMAT, check(self));
	hdr(self)->flags = 0;

	hdr(self)->rsvd[1] = 1;
	EXPECT_EQ(NPO_FW_BAD_FORMAT, check(self));
	hdr(self)->rsvd[1] = 0;

	hdr(self)->num_sections = htole32(NPO_FW_MAX_SECTIONS + 1);
	EXPECT_EQ(NPO_FW_BAD_FORMAT, check(self));
	hdr(self)->num_sections = htole32(4);

	self->len -= 8;
	EXPECT_EQ(NPO_FW_BAD_FORMAT, check(self));
	self->len += 8;
	EXPECT_EQ(NPO_FW_VALID, check(self));
}

TEST_F(image, crc_detects_any_bit)
{
	size_t i;

	for (i = 0; i < self->len; i += 7) {
		if (i >= offsetof(struct npo_fw_header, crc32) &&
		    i < sizeof(struct npo_fw_header))
			continue;
		self->img[i] ^= 0x40;
		EXPECT_NE(NPO_FW_VALID, check(self)) TH_LOG("byte %zu", i);
		self->img[i] ^= 0x40;
	}
}

TEST_F(image, sections_checked_after_crc)
{
	sec(self, 0)->length = htole32(0x100000);
	reseal(self);
	EXPECT_EQ(NPO_FW_BAD_SECTION, check(self));
}

TEST_F(image, overlapping_sections)
{
	sec(self, 1)->offset = sec(self, 0)->offset;
	reseal(self);
	EXPECT_EQ(NPO_FW_BAD_SECTION, check(self));
}

TEST_F(image, misaligned_section)
{
	sec(self, 2)->offset = htole32(le32toh(sec(self, 2)->offset) + 1);
	reseal(self);
	EXPECT_EQ(NPO_FW_BAD_SECTION, check(self));
}

TEST_F(image, required_section_missing)
{
	/* Turn the presets into an unknown (skipped) section. */
	sec(self, 1)->type = htole32(99);
	reseal(self);
	EXPECT_EQ(NPO_FW_MISSING_SECTION, check(self));
}

TEST_F(image, zero_link_parameter_rejected)
{
	struct npo_fw_link_params *lp =
		(void *)(self->img + le32toh(sec(self, 2)->offset));

	lp->replay_limit = 0;
	reseal(self);
	EXPECT_EQ(NPO_FW_BAD_SECTION, check(self));
}

static struct npo_fw_target *target(FIXTURE_DATA(image) *self)
{
	return (void *)(self->img + le32toh(sec(self, 3)->offset));
}

TEST_F(image, target_checked)
{
	struct npo_fw_contents c;

	ASSERT_EQ(NPO_FW_SEC_TARGET, le32toh(sec(self, 3)->type));
	target(self)->device = 0;
	reseal(self);
	EXPECT_EQ(NPO_FW_BAD_SECTION, check(self));
	target(self)->device = htole16(0x4e50);
	target(self)->rsvd = htole32(1);
	reseal(self);
	EXPECT_EQ(NPO_FW_BAD_SECTION, check(self));
	target(self)->rsvd = 0;
	sec(self, 3)->length = htole32(4);
	reseal(self);
	EXPECT_EQ(NPO_FW_BAD_SECTION, check(self));
	/* A second TARGET, the presets' payload read as one, is refused. */
	sec(self, 3)->length = htole32(sizeof(struct npo_fw_target));
	sec(self, 0)->type = htole32(NPO_FW_SEC_TARGET);
	reseal(self);
	EXPECT_EQ(NPO_FW_BAD_SECTION, check(self));
	/* Without one the image is still valid, for FW_LOAD only. */
	sec(self, 0)->type = htole32(NPO_FW_SEC_INFO);
	sec(self, 3)->type = htole32(99);
	reseal(self);
	ASSERT_EQ(NPO_FW_VALID, npo_fw_validate(self->img, self->len, &c));
	EXPECT_FALSE(c.has_target);
}

/* Random damage, resealed or not: any verdict, but never a bad access. */
TEST_F(image, random_damage_is_safe)
{
	uint8_t *orig = malloc(self->len);
	int round, k;

	memcpy(orig, self->img, self->len);
	srand(1);
	for (round = 0; round < 20000; round++) {
		memcpy(self->img, orig, self->len);
		for (k = 0; k < 1 + rand() % 4; k++)
			self->img[rand() % self->len] = rand();
		if (round & 1)
			reseal(self);
		check(self);
	}
	free(orig);
}

TEST(verdict_strings)
{
	EXPECT_STREQ("valid", npo_fw_verdict_str(NPO_FW_VALID));
	EXPECT_STREQ("CRC mismatch", npo_fw_verdict_str(NPO_FW_BAD_CRC));
	EXPECT_STREQ("unknown verdict",
		     npo_fw_verdict_str((enum npo_fw_verdict)42));
}

TEST_HARNESS_MAIN
