// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO firmware mailbox: one command at a time, completion by interrupt.
 */
#include <linux/jiffies.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_trace.h"

/**
 * struct npo_mbox_result_desc - what a mailbox result code means
 * @name: as the log shows it.
 * @errno: what the caller gets, negative.
 */
struct npo_mbox_result_desc {
	const char *name;
	int errno;
};

static const struct npo_mbox_result_desc npo_mbox_results[] = {
	[NPO_MBOX_OK] = { "success", 0 },
	[NPO_MBOX_ERR_OPCODE] = { "unknown command", -EOPNOTSUPP },
	[NPO_MBOX_ERR_BUSY] = { "mailbox busy", -EBUSY },
	[NPO_MBOX_ERR_DMA] = { "DMA error", -EIO },
	[NPO_MBOX_ERR_FW_SIZE] = { "bad image size", -ENOEXEC },
	[NPO_MBOX_ERR_FW_MAGIC] = { "bad magic", -ENOEXEC },
	[NPO_MBOX_ERR_FW_FORMAT] = { "bad header", -ENOEXEC },
	[NPO_MBOX_ERR_FW_CRC] = { "CRC mismatch", -ENOEXEC },
	[NPO_MBOX_ERR_FW_SECTION] = { "bad section", -ENOEXEC },
	[NPO_MBOX_ERR_FW_MISSING] = { "required section missing", -ENOEXEC },
	[NPO_MBOX_ERR_STATE] = { "device not ready", -EIO },
	[NPO_MBOX_ERR_ARG] = { "argument out of range", -EINVAL },
	[NPO_MBOX_ERR_PERM] = { "not available on this device", -EOPNOTSUPP },
	[NPO_MBOX_ERR_EXISTS] = { "already in use", -EEXIST },
	[NPO_MBOX_ERR_NOENT] = { "no such object", -ENOENT },
	[NPO_MBOX_ERR_NOMEM] = { "out of device memory", -ENOSPC },
	[NPO_MBOX_ERR_FW_TARGET] = { "image is for another device", -ENOEXEC },
	[NPO_MBOX_ERR_FW_BOOT] = { "no sign of life after start", -EIO },
};

static const struct npo_mbox_result_desc *npo_mbox_result(unsigned int result)
{
	static const struct npo_mbox_result_desc unknown = {
		"unknown result", -EIO
	};

	if (result < ARRAY_SIZE(npo_mbox_results) &&
	    npo_mbox_results[result].name)
		return &npo_mbox_results[result];
	return &unknown;
}

/*
 * Answers rather than failures, logged only under dbg_mask: an empty
 * time-sync receive queue, and a time-sync message for a link that went
 * down since time sync last looked (it hears of the link soon after).
 */
static bool npo_mbox_result_expected(u8 opcode, unsigned int result)
{
	return (opcode == NPO_MBOX_OP_TIME_RECV && result == NPO_MBOX_ERR_NOENT) ||
	       (opcode == NPO_MBOX_OP_TIME_SEND && result == NPO_MBOX_ERR_STATE) ||
	       (opcode == NPO_MBOX_OP_LMSG_RECV && result == NPO_MBOX_ERR_NOENT) ||
	       (opcode == NPO_MBOX_OP_LMSG_SEND && result == NPO_MBOX_ERR_STATE);
}

/**
 * npo_mbox_result_str() - describe a mailbox result code
 * @result: &enum npo_mbox_result reported by the device.
 *
 * Return: a constant string.
 */
const char *npo_mbox_result_str(unsigned int result)
{
	return npo_mbox_result(result)->name;
}

/**
 * npo_mbox_irq() - mailbox part of the admin interrupt
 * @ndev: the device.
 */
void npo_mbox_irq(struct npo_dev *ndev)
{
	complete(&ndev->mbox_done);
}

/*
 * A reading (statistics, time sync) is owed to no one by a device that is
 * not ready: it would wait out the timeout of a device being reset, and
 * the reset waits for its reader.  Commands that change what the device
 * holds (create, destroy, firmware) always go through.
 */
static bool npo_mbox_refused(struct npo_dev *ndev, bool reading)
{
	return reading && npo_state(ndev) != NPO_DEV_STATE_READY;
}

static int npo_mbox_run(struct npo_dev *ndev, u8 opcode, const u32 *args,
			unsigned int nargs, u32 *ret, unsigned int nret,
			bool reading)
{
	unsigned long timeout = msecs_to_jiffies(NPO_MBOX_TIMEOUT_MS), left;
	const struct npo_mbox_result_desc *desc;
	unsigned int i, result;
	bool issued = false;
	u32 status;
	int stops, err = 0;

	if (WARN_ON(nargs > NPO_MBOX_NUM_ARGS || nret > NPO_MBOX_NUM_RETS))
		return -EINVAL;
	/* A stopped device answers nothing: do not wait out the timeout. */
	if (npo_state(ndev) == NPO_DEV_STATE_DEAD)
		return -ENODEV;
	if (npo_mbox_refused(ndev, reading))
		return -EAGAIN;

	mutex_lock(&ndev->mbox_lock);
	/*
	 * A stop from here on wakes us and changes @stops; one that came
	 * while we waited for the lock left the device dead, seen below.
	 */
	reinit_completion(&ndev->mbox_done);
	stops = atomic_read(&ndev->stops);
	smp_rmb(); /* pairs with the state change before the count */
	if (npo_state(ndev) == NPO_DEV_STATE_DEAD) {
		err = -ENODEV;
		goto out;
	}
	/* A restart sets its state, then aborts what it finds in flight. */
	if (npo_mbox_refused(ndev, reading)) {
		err = -EAGAIN;
		goto out;
	}
	status = npo_rd32(ndev, NPO_REG_MBOX_STATUS);
	if (status == U32_MAX && npo_health_gone(ndev)) {
		err = -ENODEV;
		goto out;
	}
	if (status & NPO_MBOX_STATUS_BUSY) {
		npo_err(ndev, "mailbox busy before command 0x%02x\n", opcode);
		err = -EBUSY;
		goto out;
	}
	for (i = 0; i < NPO_MBOX_NUM_ARGS; i++)
		npo_wr32(ndev, NPO_REG_MBOX_ARG(i), i < nargs ? args[i] : 0);
	npo_dbg(ndev, MBOX, "command 0x%02x\n", opcode);
	npo_wr32(ndev, NPO_REG_MBOX_CMD, opcode);
	issued = true;

	left = timeout;
	for (;;) {
		left = wait_for_completion_timeout(&ndev->mbox_done, left);
		if (atomic_read(&ndev->stops) != stops)
			break;
		status = npo_rd32(ndev, NPO_REG_MBOX_STATUS);
		if (!(status & NPO_MBOX_STATUS_BUSY)) {
			if (!left)
				npo_warn(ndev, "mailbox command 0x%02x completed without interrupt\n",
					 opcode);
			break;
		}
		if (!left && status == U32_MAX && npo_health_gone(ndev)) {
			err = -ENODEV;
			goto out;
		}
		if (!left) {
			npo_err(ndev, "mailbox command 0x%02x timed out after %u ms\n",
				opcode, NPO_MBOX_TIMEOUT_MS);
			err = -ETIMEDOUT;
			goto out;
		}
		/*
		 * Woken while the device still works on it: the late
		 * interrupt of an earlier command.  Taking its status now
		 * would take "busy" for done, and free what the device uses.
		 */
	}

	/* Stopped meanwhile (reset, bus mastering off): no answer comes. */
	if (atomic_read(&ndev->stops) != stops) {
		err = -ENODEV;
		goto out;
	}
	status = npo_rd32(ndev, NPO_REG_MBOX_STATUS);
	result = FIELD_GET(NPO_MBOX_STATUS_RESULT, status);
	for (i = 0; i < nret; i++)
		ret[i] = npo_rd32(ndev, NPO_REG_MBOX_RET(i));
	desc = npo_mbox_result(result);
	err = desc->errno;
	if (result == NPO_MBOX_OK || npo_mbox_result_expected(opcode, result))
		npo_dbg(ndev, MBOX, "command 0x%02x result %u (%s)\n", opcode,
			result, desc->name);
	else
		dev_warn_ratelimited(&ndev->pdev->dev,
				     "mailbox command 0x%02x failed: %s (result %u, %pe)\n",
				     opcode, desc->name, result, ERR_PTR(err));
out:
	mutex_unlock(&ndev->mbox_lock);
	if (issued)
		trace_npo_mbox_cmd(ndev, opcode, err);
	return err;
}

/**
 * npo_mbox_read() - npo_mbox_exec() for a reading, only of a ready device
 * @ndev: the device.
 * @opcode: &enum npo_mbox_opcode: a command that hands the device no
 *	memory to keep (a reading, a time-sync message).
 * @args: up to %NPO_MBOX_NUM_ARGS argument words.
 * @nargs: number of words in @args.
 * @ret: where to store up to %NPO_MBOX_NUM_RETS result words, or NULL.
 * @nret: number of words to store in @ret.
 *
 * Context: process context; sleeps.
 * Return: as npo_mbox_exec(), and -EAGAIN at once while the device is not
 * ready (being reset, or without firmware).
 */
int npo_mbox_read(struct npo_dev *ndev, u8 opcode, const u32 *args,
		  unsigned int nargs, u32 *ret, unsigned int nret)
{
	return npo_mbox_run(ndev, opcode, args, nargs, ret, nret, true);
}

/**
 * npo_mbox_read_log() - move the oldest records of a device log to @log
 * @ndev: the device.
 * @opcode: %NPO_MBOX_OP_REFUSALS or %NPO_MBOX_OP_QUEUE_ERRORS.
 * @log: where to copy the records.
 * @rec_size: bytes per record.
 * @max: records @log holds; at most a command page's worth.
 * @lost: set to the records the device dropped, its log full, since the
 *	last read.
 *
 * Context: process context; sleeps.
 * Return: the number of records copied, or as npo_mbox_read().
 */
int npo_mbox_read_log(struct npo_dev *ndev, u8 opcode, void *log,
		      size_t rec_size, unsigned int max, u32 *lost)
{
	u32 args[3], rets[2];
	unsigned int n;
	int err;

	if (WARN_ON_ONCE(max * rec_size > PAGE_SIZE))
		return -EINVAL;
	mutex_lock(&ndev->cmd_lock);
	args[0] = lower_32_bits(ndev->cmd_dma);
	args[1] = upper_32_bits(ndev->cmd_dma);
	args[2] = FIELD_PREP(NPO_REFUSALS_MAX, max);
	err = npo_mbox_read(ndev, opcode, args, ARRAY_SIZE(args), rets,
			    ARRAY_SIZE(rets));
	n = err ? 0 : min_t(u32, rets[0], max);
	memcpy(log, ndev->cmd_buf, n * rec_size);
	mutex_unlock(&ndev->cmd_lock);
	if (err)
		return err;
	*lost = rets[1];
	return n;
}

/**
 * npo_mbox_exec() - run one mailbox command and wait for its result
 * @ndev: the device.
 * @opcode: &enum npo_mbox_opcode.
 * @args: up to %NPO_MBOX_NUM_ARGS argument words.
 * @nargs: number of words in @args.
 * @ret: where to store up to %NPO_MBOX_NUM_RETS result words, or NULL.
 * @nret: number of words to store in @ret.
 *
 * Every result but success is logged, rate-limited, with the command; the
 * caller gets the errno the result maps to (Documentation/hardware.rst,
 * "Mailbox results").
 *
 * Context: process context; sleeps.
 * Return: 0 on success; the result's errno (-EINVAL for ARG, -ENOENT for
 * NOENT, -ENOSPC for NOMEM, -EOPNOTSUPP for PERM, -ENOEXEC for a rejected
 * firmware image, -EIO for DMA, STATE or an unknown result, ...) if the
 * device refused the command; -EBUSY if the mailbox was busy; -ETIMEDOUT
 * if the device did not answer; -ENODEV if it is dead or was stopped
 * while the command ran (npo_health.c).
 */
int npo_mbox_exec(struct npo_dev *ndev, u8 opcode, const u32 *args,
		  unsigned int nargs, u32 *ret, unsigned int nret)
{
	return npo_mbox_run(ndev, opcode, args, nargs, ret, nret, false);
}

/**
 * npo_mbox_release() - tell the device to let go of memory, or stop it
 * @ndev: the device.
 * @opcode: a destroy command (QUEUE_DESTROY, MR_DESTROY).
 * @args: its arguments.
 * @nargs: how many.
 *
 * The caller frees the memory next, whatever happens here: when the
 * device does not confirm (any result but success or "no such object",
 * which a device that lost its tables in a reset gives), it is stopped so
 * that it cannot reach that memory any more.
 *
 * Context: process context.
 */
void npo_mbox_release(struct npo_dev *ndev, u8 opcode, const u32 *args,
		      unsigned int nargs)
{
	int err = npo_mbox_exec(ndev, opcode, args, nargs, NULL, 0);

	/* -ENODEV: stopped already, it reaches no memory. */
	if (err && err != -ENOENT && err != -ENODEV) {
		npo_err(ndev, "command 0x%02x did not release memory (%pe)\n",
			opcode, ERR_PTR(err));
		npo_health_quarantine(ndev);
	}
}

/**
 * npo_mbox_settle() - make sure a command is done with its memory
 * @ndev: the device.
 * @opcode: the command.
 * @err: what npo_mbox_exec() returned for it.
 *
 * A command that timed out may still be running and reach the buffer it
 * was given; the device is then stopped.  After this the caller can free
 * the buffer, whatever @err was.
 *
 * Context: process context.
 */
void npo_mbox_settle(struct npo_dev *ndev, u8 opcode, int err)
{
	if (err != -ETIMEDOUT)
		return;
	npo_err(ndev, "command 0x%02x may still use its buffer\n", opcode);
	npo_health_quarantine(ndev);
}
