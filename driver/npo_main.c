// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO supernode interconnect: PCI driver, probe and removal.
 */
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "npo.h"
#include "npo_fw.h"
#include "npo_genl.h"
#include "npo_health.h"
#include "npo_job.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_route.h"
#include "npo_timesync.h"

unsigned int npo_dbg_mask;
module_param_named(dbg_mask, npo_dbg_mask, uint, 0644);
MODULE_PARM_DESC(dbg_mask, "Debug areas to log: 0x1 probe, 0x2 mailbox, 0x4 firmware, 0x8 interrupts, 0x10 ioctls, 0x20 links, 0x40 DMA, 0x80 fabric clock");

/* Device indexes, N of /dev/npoN: held until the last reference goes. */
static DEFINE_IDA(npo_index_ida);
/* Probed devices by index, for netlink requests that name one. */
static DEFINE_XARRAY(npo_devs);

/**
 * npo_dev_get() - find a probed device by its index and take a reference
 * @index: N of /dev/npoN.
 *
 * Return: the device, to be released with put_device(&ndev->dev), or NULL.
 */
struct npo_dev *npo_dev_get(unsigned long index)
{
	struct npo_dev *ndev;

	xa_lock(&npo_devs);
	ndev = xa_load(&npo_devs, index);
	if (ndev)
		get_device(&ndev->dev);
	xa_unlock(&npo_devs);
	return ndev;
}

/**
 * npo_dev_get_next() - the probed device at or after an index, referenced
 * @index: where to look from; set to the index of the device found.
 * @max: the highest index to consider.
 *
 * Return: the device, to be released with put_device(&ndev->dev), or NULL
 * if no device has an index from @index to @max.
 */
struct npo_dev *npo_dev_get_next(unsigned long *index, unsigned long max)
{
	struct npo_dev *ndev;

	xa_lock(&npo_devs);
	ndev = xa_find(&npo_devs, index, max, XA_PRESENT);
	if (ndev)
		get_device(&ndev->dev);
	xa_unlock(&npo_devs);
	return ndev;
}

static void npo_dev_release(struct device *dev)
{
	struct npo_dev *ndev = container_of(dev, struct npo_dev, dev);

	npo_quota_fini(ndev);
	ida_free(&npo_index_ida, ndev->minor);
	ida_destroy(&ndev->pd_ida);
	ida_destroy(&ndev->queue_ida);
	ida_destroy(&ndev->mr_ida);
	npo_job_fini(ndev);
	npo_history_fini(ndev);
	npo_fkey_fini(ndev);
	kfree(ndev);
}

/*
 * A new device with its index.  From here on it is freed by
 * put_device(&ndev->dev), after the last open file is closed, never by
 * kfree().
 */
static struct npo_dev *npo_dev_alloc(struct pci_dev *pdev)
{
	struct npo_dev *ndev;
	int index;

	ndev = kzalloc(sizeof(*ndev), GFP_KERNEL);
	if (!ndev)
		return ERR_PTR(-ENOMEM);
	index = ida_alloc_max(&npo_index_ida, NPO_MAX_DEVICES - 1, GFP_KERNEL);
	if (index < 0) {
		kfree(ndev);
		return ERR_PTR(index);
	}
	ndev->minor = index;
	ndev->pdev = pdev;
	device_initialize(&ndev->dev);
	ndev->dev.parent = &pdev->dev;
	ndev->dev.release = npo_dev_release;
	init_rwsem(&ndev->remove_lock);
	mutex_init(&ndev->state_lock);
	mutex_init(&ndev->mbox_lock);
	init_completion(&ndev->mbox_done);
	init_waitqueue_head(&ndev->state_wq);
	ida_init(&ndev->pd_ida);
	ida_init(&ndev->queue_ida);
	ida_init(&ndev->mr_ida);
	mutex_init(&ndev->files_lock);
	INIT_LIST_HEAD(&ndev->files);
	mutex_init(&ndev->cmd_lock);
	npo_job_init(ndev);
	npo_link_early_init(ndev);
	npo_health_init(ndev);
	npo_history_init(ndev);
	npo_fkey_init(ndev);
	npo_quota_init(ndev);
	/*
	 * Named before anything starts: a link event during probe names the
	 * device in its netlink message, and the clock and workqueue too.
	 */
	if (dev_set_name(&ndev->dev, "npo%d", index)) {
		put_device(&ndev->dev);
		return ERR_PTR(-ENOMEM);
	}
	return ndev;
}

static const char * const npo_state_names[] = {
	[NPO_DEV_STATE_PROBING] = "probing",
	[NPO_DEV_STATE_READY] = "ready",
	[NPO_DEV_STATE_FW_ERROR] = "fw-error",
	[NPO_DEV_STATE_RESETTING] = "resetting",
	[NPO_DEV_STATE_DEAD] = "dead",
};

/**
 * npo_state_str() - name of a device state, as shown in sysfs
 * @state: &enum npo_dev_state.
 *
 * Return: a constant string.
 */
const char *npo_state_str(enum npo_dev_state state)
{
	if (state < ARRAY_SIZE(npo_state_names))
		return npo_state_names[state];
	return "unknown";
}

static void npo_state_changed(struct npo_dev *ndev, enum npo_dev_state old,
			      enum npo_dev_state state)
{
	npo_dbg(ndev, PROBE, "state %s -> %s\n", npo_state_str(old),
		npo_state_str(state));
	wake_up_all(&ndev->state_wq);
}

/**
 * npo_set_state() - move the device to a state, whatever it was in
 * @ndev: the device.
 * @state: the new state.
 *
 * For the states a fault forces: %NPO_DEV_STATE_DEAD and, at the start of
 * a reset, %NPO_DEV_STATE_RESETTING.
 *
 * Context: any, hard interrupts included.
 */
void npo_set_state(struct npo_dev *ndev, enum npo_dev_state state)
{
	enum npo_dev_state old = xchg(&ndev->state, state);

	if (old != state)
		npo_state_changed(ndev, old, state);
}

/**
 * npo_set_state_from() - move the device on from the state it should be in
 * @ndev: the device.
 * @from: the state a start sequence left it in.
 * @to: the state the sequence reached.
 *
 * A fatal error may declare the device dead at any moment, from its
 * interrupt; the start sequence that was running must not bring it back.
 *
 * Context: any.
 * Return: true if the device was in @from and is now in @to.
 */
bool npo_set_state_from(struct npo_dev *ndev, enum npo_dev_state from,
			enum npo_dev_state to)
{
	if (cmpxchg(&ndev->state, from, to) != from)
		return false;
	npo_state_changed(ndev, from, to);
	return true;
}

static irqreturn_t npo_admin_irq(int irq, void *data)
{
	struct npo_dev *ndev = data;
	u32 status = npo_rd32(ndev, NPO_REG_IRQ_STATUS);

	if (!status || status == U32_MAX)
		return IRQ_NONE;
	npo_wr32(ndev, NPO_REG_IRQ_STATUS, status);
	npo_dbg(ndev, IRQ, "admin interrupt, status 0x%x\n", status);

	if (status & NPO_IRQ_MBOX_DONE)
		npo_mbox_irq(ndev);
	if (status & NPO_IRQ_LINK)
		npo_link_irq(ndev);
	if (status & NPO_IRQ_TIME)
		npo_timesync_irq(ndev);
	if (status & NPO_IRQ_LMSG)
		npo_route_irq(ndev);
	if (status & NPO_IRQ_REFUSED)
		npo_refusal_irq(ndev);
	if (status & NPO_IRQ_QUEUE_ERROR)
		npo_queue_error_irq(ndev);
	if (status & NPO_IRQ_FATAL)
		npo_health_fatal(ndev);
	return IRQ_HANDLED;
}

/* Reset the device and wait until it accepts mailbox commands again. */
static int npo_hw_reset(struct npo_dev *ndev)
{
	u32 status;
	int err;

	npo_wr32(ndev, NPO_REG_CONTROL, NPO_CONTROL_RESET);
	err = readl_poll_timeout(ndev->regs + NPO_REG_STATUS, status,
				 status & NPO_STATUS_READY, 100,
				 NPO_RESET_TIMEOUT_MS * USEC_PER_MSEC);
	if (err) {
		npo_err(ndev, "device not ready %u ms after reset (status 0x%x)\n",
			NPO_RESET_TIMEOUT_MS, status);
		return err;
	}
	npo_wr32(ndev, NPO_REG_IRQ_STATUS, U32_MAX);
	npo_wr32(ndev, NPO_REG_IRQ_MASK,
		 NPO_IRQ_MBOX_DONE | NPO_IRQ_FATAL | NPO_IRQ_LINK |
		 (ndev->caps & NPO_CAPS_CLOCK ? NPO_IRQ_TIME : 0) |
		 (ndev->caps & NPO_CAPS_QUEUES ? NPO_IRQ_REFUSED : 0) |
		 (FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
		  NPO_IF_MINOR_QUEUE_ERRORS ? NPO_IRQ_QUEUE_ERROR : 0) |
		 (FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
		  NPO_IF_MINOR_ROUTING ? NPO_IRQ_LMSG : 0));
	return 0;
}

/**
 * npo_hw_start() - reset the device and start its firmware and links
 * @ndev: the device.
 * @selftest: test the links before they carry traffic (a recovery).
 *
 * A firmware failure is not a start failure: the device stays visible,
 * held safe in %NPO_DEV_STATE_FW_ERROR, so that an operator can see why
 * and load a good image.
 *
 * Context: process context; takes &npo_dev.state_lock.
 * Return: 0, or a negative errno if the device did not come out of reset.
 */
int npo_hw_start(struct npo_dev *ndev, bool selftest)
{
	int err;

	mutex_lock(&ndev->state_lock);
	npo_set_state(ndev, NPO_DEV_STATE_RESETTING);
	err = npo_hw_reset(ndev);
	if (err) {
		npo_set_state(ndev, NPO_DEV_STATE_DEAD);
		goto out;
	}
	if (!npo_fw_load(ndev) &&
	    npo_set_state_from(ndev, NPO_DEV_STATE_RESETTING,
			       NPO_DEV_STATE_READY))
		npo_link_start(ndev, selftest);
out:
	mutex_unlock(&ndev->state_lock);
	return err;
}

static void npo_hw_stop(struct npo_dev *ndev)
{
	/* Quiesce: no interrupts, no firmware, nothing in flight. */
	npo_wr32(ndev, NPO_REG_IRQ_MASK, 0);
	npo_link_stop(ndev);
	cancel_work_sync(&ndev->refusal_work);
	npo_queue_error_cancel(ndev);
	/* No DMA either, before any memory it was given is freed. */
	pci_clear_master(ndev->pdev);
	npo_wr32(ndev, NPO_REG_CONTROL, NPO_CONTROL_RESET);
}

/*
 * What the device says it has sizes arrays, indexes registers and bounds
 * what processes may map: a device that lies (a broken or hostile one) is
 * refused rather than believed.
 */
static int npo_check_geometry(struct npo_dev *ndev, u32 stride_shift)
{
	const char *why = NULL;

	if (ndev->num_ports > NPO_DRIVER_MAX_PORTS)
		why = "more ports than the driver handles";
	else if (ndev->num_ports && (!ndev->lanes_per_port ||
				     ndev->lanes_per_port > NPO_MAX_LANES))
		why = "lanes per port out of range";
	else if ((ndev->caps & NPO_CAPS_QUEUES) && !ndev->num_queues)
		why = "DMA queues, but none of them";
	else if (stride_shift < 2 || stride_shift > 31)
		why = "doorbell stride out of range";
	else if ((ndev->caps & NPO_CAPS_CLOCK) &&
		 npo_rd32(ndev, NPO_REG_CLK_MAX_ADJ) > S32_MAX)
		why = "clock adjustment range out of range";
	if (!why)
		return 0;
	npo_err(ndev, "refusing the device: %s (%u ports x %u lanes, %u queues, doorbell stride 2^%u)\n",
		why, ndev->num_ports, ndev->lanes_per_port, ndev->num_queues,
		stride_shift);
	return -ENODEV;
}

static int npo_read_identity(struct npo_dev *ndev)
{
	u32 magic = npo_rd32(ndev, NPO_REG_MAGIC);
	u32 geometry, major, minor, stride_shift;
	int err;

	if (magic != NPO_MAGIC) {
		npo_err(ndev, "unexpected magic 0x%08x, not an NPO device\n",
			magic);
		return -ENODEV;
	}
	ndev->hw_if_version = npo_rd32(ndev, NPO_REG_IF_VERSION);
	major = FIELD_GET(NPO_IF_VERSION_MAJOR, ndev->hw_if_version);
	minor = FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version);
	if (major != NPO_IF_VERSION_SUPPORTED) {
		npo_err(ndev, "register interface %u.%u not supported (need %u.x)\n",
			major, minor, NPO_IF_VERSION_SUPPORTED);
		return -ENODEV;
	}
	ndev->caps = npo_rd32(ndev, NPO_REG_CAPS);
	geometry = npo_rd32(ndev, NPO_REG_GEOMETRY);
	ndev->num_ports = FIELD_GET(NPO_GEOMETRY_PORTS, geometry);
	ndev->lanes_per_port = FIELD_GET(NPO_GEOMETRY_LANES, geometry);
	ndev->num_queues = FIELD_GET(NPO_QUEUES_COUNT,
				     npo_rd32(ndev, NPO_REG_QUEUES));
	stride_shift = FIELD_GET(NPO_DB_LAYOUT_STRIDE_SHIFT,
				 npo_rd32(ndev, NPO_REG_DB_LAYOUT));
	ndev->node_id = npo_rd32(ndev, NPO_REG_NODE_ID);
	err = npo_check_geometry(ndev, stride_shift);
	if (err)
		return err;
	ndev->db_stride = 1U << stride_shift;
	/*
	 * Queues came in 1.3, which sizes the memory table; libnpo resumes a
	 * queue paused for completion room with the doorbell 1.5 added, and
	 * names regions by the 64-bit remote keys of 1.6, which also keeps
	 * jobs apart.
	 */
	if (minor >= NPO_IF_MINOR_QUEUES && (ndev->caps & NPO_CAPS_QUEUES))
		ndev->num_mrs = min_t(u32, npo_rd32(ndev, NPO_REG_MEM_REGIONS),
				      FIELD_MAX(NPO_MR_KEY_INDEX) + 1);
	else if (ndev->caps & NPO_CAPS_QUEUES)
		npo_info(ndev, "interface %u.%u: DMA queues need %u.%u, left off\n",
			 major, minor, NPO_IF_VERSION_SUPPORTED,
			 NPO_IF_MINOR_QUEUES);
	if (ndev->num_mrs < 2)
		ndev->caps &= ~NPO_CAPS_QUEUES;
	ndev->serial = (u64)npo_rd32(ndev, NPO_REG_SERIAL_HI) << 32 |
		       npo_rd32(ndev, NPO_REG_SERIAL_LO);

	if (pci_resource_len(ndev->pdev, NPO_BAR_DOORBELL) <
	    (resource_size_t)ndev->num_queues * ndev->db_stride) {
		npo_err(ndev, "doorbell BAR too small for %u queues\n",
			ndev->num_queues);
		return -ENODEV;
	}
	npo_dbg(ndev, PROBE, "node %u serial %016llx: %u ports x %u lanes, %u queues\n",
		ndev->node_id, ndev->serial, ndev->num_ports,
		ndev->lanes_per_port, ndev->num_queues);
	return 0;
}

static int npo_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct npo_dev *ndev;
	int err;

	ndev = npo_dev_alloc(pdev);
	if (IS_ERR(ndev))
		return PTR_ERR(ndev);
	pci_set_drvdata(pdev, ndev);

	err = pcim_enable_device(pdev);
	if (err) {
		dev_err(&pdev->dev, "cannot enable PCI device (%d)\n", err);
		goto err_free;
	}
	err = npo_devlink_alloc(ndev);
	if (err)
		goto err_free;
	err = pcim_iomap_regions(pdev, BIT(NPO_BAR_REGS) | BIT(NPO_BAR_DOORBELL),
				 NPO_DRIVER_NAME);
	if (err) {
		dev_err(&pdev->dev, "cannot map BARs (%d)\n", err);
		goto err_free;
	}
	ndev->regs = pcim_iomap_table(pdev)[NPO_BAR_REGS];
	ndev->doorbells = pcim_iomap_table(pdev)[NPO_BAR_DOORBELL];
	if (pci_resource_len(pdev, NPO_BAR_REGS) < NPO_REGS_SIZE) {
		dev_err(&pdev->dev, "register BAR too small\n");
		err = -ENODEV;
		goto err_free;
	}

	err = npo_read_identity(ndev);
	if (err)
		goto err_free;
	err = npo_link_init(ndev);
	if (err) {
		npo_err(ndev, "cannot allocate port state (%d)\n", err);
		goto err_free;
	}

	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		npo_err(ndev, "no usable 64-bit DMA (%d)\n", err);
		goto err_free;
	}
	/*
	 * Regions are page lists (npo_mr.c): a mapped segment may be of any
	 * length and cross any boundary, as an exporter's dma-buf often does.
	 */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);
	dma_set_seg_boundary(&pdev->dev, ULONG_MAX);
	pci_set_master(pdev);
	ndev->cmd_buf = dmam_alloc_coherent(&pdev->dev, PAGE_SIZE,
					    &ndev->cmd_dma, GFP_KERNEL);
	if (!ndev->cmd_buf) {
		err = -ENOMEM;
		goto err_free;
	}

	/*
	 * Vector 0 is the admin vector, 1 + q queue q's.  With fewer vectors
	 * the queues without one work in polling mode only.
	 */
	err = pci_alloc_irq_vectors(pdev, 1, 1 + ndev->num_queues, PCI_IRQ_MSIX);
	if (err < 0) {
		npo_err(ndev, "cannot enable MSI-X (%d)\n", err);
		goto err_free;
	}
	ndev->num_vectors = err;
	err = request_irq(pci_irq_vector(pdev, NPO_IRQ_VECTOR_ADMIN),
			  npo_admin_irq, 0, NPO_DRIVER_NAME, ndev);
	if (err) {
		npo_err(ndev, "cannot request admin interrupt (%d)\n", err);
		goto err_vectors;
	}

	/* What slot_reset restores after a PCIe error resets the link. */
	pci_save_state(pdev);

	err = npo_hw_start(ndev, false);
	if (err)
		goto err_irq;

	err = npo_clock_register(ndev);
	if (err) {
		npo_err(ndev, "cannot register the PTP clock (%d)\n", err);
		goto err_stop;
	}
	err = npo_timesync_start(ndev);
	if (err) {
		npo_err(ndev, "cannot start fabric time sync (%d)\n", err);
		goto err_clock;
	}
	err = npo_route_start(ndev);
	if (err) {
		npo_err(ndev, "cannot start routing (%d)\n", err);
		goto err_timesync;
	}
	err = npo_devlink_register(ndev);
	if (err) {
		npo_err(ndev, "cannot register with devlink (%d)\n", err);
		goto err_route;
	}
	npo_fw_health_start(ndev);
	/* Hold the registry slot: nothing may fail once /dev/npoN exists. */
	err = xa_reserve(&npo_devs, ndev->minor, GFP_KERNEL);
	if (err) {
		npo_err(ndev, "cannot register the device (%d)\n", err);
		goto err_devlink;
	}
	err = npo_cdev_add(ndev);
	if (err) {
		npo_err(ndev, "cannot create character device (%d)\n", err);
		goto err_reserved;
	}
	/* Netlink finds the device from here on; a reserved slot takes it. */
	xa_store(&npo_devs, ndev->minor, ndev, GFP_KERNEL);
	npo_debugfs_add(ndev);
	npo_info(ndev, "npo%d: node %u, serial %016llx, %u ports x %u lanes, %s\n",
		 ndev->minor, ndev->node_id, ndev->serial, ndev->num_ports,
		 ndev->lanes_per_port, npo_state_str(npo_state(ndev)));
	return 0;

err_reserved:
	xa_release(&npo_devs, ndev->minor);
err_devlink:
	npo_fw_health_stop(ndev);
	npo_devlink_unregister(ndev);
err_route:
	npo_route_stop(ndev);
err_timesync:
	/* The PHC first: its operations reach into the service. */
	npo_clock_unregister(ndev);
	npo_timesync_stop(ndev);
err_clock:
	/* Nothing if done above. */
	npo_clock_unregister(ndev);
err_stop:
	npo_hw_stop(ndev);
err_irq:
	free_irq(pci_irq_vector(pdev, NPO_IRQ_VECTOR_ADMIN), ndev);
	flush_work(&ndev->dead_work);
err_vectors:
	pci_free_irq_vectors(pdev);
err_free:
	npo_devlink_free(ndev);
	npo_link_fini(ndev);
	pci_set_drvdata(pdev, NULL);
	put_device(&ndev->dev);
	return err;
}

static void npo_remove(struct pci_dev *pdev)
{
	struct npo_dev *ndev = pci_get_drvdata(pdev);

	/* No more reports nor automatic recoveries, and none in progress. */
	npo_fw_health_stop(ndev);
	npo_devlink_unregister(ndev);
	npo_debugfs_del(ndev);
	xa_erase(&npo_devs, ndev->minor);
	npo_cdev_del(ndev);
	/* A PRBS test holds the remove_lock for up to a minute: end it. */
	npo_link_abort_tests(ndev);
	/*
	 * Wait for ioctls and netlink requests in progress; later ones see
	 * no device and no clock.
	 */
	down_write(&ndev->remove_lock);
	npo_route_stop(ndev);
	/*
	 * The PHC before the service its operations reach into: once
	 * unregistered, none is in flight (the PTP core waits for them).
	 */
	npo_clock_unregister(ndev);
	npo_timesync_stop(ndev);
	npo_hw_stop(ndev);
	/* The device does no more DMA: end what open files still hold. */
	npo_files_release_dma(ndev, true);
	free_irq(pci_irq_vector(pdev, NPO_IRQ_VECTOR_ADMIN), ndev);
	pci_free_irq_vectors(pdev);
	npo_link_fini(ndev);
	npo_set_state(ndev, NPO_DEV_STATE_DEAD);
	ndev->pdev = NULL;
	ndev->regs = NULL;
	ndev->doorbells = NULL;
	up_write(&ndev->remove_lock);
	/* A revocation queued before the removal finds nothing left to do. */
	flush_work(&ndev->dead_work);
	npo_devlink_free(ndev);
	pci_set_drvdata(pdev, NULL);
	/* Drops the probe's reference; open files keep ndev until closed. */
	put_device(&ndev->dev);
}

static void npo_shutdown(struct pci_dev *pdev)
{
	struct npo_dev *ndev = pci_get_drvdata(pdev);

	if (!ndev)
		return;
	/*
	 * Time sync first: with interrupts masked each of its commands would
	 * wait out the mailbox timeout.
	 */
	npo_link_abort_tests(ndev);
	/* No heartbeat watch nor recovery restarts it behind our back. */
	npo_fw_health_stop(ndev);
	down_write(&ndev->remove_lock);
	npo_route_stop(ndev);
	npo_timesync_stop(ndev);
	npo_hw_stop(ndev);
	/* Anything asked of it after gets an answer at once, not a timeout. */
	npo_set_state(ndev, NPO_DEV_STATE_DEAD);
	up_write(&ndev->remove_lock);
}

static const struct pci_device_id npo_pci_ids[] = {
	{ PCI_DEVICE(NPO_PCI_VENDOR_ID, NPO_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, npo_pci_ids);

static struct pci_driver npo_pci_driver = {
	.name = NPO_DRIVER_NAME,
	.id_table = npo_pci_ids,
	.probe = npo_probe,
	.remove = npo_remove,
	.shutdown = npo_shutdown,
	.err_handler = &npo_err_handlers,
};

static int __init npo_init(void)
{
	int err;

	err = npo_cdev_init();
	if (err)
		return err;
	npo_debugfs_init();
	err = npo_genl_init();
	if (err) {
		pr_err("npo: cannot register generic netlink family (%d)\n", err);
		goto err_debugfs;
	}
	err = pci_register_driver(&npo_pci_driver);
	if (err) {
		pr_err("npo: cannot register PCI driver (%d)\n", err);
		goto err_genl;
	}
	return 0;

err_genl:
	npo_genl_exit();
err_debugfs:
	npo_debugfs_exit();
	npo_cdev_exit();
	return err;
}

static void __exit npo_exit(void)
{
	pci_unregister_driver(&npo_pci_driver);
	/* After the devices: their removal still sends link events. */
	npo_genl_exit();
	npo_debugfs_exit();
	npo_cdev_exit();
}

module_init(npo_init);
module_exit(npo_exit);

MODULE_DESCRIPTION("NPO supernode interconnect driver");
MODULE_AUTHOR("The NPO developers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
