/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: firmware, loaded at start (npo_fw.c) and kept in the
 * device's A/B flash (npo_fw_flash.c).
 */
#ifndef _NPO_FW_H
#define _NPO_FW_H

#include <linux/types.h>

struct firmware;
struct netlink_ext_ack;
struct npo_dev;

/* npo_fw.c: loading the running image */
int npo_fw_precheck(const struct firmware *fw, const char **why);
int npo_fw_load(struct npo_dev *ndev);
void npo_fw_version_str(char *buf, size_t len, u32 version);

/* npo_fw_flash.c: the A/B flash, update and activation */
void npo_fw_flash_read(struct npo_dev *ndev);
void npo_fw_flash_refresh(struct npo_dev *ndev);
unsigned int npo_fw_flash_next(u32 state);
int npo_fw_flash_update(struct npo_dev *ndev, const struct firmware *fw,
			struct netlink_ext_ack *extack);
int npo_fw_flash_can_activate(struct npo_dev *ndev,
			      struct netlink_ext_ack *extack);
int npo_fw_flash_activate(struct npo_dev *ndev,
			  struct netlink_ext_ack *extack);
int npo_fw_flash_erase(struct npo_dev *ndev, unsigned int slot);
const char *npo_fw_slot_str(unsigned int slot);

#endif /* _NPO_FW_H */
