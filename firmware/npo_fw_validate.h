/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Validation of NPO firmware images, shared by npo-fwtool and the QEMU
 * device model so that the tool accepts exactly what the device accepts.
 */
#ifndef NPO_FW_VALIDATE_H
#define NPO_FW_VALIDATE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/npo_fw.h>

enum npo_fw_verdict {
	NPO_FW_VALID = 0,
	NPO_FW_BAD_SIZE,	/* shorter than a header, or over the limit */
	NPO_FW_BAD_MAGIC,
	NPO_FW_BAD_FORMAT,	/* version, header size, length, flags, rsvd */
	NPO_FW_BAD_CRC,
	NPO_FW_BAD_SECTION,	/* out of bounds, overlapping, bad payload */
	NPO_FW_MISSING_SECTION,	/* a required section is absent */
};

/* What a valid image carries that the device uses. */
struct npo_fw_contents {
	uint32_t fw_version;
	char name[NPO_FW_NAME_LEN + 1];
	const struct npo_fw_eq_preset *presets;	/* points into the image */
	unsigned int num_presets;
	struct npo_fw_link_params link;
	const char *info;			/* points into the image */
	int has_target;				/* a TARGET section is there */
	uint16_t target_vendor, target_device;	/* what it names */
};

enum npo_fw_verdict npo_fw_validate(const void *image, size_t len,
				    struct npo_fw_contents *out);
const char *npo_fw_verdict_str(enum npo_fw_verdict v);
uint32_t npo_fw_crc(const void *image, size_t len);

#endif
