// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Validation of NPO firmware images: see npo_fw_validate.h and
 * Documentation/hardware.rst, "Firmware image".
 */
#define _DEFAULT_SOURCE
#include <endian.h>
#include <string.h>
#include <zlib.h>

#include "npo_fw_validate.h"

const char *npo_fw_verdict_str(enum npo_fw_verdict v)
{
	switch (v) {
	case NPO_FW_VALID:
		return "valid";
	case NPO_FW_BAD_SIZE:
		return "bad image size";
	case NPO_FW_BAD_MAGIC:
		return "bad magic";
	case NPO_FW_BAD_FORMAT:
		return "bad header";
	case NPO_FW_BAD_CRC:
		return "CRC mismatch";
	case NPO_FW_BAD_SECTION:
		return "bad section";
	case NPO_FW_MISSING_SECTION:
		return "required section missing";
	}
	return "unknown verdict";
}

/* CRC-32 of the image with its crc32 field taken as zero. */
uint32_t npo_fw_crc(const void *image, size_t len)
{
	static const uint8_t zero[4];
	const size_t at = offsetof(struct npo_fw_header, crc32);
	const uint8_t *p = image;
	uLong crc = crc32(0L, Z_NULL, 0);

	crc = crc32(crc, p, at);
	crc = crc32(crc, zero, sizeof(zero));
	crc = crc32(crc, p + at + 4, len - at - 4);
	return (uint32_t)crc;
}

static int all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return 0;
	return 1;
}

static enum npo_fw_verdict check_section(const uint8_t *img,
					 const struct npo_fw_section *s,
					 struct npo_fw_contents *out)
{
	uint32_t off = le32toh(s->offset), len = le32toh(s->length);
	const struct npo_fw_eq_preset *p;
	unsigned int i;

	switch (le32toh(s->type)) {
	case NPO_FW_SEC_INFO:
		if (!len || img[off + len - 1] != '\0')
			return NPO_FW_BAD_SECTION;
		out->info = (const char *)img + off;
		return NPO_FW_VALID;
	case NPO_FW_SEC_EQ_PRESETS:
		if (!len || len % sizeof(*p) || out->presets)
			return NPO_FW_BAD_SECTION;
		p = (const void *)(img + off);
		for (i = 0; i < len / sizeof(*p); i++)
			if (p[i].rsvd || p[i].rsvd2)
				return NPO_FW_BAD_SECTION;
		out->presets = p;
		out->num_presets = len / sizeof(*p);
		return NPO_FW_VALID;
	case NPO_FW_SEC_LINK_PARAMS:
		/* A non-zero replay_limit means a second copy was seen. */
		if (len != sizeof(out->link) || out->link.replay_limit)
			return NPO_FW_BAD_SECTION;
		memcpy(&out->link, img + off, len);
		if (!all_zero(out->link.rsvd, sizeof(out->link.rsvd)) ||
		    !out->link.replay_limit || !out->link.ber_threshold_exp ||
		    !out->link.detect_timeout_ms ||
		    !out->link.polling_timeout_ms ||
		    !out->link.config_timeout_ms)
			return NPO_FW_BAD_SECTION;
		return NPO_FW_VALID;
	case NPO_FW_SEC_TARGET: {
		struct npo_fw_target t;

		if (len != sizeof(t) || out->has_target)
			return NPO_FW_BAD_SECTION;
		memcpy(&t, img + off, len);
		if (!t.vendor || !t.device || t.rsvd)
			return NPO_FW_BAD_SECTION;
		out->has_target = 1;
		out->target_vendor = le16toh(t.vendor);
		out->target_device = le16toh(t.device);
		return NPO_FW_VALID;
	}
	default:
		/* Unknown sections are skipped: newer images stay loadable. */
		return NPO_FW_VALID;
	}
}

enum npo_fw_verdict npo_fw_validate(const void *image, size_t len,
				    struct npo_fw_contents *out)
{
	const uint8_t *img = image;
	const struct npo_fw_header *h = image;
	const struct npo_fw_section *sec;
	uint32_t n, i, j, table_end;
	enum npo_fw_verdict v;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*h) || len > NPO_FW_MAX_SIZE)
		return NPO_FW_BAD_SIZE;
	if (le32toh(h->magic) != NPO_FW_MAGIC)
		return NPO_FW_BAD_MAGIC;
	n = le32toh(h->num_sections);
	if (le16toh(h->format_version) != NPO_FW_FORMAT_VERSION ||
	    le16toh(h->header_size) != sizeof(*h) ||
	    le32toh(h->total_length) != len || h->flags ||
	    !all_zero(h->rsvd, sizeof(h->rsvd)) ||
	    n > NPO_FW_MAX_SECTIONS)
		return NPO_FW_BAD_FORMAT;
	table_end = sizeof(*h) + n * sizeof(*sec);
	if (table_end > len)
		return NPO_FW_BAD_FORMAT;
	if (npo_fw_crc(image, len) != le32toh(h->crc32))
		return NPO_FW_BAD_CRC;

	sec = (const void *)(img + sizeof(*h));
	for (i = 0; i < n; i++) {
		uint32_t off = le32toh(sec[i].offset);
		uint32_t slen = le32toh(sec[i].length);

		/* Payloads are 8-byte aligned so they can be read in place. */
		if (sec[i].rsvd || off % 8 || off < table_end || off > len ||
		    slen > len - off)
			return NPO_FW_BAD_SECTION;
		for (j = 0; j < i; j++) {
			uint32_t o2 = le32toh(sec[j].offset);
			uint32_t l2 = le32toh(sec[j].length);

			if (off < o2 + l2 && o2 < off + slen)
				return NPO_FW_BAD_SECTION;
		}
		v = check_section(img, &sec[i], out);
		if (v != NPO_FW_VALID)
			return v;
	}
	if (!out->presets || !out->link.replay_limit)
		return NPO_FW_MISSING_SECTION;

	out->fw_version = le32toh(h->fw_version);
	memcpy(out->name, h->name, NPO_FW_NAME_LEN);
	out->name[NPO_FW_NAME_LEN] = '\0';
	return NPO_FW_VALID;
}
