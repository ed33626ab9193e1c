// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo: waiting for completions, describing them, and the completions a
 * revoked queue is owed.  This touches only a queue's rings and its event
 * file descriptor, never the driver.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

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
