// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo: creating and mapping queues, registering memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/*
 * Point the queue at its rings and header indexes where the kernel says
 * they are in the ring memory: user space never assumes the layout.
 */
static void queue_map_rings(struct npo_queue *q, void *ring,
			    const struct npo_queue_create *qc)
{
	char *base = ring;

	q->ring = ring;
	q->ring_size = qc->ring_size;
	q->sqes = (struct npo_sqe *)(base + qc->sq_offset);
	q->cqes = (struct npo_cqe *)(base + qc->cq_offset);
	q->rqes = (struct npo_rqe *)(base + qc->rq_offset);
	q->sq_head = (const uint32_t *)(base + NPO_RING_SQ_HEAD);
	q->cq_tail = (const uint32_t *)(base + NPO_RING_CQ_TAIL);
	q->cq_head = (uint32_t *)(base + NPO_RING_CQ_HEAD);
	q->status = (const uint32_t *)(base + NPO_RING_STATUS);
	q->rq_head = (const uint32_t *)(base + NPO_RING_RQ_HEAD);
	q->sq_mask = qc->sq_entries - 1;
	q->cq_mask = qc->cq_entries - 1;
	/* A queue without receive buffers still has a one-entry ring. */
	q->rq_mask = (qc->rq_entries ? qc->rq_entries : 1) - 1;
}

int npo_create_queue(struct npo_device *dev, const struct npo_queue_attr *attr,
		     struct npo_queue **queue)
{
	struct npo_queue_create qc = { 0 };
	struct npo_queue_destroy qd = { 0 };
	struct npo_queue *q;
	void *ring, *db;
	int err, efd = -1;

	if (!dev || !attr || !queue || (attr->flags & ~NPO_QUEUE_INTERRUPT))
		return -EINVAL;
	qc.sq_entries = attr->sq_entries;
	qc.cq_entries = attr->cq_entries ? attr->cq_entries : attr->sq_entries;
	qc.rq_entries = attr->rq_entries;
	if (attr->flags & NPO_QUEUE_INTERRUPT) {
		efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (efd < 0)
			return -errno;
		qc.flags = NPO_QUEUE_CREATE_EVENTFD;
		qc.eventfd = efd;
	}
	if (ioctl(dev->fd, NPO_IOCTL_CREATE_QUEUE, &qc)) {
		err = -errno;
		npo_log(NPO_LOG_ERR, "%s: cannot create a queue of %u/%u entries: %s",
			dev->name, qc.sq_entries, qc.cq_entries, strerror(-err));
		if (efd >= 0)
			close(efd);
		return err;
	}
	qd.queue_id = qc.queue_id;
	ring = mmap(NULL, qc.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    dev->fd, qc.ring_offset);
	if (ring == MAP_FAILED) {
		err = -errno;
		goto err_destroy;
	}
	db = mmap(NULL, qc.doorbell_size, PROT_WRITE, MAP_SHARED, dev->fd,
		  qc.doorbell_offset);
	if (db == MAP_FAILED) {
		err = -errno;
		goto err_unmap;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		err = -ENOMEM;
		munmap(db, qc.doorbell_size);
		goto err_unmap;
	}
	queue_map_rings(q, ring, &qc);
	q->doorbell = db;
	q->doorbell_size = qc.doorbell_size;
	q->id = qc.queue_id;
	q->node_id = qc.node_id;
	/* The queue joined the device handle's job as it is now. */
	npo_device_job(dev, &q->job);
	q->dev = dev;
	q->event_fd = efd;
	*queue = q;
	return 0;

err_unmap:
	munmap(ring, qc.ring_size);
err_destroy:
	npo_log(NPO_LOG_ERR, "%s: cannot map queue %u: %s", dev->name,
		qc.queue_id, strerror(-err));
	ioctl(dev->fd, NPO_IOCTL_DESTROY_QUEUE, &qd);
	if (efd >= 0)
		close(efd);
	return err;
}

int npo_destroy_queue(struct npo_queue *q)
{
	struct npo_queue_destroy qd = { 0 };
	int err = 0;

	if (!q)
		return 0;
	munmap(q->doorbell, q->doorbell_size);
	munmap(q->ring, q->ring_size);
	qd.queue_id = q->id;
	if (ioctl(q->dev->fd, NPO_IOCTL_DESTROY_QUEUE, &qd))
		err = -errno;
	if (q->event_fd >= 0)
		close(q->event_fd);
	free(q);
	return err;
}

/* The library's handle of a region the driver registered with its keys. */
static int wrap_region(struct npo_device *dev, uint32_t lkey, uint64_t rkey,
		       uint64_t addr, uint64_t length, struct npo_mr **mr)
{
	struct npo_mr *m = calloc(1, sizeof(*m));

	if (!m) {
		struct npo_mr_dereg md = { .lkey = lkey };

		ioctl(dev->fd, NPO_IOCTL_DEREG_MR, &md);
		return -ENOMEM;
	}
	m->dev = dev;
	m->lkey = lkey;
	m->rkey = rkey;
	m->node_id = dev->node_id;
	npo_device_job(dev, &m->job);
	m->addr = addr;
	m->length = length;
	*mr = m;
	return 0;
}

int npo_reg_mr(struct npo_device *dev, void *addr, size_t length,
	       uint32_t access, struct npo_mr **mr)
{
	struct npo_mr_reg reg = {
		.access = access,
		.addr = (uintptr_t)addr,
		.length = length,
	};
	int err;

	if (!dev || !mr)
		return -EINVAL;
	if (ioctl(dev->fd, NPO_IOCTL_REG_MR, &reg)) {
		err = -errno;
		npo_log(NPO_LOG_ERR, "%s: cannot register %zu bytes at %p: %s",
			dev->name, length, addr, strerror(-err));
		return err;
	}
	return wrap_region(dev, reg.lkey, reg.rkey, reg.addr, reg.length, mr);
}

int npo_reg_dmabuf(struct npo_device *dev, int fd, uint64_t offset,
		   size_t length, uint64_t iova, uint32_t access,
		   struct npo_mr **mr)
{
	struct npo_dmabuf_reg reg = {
		.access = access,
		.fd = fd,
		.offset = offset,
		.length = length,
		.iova = iova,
	};
	int err;

	if (!dev || !mr)
		return -EINVAL;
	if (ioctl(dev->fd, NPO_IOCTL_REG_DMABUF, &reg)) {
		err = -errno;
		npo_log(NPO_LOG_ERR, "%s: cannot register dma-buf %d: %s",
			dev->name, fd, strerror(-err));
		return err;
	}
	return wrap_region(dev, reg.lkey, reg.rkey, iova, length, mr);
}

int npo_dereg_mr(struct npo_mr *mr)
{
	struct npo_mr_dereg md = { 0 };
	int err = 0;

	if (!mr)
		return 0;
	md.lkey = mr->lkey;
	if (ioctl(mr->dev->fd, NPO_IOCTL_DEREG_MR, &md))
		err = -errno;
	free(mr);
	return err;
}

uint32_t npo_mr_lkey(const struct npo_mr *mr)
{
	return mr->lkey;
}

uint64_t npo_mr_rkey(const struct npo_mr *mr)
{
	return mr->rkey;
}
