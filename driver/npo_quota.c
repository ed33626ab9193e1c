// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO quotas: how much of a device one job may hold.  Queue numbers,
 * memory-table slots and protection domains are the device's, shared by
 * every process; without a bound, one user could take them all.  The
 * bound is the rdma cgroup controller's, the one InfiniBand devices use:
 * an administrator or a job scheduler writes
 *
 *   echo "npo0 hca_handle=4 hca_object=64" > /sys/fs/cgroup/JOB/rdma.max
 *
 * and every process of that cgroup together may hold 4 open files
 * (handles, each a protection domain) and 64 queues and regions (objects)
 * on npo0.  Beyond it, open() and the creating ioctls fail with -EAGAIN.
 */
#include "npo.h"
#include "npo_job.h"

#ifdef CONFIG_CGROUP_RDMA

/**
 * npo_quota_init() - make the device known to the rdma cgroup controller
 * @ndev: the device, its index in @ndev->minor.
 *
 * Registered for as long as the structure lives, so that files still open
 * after a removal give back what they hold.
 */
void npo_quota_init(struct npo_dev *ndev)
{
	snprintf(ndev->cg_name, sizeof(ndev->cg_name), "npo%d", ndev->minor);
	ndev->cg_dev.name = ndev->cg_name;
	rdmacg_register_device(&ndev->cg_dev);
}

/**
 * npo_quota_fini() - forget the device; nothing is charged to it any more
 * @ndev: the device.
 */
void npo_quota_fini(struct npo_dev *ndev)
{
	rdmacg_unregister_device(&ndev->cg_dev);
}

/**
 * npo_quota_charge() - count one more handle or object against the caller
 * @ndev: the device.
 * @cg: where the cgroup charged is kept, for npo_quota_uncharge().
 * @what: %RDMACG_RESOURCE_HCA_HANDLE or %RDMACG_RESOURCE_HCA_OBJECT.
 *
 * Context: process context.
 * Return: 0, or -EAGAIN beyond the caller's cgroup's rdma.max.
 */
int npo_quota_charge(struct npo_dev *ndev, struct rdma_cgroup **cg,
		     enum rdmacg_resource_type what)
{
	return rdmacg_try_charge(cg, &ndev->cg_dev, what);
}

/**
 * npo_quota_uncharge() - give back what npo_quota_charge() counted
 * @ndev: the device.
 * @cg: the cgroup it was charged to, or NULL for nothing.
 * @what: as charged.
 */
void npo_quota_uncharge(struct npo_dev *ndev, struct rdma_cgroup *cg,
			enum rdmacg_resource_type what)
{
	if (cg)
		rdmacg_uncharge(cg, &ndev->cg_dev, what);
}

#endif
