// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO firmware loading: request_firmware(), then hand the image to the
 * device through the mailbox.  The device validates the image; the driver
 * checks only enough to give a clear message for an obviously wrong file.
 */
#include <linux/dma-mapping.h>
#include <linux/firmware.h>
#include <linux/module.h>
#include <uapi/linux/npo_fw.h>

#include "npo.h"
#include "npo_fw.h"
#include "npo_link.h"
#include "npo_mbox.h"

static char *fw_name = "npo/npo-fw.bin";
module_param(fw_name, charp, 0444);
MODULE_PARM_DESC(fw_name, "Firmware image, relative to /lib/firmware (default: npo/npo-fw.bin)");
MODULE_FIRMWARE("npo/npo-fw.bin");

static void npo_fw_fail(struct npo_dev *ndev, int err, const char *why)
{
	strscpy(ndev->fw_error, why, sizeof(ndev->fw_error));
	npo_err(ndev, "firmware %s: %s (%d); device held safe: no links, no DMA\n",
		fw_name, why, err);
	npo_set_state_from(ndev, NPO_DEV_STATE_RESETTING,
			   NPO_DEV_STATE_FW_ERROR);
}

/**
 * npo_fw_precheck() - is this file an NPO firmware image at all?
 * @fw: the file.
 * @why: set to the reason when it is not.
 *
 * Only enough for a clear message about an obviously wrong file: the
 * device validates the image.
 *
 * Return: 0 or -EINVAL.
 */
int npo_fw_precheck(const struct firmware *fw, const char **why)
{
	const struct npo_fw_header *h = (const void *)fw->data;

	if (fw->size < sizeof(*h) || fw->size > NPO_FW_MAX_SIZE) {
		*why = "file size out of range";
		return -EINVAL;
	}
	if (le32_to_cpu(h->magic) != NPO_FW_MAGIC) {
		*why = "not an NPO firmware image (bad magic)";
		return -EINVAL;
	}
	if (le32_to_cpu(h->total_length) != fw->size) {
		*why = "truncated or padded image (length mismatch)";
		return -EINVAL;
	}
	return 0;
}

/**
 * npo_fw_version_str() - a firmware version as sysfs and devlink show it
 * @buf: where to write it.
 * @len: its size.
 * @version: encoded as in the image; 0 (no firmware) gives "none".
 */
void npo_fw_version_str(char *buf, size_t len, u32 version)
{
	if (!version)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%u.%u.%u", NPO_FW_VERSION_MAJOR(version),
			 NPO_FW_VERSION_MINOR(version),
			 NPO_FW_VERSION_PATCH(version));
}

/*
 * The device booted firmware from its flash: take it as it is.  Returns
 * false if nothing from flash runs, so the caller loads the host's image.
 */
static bool npo_fw_from_flash(struct npo_dev *ndev)
{
	u32 state, seen, version, failed;

	if (!(ndev->caps & NPO_CAPS_FLASH))
		return false;
	seen = READ_ONCE(ndev->flash.state);
	npo_fw_flash_read(ndev);
	state = READ_ONCE(ndev->flash.state);
	failed = FIELD_GET(NPO_FLASH_STATE_FAILED, state);
	/* The device keeps the record of a fallback: say it once. */
	if ((state & NPO_FLASH_STATE_FELL_BACK) && state != seen)
		npo_warn(ndev, "firmware in flash slot %s did not come up: %s\n",
			 npo_fw_slot_str(failed),
			 npo_mbox_result_str(FIELD_GET(NPO_FLASH_STATE_BOOT_ERROR,
						       state)));
	version = npo_rd32(ndev, NPO_REG_FW_VERSION);
	if (!(npo_rd32(ndev, NPO_REG_STATUS) & NPO_STATUS_FW_RUNNING) ||
	    !version)
		return false;
	WRITE_ONCE(ndev->fw_version, version);
	ndev->fw_error[0] = '\0';
	npo_info(ndev, "firmware %u.%u.%u running from flash slot %s%s\n",
		 NPO_FW_VERSION_MAJOR(version), NPO_FW_VERSION_MINOR(version),
		 NPO_FW_VERSION_PATCH(version),
		 npo_fw_slot_str(FIELD_GET(NPO_FLASH_STATE_RUNNING, state)),
		 state & NPO_FLASH_STATE_FELL_BACK ? " (fell back)" : "");
	return true;
}

/**
 * npo_fw_load() - load and start the device firmware
 * @ndev: the device, freshly reset.
 *
 * A device that booted firmware from its flash keeps it; one whose flash
 * holds nothing that came up gets the image in /lib/firmware.
 *
 * On failure the device is left in %NPO_DEV_STATE_FW_ERROR with the reason
 * in @ndev->fw_error; the device itself keeps links and DMA off while no
 * firmware runs.
 *
 * Context: process context, under @ndev->state_lock.
 * Return: 0 if the firmware runs, a negative errno otherwise.
 */
int npo_fw_load(struct npo_dev *ndev)
{
	struct device *dev = &ndev->pdev->dev;
	const struct firmware *fw;
	const char *why = NULL;
	dma_addr_t dma;
	u32 args[3], ret, version;
	void *buf;
	int err;

	lockdep_assert_held(&ndev->state_lock);
	WRITE_ONCE(ndev->fw_version, 0);
	if (npo_fw_from_flash(ndev))
		return 0;

	err = request_firmware(&fw, fw_name, dev);
	if (err) {
		npo_fw_fail(ndev, err, "cannot read image");
		return err;
	}
	err = npo_fw_precheck(fw, &why);
	if (err) {
		npo_fw_fail(ndev, err, why);
		goto out_release;
	}

	buf = dma_alloc_coherent(dev, fw->size, &dma, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		npo_fw_fail(ndev, err, "cannot allocate DMA buffer");
		goto out_release;
	}
	memcpy(buf, fw->data, fw->size);

	args[0] = lower_32_bits(dma);
	args[1] = upper_32_bits(dma);
	args[2] = fw->size;
	err = npo_mbox_exec(ndev, NPO_MBOX_OP_FW_LOAD, args, ARRAY_SIZE(args),
			    &ret, 1);
	npo_mbox_settle(ndev, NPO_MBOX_OP_FW_LOAD, err);
	dma_free_coherent(dev, fw->size, buf, dma);
	if (err == -ETIMEDOUT || err == -EBUSY) {
		npo_fw_fail(ndev, err, "device did not answer");
		goto out_release;
	} else if (err) {
		/* The device latches why it refused the image. */
		u32 result = npo_rd32(ndev, NPO_REG_FW_ERROR);

		npo_fw_fail(ndev, err, npo_mbox_result_str(result));
		goto out_release;
	}

	version = npo_rd32(ndev, NPO_REG_FW_VERSION);
	if (!(npo_rd32(ndev, NPO_REG_STATUS) & NPO_STATUS_FW_RUNNING) ||
	    version != ret) {
		err = -EIO;
		npo_fw_fail(ndev, err, "device accepted the image but does not run it");
		goto out_release;
	}
	WRITE_ONCE(ndev->fw_version, version);
	ndev->fw_error[0] = '\0';
	npo_fw_flash_read(ndev);
	npo_info(ndev, "firmware %s version %u.%u.%u running\n", fw_name,
		 NPO_FW_VERSION_MAJOR(version), NPO_FW_VERSION_MINOR(version),
		 NPO_FW_VERSION_PATCH(version));
out_release:
	release_firmware(fw);
	return err;
}
