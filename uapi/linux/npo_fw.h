/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * NPO firmware image format, shared by the image builder, the driver and the
 * device.  All fields are little endian.  See Documentation/hardware.rst,
 * "Firmware image".
 *
 *   +---------------------------+ 0
 *   | struct npo_fw_header      |
 *   +---------------------------+ header_size
 *   | struct npo_fw_section [n] |
 *   +---------------------------+
 *   | section payloads          |
 *   +---------------------------+ total_length
 *
 * crc32 is the IEEE 802.3 CRC-32 (as zlib's crc32()) of the whole image
 * computed with the crc32 field itself set to zero.
 */
#ifndef _UAPI_LINUX_NPO_FW_H
#define _UAPI_LINUX_NPO_FW_H

#include <linux/types.h>

#define NPO_FW_MAGIC		0x464f504eU	/* "NPOF" */
#define NPO_FW_FORMAT_VERSION	1
#define NPO_FW_MAX_SIZE		0x100000	/* 1 MiB */
#define NPO_FW_MAX_SECTIONS	16
#define NPO_FW_NAME_LEN		16

/* Firmware version encoding: major.minor.patch. */
#define NPO_FW_VERSION(maj, min, pat) \
	(((__u32)(maj) << 24) | ((__u32)(min) << 16) | (__u32)(pat))
#define NPO_FW_VERSION_MAJOR(v)	(((v) >> 24) & 0xff)
#define NPO_FW_VERSION_MINOR(v)	(((v) >> 16) & 0xff)
#define NPO_FW_VERSION_PATCH(v)	((v) & 0xffff)

/**
 * struct npo_fw_header - start of every firmware image
 * @magic: NPO_FW_MAGIC.
 * @format_version: NPO_FW_FORMAT_VERSION.
 * @header_size: sizeof(struct npo_fw_header); the section table follows.
 * @fw_version: NPO_FW_VERSION() of this image.
 * @total_length: bytes in the image, header included.
 * @num_sections: entries in the section table, at most NPO_FW_MAX_SECTIONS.
 * @flags: must be 0.
 * @build_time: seconds since the epoch when the image was built.
 * @name: NUL-padded image name.
 * @rsvd: must be 0.
 * @crc32: CRC-32 of the image, see above.
 */
struct npo_fw_header {
	__le32 magic;
	__le16 format_version;
	__le16 header_size;
	__le32 fw_version;
	__le32 total_length;
	__le32 num_sections;
	__le32 flags;
	__le64 build_time;
	char name[NPO_FW_NAME_LEN];
	__le32 rsvd[3];
	__le32 crc32;
};

/**
 * enum npo_fw_section_type - what a section holds
 * @NPO_FW_SEC_INFO: NUL-terminated build description, informational.
 * @NPO_FW_SEC_EQ_PRESETS: array of &struct npo_fw_eq_preset; required.
 * @NPO_FW_SEC_LINK_PARAMS: one &struct npo_fw_link_params; required.
 * @NPO_FW_SEC_TARGET: one &struct npo_fw_target: the device the image is
 *	for.  Optional for FW_LOAD, required to be written to flash.
 */
enum npo_fw_section_type {
	NPO_FW_SEC_INFO = 1,
	NPO_FW_SEC_EQ_PRESETS = 2,
	NPO_FW_SEC_LINK_PARAMS = 3,
	NPO_FW_SEC_TARGET = 4,
};

/**
 * struct npo_fw_section - one entry of the section table
 * @type: &enum npo_fw_section_type.
 * @offset: byte offset of the payload from the start of the image.
 * @length: payload length in bytes.
 * @rsvd: must be 0.
 */
struct npo_fw_section {
	__le32 type;
	__le32 offset;
	__le32 length;
	__le32 rsvd;
};

/**
 * struct npo_fw_eq_preset - a transmitter equalization preset
 * @id: preset number, as used by link training.
 * @pre_cursor_centi_db: pre-shoot in 1/100 dB.
 * @post_cursor_centi_db: de-emphasis in 1/100 dB.
 * @rsvd: must be 0.
 * @rsvd2: must be 0.
 */
struct npo_fw_eq_preset {
	__u8 id;
	__u8 rsvd;
	__le16 pre_cursor_centi_db;
	__le16 post_cursor_centi_db;
	__le16 rsvd2;
};

/**
 * struct npo_fw_link_params - link training parameters
 * @detect_timeout_ms: Detect state timeout.
 * @polling_timeout_ms: Polling state timeout.
 * @config_timeout_ms: Configuration state timeout.
 * @ber_threshold_exp: a lane trains only if its BER is below 10^-exp.
 * @replay_limit: replays of one unit before the link retrains.
 * @rsvd: must be 0.
 */
struct npo_fw_link_params {
	__le16 detect_timeout_ms;
	__le16 polling_timeout_ms;
	__le16 config_timeout_ms;
	__u8 ber_threshold_exp;
	__u8 replay_limit;
	__le32 rsvd[2];
};

/**
 * struct npo_fw_target - the device an image is for
 * @vendor: PCI vendor id, not 0.
 * @device: PCI device id, not 0.
 * @rsvd: must be 0.
 *
 * A device refuses an image that names another (result FW_TARGET), so
 * that a file meant for another part is never written to its flash.
 */
struct npo_fw_target {
	__le16 vendor;
	__le16 device;
	__le32 rsvd;
};

#endif /* _UAPI_LINUX_NPO_FW_H */
