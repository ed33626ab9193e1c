// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO firmware flash (Documentation/hardware.rst, "Firmware flash"):
 * `devlink dev flash` stages an image in the device, which writes it to the
 * slot it did not boot from only once the whole image checks out; `devlink
 * dev reload action fw_activate` resets the device so that it boots the
 * new slot, and the device falls back to the other slot if the new image
 * does not come up.  The driver checks the file first, so that a wrong or
 * corrupt one is refused with a reason before the device sees a byte.
 */
#include <linux/crc32.h>
#include <linux/dma-mapping.h>
#include <linux/firmware.h>
#include <net/devlink.h>
#include <uapi/linux/npo_fw.h>

#include "npo.h"
#include "npo_fw.h"
#include "npo_health.h"
#include "npo_link.h"
#include "npo_mbox.h"

/**
 * npo_fw_slot_str() - a flash slot as the log and sysfs name it
 * @slot: &enum npo_flash_slot.
 *
 * Return: "a", "b" or "none".
 */
const char *npo_fw_slot_str(unsigned int slot)
{
	return slot == NPO_SLOT_A ? "a" : slot == NPO_SLOT_B ? "b" : "none";
}

/**
 * npo_fw_flash_read() - read what the device's flash holds now
 * @ndev: the device; its registers mapped.
 *
 * A device that reads all ones (gone from the bus, or frozen) leaves the
 * last values in place.
 *
 * Context: under &npo_dev.state_lock; the caller keeps the device from
 * being removed.
 */
void npo_fw_flash_read(struct npo_dev *ndev)
{
	u32 state;

	lockdep_assert_held(&ndev->state_lock);
	if (!(ndev->caps & NPO_CAPS_FLASH))
		return;
	state = npo_rd32(ndev, NPO_REG_FLASH_STATE);
	if (state == U32_MAX)
		return;
	WRITE_ONCE(ndev->flash.state, state);
	WRITE_ONCE(ndev->flash.slot_version[0],
		   npo_rd32(ndev, NPO_REG_SLOT_A_VERSION));
	WRITE_ONCE(ndev->flash.slot_version[1],
		   npo_rd32(ndev, NPO_REG_SLOT_B_VERSION));
}

/**
 * npo_fw_flash_refresh() - npo_fw_flash_read(), taking the state lock
 * @ndev: the device.
 *
 * Context: process context; takes &npo_dev.remove_lock and
 * &npo_dev.state_lock.  Does nothing once the device was removed.
 */
void npo_fw_flash_refresh(struct npo_dev *ndev)
{
	down_read(&ndev->remove_lock);
	if (ndev->pdev) {
		mutex_lock(&ndev->state_lock);
		npo_fw_flash_read(ndev);
		mutex_unlock(&ndev->state_lock);
	}
	up_read(&ndev->remove_lock);
}

/**
 * npo_fw_flash_next() - the slot the next reset boots
 * @state: a FLASH_STATE value.
 *
 * Return: %NPO_SLOT_A, %NPO_SLOT_B or %NPO_SLOT_NONE.
 */
unsigned int npo_fw_flash_next(u32 state)
{
	unsigned int slot = FIELD_GET(NPO_FLASH_STATE_PENDING, state) ?:
			    FIELD_GET(NPO_FLASH_STATE_ACTIVE, state);

	return slot <= NPO_SLOT_B ? slot : NPO_SLOT_NONE;
}

/* The IEEE CRC-32 of the image with its crc32 field taken as zero. */
static u32 npo_fw_image_crc(const u8 *data, size_t size)
{
	static const u8 zero[4];
	const size_t at = offsetof(struct npo_fw_header, crc32);
	u32 crc;

	crc = crc32_le(~0U, data, at);
	crc = crc32_le(crc, zero, sizeof(zero));
	crc = crc32_le(crc, data + at + sizeof(zero), size - at - sizeof(zero));
	return ~crc;
}

/*
 * What the driver can tell about a file before the device sees it: an
 * NPO image, whole, and for this device.  The device checks everything
 * again, sections included, before it writes anything.
 */
static int npo_fw_flash_precheck(struct npo_dev *ndev,
				 const struct firmware *fw,
				 struct netlink_ext_ack *extack)
{
	const struct npo_fw_header *h = (const void *)fw->data;
	const struct npo_fw_section *sec;
	struct npo_fw_target target;
	const char *why = NULL;
	bool found = false;
	u32 n, i;

	if (npo_fw_precheck(fw, &why)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "not a valid NPO firmware image (see the kernel log)");
		npo_err(ndev, "firmware flash refused: %s\n", why);
		return -EINVAL;
	}
	n = le32_to_cpu(h->num_sections);
	if (n > NPO_FW_MAX_SECTIONS ||
	    sizeof(*h) + n * sizeof(*sec) > fw->size) {
		NL_SET_ERR_MSG_MOD(extack, "bad section table in the firmware image");
		return -EINVAL;
	}
	if (npo_fw_image_crc(fw->data, fw->size) != le32_to_cpu(h->crc32)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "firmware image CRC mismatch: the file is corrupt");
		return -EINVAL;
	}
	sec = (const void *)(fw->data + sizeof(*h));
	for (i = 0; i < n; i++) {
		u32 off = le32_to_cpu(sec[i].offset);
		u32 len = le32_to_cpu(sec[i].length);

		if (le32_to_cpu(sec[i].type) != NPO_FW_SEC_TARGET)
			continue;
		if (found || len != sizeof(target) || off > fw->size ||
		    len > fw->size - off) {
			NL_SET_ERR_MSG_MOD(extack, "bad TARGET section in the firmware image");
			return -EINVAL;
		}
		memcpy(&target, fw->data + off, sizeof(target));
		found = true;
	}
	if (!found) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the image names no target device: load it, do not flash it");
		return -EINVAL;
	}
	if (le16_to_cpu(target.vendor) != ndev->pdev->vendor ||
	    le16_to_cpu(target.device) != ndev->pdev->device) {
		npo_err(ndev, "firmware flash refused: the image is for PCI device %04x:%04x, this is %04x:%04x\n",
			le16_to_cpu(target.vendor), le16_to_cpu(target.device),
			ndev->pdev->vendor, ndev->pdev->device);
		NL_SET_ERR_MSG_MOD(extack,
				   "the image is for another device (see the kernel log)");
		return -EINVAL;
	}
	return 0;
}

/* Stage the image in the device, chunk by chunk, and have it written. */
static int npo_fw_flash_write(struct npo_dev *ndev, const struct firmware *fw,
			      struct netlink_ext_ack *extack)
{
	struct device *dev = &ndev->pdev->dev;
	char msg[48];
	u32 args[4], rets[2], slot;
	dma_addr_t dma;
	size_t off, n;
	void *buf;
	int err;

	buf = dma_alloc_coherent(dev, NPO_FLASH_CHUNK_MAX, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	devlink_flash_update_status_notify(ndev->devlink, "Preparing to flash",
					   NULL, 0, 0);
	args[0] = fw->size;
	err = npo_mbox_exec(ndev, NPO_MBOX_OP_FLASH_BEGIN, args, 1, &slot, 1);
	npo_mbox_settle(ndev, NPO_MBOX_OP_FLASH_BEGIN, err);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "the device did not start the flash update");
		goto out;
	}
	snprintf(msg, sizeof(msg), "Staging for flash slot %s",
		 npo_fw_slot_str(slot));
	for (off = 0; off < fw->size; off += n) {
		n = min_t(size_t, fw->size - off, NPO_FLASH_CHUNK_MAX);
		memcpy(buf, fw->data + off, n);
		args[0] = off;
		args[1] = n;
		args[2] = lower_32_bits(dma);
		args[3] = upper_32_bits(dma);
		err = npo_mbox_exec(ndev, NPO_MBOX_OP_FLASH_DATA, args, 4,
				    NULL, 0);
		npo_mbox_settle(ndev, NPO_MBOX_OP_FLASH_DATA, err);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack,
					   "staging the image failed; the flash is unchanged");
			goto out;
		}
		devlink_flash_update_status_notify(ndev->devlink, msg, NULL,
						   off + n, fw->size);
	}
	snprintf(msg, sizeof(msg), "Checking and writing flash slot %s",
		 npo_fw_slot_str(slot));
	devlink_flash_update_status_notify(ndev->devlink, msg, NULL, 0, 0);
	err = npo_mbox_exec(ndev, NPO_MBOX_OP_FLASH_COMMIT, NULL, 0, rets, 2);
	/* Unanswered, it may still be writing: the device is stopped. */
	npo_mbox_settle(ndev, NPO_MBOX_OP_FLASH_COMMIT, err);
	if (err == -ETIMEDOUT) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the device did not answer and was stopped: what the slot holds is unknown");
		goto out;
	} else if (err == -ENOEXEC) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the device refused the image, the flash is unchanged (see log)");
		goto out;
	} else if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "writing the flash failed; the slot the device boots is unchanged");
		goto out;
	}
	npo_info(ndev, "firmware %u.%u.%u written to flash slot %s; it runs after fw_activate or a reset\n",
		 NPO_FW_VERSION_MAJOR(rets[1]), NPO_FW_VERSION_MINOR(rets[1]),
		 NPO_FW_VERSION_PATCH(rets[1]), npo_fw_slot_str(rets[0]));
out:
	dma_free_coherent(dev, NPO_FLASH_CHUNK_MAX, buf, dma);
	return err;
}

/**
 * npo_fw_flash_update() - devlink's flash_update: write an image to flash
 * @ndev: the device.
 * @fw: the file devlink read from /lib/firmware.
 * @extack: where to say why it was refused.
 *
 * What runs now keeps running; the image boots at the next reset.
 *
 * Context: process context; takes &npo_dev.recover_lock, so no restart
 * runs meanwhile.
 * Return: 0, or a negative errno with @extack set.
 */
int npo_fw_flash_update(struct npo_dev *ndev, const struct firmware *fw,
			struct netlink_ext_ack *extack)
{
	enum npo_dev_state state;
	int err;

	if (!(ndev->caps & NPO_CAPS_FLASH)) {
		NL_SET_ERR_MSG_MOD(extack, "this device has no firmware flash");
		return -EOPNOTSUPP;
	}
	mutex_lock(&ndev->recover_lock);
	down_read(&ndev->remove_lock);
	state = npo_state(ndev);
	if (!ndev->pdev || (state != NPO_DEV_STATE_READY &&
			    state != NPO_DEV_STATE_FW_ERROR)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the device is being reset or is stopped; try again when it is ready");
		err = -EBUSY;
		goto out;
	}
	err = npo_fw_flash_precheck(ndev, fw, extack);
	if (!err)
		err = npo_fw_flash_write(ndev, fw, extack);
	mutex_lock(&ndev->state_lock);
	npo_fw_flash_read(ndev);
	mutex_unlock(&ndev->state_lock);
out:
	up_read(&ndev->remove_lock);
	mutex_unlock(&ndev->recover_lock);
	return err;
}

/**
 * npo_fw_flash_can_activate() - is there new firmware to activate?
 * @ndev: the device.
 * @extack: where to say why not.
 *
 * Return: 0, or a negative errno with @extack set.
 */
int npo_fw_flash_can_activate(struct npo_dev *ndev,
			      struct netlink_ext_ack *extack)
{
	u32 pending;
	int err = 0;

	if (!(ndev->caps & NPO_CAPS_FLASH)) {
		NL_SET_ERR_MSG_MOD(extack, "this device has no firmware flash");
		return -EOPNOTSUPP;
	}
	npo_fw_flash_refresh(ndev);
	pending = FIELD_GET(NPO_FLASH_STATE_PENDING, READ_ONCE(ndev->flash.state));
	/* What reload_up is to find running, or to report as failed. */
	ndev->flash.activating = pending;
	if (!pending || pending > NPO_SLOT_B) {
		NL_SET_ERR_MSG_MOD(extack,
				   "no new firmware waits in flash: devlink dev flash one first");
		err = -ENOENT;
	}
	return err;
}

/**
 * npo_fw_flash_activate() - boot the firmware written last
 * @ndev: the device, with a pending slot (npo_fw_flash_can_activate()).
 * @extack: where to say what went wrong.
 *
 * A restart: processes see their queues revoked, as in a recovery.
 *
 * Context: process context.
 * Return: 0 if the new firmware runs; -EIO if it did not come up and the
 * device runs its previous firmware (or none); another negative errno if
 * the device did not come back.
 */
int npo_fw_flash_activate(struct npo_dev *ndev,
			  struct netlink_ext_ack *extack)
{
	unsigned int slot = ndev->flash.activating;
	u32 state, running;
	int err;

	err = npo_health_restart(ndev);
	if (err == -ENODEV || npo_state(ndev) == NPO_DEV_STATE_DEAD) {
		NL_SET_ERR_MSG_MOD(extack, "the device is going away or did not come out of reset");
		return err ?: -ENODEV;
	}
	npo_fw_flash_refresh(ndev);
	state = READ_ONCE(ndev->flash.state);
	running = FIELD_GET(NPO_FLASH_STATE_RUNNING, state);
	if ((state & NPO_FLASH_STATE_FELL_BACK) &&
	    FIELD_GET(NPO_FLASH_STATE_FAILED, state) == slot) {
		if (running == NPO_FW_FROM_SLOT_A || running == NPO_FW_FROM_SLOT_B)
			NL_SET_ERR_MSG_MOD(extack,
					   "the new firmware did not come up: the previous one runs");
		else
			NL_SET_ERR_MSG_MOD(extack,
					   "the new firmware did not come up, nor did the other slot's");
		return -EIO;
	}
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "the device did not come back after the reset");
		return err;
	}
	/* Back like after a recovery: devlink's reporter may report again. */
	npo_fw_health_recovered(ndev);
	return 0;
}

/**
 * npo_fw_flash_erase() - erase a flash slot (debugfs, for tests)
 * @ndev: the device.
 * @slot: %NPO_SLOT_A or %NPO_SLOT_B.
 *
 * What runs keeps running; the next reset boots what is left, or nothing
 * (the driver then loads /lib/firmware's image).
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int npo_fw_flash_erase(struct npo_dev *ndev, unsigned int slot)
{
	u32 arg = slot;
	int err = -ENODEV;

	if (!(ndev->caps & NPO_CAPS_FLASH))
		return -EOPNOTSUPP;
	mutex_lock(&ndev->recover_lock);
	down_read(&ndev->remove_lock);
	if (ndev->pdev) {
		err = npo_mbox_exec(ndev, NPO_MBOX_OP_FLASH_ERASE, &arg, 1,
				    NULL, 0);
		mutex_lock(&ndev->state_lock);
		npo_fw_flash_read(ndev);
		mutex_unlock(&ndev->state_lock);
	}
	up_read(&ndev->remove_lock);
	mutex_unlock(&ndev->recover_lock);
	return err;
}
