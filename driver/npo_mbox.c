// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO firmware mailbox: one command at a time, completion by interrupt.
 */
#include <linux/jiffies.h>

#include "npo.h"

static const char * const npo_mbox_results[] = {
	[NPO_MBOX_OK] = "success",
	[NPO_MBOX_ERR_OPCODE] = "unknown command",
	[NPO_MBOX_ERR_BUSY] = "mailbox busy",
	[NPO_MBOX_ERR_DMA] = "DMA error",
	[NPO_MBOX_ERR_FW_SIZE] = "bad image size",
	[NPO_MBOX_ERR_FW_MAGIC] = "bad magic",
	[NPO_MBOX_ERR_FW_FORMAT] = "bad header",
	[NPO_MBOX_ERR_FW_CRC] = "CRC mismatch",
	[NPO_MBOX_ERR_FW_SECTION] = "bad section",
	[NPO_MBOX_ERR_FW_MISSING] = "required section missing",
	[NPO_MBOX_ERR_STATE] = "device not ready",
};

/**
 * npo_mbox_result_str() - describe a mailbox result code
 * @result: &enum npo_mbox_result reported by the device.
 *
 * Return: a constant string.
 */
const char *npo_mbox_result_str(unsigned int result)
{
	if (result < ARRAY_SIZE(npo_mbox_results) && npo_mbox_results[result])
		return npo_mbox_results[result];
	return "unknown result";
}

/**
 * npo_mbox_irq() - mailbox part of the admin interrupt
 * @ndev: the device.
 */
void npo_mbox_irq(struct npo_dev *ndev)
{
	complete(&ndev->mbox_done);
}

/**
 * npo_mbox_exec() - run one mailbox command and wait for its result
 * @ndev: the device.
 * @opcode: &enum npo_mbox_opcode.
 * @args: up to four argument words.
 * @nargs: number of words in @args.
 * @ret: where to store up to two result words, or NULL.
 * @nret: number of words to store in @ret.
 *
 * Context: process context; sleeps.
 * Return: 0 on success, -EIO if the device rejected the command (the result
 * code is logged), -ETIMEDOUT if it did not answer.
 */
int npo_mbox_exec(struct npo_dev *ndev, u8 opcode, const u32 *args,
		  unsigned int nargs, u32 *ret, unsigned int nret)
{
	unsigned long timeout = msecs_to_jiffies(NPO_MBOX_TIMEOUT_MS);
	unsigned int i, result;
	u32 status;
	int err = 0;

	if (WARN_ON(nargs > 4 || nret > 2))
		return -EINVAL;

	mutex_lock(&ndev->mbox_lock);
	status = npo_rd32(ndev, NPO_REG_MBOX_STATUS);
	if (status & NPO_MBOX_STATUS_BUSY) {
		npo_err(ndev, "mailbox busy before command 0x%02x\n", opcode);
		err = -EBUSY;
		goto out;
	}
	for (i = 0; i < 4; i++)
		npo_wr32(ndev, NPO_REG_MBOX_ARG(i), i < nargs ? args[i] : 0);
	reinit_completion(&ndev->mbox_done);
	npo_dbg(ndev, MBOX, "command 0x%02x\n", opcode);
	npo_wr32(ndev, NPO_REG_MBOX_CMD, opcode);

	if (!wait_for_completion_timeout(&ndev->mbox_done, timeout)) {
		status = npo_rd32(ndev, NPO_REG_MBOX_STATUS);
		if (status & NPO_MBOX_STATUS_BUSY) {
			npo_err(ndev, "mailbox command 0x%02x timed out after %u ms\n",
				opcode, NPO_MBOX_TIMEOUT_MS);
			err = -ETIMEDOUT;
			goto out;
		}
		npo_warn(ndev, "mailbox command 0x%02x completed without interrupt\n",
			 opcode);
	}

	status = npo_rd32(ndev, NPO_REG_MBOX_STATUS);
	result = FIELD_GET(NPO_MBOX_STATUS_RESULT, status);
	for (i = 0; i < nret; i++)
		ret[i] = npo_rd32(ndev, NPO_REG_MBOX_RET(i));
	npo_dbg(ndev, MBOX, "command 0x%02x result %u (%s)\n", opcode, result,
		npo_mbox_result_str(result));
	if (result != NPO_MBOX_OK)
		err = -EIO;
out:
	mutex_unlock(&ndev->mbox_lock);
	return err;
}
