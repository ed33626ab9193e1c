// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo: creating and mapping queues, registering memory, waiting.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
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

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A completion of status RESET for a descriptor or buffer that had none. */
static void flush_one(struct npo_queue *q, uint32_t *tail, uint64_t wr_id,
		      uint8_t opcode, uint32_t peer_node, uint16_t peer_queue)
{
	struct npo_cqe *c = &q->cqes[*tail & q->cq_mask];

	memset(c, 0, sizeof(*c));
	c->wr_id = wr_id;
	c->status = NPO_STATUS_RESET;
	c->opcode = opcode;
	c->port = NPO_CQE_PORT_NONE;
	c->peer_node = peer_node;
	c->peer_queue = peer_queue;
	++*tail;
}

/*
 * The driver's copy of the stopped queue's rings is ours to write: the
 * completions go after the device's own, in the order the descriptors
 * were posted, then the receive buffers in theirs.
 */
int npo_flush_revoked(struct npo_queue *q)
{
	uint32_t status, tail, head;

	if (!q)
		return -EINVAL;
	status = npo_load_acquire(q->status);
	if (!(status & NPO_QSTAT_REVOKED))
		return -EBUSY;
	if (!(status & NPO_QSTAT_FINAL))
		return -ENODEV;
	if (!q->flushing) {
		/* Never more outstanding than a ring holds, whatever it says. */
		head = npo_load_acquire(q->sq_head);
		q->sq_flushed = q->sq_tail - head > q->sq_mask + 1 ?
				q->sq_tail - q->sq_mask - 1 : head;
		head = npo_load_acquire(q->rq_head);
		q->rq_flushed = q->rq_tail - head > q->rq_mask + 1 ?
				q->rq_tail - q->rq_mask - 1 : head;
		q->flushing = 1;
	}
	tail = npo_load_acquire(q->cq_tail);
	while (q->sq_flushed != q->sq_tail &&
	       tail - q->cq_head_local <= q->cq_mask) {
		const struct npo_sqe *d = &q->sqes[q->sq_flushed & q->sq_mask];
		int to_queue = d->opcode == NPO_OP_SEND ||
			       d->opcode == NPO_OP_WRITE_IMM;

		flush_one(q, &tail, d->wr_id, d->opcode, d->dest_node,
			  to_queue ? d->dest_queue : 0);
		q->sq_flushed++;
	}
	while (q->rq_flushed != q->rq_tail &&
	       tail - q->cq_head_local <= q->cq_mask) {
		flush_one(q, &tail, q->rqes[q->rq_flushed & q->rq_mask].wr_id,
			  NPO_OP_RECV, 0, 0);
		q->rq_flushed++;
	}
	/* The entries are in before the tail that publishes them. */
	npo_store_release((uint32_t *)q->cq_tail, tail);
	return (int)(q->sq_tail - q->sq_flushed + q->rq_tail - q->rq_flushed);
}

/* The next completion of a revoked queue, its flushes included, or NULL. */
static struct npo_cqe *peek_revoked(struct npo_queue *q)
{
	npo_flush_revoked(q);
	return npo_peek_cqe(q);
}

/* Arm, look once more (a completion may have beaten the arming), sleep. */
static int wait_interrupt(struct npo_queue *q, struct npo_cqe **cqe,
			  int64_t end)
{
	struct pollfd pfd = { .fd = q->event_fd, .events = POLLIN };
	uint64_t count;

	for (;;) {
		int64_t left = end - now_ns();
		int ms = end == INT64_MAX ? -1 :
			 left <= 0 ? 0 : (int)((left + 999999) / 1000000);

		npo_arm_cq(q);
		*cqe = npo_peek_cqe(q);
		if (*cqe)
			return 0;
		/*
		 * Revocation wakes the sleeper; nothing else will come but
		 * the flushes.
		 */
		if (npo_queue_revoked(q)) {
			*cqe = peek_revoked(q);
			return *cqe ? 0 : -ENODEV;
		}
		if (ms == 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
			return -errno;
		if (read(q->event_fd, &count, sizeof(count)) < 0 &&
		    errno != EAGAIN)
			return -errno;
		*cqe = npo_peek_cqe(q);
		if (*cqe)
			return 0;
	}
}

/* Spin briefly, then yield or sleep: completions usually come quickly. */
int npo_wait_cqe(struct npo_queue *q, struct npo_cqe **cqe, int timeout_ms)
{
	int64_t end = timeout_ms < 0 ? INT64_MAX :
		      now_ns() + (int64_t)timeout_ms * 1000000;
	unsigned int spins = 0;

	if (!q || !cqe)
		return -EINVAL;
	for (;;) {
		*cqe = npo_peek_cqe(q);
		if (*cqe)
			return 0;
		if (++spins < 1000)
			continue;
		if (npo_queue_revoked(q)) {
			*cqe = peek_revoked(q);
			return *cqe ? 0 : -ENODEV;
		}
		if (q->event_fd >= 0)
			return wait_interrupt(q, cqe, end);
		if (now_ns() >= end)
			return -ETIMEDOUT;
		sched_yield();
	}
}

const char *npo_status_str(uint32_t status)
{
	static const char *const names[] = {
		[NPO_STATUS_OK] = "success",
		[NPO_STATUS_BAD_DESCRIPTOR] = "malformed descriptor",
		[NPO_STATUS_LOCAL_KEY] = "local key names no region of this queue",
		[NPO_STATUS_LOCAL_ACCESS] = "local range or access not allowed",
		[NPO_STATUS_REMOTE_KEY] = "remote key names no region",
		[NPO_STATUS_REMOTE_ACCESS] = "no such region for this job: remote key, range or rights",
		[NPO_STATUS_REMOTE_QUEUE] = "destination queue missing, in error or of another job",
		[NPO_STATUS_UNREACHABLE] = "destination node unreachable",
		[NPO_STATUS_DMA_ERROR] = "host memory error",
		[NPO_STATUS_FLUSHED] = "flushed: the queue was in error",
		[NPO_STATUS_LINK_DOWN] = "the link to the destination is down",
		[NPO_STATUS_RNR] = "receiver not ready: no receive buffer posted",
		[NPO_STATUS_REMOTE_LENGTH] = "receive buffer smaller than the message",
		[NPO_STATUS_RESET] = "not completed: the device was reset or removed",
	};

	if (status < sizeof(names) / sizeof(names[0]) && names[status])
		return names[status];
	return "unknown status";
}

static const char *op_str(uint8_t op)
{
	switch (op) {
	case NPO_OP_NOP: return "nop";
	case NPO_OP_WRITE: return "write";
	case NPO_OP_READ: return "read";
	case NPO_OP_WRITE_IMM: return "write with immediate";
	case NPO_OP_FETCH_ADD: return "fetch-add";
	case NPO_OP_CMP_SWAP: return "compare-swap";
	case NPO_OP_SEND: return "send";
	case NPO_OP_RECV_IMM: return "immediate";
	case NPO_OP_RECV: return "receive";
	}
	return "operation";
}

const char *npo_cqe_describe(const struct npo_queue *q,
			     const struct npo_cqe *c, char *buf, size_t len)
{
	bool in = c->opcode == NPO_OP_RECV || c->opcode == NPO_OP_RECV_IMM;
	char port[24] = "";

	if (!buf || !len)
		return "";
	if (c->port != NPO_CQE_PORT_NONE)
		snprintf(port, sizeof(port), " through port %u", c->port);
	snprintf(buf, len, "%s queue %u: %s %s node %u%s: %s",
		 q && q->dev ? npo_device_name(q->dev) : "npo?",
		 q ? q->id : 0, op_str(c->opcode), in ? "from" : "to",
		 c->peer_node, port, npo_status_str(c->status));
	return buf;
}
