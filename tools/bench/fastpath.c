// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost of libnpo's fast path beside liburing's, in instructions, for
 * callgrind: each side's per-message work sits in its own noinline
 * function, whose inclusive cost divided by the message count is the
 * figure.
 *
 * libnpo: get_sqe + prep + submit (the doorbell store) and peek + advance,
 * on rings in plain memory with a thread playing the device.
 * liburing: get_sqe + prep_nop, the SQ tail store that io_uring_submit()
 * makes before its system call (the counterpart of libnpo's doorbell
 * store), and peek_cqe + cqe_seen, on a real ring; the system call stays
 * outside the measured part.
 *
 * Usage: fastpath npo|uring [MESSAGES]
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <liburing.h>
#include <npo.h>

#define ENTRIES		64

/* --- libnpo against a device thread ------------------------------------- */

struct fake_device {
	struct npo_queue q;
	uint32_t sq_head, cq_tail, cq_head, status;
	uint32_t doorbell[4];	/* SQ_TAIL, CQ_ARM, RQ_TAIL, CQ_HEAD */
	struct npo_sqe sqes[ENTRIES];
	struct npo_cqe cqes[ENTRIES];
	unsigned long messages;
};

/* Consume every posted descriptor and complete it, as the device does. */
static void *device_main(void *arg)
{
	struct fake_device *d = arg;
	unsigned long done = 0;

	while (done < d->messages) {
		uint32_t tail = __atomic_load_n(&d->doorbell[0], __ATOMIC_ACQUIRE);

		if (d->sq_head == tail) {
			sched_yield();
			continue;
		}
		while (d->sq_head != tail) {
			struct npo_sqe *s = &d->sqes[d->sq_head % ENTRIES];
			struct npo_cqe *c = &d->cqes[d->cq_tail % ENTRIES];

			memset(c, 0, sizeof(*c));
			c->wr_id = s->wr_id;
			c->opcode = s->opcode;
			__atomic_store_n(&d->sq_head, d->sq_head + 1, __ATOMIC_RELEASE);
			__atomic_store_n(&d->cq_tail, d->cq_tail + 1, __ATOMIC_RELEASE);
			done++;
		}
	}
	return NULL;
}

__attribute__((noinline)) static void fastpath_npo_post(struct npo_queue *q,
							 uint64_t n)
{
	struct npo_sqe *sqe = npo_get_sqe(q);

	npo_prep_nop(sqe, n);
	npo_submit(q);
}

__attribute__((noinline)) static int fastpath_npo_reap(struct npo_queue *q,
						       uint64_t n)
{
	struct npo_cqe *cqe = npo_peek_cqe(q);

	if (!cqe)
		return 0;
	if (cqe->wr_id != n)
		abort();
	npo_cq_advance(q, 1);
	return 1;
}

static int run_npo(unsigned long messages)
{
	struct fake_device *d = calloc(1, sizeof(*d));
	struct npo_queue *q = &d->q;
	pthread_t dev;
	unsigned long i;

	q->sqes = d->sqes;
	q->cqes = d->cqes;
	q->sq_head = &d->sq_head;
	q->cq_tail = &d->cq_tail;
	q->cq_head = &d->cq_head;
	q->status = &d->status;
	q->doorbell = d->doorbell;
	q->sq_mask = q->cq_mask = ENTRIES - 1;
	q->event_fd = -1;
	d->messages = messages;
	pthread_create(&dev, NULL, device_main, d);
	for (i = 0; i < messages; i++) {
		fastpath_npo_post(q, i);
		/* Wait outside the measured part: only a successful reap counts. */
		while (npo_load_acquire(q->cq_tail) == q->cq_head_local)
			sched_yield();
		if (!fastpath_npo_reap(q, i))
			abort();
	}
	pthread_join(dev, NULL);
	free(d);
	return 0;
}

/* --- liburing ------------------------------------------------------------ */

__attribute__((noinline)) static void fastpath_uring_post(struct io_uring *ring,
							   uint64_t n)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, n);
	/* What __io_uring_flush_sq() does: publish the tail to the kernel. */
	ring->sq.sqe_head = ring->sq.sqe_tail;
	io_uring_smp_store_release(ring->sq.ktail, ring->sq.sqe_tail);
}

__attribute__((noinline)) static int fastpath_uring_reap(struct io_uring *ring,
							 uint64_t n)
{
	struct io_uring_cqe *cqe;

	if (io_uring_peek_cqe(ring, &cqe))
		return 0;
	if (io_uring_cqe_get_data64(cqe) != n)
		abort();
	io_uring_cqe_seen(ring, cqe);
	return 1;
}

static int run_uring(unsigned long messages)
{
	struct io_uring ring;
	unsigned long i;
	int err = io_uring_queue_init(ENTRIES, &ring, 0);

	if (err) {
		fprintf(stderr, "fastpath: io_uring: %s\n", strerror(-err));
		return 1;
	}
	for (i = 0; i < messages; i++) {
		struct io_uring_cqe *cqe;

		fastpath_uring_post(&ring, i);
		io_uring_submit(&ring);
		if (io_uring_wait_cqe(&ring, &cqe) || !fastpath_uring_reap(&ring, i))
			abort();
	}
	io_uring_queue_exit(&ring);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long messages = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000;

	if (argc < 2 || !messages) {
		fprintf(stderr, "Usage: fastpath npo|uring [MESSAGES]\n");
		return 2;
	}
	if (!strcmp(argv[1], "npo"))
		return run_npo(messages);
	if (!strcmp(argv[1], "uring"))
		return run_uring(messages);
	fprintf(stderr, "fastpath: unknown side '%s'\n", argv[1]);
	return 2;
}
