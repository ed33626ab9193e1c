/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fixture of the queue and region selftests: one queue on npo0 and
 * two 8 MiB registered buffers, and the helpers every one of them uses.
 * Each test binary includes it once.
 */
#ifndef NPO_QUEUE_FIXTURE_H
#define NPO_QUEUE_FIXTURE_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <npo.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

#define BUF_SIZE	(8u << 20)
#define ALL_ACCESS	NPO_ACCESS_ALL

FIXTURE(queue) {
	struct npo_device *dev;
	struct npo_queue *q;
	uint8_t *src, *dst;
	struct npo_mr *src_mr, *dst_mr;
	uint32_t node;
};

static inline uint8_t *alloc_buf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

FIXTURE_SETUP(queue)
{
	struct npo_queue_attr attr = { .sq_entries = 64, .cq_entries = 128 };
	struct npo_device_attr da;

	memset(self, 0, sizeof(*self));
	if (npo_test_count_devices() < 1)
		SKIP(return, "no NPO device");
	self->dev = npo_open_device("npo0");
	ASSERT_NE(NULL, self->dev);
	ASSERT_EQ(0, npo_query_device(self->dev, &da));
	if (!(da.caps & NPO_CAP_QUEUES))
		SKIP(return, "device has no DMA queues");
	if (da.state != NPO_DEV_STATE_READY)
		SKIP(return, "device not ready");
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &self->q));
	self->node = self->q->node_id;
	ASSERT_EQ(da.node_id, self->node);
	self->src = alloc_buf(BUF_SIZE);
	self->dst = alloc_buf(BUF_SIZE);
	ASSERT_NE(NULL, self->src);
	ASSERT_NE(NULL, self->dst);
	ASSERT_EQ(0, npo_reg_mr(self->dev, self->src, BUF_SIZE, ALL_ACCESS,
				&self->src_mr));
	ASSERT_EQ(0, npo_reg_mr(self->dev, self->dst, BUF_SIZE, ALL_ACCESS,
				&self->dst_mr));
}

FIXTURE_TEARDOWN(queue)
{
	npo_dereg_mr(self->src_mr);
	npo_dereg_mr(self->dst_mr);
	npo_destroy_queue(self->q);
	if (self->src)
		munmap(self->src, BUF_SIZE);
	if (self->dst)
		munmap(self->dst, BUF_SIZE);
	npo_close_device(self->dev);
}

/* Post what is prepared, wait for one completion and consume it. */
static inline int run_one(struct npo_queue *q, struct npo_cqe *out)
{
	npo_submit(q);
	return npo_test_take_cqe(q, out, 10000);
}

static inline void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 131 + seed);
}


#endif
