// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO character device /dev/npoN and its ioctls.
 */
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_job.h"
#include "npo_link.h"
#include "npo_queue.h"
#include "npo_timesync.h"

static dev_t npo_devt;

static struct class npo_class = {
	.name = NPO_DRIVER_NAME,
};

/**
 * npo_fill_info() - describe a device for NPO_IOCTL_GET_INFO
 * @ndev: the device; its PCI device must still be present.
 * @info: filled in; the caller has zeroed it.
 */
void npo_fill_info(struct npo_dev *ndev, struct npo_dev_info *info)
{
	struct pci_dev *pdev = ndev->pdev;

	info->uapi_version = NPO_UAPI_VERSION;
	info->hw_if_version = ndev->hw_if_version;
	if (ndev->caps & NPO_CAPS_FW_MAILBOX)
		info->caps |= NPO_CAP_FW_MAILBOX;
	if (ndev->caps & NPO_CAPS_AER)
		info->caps |= NPO_CAP_AER;
	if (ndev->caps & NPO_CAPS_QUEUES)
		info->caps |= NPO_CAP_QUEUES;
	info->serial = ndev->serial;
	info->node_id = ndev->node_id;
	info->state = npo_state(ndev);
	info->fw_version = READ_ONCE(ndev->fw_version);
	info->num_ports = ndev->num_ports;
	info->lanes_per_port = ndev->lanes_per_port;
	info->num_queues = ndev->num_queues;
	info->pci_domain = pci_domain_nr(pdev->bus);
	info->pci_bus = pdev->bus->number;
	info->pci_devfn = pdev->devfn;
	info->minor = ndev->minor;
}

static int npo_ioctl_get_info(struct npo_file *nfile, void *data)
{
	struct npo_dev_info *info = data;

	if (info->flags || info->pad)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	npo_fill_info(nfile->ndev, info);
	return 0;
}

/* A device-wide fact, from what GET_INFO reports. */
static int npo_get_dev_param(struct npo_dev *ndev, u32 param, u32 index,
			     u64 *value)
{
	struct npo_dev_info info = {};

	npo_fill_info(ndev, &info);
	switch (param) {
	case NPO_PARAM_UAPI_VERSION:
		*value = info.uapi_version;
		break;
	case NPO_PARAM_HW_IF_VERSION:
		*value = info.hw_if_version;
		break;
	case NPO_PARAM_CAPS:
		*value = info.caps;
		break;
	case NPO_PARAM_SERIAL:
		*value = info.serial;
		break;
	case NPO_PARAM_NODE_ID:
		*value = info.node_id;
		break;
	case NPO_PARAM_STATE:
		*value = info.state;
		break;
	case NPO_PARAM_FW_VERSION:
		*value = info.fw_version;
		break;
	case NPO_PARAM_NUM_PORTS:
		*value = info.num_ports;
		break;
	case NPO_PARAM_LANES_PER_PORT:
		*value = info.lanes_per_port;
		break;
	case NPO_PARAM_NUM_QUEUES:
		*value = info.num_queues;
		break;
	case NPO_PARAM_DOORBELL_STRIDE:
		*value = ndev->db_stride;
		break;
	case NPO_PARAM_NUM_IRQ_VECTORS:
		*value = ndev->num_vectors;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int npo_get_port_param(struct npo_dev *ndev, u32 param, u32 index,
			      u64 *value)
{
	if (!ndev->ports || index >= ndev->num_ports)
		return -EINVAL;
	/* A user's index: no speculation past the check either. */
	index = array_index_nospec(index, ndev->num_ports);
	return npo_port_get_param(&ndev->ports[index], param, value);
}

/**
 * struct npo_param_desc - how GET_PARAM answers one &enum npo_param
 * @indexed: the fact is per port and the query's index names the port;
 *	otherwise it is device-wide and the index must be 0.
 * @get: reads it.
 */
struct npo_param_desc {
	bool indexed;
	int (*get)(struct npo_dev *ndev, u32 param, u32 index, u64 *value);
};

static const struct npo_param_desc npo_params[] = {
	[NPO_PARAM_UAPI_VERSION] = { .get = npo_get_dev_param },
	[NPO_PARAM_HW_IF_VERSION] = { .get = npo_get_dev_param },
	[NPO_PARAM_CAPS] = { .get = npo_get_dev_param },
	[NPO_PARAM_SERIAL] = { .get = npo_get_dev_param },
	[NPO_PARAM_NODE_ID] = { .get = npo_get_dev_param },
	[NPO_PARAM_STATE] = { .get = npo_get_dev_param },
	[NPO_PARAM_FW_VERSION] = { .get = npo_get_dev_param },
	[NPO_PARAM_NUM_PORTS] = { .get = npo_get_dev_param },
	[NPO_PARAM_LANES_PER_PORT] = { .get = npo_get_dev_param },
	[NPO_PARAM_NUM_QUEUES] = { .get = npo_get_dev_param },
	[NPO_PARAM_DOORBELL_STRIDE] = { .get = npo_get_dev_param },
	[NPO_PARAM_NUM_IRQ_VECTORS] = { .get = npo_get_dev_param },
	[NPO_PARAM_PORT_STATE] = { .indexed = true, .get = npo_get_port_param },
	[NPO_PARAM_PORT_PEER_NODE] = { .indexed = true, .get = npo_get_port_param },
	[NPO_PARAM_PORT_PEER_PORT] = { .indexed = true, .get = npo_get_port_param },
	[NPO_PARAM_PORT_RATE_MBPS] = { .indexed = true, .get = npo_get_port_param },
	[NPO_PARAM_PORT_WIDTH] = { .indexed = true, .get = npo_get_port_param },
};

static int npo_ioctl_get_param(struct npo_file *nfile, void *data)
{
	struct npo_param_query *q = data;
	const struct npo_param_desc *desc;

	if (q->flags || q->pad || q->param >= ARRAY_SIZE(npo_params))
		return -EINVAL;
	/* The table holds function pointers: no speculation past its end. */
	desc = &npo_params[array_index_nospec(q->param, ARRAY_SIZE(npo_params))];
	/* Device-wide facts have no index. */
	if (!desc->get || (!desc->indexed && q->index))
		return -EINVAL;
	return desc->get(nfile->ndev, q->param, q->index, &q->value);
}

/* Queues and regions need running firmware: it owns the device's tables. */
static int npo_dma_ready(struct npo_dev *ndev)
{
	return npo_state(ndev) == NPO_DEV_STATE_READY ? 0 : -EIO;
}

static int npo_ioctl_create_queue(struct npo_file *nfile, void *data)
{
	int err;

	mutex_lock(&nfile->lock);
	err = npo_dma_ready(nfile->ndev);
	if (!err)
		err = npo_queue_create(nfile, data);
	mutex_unlock(&nfile->lock);
	return err;
}

static int npo_ioctl_destroy_queue(struct npo_file *nfile, void *data)
{
	struct npo_queue_destroy *qd = data;
	int err;

	if (qd->flags)
		return -EINVAL;
	mutex_lock(&nfile->lock);
	err = npo_queue_destroy(nfile, qd->queue_id);
	mutex_unlock(&nfile->lock);
	return err;
}

static int npo_ioctl_reg_mr(struct npo_file *nfile, void *data)
{
	return npo_mr_register(nfile, data);
}

static int npo_ioctl_reg_dmabuf(struct npo_file *nfile, void *data)
{
	int err = npo_dma_ready(nfile->ndev);

	return err ? err : npo_mr_register_dmabuf(nfile, data);
}

static int npo_ioctl_dereg_mr(struct npo_file *nfile, void *data)
{
	struct npo_mr_dereg *md = data;
	int err;

	if (md->flags)
		return -EINVAL;
	mutex_lock(&nfile->lock);
	err = npo_mr_deregister(nfile, md->lkey);
	mutex_unlock(&nfile->lock);
	return err;
}

static int npo_ioctl_set_job(struct npo_file *nfile, void *data)
{
	struct npo_job *job = data;

	return job->flags ? -EINVAL : npo_job_set(nfile, job->job);
}

static int npo_ioctl_get_job(struct npo_file *nfile, void *data)
{
	struct npo_job *job = data;

	if (job->flags || job->job)
		return -EINVAL;
	job->job = READ_ONCE(nfile->job);
	return 0;
}

static int npo_ioctl_get_time(struct npo_file *nfile, void *data)
{
	struct npo_fabric_time *t = data;

	if (t->flags)
		return -EINVAL;
	return npo_clock_get_time(nfile->ndev, t);
}

/*
 * The ABI: no argument has implicit padding (the uapi_layout host test
 * builds every UAPI struct with -Wpadded), so i386 and x86-64 processes
 * pass the same bytes, and these sizes are the ones in the ioctl numbers.
 */
static_assert(sizeof(struct npo_dev_info) == 64);
static_assert(sizeof(struct npo_param_query) == 24);
static_assert(sizeof(struct npo_queue_create) == 72);
static_assert(sizeof(struct npo_queue_destroy) == 8);
static_assert(sizeof(struct npo_mr_reg) == 40);
static_assert(sizeof(struct npo_mr_dereg) == 8);
static_assert(sizeof(struct npo_dmabuf_reg) == 56);
static_assert(sizeof(struct npo_job) == 8);
static_assert(sizeof(struct npo_fabric_time) == 40);

/**
 * struct npo_ioctl_desc - how to run one ioctl
 * @cmd: the command as defined in the UAPI header, with today's size.
 * @min_size: the size of the first version of its argument.
 * @fn: the handler; gets a kernel copy of the argument.
 * @changes: it creates or removes something, so the file must have been
 *	opened for writing; the others only read.
 * @pins: it pins user memory, which can wait without bound (a FUSE-backed
 *	range): it runs without the remove_lock and takes it itself once the
 *	pages are pinned, so that removal never waits on a pin.
 */
struct npo_ioctl_desc {
	unsigned int cmd;
	unsigned int min_size;
	int (*fn)(struct npo_file *nfile, void *data);
	bool changes;
	bool pins;
};

static const struct npo_ioctl_desc npo_ioctls[] = {
	[_IOC_NR(NPO_IOCTL_GET_INFO)] = {
		.cmd = NPO_IOCTL_GET_INFO,
		.min_size = sizeof(struct npo_dev_info),
		.fn = npo_ioctl_get_info,
	},
	[_IOC_NR(NPO_IOCTL_GET_PARAM)] = {
		.cmd = NPO_IOCTL_GET_PARAM,
		.min_size = sizeof(struct npo_param_query),
		.fn = npo_ioctl_get_param,
	},
	[_IOC_NR(NPO_IOCTL_CREATE_QUEUE)] = {
		.cmd = NPO_IOCTL_CREATE_QUEUE,
		/* i386 callers built before @rsvd passed 68 bytes. */
		.min_size = offsetofend(struct npo_queue_create, rq_offset),
		.fn = npo_ioctl_create_queue,
		.changes = true,
	},
	[_IOC_NR(NPO_IOCTL_DESTROY_QUEUE)] = {
		.cmd = NPO_IOCTL_DESTROY_QUEUE,
		.min_size = sizeof(struct npo_queue_destroy),
		.fn = npo_ioctl_destroy_queue,
		.changes = true,
	},
	[_IOC_NR(NPO_IOCTL_REG_MR)] = {
		.cmd = NPO_IOCTL_REG_MR,
		.min_size = sizeof(struct npo_mr_reg),
		.fn = npo_ioctl_reg_mr,
		.changes = true,
		.pins = true,
	},
	[_IOC_NR(NPO_IOCTL_DEREG_MR)] = {
		.cmd = NPO_IOCTL_DEREG_MR,
		.min_size = sizeof(struct npo_mr_dereg),
		.fn = npo_ioctl_dereg_mr,
		.changes = true,
	},
	[_IOC_NR(NPO_IOCTL_REG_DMABUF)] = {
		.cmd = NPO_IOCTL_REG_DMABUF,
		.min_size = sizeof(struct npo_dmabuf_reg),
		.fn = npo_ioctl_reg_dmabuf,
		.changes = true,
	},
	[_IOC_NR(NPO_IOCTL_SET_JOB)] = {
		.cmd = NPO_IOCTL_SET_JOB,
		.min_size = sizeof(struct npo_job),
		.fn = npo_ioctl_set_job,
		.changes = true,
	},
	[_IOC_NR(NPO_IOCTL_GET_JOB)] = {
		.cmd = NPO_IOCTL_GET_JOB,
		.min_size = sizeof(struct npo_job),
		.fn = npo_ioctl_get_job,
	},
	[_IOC_NR(NPO_IOCTL_GET_TIME)] = {
		.cmd = NPO_IOCTL_GET_TIME,
		.min_size = sizeof(struct npo_fabric_time),
		.fn = npo_ioctl_get_time,
	},
};

union npo_ioctl_arg {
	struct npo_dev_info info;
	struct npo_param_query param;
	struct npo_queue_create queue_create;
	struct npo_queue_destroy queue_destroy;
	struct npo_mr_reg mr_reg;
	struct npo_mr_dereg mr_dereg;
	struct npo_dmabuf_reg dmabuf_reg;
	struct npo_job job;
	struct npo_fabric_time time;
};

static long npo_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct npo_file *nfile = filp->private_data;
	struct npo_dev *ndev = nfile->ndev;
	void __user *uarg = (void __user *)arg;
	const struct npo_ioctl_desc *desc;
	unsigned int nr = _IOC_NR(cmd);
	unsigned int usize = _IOC_SIZE(cmd), ksize;
	union npo_ioctl_arg karg;
	int err;

	if (_IOC_TYPE(cmd) != NPO_IOCTL_MAGIC || nr >= ARRAY_SIZE(npo_ioctls))
		return -ENOTTY;
	desc = &npo_ioctls[array_index_nospec(nr, ARRAY_SIZE(npo_ioctls))];
	/* The direction must match; the size may be older or newer. */
	if (!desc->fn || _IOC_DIR(cmd) != _IOC_DIR(desc->cmd))
		return -ENOTTY;
	/* As write(2) on a file opened read-only. */
	if (desc->changes && !(filp->f_mode & FMODE_WRITE))
		return -EBADF;
	ksize = _IOC_SIZE(desc->cmd);
	if (usize < desc->min_size)
		return -EINVAL;

	/* Newer fields this kernel does not know must be zero. */
	err = copy_struct_from_user(&karg, ksize, uarg, usize);
	if (err)
		return err == -E2BIG ? -EINVAL : err;

	/*
	 * A user whose queues keep being refused waits for a new one, before
	 * the remove_lock, which removal must not wait on for a penalty.
	 */
	if (nr == _IOC_NR(NPO_IOCTL_CREATE_QUEUE)) {
		err = npo_job_throttle(nfile);
		if (err)
			return err;
	}

	if (desc->pins) {
		err = desc->fn(nfile, &karg);
	} else {
		down_read(&ndev->remove_lock);
		if (ndev->pdev) {
			err = desc->fn(nfile, &karg);
			npo_dbg(ndev, IOCTL, "ioctl 0x%02x: %d\n", nr, err);
		} else {
			err = -ENODEV;
		}
		up_read(&ndev->remove_lock);
	}
	if (!err && (_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, &karg, min(usize, ksize)))
		err = -EFAULT;
	return err;
}

/*
 * Without the remove_lock: removal detaches the file first, under the
 * file's lock, and faults look at that.
 */
static int npo_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct npo_file *nfile = filp->private_data;
	int err;

	mutex_lock(&nfile->lock);
	err = nfile->detached ? -ENODEV : npo_queue_mmap(nfile, vma);
	mutex_unlock(&nfile->lock);
	return err;
}

static int npo_open(struct inode *inode, struct file *filp)
{
	struct npo_dev *ndev = container_of(inode->i_cdev, struct npo_dev, cdev);
	struct npo_file *nfile;
	int pd, err;

	nfile = kzalloc(sizeof(*nfile), GFP_KERNEL);
	if (!nfile)
		return -ENOMEM;
	/* An open file is a protection domain: a handle of the job's quota. */
	err = npo_quota_charge(ndev, &nfile->cg, RDMACG_RESOURCE_HCA_HANDLE);
	if (err) {
		kfree(nfile);
		return err;
	}
	pd = ida_alloc_range(&ndev->pd_ida, 1, FIELD_MAX(NPO_QC_PD), GFP_KERNEL);
	if (pd < 0) {
		npo_quota_uncharge(ndev, nfile->cg, RDMACG_RESOURCE_HCA_HANDLE);
		kfree(nfile);
		return pd;
	}
	get_device(&ndev->dev);
	nfile->ndev = ndev;
	nfile->pd = pd;
	nfile->mapping = filp->f_mapping;
	nfile->owner = get_pid(task_tgid(current));
	get_task_comm(nfile->comm, current);
	nfile->uid = current_uid();
	nfile->job = npo_job_default();
	mutex_init(&nfile->lock);
	xa_init(&nfile->queues);
	xa_init(&nfile->mrs);
	xa_init(&nfile->finals);
	mutex_lock(&ndev->files_lock);
	/* In opening order, which netlink dumps resume by. */
	nfile->serial = ++ndev->files_opened;
	list_add_tail(&nfile->node, &ndev->files);
	mutex_unlock(&ndev->files_lock);
	filp->private_data = nfile;
	return nonseekable_open(inode, filp);
}

/* Queues first: they stop using the regions before those are unpinned. */
static void npo_file_release_dma(struct npo_file *nfile, bool hw_alive)
{
	npo_queue_release_all(nfile, hw_alive);
	npo_mr_release_all(nfile, hw_alive);
}

/*
 * Closing, or the process being killed, ends everything the file owns,
 * with the device told first so that no DMA is in flight when pages go.
 */
/* Longer than any error recovery takes, short enough not to hang a close. */
#define NPO_RECOVERY_WAIT	(30 * HZ)

static int npo_release(struct inode *inode, struct file *filp)
{
	struct npo_file *nfile = filp->private_data;
	struct npo_dev *ndev = nfile->ndev;
	bool stuck;

	/*
	 * During PCIe error recovery the device may still write to rings and
	 * pages until it is reset, and the recovery then ends every file's
	 * queues and regions itself: wait for it rather than free them now.
	 */
	stuck = !wait_event_timeout(ndev->state_wq,
				    npo_state(ndev) != NPO_DEV_STATE_RESETTING,
				    NPO_RECOVERY_WAIT);
	down_read(&ndev->remove_lock);
	if (stuck && npo_state(ndev) == NPO_DEV_STATE_RESETTING)
		npo_health_stop_stuck(ndev);
	mutex_lock(&nfile->lock);
	if (!nfile->detached)
		npo_file_release_dma(nfile, npo_state(ndev) == NPO_DEV_STATE_READY);
	mutex_unlock(&nfile->lock);
	up_read(&ndev->remove_lock);

	mutex_lock(&ndev->files_lock);
	list_del(&nfile->node);
	mutex_unlock(&ndev->files_lock);
	ida_free(&ndev->pd_ida, nfile->pd);
	npo_quota_uncharge(ndev, nfile->cg, RDMACG_RESOURCE_HCA_HANDLE);
	put_pid(nfile->owner);
	npo_file_free_revoked(nfile);
	xa_destroy(&nfile->queues);
	xa_destroy(&nfile->mrs);
	mutex_destroy(&nfile->lock);
	put_device(&ndev->dev);
	kfree(nfile);
	return 0;
}

/* Every open file's queues and regions, without telling the device. */
static void npo_files_release_locked(struct npo_dev *ndev, bool detach)
{
	struct npo_file *nfile;

	lockdep_assert_held(&ndev->files_lock);
	list_for_each_entry(nfile, &ndev->files, node) {
		mutex_lock(&nfile->lock);
		/* Queues first: they stop using the regions. */
		npo_queue_revoke_all(nfile);
		npo_mr_release_all(nfile, false);
		if (detach)
			nfile->detached = true;
		mutex_unlock(&nfile->lock);
	}
}

/**
 * npo_files_release_dma() - end every open file's queues and regions
 * @ndev: the device, just reset or stopped: its tables are gone and it
 *	does no DMA, so the memory can go without telling it.
 * @detach: the device is being removed; the files stay open but can no
 *	longer map anything.
 *
 * Mappings of the rings and doorbells are revoked: a process touching them
 * finds its queues' final rings (or the stand-in page), and its ioctls
 * report the device's state.
 *
 * Context: under &npo_dev.remove_lock (write) or during error recovery.
 */
void npo_files_release_dma(struct npo_dev *ndev, bool detach)
{
	mutex_lock(&ndev->files_lock);
	npo_files_release_locked(ndev, detach);
	mutex_unlock(&ndev->files_lock);
}

/**
 * npo_files_release_dead() - end every open file's queues, if still dead
 * @ndev: the device, stopped by npo_health_quarantine().
 *
 * The state is checked under &npo_dev.files_lock: a PCIe error recovery
 * that brought the device back meanwhile released the files first, under
 * the same lock, and their new queues are not to be touched.
 *
 * Context: under &npo_dev.remove_lock (read).
 */
void npo_files_release_dead(struct npo_dev *ndev)
{
	mutex_lock(&ndev->files_lock);
	if (npo_state(ndev) == NPO_DEV_STATE_DEAD)
		npo_files_release_locked(ndev, false);
	mutex_unlock(&ndev->files_lock);
}

static const struct file_operations npo_fops = {
	.owner = THIS_MODULE,
	.open = npo_open,
	.release = npo_release,
	.unlocked_ioctl = npo_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = npo_mmap,
};

/**
 * npo_cdev_add() - create /dev/npoN and its sysfs attributes
 * @ndev: the probed device, its index in @ndev->minor.
 *
 * Return: 0 or a negative errno.
 */
int npo_cdev_add(struct npo_dev *ndev)
{
	ndev->dev.class = &npo_class;
	ndev->dev.groups = npo_dev_groups;
	ndev->dev.devt = MKDEV(MAJOR(npo_devt), ndev->minor);
	cdev_init(&ndev->cdev, &npo_fops);
	ndev->cdev.owner = THIS_MODULE;
	return cdev_device_add(&ndev->cdev, &ndev->dev);
}

/**
 * npo_cdev_del() - remove /dev/npoN; open files keep working until closed
 * @ndev: the device.
 */
void npo_cdev_del(struct npo_dev *ndev)
{
	cdev_device_del(&ndev->cdev, &ndev->dev);
}

/**
 * npo_cdev_init() - register the npo class and character device numbers
 *
 * Return: 0 or a negative errno.
 */
int npo_cdev_init(void)
{
	int err;

	err = alloc_chrdev_region(&npo_devt, 0, NPO_MAX_DEVICES,
				  NPO_DRIVER_NAME);
	if (err) {
		pr_err("npo: cannot allocate device numbers (%d)\n", err);
		return err;
	}
	err = class_register(&npo_class);
	if (err) {
		pr_err("npo: cannot register class (%d)\n", err);
		unregister_chrdev_region(npo_devt, NPO_MAX_DEVICES);
	}
	return err;
}

/**
 * npo_cdev_exit() - undo npo_cdev_init()
 */
void npo_cdev_exit(void)
{
	class_unregister(&npo_class);
	unregister_chrdev_region(npo_devt, NPO_MAX_DEVICES);
}
