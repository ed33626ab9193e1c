/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: the mailbox, one command at a time (npo_mbox.c), and its
 * log readers.
 */
#ifndef _NPO_MBOX_H
#define _NPO_MBOX_H

#include <linux/types.h>

struct npo_dev;

void npo_mbox_release(struct npo_dev *ndev, u8 opcode, const u32 *args,
		      unsigned int nargs);
void npo_mbox_settle(struct npo_dev *ndev, u8 opcode, int err);
int npo_mbox_read(struct npo_dev *ndev, u8 opcode, const u32 *args,
		  unsigned int nargs, u32 *ret, unsigned int nret);
int npo_mbox_read_log(struct npo_dev *ndev, u8 opcode, void *log,
		      size_t rec_size, unsigned int max, u32 *lost);
int npo_mbox_exec(struct npo_dev *ndev, u8 opcode, const u32 *args,
		  unsigned int nargs, u32 *ret, unsigned int nret);
void npo_mbox_irq(struct npo_dev *ndev);
const char *npo_mbox_result_str(unsigned int result);

#endif /* _NPO_MBOX_H */
