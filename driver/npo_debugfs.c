// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO debugfs: /sys/kernel/debug/npo/npoN/, root only, for developers.
 */
#include <linux/debugfs.h>

#include "npo.h"

static struct dentry *npo_debugfs_root;

#define NPO_REG32(_name) { .name = #_name, .offset = NPO_REG_##_name }

static const struct debugfs_reg32 npo_debugfs_regs[] = {
	NPO_REG32(MAGIC),
	NPO_REG32(IF_VERSION),
	NPO_REG32(CAPS),
	NPO_REG32(GEOMETRY),
	NPO_REG32(QUEUES),
	NPO_REG32(DB_LAYOUT),
	NPO_REG32(NODE_ID),
	NPO_REG32(SERIAL_LO),
	NPO_REG32(SERIAL_HI),
	NPO_REG32(SCRATCH),
	NPO_REG32(STATUS),
	NPO_REG32(FW_VERSION),
	NPO_REG32(FW_ERROR),
	NPO_REG32(MBOX_STATUS),
	NPO_REG32(IRQ_STATUS),
	NPO_REG32(IRQ_MASK),
};

/**
 * npo_debugfs_add() - create the device's debugfs directory
 * @ndev: the device, with /dev/npoN created.
 *
 * debugfs is optional: failures are not reported.
 */
void npo_debugfs_add(struct npo_dev *ndev)
{
	struct debugfs_regset32 *regset;

	ndev->debugfs = debugfs_create_dir(dev_name(&ndev->dev),
					   npo_debugfs_root);
	regset = devm_kzalloc(&ndev->pdev->dev, sizeof(*regset), GFP_KERNEL);
	if (!regset)
		return;
	regset->regs = npo_debugfs_regs;
	regset->nregs = ARRAY_SIZE(npo_debugfs_regs);
	regset->base = ndev->regs;
	regset->dev = &ndev->pdev->dev;
	debugfs_create_regset32("regs", 0400, ndev->debugfs, regset);
}

/**
 * npo_debugfs_del() - remove the device's debugfs directory
 * @ndev: the device.
 */
void npo_debugfs_del(struct npo_dev *ndev)
{
	debugfs_remove_recursive(ndev->debugfs);
	ndev->debugfs = NULL;
}

/**
 * npo_debugfs_init() - create /sys/kernel/debug/npo
 */
void npo_debugfs_init(void)
{
	npo_debugfs_root = debugfs_create_dir(NPO_DRIVER_NAME, NULL);
}

/**
 * npo_debugfs_exit() - remove /sys/kernel/debug/npo
 */
void npo_debugfs_exit(void)
{
	debugfs_remove_recursive(npo_debugfs_root);
}
