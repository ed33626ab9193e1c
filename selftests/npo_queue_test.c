// SPDX-License-Identifier: GPL-2.0-only
/*
 * DMA queues and memory regions in loopback on one device: every
 * operation and size class moves the right bytes, every descriptor
 * completes exactly once, and every hostile input fails only itself with
 * a clear status or errno while other queues and processes carry on.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <json-c/json.h>
#include <npo.h>
#include <xf86drm.h>

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

static uint8_t *alloc_buf(size_t len)
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
static int run_one(struct npo_queue *q, struct npo_cqe *out)
{
	struct npo_cqe *cqe;
	int err;

	npo_submit(q);
	err = npo_wait_cqe(q, &cqe, 10000);
	if (err)
		return err;
	*out = *cqe;
	npo_cq_advance(q, 1);
	return 0;
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 131 + seed);
}

TEST_F(queue, nops_complete_in_order_with_their_wr_ids)
{
	struct npo_cqe *cqe;
	unsigned int i, n = 0;

	NPO_TEST_SETUP_DONE();
	for (i = 0; i < 64; i++)
		npo_prep_nop(npo_get_sqe(self->q), 1000 + i);
	/* The ring holds 64: the next one does not fit. */
	EXPECT_EQ(NULL, npo_get_sqe(self->q));
	npo_submit(self->q);
	while (n < 64) {
		ASSERT_EQ(0, npo_wait_cqe(self->q, &cqe, 10000));
		EXPECT_EQ(1000 + n, cqe->wr_id);
		EXPECT_EQ(NPO_STATUS_OK, cqe->status);
		EXPECT_EQ(NPO_OP_NOP, cqe->opcode);
		npo_cq_advance(self->q, 1);
		n++;
	}
	EXPECT_EQ(NULL, npo_peek_cqe(self->q));
	EXPECT_NE(NULL, npo_get_sqe(self->q));
}

/* A full completion ring pauses the queue, and reaping resumes it. */
TEST_F(queue, full_completion_ring_pauses_without_loss)
{
	struct npo_queue_attr attr = { .sq_entries = 4, .cq_entries = 4 };
	struct npo_queue *q;
	struct npo_cqe *c;
	unsigned int i, n = 0;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	for (i = 0; i < 4; i++)
		npo_prep_nop(npo_get_sqe(q), i);
	npo_submit(q);
	/* The four completions fill the ring; wait until the SQ drained. */
	for (i = 0; i < 1000 && npo_load_acquire(q->sq_head) != 4; i++)
		usleep(1000);
	ASSERT_EQ(4, npo_load_acquire(q->sq_head));
	for (i = 4; i < 8; i++)
		npo_prep_nop(npo_get_sqe(q), i);
	npo_submit(q);
	for (i = 0; i < 1000 && !(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL); i++)
		usleep(1000);
	EXPECT_TRUE(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL);
	EXPECT_FALSE(npo_queue_in_error(q));
	while (n < 8) {
		ASSERT_EQ(0, npo_wait_cqe(q, &c, 10000)) TH_LOG("after %u", n);
		EXPECT_EQ(n, c->wr_id);
		npo_cq_advance(q, 1);
		n++;
	}
	EXPECT_FALSE(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL);
	npo_destroy_queue(q);
}

TEST_F(queue, write_and_read_every_size_class)
{
	static const uint32_t sizes[] = {
		0, 1, 8, 63, 4096, 4097, 65536, (1u << 20) + 3, BUF_SIZE - 4096,
	};
	uint8_t *back = alloc_buf(BUF_SIZE);
	struct npo_mr *back_mr;
	struct npo_cqe c;
	unsigned int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(NULL, back);
	ASSERT_EQ(0, npo_reg_mr(self->dev, back, BUF_SIZE,
				NPO_ACCESS_LOCAL_WRITE, &back_mr));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i];
		/* Unaligned offsets on both sides, crossing pages. */
		size_t soff = len < BUF_SIZE - 8192 ? 17 : 0;
		size_t doff = len < BUF_SIZE - 8192 ? 4095 : 0;

		fill(self->src, BUF_SIZE, i);
		memset(self->dst, 0xee, BUF_SIZE);
		memset(back, 0xdd, BUF_SIZE);
		npo_prep_write(npo_get_sqe(self->q), i,
			       npo_mr_lkey(self->src_mr), self->src + soff, len,
			       self->node, npo_mr_rkey(self->dst_mr),
			       (uintptr_t)(self->dst + doff));
		ASSERT_EQ(0, run_one(self->q, &c));
		ASSERT_EQ(NPO_STATUS_OK, c.status) TH_LOG("write %u: %s", len,
							  npo_status_str(c.status));
		EXPECT_EQ(len, c.length);
		EXPECT_EQ(0, memcmp(self->dst + doff, self->src + soff, len))
			TH_LOG("write of %u bytes", len);
		/* Nothing around the target was touched. */
		if (doff)
			EXPECT_EQ(0xee, self->dst[doff - 1]);
		EXPECT_EQ(0xee, self->dst[doff + len]);

		npo_prep_read(npo_get_sqe(self->q), 100 + i, npo_mr_lkey(back_mr),
			      back, len, self->node, npo_mr_rkey(self->dst_mr),
			      (uintptr_t)(self->dst + doff));
		ASSERT_EQ(0, run_one(self->q, &c));
		ASSERT_EQ(NPO_STATUS_OK, c.status);
		EXPECT_EQ(NPO_OP_READ, c.opcode);
		EXPECT_EQ(0, memcmp(back, self->src + soff, len))
			TH_LOG("read of %u bytes", len);
		EXPECT_EQ(0xdd, back[len]);
	}
	npo_dereg_mr(back_mr);
	munmap(back, BUF_SIZE);
}

TEST_F(queue, write_with_immediate_reaches_the_other_queue)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	struct npo_queue *rq;
	struct npo_cqe c, *r;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &rq));
	fill(self->src, 4096, 7);
	npo_prep_write_imm(npo_get_sqe(self->q), 55, npo_mr_lkey(self->src_mr),
			   self->src, 4096, self->node, rq->id,
			   npo_mr_rkey(self->dst_mr), (uintptr_t)self->dst,
			   0xabcdef01);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(55, c.wr_id);
	ASSERT_EQ(0, npo_wait_cqe(rq, &r, 10000));
	EXPECT_EQ(NPO_OP_RECV_IMM, r->opcode);
	EXPECT_EQ(NPO_STATUS_OK, r->status);
	EXPECT_EQ(0xabcdef01, r->imm);
	EXPECT_EQ(4096, r->length);
	EXPECT_EQ(self->node, r->peer_node);
	EXPECT_EQ(self->q->id, r->peer_queue);
	npo_cq_advance(rq, 1);
	/* The data was there before the completion said so. */
	EXPECT_EQ(0, memcmp(self->dst, self->src, 4096));

	/* A queue that does not exist cannot receive. */
	npo_prep_write_imm(npo_get_sqe(self->q), 56, npo_mr_lkey(self->src_mr),
			   self->src, 8, self->node, 999, npo_mr_rkey(self->dst_mr),
			   (uintptr_t)self->dst, 1);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_REMOTE_QUEUE, c.status);
	npo_destroy_queue(rq);
}

TEST_F_TIMEOUT(queue, send_fills_posted_receive_buffers, 60)
{
	struct npo_queue_attr attr = { .sq_entries = 8, .rq_entries = 8 };
	static const uint32_t sizes[] = { 0, 1, 100, 4096 };
	struct npo_queue *rq;
	struct npo_cqe c;
	unsigned int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &rq));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, npo_post_recv(rq, 500 + i, npo_mr_lkey(self->dst_mr),
					   self->dst + i * 8192, 4096));
	fill(self->src, 4096, 9);
	for (i = 0; i < 4; i++) {
		npo_prep_send(npo_get_sqe(self->q), i, npo_mr_lkey(self->src_mr),
			      self->src, sizes[i], self->node, rq->id);
		ASSERT_EQ(0, run_one(self->q, &c));
		EXPECT_EQ(NPO_STATUS_OK, c.status) TH_LOG("%s", npo_status_str(c.status));
		EXPECT_EQ(NPO_OP_SEND, c.opcode);
		ASSERT_EQ(0, run_one(rq, &c));
		EXPECT_EQ(NPO_OP_RECV, c.opcode);
		EXPECT_EQ(500 + i, c.wr_id);
		EXPECT_EQ(sizes[i], c.length);
		EXPECT_EQ(self->q->id, c.peer_queue);
		EXPECT_EQ(0, memcmp(self->dst + i * 8192, self->src, sizes[i]));
	}

	/* A buffer posted while the SEND waits for one: it arrives. */
	npo_prep_send(npo_get_sqe(self->q), 10, npo_mr_lkey(self->src_mr),
		      self->src, 64, self->node, rq->id);
	npo_submit(self->q);
	usleep(100000);
	EXPECT_EQ(NULL, npo_peek_cqe(self->q)) TH_LOG("completed with no buffer");
	ASSERT_EQ(0, npo_post_recv(rq, 600, npo_mr_lkey(self->dst_mr), self->dst, 64));
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	ASSERT_EQ(0, run_one(rq, &c));
	EXPECT_EQ(600, c.wr_id);

	/* No buffer at all: receiver not ready, after the retry time. */
	npo_prep_send(npo_get_sqe(self->q), 11, npo_mr_lkey(self->src_mr),
		      self->src, 64, self->node, rq->id);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_RNR, c.status);
	npo_destroy_queue(self->q);
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &self->q));

	/* Too small a buffer fails both ends, and says so to both. */
	ASSERT_EQ(0, npo_post_recv(rq, 700, npo_mr_lkey(self->dst_mr), self->dst, 16));
	npo_prep_send(npo_get_sqe(self->q), 12, npo_mr_lkey(self->src_mr),
		      self->src, 64, self->node, rq->id);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_REMOTE_LENGTH, c.status);
	ASSERT_EQ(0, run_one(rq, &c));
	EXPECT_EQ(700, c.wr_id);
	EXPECT_EQ(NPO_STATUS_REMOTE_LENGTH, c.status);
	EXPECT_TRUE(npo_queue_in_error(rq));
	npo_destroy_queue(rq);
}

TEST_F(queue, fetch_add_and_compare_swap)
{
	struct npo_queue_attr attr = { .sq_entries = 64, .cq_entries = 128 };
	uint64_t *counter = (uint64_t *)self->dst, *old = (uint64_t *)self->src;
	struct npo_cqe c;
	unsigned int i;

	NPO_TEST_SETUP_DONE();
	*counter = 40;
	for (i = 0; i < 100; i++) {
		npo_prep_fetch_add(npo_get_sqe(self->q), i,
				   npo_mr_lkey(self->src_mr), old, self->node,
				   npo_mr_rkey(self->dst_mr), (uintptr_t)counter, 2);
		ASSERT_EQ(0, run_one(self->q, &c));
		ASSERT_EQ(NPO_STATUS_OK, c.status);
		EXPECT_EQ(40 + 2 * i, *old);
	}
	EXPECT_EQ(240, *counter);

	npo_prep_cmp_swap(npo_get_sqe(self->q), 1, npo_mr_lkey(self->src_mr), old,
			  self->node, npo_mr_rkey(self->dst_mr),
			  (uintptr_t)counter, 240, 7);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(240, *old);
	EXPECT_EQ(7, *counter);
	/* A failed compare swaps nothing and still returns the old value. */
	npo_prep_cmp_swap(npo_get_sqe(self->q), 2, npo_mr_lkey(self->src_mr), old,
			  self->node, npo_mr_rkey(self->dst_mr),
			  (uintptr_t)counter, 240, 9);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(7, *old);
	EXPECT_EQ(7, *counter);
	/* Atomics need 8 aligned bytes, at both ends. */
	npo_prep_fetch_add(npo_get_sqe(self->q), 3, npo_mr_lkey(self->src_mr), old,
			   self->node, npo_mr_rkey(self->dst_mr),
			   (uintptr_t)counter + 4, 1);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_BAD_DESCRIPTOR, c.status);
	npo_destroy_queue(self->q);
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &self->q));
	/* A result straddling two pages would write past the first. */
	npo_prep_fetch_add(npo_get_sqe(self->q), 4, npo_mr_lkey(self->src_mr),
			   (uint64_t *)(self->src + 4092), self->node,
			   npo_mr_rkey(self->dst_mr), (uintptr_t)counter, 1);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_BAD_DESCRIPTOR, c.status);
	EXPECT_EQ(7, *counter);
}

TEST_F(queue, fenced_read_sees_the_write_before_it)
{
	struct npo_sqe *w, *r;
	struct npo_cqe *c;
	unsigned int i, n = 0;

	NPO_TEST_SETUP_DONE();
	for (i = 0; i < 16; i++) {
		fill(self->src + i * 65536, 65536, i);
		w = npo_get_sqe(self->q);
		npo_prep_write(w, 2 * i, npo_mr_lkey(self->src_mr),
			       self->src + i * 65536, 65536, self->node,
			       npo_mr_rkey(self->dst_mr),
			       (uintptr_t)(self->dst + i * 65536));
		r = npo_get_sqe(self->q);
		npo_prep_read(r, 2 * i + 1, npo_mr_lkey(self->dst_mr),
			      self->dst + (2 << 20) + i * 65536, 65536,
			      self->node, npo_mr_rkey(self->dst_mr),
			      (uintptr_t)(self->dst + i * 65536));
		r->flags = NPO_SQE_FENCE;
	}
	npo_submit(self->q);
	while (n < 32) {
		ASSERT_EQ(0, npo_wait_cqe(self->q, &c, 10000));
		EXPECT_EQ(n, c->wr_id);
		EXPECT_EQ(NPO_STATUS_OK, c->status);
		npo_cq_advance(self->q, 1);
		n++;
	}
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0, memcmp(self->dst + (2 << 20) + i * 65536,
				    self->src + i * 65536, 65536));
}

/* Each bad descriptor fails with its status and flushes only its queue. */
TEST_F(queue, bad_descriptors_fail_alone)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	struct {
		const char *what;
		uint8_t opcode, flags;
		uint32_t lkey;
		uint64_t rkey;
		uint32_t len, node;
		uint64_t raddr;
		uint32_t status;
	} cases[] = {
		{ "unknown opcode", 0x42, 0, 0, 0, 8, 0, 0, NPO_STATUS_BAD_DESCRIPTOR },
		{ "unknown flag", NPO_OP_NOP, 0x80, 0, 0, 0, 0, 0, NPO_STATUS_BAD_DESCRIPTOR },
		{ "unregistered local key", NPO_OP_WRITE, 0, 0x12340001, 1, 8, 0, 0,
		  NPO_STATUS_LOCAL_KEY },
		{ "wrong remote key", NPO_OP_WRITE, 0, 1, 0xdead0002, 8, 0, 0,
		  NPO_STATUS_REMOTE_ACCESS },
		{ "out of bounds", NPO_OP_WRITE, 0, 1, 1, 64, 0, BUF_SIZE - 32,
		  NPO_STATUS_REMOTE_ACCESS },
		{ "address wraps", NPO_OP_WRITE, 0, 1, 1, 64, 0, ~0ULL - 8,
		  NPO_STATUS_REMOTE_ACCESS },
		{ "unknown node", NPO_OP_WRITE, 0, 1, 1, 8, 999, 0,
		  NPO_STATUS_UNREACHABLE },
		{ "length near 4 GiB", NPO_OP_WRITE, 0, 1, 1, 0xfffffff0, 0, 0,
		  NPO_STATUS_LOCAL_ACCESS },
		{ "read past the end", NPO_OP_READ, 0, 1, 1, 64, 0, BUF_SIZE - 32,
		  NPO_STATUS_REMOTE_ACCESS },
		{ "read near 4 GiB", NPO_OP_READ, 0, 1, 1, 0xfffffff0, 0, 0,
		  NPO_STATUS_LOCAL_ACCESS },
	};
	uint8_t *src_was = alloc_buf(BUF_SIZE), *dst_was = alloc_buf(BUF_SIZE);
	struct npo_queue *bad;
	struct npo_cqe c;
	unsigned int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(NULL, src_was);
	ASSERT_NE(NULL, dst_was);
	/* Guard patterns: a rejected descriptor must not move one byte. */
	fill(self->src, BUF_SIZE, 0x5a);
	fill(self->dst, BUF_SIZE, 0xa5);
	memcpy(src_was, self->src, BUF_SIZE);
	memcpy(dst_was, self->dst, BUF_SIZE);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct npo_sqe *s;

		ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &bad));
		s = npo_get_sqe(bad);
		s->opcode = cases[i].opcode;
		s->flags = cases[i].flags;
		s->wr_id = i;
		s->length = cases[i].len;
		s->local_key = cases[i].lkey == 1 ? npo_mr_lkey(self->src_mr) :
						    cases[i].lkey;
		s->local_addr = (uintptr_t)self->src;
		s->remote_key = cases[i].rkey == 1 ? npo_mr_rkey(self->dst_mr) :
						     cases[i].rkey;
		s->remote_addr = (uintptr_t)self->dst + cases[i].raddr;
		if (cases[i].raddr > BUF_SIZE)
			s->remote_addr = cases[i].raddr;
		s->dest_node = cases[i].node ? cases[i].node : self->node;
		npo_prep_nop(npo_get_sqe(bad), 100 + i);
		ASSERT_EQ(0, run_one(bad, &c));
		EXPECT_EQ(cases[i].status, c.status) TH_LOG("%s: %s", cases[i].what,
							     npo_status_str(c.status));
		EXPECT_EQ(0, c.length);
		EXPECT_EQ(0, memcmp(self->dst, dst_was, BUF_SIZE))
			TH_LOG("%s: the target memory changed", cases[i].what);
		EXPECT_EQ(0, memcmp(self->src, src_was, BUF_SIZE))
			TH_LOG("%s: the local memory changed", cases[i].what);
		EXPECT_TRUE(npo_queue_in_error(bad));
		/* The NOP behind it completes, flushed: exactly once. */
		ASSERT_EQ(0, run_one(bad, &c));
		EXPECT_EQ(100 + i, c.wr_id);
		EXPECT_EQ(NPO_STATUS_FLUSHED, c.status);
		npo_destroy_queue(bad);

		/* The fixture's queue is untouched. */
		npo_prep_nop(npo_get_sqe(self->q), i);
		ASSERT_EQ(0, run_one(self->q, &c));
		EXPECT_EQ(NPO_STATUS_OK, c.status);
		EXPECT_FALSE(npo_queue_in_error(self->q));
	}
	munmap(src_was, BUF_SIZE);
	munmap(dst_was, BUF_SIZE);
}

TEST_F(queue, access_rights_are_enforced)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	uint8_t *ro = alloc_buf(65536);
	struct npo_mr *ro_mr;
	struct npo_queue *q;
	struct npo_cqe c;
	uint64_t key;

	NPO_TEST_SETUP_DONE();
	/* Local read only: no remote rights, no local write. */
	ASSERT_EQ(0, npo_reg_mr(self->dev, ro, 65536, 0, &ro_mr));

	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_write(npo_get_sqe(q), 1, npo_mr_lkey(self->src_mr), self->src, 8,
		       self->node, npo_mr_rkey(ro_mr), (uintptr_t)ro);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_REMOTE_ACCESS, c.status);
	npo_destroy_queue(q);

	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_read(npo_get_sqe(q), 2, npo_mr_lkey(ro_mr), ro, 8, self->node,
		      npo_mr_rkey(self->dst_mr), (uintptr_t)self->dst);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_LOCAL_ACCESS, c.status);
	npo_destroy_queue(q);

	/* As the source of a write, local read is enough. */
	npo_prep_write(npo_get_sqe(self->q), 3, npo_mr_lkey(ro_mr), ro, 8,
		       self->node, npo_mr_rkey(self->dst_mr), (uintptr_t)self->dst);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_OK, c.status);

	/* A deregistered key is dead at once. */
	key = npo_mr_rkey(ro_mr);
	ASSERT_EQ(0, npo_dereg_mr(ro_mr));
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_read(npo_get_sqe(q), 4, npo_mr_lkey(self->dst_mr), self->dst, 8,
		      self->node, key, (uintptr_t)ro);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_REMOTE_ACCESS, c.status);
	npo_destroy_queue(q);

	/* The right index with a guessed tag is no key at all. */
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_write(npo_get_sqe(q), 5, npo_mr_lkey(self->src_mr) ^ 0x10000,
		       self->src, 8, self->node, npo_mr_rkey(self->dst_mr),
		       (uintptr_t)self->dst);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_LOCAL_KEY, c.status);
	npo_destroy_queue(q);
	munmap(ro, 65536);
}

/* A key registered by another process is never usable as a local key. */
TEST_F(queue, another_process_key_never_works)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	int to_parent[2], to_child[2];
	struct npo_mr_dereg md = { 0 };
	struct npo_queue *q;
	struct npo_cqe c;
	uint32_t key;
	char done;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, pipe(to_child));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct npo_device *dev = npo_open_device("npo0");
		uint8_t *mem = alloc_buf(65536);
		struct npo_mr *mr;

		if (!dev || npo_reg_mr(dev, mem, 65536, ALL_ACCESS, &mr))
			_exit(1);
		key = npo_mr_lkey(mr);
		if (write(to_parent[1], &key, 4) != 4 ||
		    read(to_child[0], &done, 1) != 1)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(4, read(to_parent[0], &key, 4));
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_write(npo_get_sqe(q), 1, key, self->src, 8, self->node,
		       npo_mr_rkey(self->dst_mr), (uintptr_t)self->dst);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_LOCAL_KEY, c.status);
	npo_destroy_queue(q);
	/* Nor can this file deregister it. */
	md.lkey = key;
	EXPECT_EQ(-1, ioctl(npo_device_fd(self->dev), NPO_IOCTL_DEREG_MR, &md));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(1, write(to_child[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
}

TEST_F(queue, registration_rejects_bad_memory)
{
	int fd = npo_device_fd(self->dev);
	struct npo_mr_reg reg;
	uint8_t *ro;
	struct npo_mr *mr;

	NPO_TEST_SETUP_DONE();
	ro = mmap(NULL, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	/* Read-only memory for write. */
	EXPECT_EQ(-EFAULT, npo_reg_mr(self->dev, ro, 65536,
				      NPO_ACCESS_REMOTE_WRITE, &mr));
	/* It is fine to read from it. */
	ASSERT_EQ(0, npo_reg_mr(self->dev, ro, 65536, NPO_ACCESS_REMOTE_READ, &mr));
	npo_dereg_mr(mr);
	munmap(ro, 65536);
	/* Unmapped memory. */
	EXPECT_EQ(-EFAULT, npo_reg_mr(self->dev, ro, 65536, 0, &mr));

	memset(&reg, 0, sizeof(reg));
	reg.addr = (uintptr_t)self->src;
	reg.length = 0;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.length = ~0ULL;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.length = 1ULL << 46;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(E2BIG, errno);
	reg.length = 4096;
	reg.access = 0x100;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.access = 0;
	reg.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.flags = 0;
	reg.addr = ~0ULL - 4096;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * As nobody with 1 MiB of locked memory allowed: the second half of it
 * pins, more is refused, and deregistering gives the allowance back.
 */
static int pin_within_memlock(void *arg)
{
	struct npo_device *dev = arg;
	uint8_t *mem = alloc_buf(4 << 20);
	struct npo_mr *a, *b;

	if (npo_reg_mr(dev, mem, 512 << 10, 0, &a))
		return 11;
	if (npo_reg_mr(dev, mem + (1 << 20), 1 << 20, 0, &b) != -ENOMEM)
		return 12;
	if (npo_dereg_mr(a) || npo_reg_mr(dev, mem, 1 << 20, 0, &a))
		return 13;
	return 0;
}

/* A cgroup v2 hierarchy to work in: the system's, or one mounted here. */
static const char *cgroup2_root(void)
{
	static const char mnt[] = "/tmp/npo-cgroup2";

	if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK))
		return "/sys/fs/cgroup";
	if (!access("/tmp/npo-cgroup2/cgroup.controllers", F_OK))
		return mnt;
	mkdir(mnt, 0755);
	return mount("none", mnt, "cgroup2", 0, NULL) ? NULL : mnt;
}

/* A new child cgroup with @controller enabled, its path in @cg; 0 or -1. */
static int make_cgroup(const char *controller, const char *tag, char *cg,
		       size_t len)
{
	const char *root = cgroup2_root();
	char path[192], enable[32];

	if (!root)
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	snprintf(enable, sizeof(enable), "+%s", controller);
	npo_test_write_file(path, enable);
	snprintf(cg, len, "%s/npo-%s-%d", root, tag, getpid());
	return mkdir(cg, 0755);
}

/* Move the calling process into cgroup @cg: 0 or an errno. */
static int join_cgroup(const char *cg)
{
	char path[192], me[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(me, sizeof(me), "%d", getpid());
	return npo_test_write_file(path, me);
}

/*
 * The kernel memory a registration takes (a page pointer and a bus address
 * per page, up to 256 MiB for the largest region) is charged to the
 * caller's memory cgroup: a 4 GiB registration of memory that cannot be
 * pinned allocates 16 MiB of lists before it fails, and the cgroup's peak
 * shows them.
 */
TEST_F(queue, region_page_lists_are_charged_to_the_caller)
{
	const size_t len = 4ull << 30;
	char cg[128], path[192], peak[32] = "";
	int status, fd;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root for a memory cgroup");
	ASSERT_EQ(0, make_cgroup("memory", "test", cg, sizeof(cg)))
		TH_LOG("no cgroup v2: %s", strerror(errno));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct npo_mr_reg reg = { .access = NPO_ACCESS_LOCAL_WRITE };
		void *p;

		if (join_cgroup(cg))
			_exit(1);
		p = mmap(NULL, len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			_exit(2);
		reg.addr = (uintptr_t)p;
		reg.length = len;
		if (!ioctl(npo_device_fd(self->dev), NPO_IOCTL_REG_MR, &reg))
			_exit(3);
		_exit(errno == EFAULT ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child step %d", WEXITSTATUS(status));
	snprintf(path, sizeof(path), "%s/memory.peak", cg);
	fd = open(path, O_RDONLY);
	EXPECT_GE(fd, 0);
	if (fd >= 0) {
		EXPECT_LT(0, read(fd, peak, sizeof(peak) - 1));
		close(fd);
	}
	EXPECT_LE(16ull << 20, strtoull(peak, NULL, 10))
		TH_LOG("the cgroup's peak was %s bytes", peak);
	EXPECT_EQ(0, rmdir(cg));
}

/* A step of the quota child: its number as the exit code if it fails. */
#define QUOTA_STEP(n, cond) do { if (!(cond)) _exit(n); } while (0)

/*
 * The rdma cgroup controller bounds what one job holds on a device, as for
 * InfiniBand: with "npo0 hca_handle=2 hca_object=3" in its rdma.max, a
 * process opens two files and makes three queues or regions, the next
 * get EAGAIN, and what it gives back it can take again.  The cgroup's own
 * rdma.current, not the driver, says what was charged.
 */
TEST_F(queue, rdma_cgroup_bounds_files_queues_and_regions)
{
	char cg[128], path[192], current[256] = "";
	int status, fd;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root for an rdma cgroup");
	ASSERT_EQ(0, make_cgroup("rdma", "quota", cg, sizeof(cg)));
	snprintf(path, sizeof(path), "%s/rdma.max", cg);
	ASSERT_EQ(0, npo_test_write_file(path, "npo0 hca_handle=2 hca_object=3"))
		TH_LOG("the rdma controller does not know npo0");
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct npo_queue_create qc = { .sq_entries = 4, .cq_entries = 4 };
		struct npo_queue_destroy qd = { 0 };
		static char mem[3][4096] __attribute__((aligned(4096)));
		struct npo_mr_reg reg = { .access = NPO_ACCESS_LOCAL_WRITE,
					  .length = 4096 };
		int a, b;

		QUOTA_STEP(1, !join_cgroup(cg));
		a = open("/dev/npo0", O_RDWR);
		b = open("/dev/npo0", O_RDWR);
		QUOTA_STEP(2, a >= 0 && b >= 0);
		QUOTA_STEP(3, open("/dev/npo0", O_RDWR) < 0 && errno == EAGAIN);
		QUOTA_STEP(4, !ioctl(a, NPO_IOCTL_CREATE_QUEUE, &qc));
		reg.addr = (uintptr_t)mem[0];
		QUOTA_STEP(5, !ioctl(a, NPO_IOCTL_REG_MR, &reg));
		reg.addr = (uintptr_t)mem[1];
		QUOTA_STEP(6, !ioctl(b, NPO_IOCTL_REG_MR, &reg));
		/* Three objects: the next queue and region are refused. */
		QUOTA_STEP(7, ioctl(b, NPO_IOCTL_CREATE_QUEUE, &qc) && errno == EAGAIN);
		reg.addr = (uintptr_t)mem[2];
		QUOTA_STEP(8, ioctl(a, NPO_IOCTL_REG_MR, &reg) && errno == EAGAIN);
		/* The cgroup agrees, then a destroyed queue makes room. */
		snprintf(path, sizeof(path), "%s/rdma.current", cg);
		QUOTA_STEP(9, !npo_test_read_file(path, current, sizeof(current)) &&
			   strstr(current, "npo0 hca_handle=2 hca_object=3"));
		qd.queue_id = qc.queue_id;
		QUOTA_STEP(10, !ioctl(a, NPO_IOCTL_DESTROY_QUEUE, &qd));
		QUOTA_STEP(11, !ioctl(a, NPO_IOCTL_REG_MR, &reg));
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("quota child failed at step %d", WEXITSTATUS(status));
	/* The child's exit gave everything back. */
	snprintf(path, sizeof(path), "%s/rdma.current", cg);
	fd = npo_test_read_file(path, current, sizeof(current));
	EXPECT_EQ(0, fd);
	EXPECT_TRUE(!strstr(current, "npo0") ||
		    strstr(current, "npo0 hca_handle=0 hca_object=0"))
		TH_LOG("rdma.current: %s", current);
	/*
	 * The kernel's rdma controller keeps a device's pool in a cgroup
	 * while it has a limit, and an rmdir leaves that pool behind, freed
	 * cgroup and all, for the device's unregistration to trip over at
	 * rmmod (admin.rst, "Quotas").  Lift the limit first.
	 */
	snprintf(path, sizeof(path), "%s/rdma.max", cg);
	EXPECT_EQ(0, npo_test_write_file(path, "npo0 hca_handle=max hca_object=max"));
	EXPECT_EQ(0, rmdir(cg));
}

/* Pinned memory counts against RLIMIT_MEMLOCK for an unprivileged user. */
TEST_F(queue, memlock_limit_is_enforced)
{
	struct rlimit rl = { 1 << 20, 1 << 20 }, old;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root to drop privileges");
	/*
	 * Root sets the limit, which the child inherits: nobody could not
	 * raise it to 1 MiB if it started lower.  The device node is root's;
	 * the child keeps the open file.
	 */
	ASSERT_EQ(0, getrlimit(RLIMIT_MEMLOCK, &old));
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &rl));
	EXPECT_EQ(0, npo_test_as_nobody(pin_within_memlock, self->dev));
	setrlimit(RLIMIT_MEMLOCK, &old);
}

TEST_F(queue, queue_ioctls_reject_bad_arguments)
{
	int fd = npo_device_fd(self->dev);
	struct npo_queue_create qc;
	struct npo_queue_destroy qd = { .queue_id = 500 };
	struct npo_queue *qs[64];
	struct npo_queue_attr attr = { .sq_entries = 4 };
	unsigned int n = 0, i;
	int err;

	NPO_TEST_SETUP_DONE();
	memset(&qc, 0, sizeof(qc));
	qc.sq_entries = 3;
	qc.cq_entries = 4;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
	qc.sq_entries = 8;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno) TH_LOG("CQ smaller than SQ");
	qc.sq_entries = qc.cq_entries = NPO_MAX_RING_ENTRIES * 2;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
	qc.sq_entries = qc.cq_entries = 4;
	qc.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
	qc.flags = 0;
	/*
	 * Every ring at its most is 4 MiB and a page of ring memory: more than
	 * one contiguous allocation, refused before trying (6.12 warned).
	 */
	qc.sq_entries = qc.cq_entries = qc.rq_entries = NPO_MAX_RING_ENTRIES;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
	/* An i386 caller built before the reserved field passed 68 bytes. */
	memset(&qc, 0, sizeof(qc));
	qc.sq_entries = qc.cq_entries = 4;
	ASSERT_EQ(0, ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, NPO_IOCTL_MAGIC,
				    _IOC_NR(NPO_IOCTL_CREATE_QUEUE),
				    offsetof(struct npo_queue_create, rsvd)),
			   &qc));
	qd.queue_id = qc.queue_id;
	EXPECT_EQ(0, ioctl(fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	qd.queue_id = 500;

	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	EXPECT_EQ(ENOENT, errno);
	/* Double destroy. */
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &qs[0]));
	qd.queue_id = qs[0]->id;
	EXPECT_EQ(0, npo_destroy_queue(qs[0]));
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	EXPECT_EQ(ENOENT, errno);

	/* The device's queues run out with EBUSY, and come back. */
	do {
		err = npo_create_queue(self->dev, &attr, &qs[n]);
	} while (!err && ++n < 64);
	EXPECT_EQ(-EBUSY, err);
	EXPECT_GT(n, 0);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, npo_destroy_queue(qs[i]));
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &qs[0]));
	npo_destroy_queue(qs[0]);
}

static sigjmp_buf bus_jump;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jump, 1);
}

TEST_F(queue, mappings_are_owned_and_revoked)
{
	struct npo_queue_create qc;
	struct npo_device *other;
	struct npo_queue_attr attr = { .sq_entries = 4 };
	struct npo_queue_destroy qd = { 0 };
	struct npo_queue *q;
	volatile uint32_t *ring;
	volatile bool readable = false;
	void *p;
	int fd = npo_device_fd(self->dev);

	NPO_TEST_SETUP_DONE();
	memset(&qc, 0, sizeof(qc));
	qc.sq_entries = qc.cq_entries = 4;
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));

	/* Another open file cannot map this queue's doorbell or rings. */
	other = npo_open_device("npo0");
	ASSERT_NE(NULL, other);
	p = mmap(NULL, qc.doorbell_size, PROT_WRITE, MAP_SHARED,
		 npo_device_fd(other), qc.doorbell_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);
	p = mmap(NULL, qc.ring_size, PROT_READ, MAP_SHARED,
		 npo_device_fd(other), qc.ring_offset);
	EXPECT_EQ(MAP_FAILED, p);
	npo_close_device(other);

	/* Nor can another process with a file of its own: it gets nothing. */
	{
		pid_t pid = fork();
		int status;

		ASSERT_GE(pid, 0);
		if (pid == 0) {
			struct npo_device *theirs = npo_open_device("npo0");

			if (!theirs)
				_exit(1);
			p = mmap(NULL, qc.doorbell_size, PROT_WRITE, MAP_SHARED,
				 npo_device_fd(theirs), qc.doorbell_offset);
			if (p != MAP_FAILED || errno != ENOENT)
				_exit(2);
			p = mmap(NULL, qc.ring_size, PROT_READ, MAP_SHARED,
				 npo_device_fd(theirs), qc.ring_offset);
			_exit(p != MAP_FAILED ? 3 : 0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("another process mapped our queue (step %d)",
			       WEXITSTATUS(status));
	}

	/* Wrong size, private, executable. */
	p = mmap(NULL, qc.ring_size * 2, PROT_READ, MAP_SHARED, fd, qc.ring_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, qc.ring_size, PROT_READ, MAP_PRIVATE, fd, qc.ring_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, qc.doorbell_size, PROT_WRITE | PROT_EXEC, MAP_SHARED, fd,
		 qc.doorbell_offset);
	EXPECT_EQ(MAP_FAILED, p);
	/* Offsets that name nothing. */
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);

	ring = mmap(NULL, qc.ring_size, PROT_READ, MAP_SHARED, fd, qc.ring_offset);
	ASSERT_NE(MAP_FAILED, ring);
	EXPECT_EQ(0, ring[NPO_RING_STATUS / 4]);
	qd.queue_id = qc.queue_id;
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	/* The destroyed queue's memory is gone: the stand-in says so. */
	signal(SIGBUS, on_sigbus);
	if (!sigsetjmp(bus_jump, 1)) {
		EXPECT_EQ(NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED,
			  ring[NPO_RING_STATUS / 4]);
		EXPECT_EQ(0, ring[NPO_RING_CQ_TAIL / 4]);
		readable = true;
	}
	signal(SIGBUS, SIG_DFL);
	EXPECT_TRUE(readable) TH_LOG("a revoked ring raised SIGBUS");
	munmap((void *)ring, qc.ring_size);

	/* A doorbell write past the ring's size puts only that queue in error. */
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	q->doorbell[0] = 1000;
	usleep(100000);
	EXPECT_TRUE(npo_queue_in_error(q));
	npo_destroy_queue(q);
}

/*
 * One thread maps a queue's rings and doorbell again and again while the
 * other destroys the queue and creates the next one, which gets the same
 * number: every mapping made before a destroy, or during one, must read
 * as the stand-in page afterwards, never the freed ring nor the ring that
 * reuses its pages, and writes to old doorbells must never reach the queue
 * that reuses the number.
 */
#define RACE_ROUNDS	1500
#define RACE_MAPS	64

struct map_race {
	int fd;
	uint64_t ring_offset;	/* atomic: the current queue's */
	uint64_t db_offset;	/* atomic */
	size_t ring_size;
	unsigned int attempts;	/* atomic */
	bool stop;		/* atomic */
	pthread_mutex_t lock;	/* the lists below */
	volatile uint32_t *rings[RACE_MAPS];
	unsigned int n_rings;
	volatile uint32_t *dbs[RACE_MAPS];
	unsigned int n_dbs;
	unsigned int kept;	/* rings and doorbells kept into the next round */
	unsigned int made;
};

static void *map_race_mapper(void *arg)
{
	struct map_race *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		uint64_t ro = __atomic_load_n(&r->ring_offset, __ATOMIC_ACQUIRE);
		uint64_t dbo = __atomic_load_n(&r->db_offset, __ATOMIC_ACQUIRE);
		volatile uint32_t *ring, *db;

		__atomic_add_fetch(&r->attempts, 1, __ATOMIC_RELEASE);
		ring = mmap(NULL, r->ring_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, r->fd, ro);
		db = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, r->fd, dbo);
		/* Touch the ring while its queue may still live. */
		if (ring != MAP_FAILED)
			(void)ring[NPO_RING_STATUS / 4];
		pthread_mutex_lock(&r->lock);
		if (ring != MAP_FAILED && r->n_rings < RACE_MAPS) {
			r->rings[r->n_rings++] = ring;
			r->made++;
		} else if (ring != MAP_FAILED) {
			munmap((void *)ring, r->ring_size);
		}
		if (db != MAP_FAILED && r->n_dbs < RACE_MAPS)
			r->dbs[r->n_dbs++] = db;
		else if (db != MAP_FAILED)
			munmap((void *)db, 4096);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* The stand-in: every page zero but for the status, in error and revoked. */
static bool reads_as_revoked(volatile uint32_t *ring, size_t size)
{
	size_t i;

	for (i = 0; i < size / 4; i++) {
		uint32_t want = (i * 4) % 4096 == NPO_RING_STATUS ?
				NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED : 0;

		if (ring[i] != want)
			return false;
	}
	return true;
}

/*
 * How many of @own and the first @n of the mapper's ring mappings do not
 * read as the stand-in; SIGBUS counts as one.
 */
static unsigned int count_unrevoked(struct map_race *r, volatile uint32_t *own,
				    unsigned int n, bool *faulted)
{
	volatile unsigned int bad = 0, i;

	if (sigsetjmp(bus_jump, 1)) {
		*faulted = true;
		return bad + 1;
	}
	if (own && !reads_as_revoked(own, r->ring_size))
		bad++;
	for (i = 0; i < n; i++)
		if (!reads_as_revoked(r->rings[i], r->ring_size))
			bad++;
	return bad;
}

/* Unmap the mapper's mappings but for the first @keep of each kind. */
static void map_race_unmap(struct map_race *r, unsigned int keep)
{
	unsigned int i;

	for (i = keep; i < r->n_rings; i++)
		munmap((void *)r->rings[i], r->ring_size);
	for (i = keep; i < r->n_dbs; i++)
		munmap((void *)r->dbs[i], 4096);
	r->n_rings = r->n_dbs = keep;
}

TEST_F_TIMEOUT(queue, mappings_racing_destroy_see_only_the_stand_in, 300)
{
	struct npo_queue_create qc = { .sq_entries = 64, .cq_entries = 64 };
	struct npo_queue_destroy qd = { 0 };
	struct map_race r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct npo_device *mine;
	unsigned int round, i, bad = 0, poked = 0, kept = 0;
	bool faulted = false;
	pthread_t mapper;
	uint64_t *sq;

	NPO_TEST_SETUP_DONE();
	/* A file of its own, whose only queue's number comes back each round. */
	mine = npo_open_device("npo0");
	ASSERT_NE(NULL, mine);
	r.fd = npo_device_fd(mine);
	ASSERT_EQ(0, ioctl(r.fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	r.ring_size = qc.ring_size;
	r.ring_offset = qc.ring_offset;
	r.db_offset = qc.doorbell_offset;
	ASSERT_EQ(0, pthread_create(&mapper, NULL, map_race_mapper, &r));

	signal(SIGBUS, on_sigbus);
	for (round = 0; round < RACE_ROUNDS && !bad; round++) {
		volatile uint32_t *own;
		unsigned int seen;

		if (round) {
			memset(&qc, 0, sizeof(qc));
			qc.sq_entries = qc.cq_entries = 64;
			ASSERT_EQ(0, ioctl(r.fd, NPO_IOCTL_CREATE_QUEUE, &qc));
			ASSERT_EQ(r.ring_size, qc.ring_size);
			__atomic_store_n(&r.ring_offset, qc.ring_offset,
					 __ATOMIC_RELEASE);
			__atomic_store_n(&r.db_offset, qc.doorbell_offset,
					 __ATOMIC_RELEASE);
		}
		/* This round's mark in every ring word past the header. */
		own = mmap(NULL, qc.ring_size, PROT_READ | PROT_WRITE,
			   MAP_SHARED, r.fd, qc.ring_offset);
		ASSERT_NE(MAP_FAILED, own);
		for (sq = (uint64_t *)((char *)own + qc.sq_offset);
		     (char *)sq < (char *)own + qc.ring_size; sq++)
			*sq = 0x5eed000000000000ull | round;
		/*
		 * Every hundredth round, last round's mappings are still there:
		 * they must not reach the queue that took the number.
		 */
		if (round % 100 == 99) {
			pthread_mutex_lock(&r.lock);
			for (i = 0; i < r.kept; i++)
				r.dbs[i][NPO_DB_SQ_TAIL / 4] = 1000;
			bad = count_unrevoked(&r, NULL, r.kept, &faulted);
			pthread_mutex_unlock(&r.lock);
			EXPECT_EQ(0, bad) TH_LOG("round %u: an old ring mapping showed %s",
						 round, faulted ? "SIGBUS" : "ring memory");
			usleep(50000);
			EXPECT_EQ(0, own[NPO_RING_STATUS / 4])
				TH_LOG("round %u: an old doorbell reached queue %u",
				       round, qc.queue_id);
			poked++;
		}
		/* Destroy while the mapper is inside mmap() or just out of it. */
		seen = __atomic_load_n(&r.attempts, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&r.attempts, __ATOMIC_ACQUIRE) == seen)
			sched_yield();
		qd.queue_id = qc.queue_id;
		ASSERT_EQ(0, ioctl(r.fd, NPO_IOCTL_DESTROY_QUEUE, &qd));

		/* No queue exists in this file now: every mapping is revoked. */
		pthread_mutex_lock(&r.lock);
		bad = count_unrevoked(&r, own, r.n_rings, &faulted);
		r.kept = 0;
		if (round % 100 == 98) {
			r.kept = r.n_rings < r.n_dbs ? r.n_rings : r.n_dbs;
			kept += r.kept;
		}
		map_race_unmap(&r, r.kept);
		pthread_mutex_unlock(&r.lock);
		munmap((void *)own, qc.ring_size);
		EXPECT_EQ(0, bad) TH_LOG("round %u: a mapping showed %s", round,
					 faulted ? "SIGBUS" : "ring memory");
	}
	signal(SIGBUS, SIG_DFL);
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	pthread_join(mapper, NULL);
	map_race_unmap(&r, 0);
	TH_LOG("%u rounds, %u ring mappings checked, %u kept into the next round",
	       round, r.made, kept);
	EXPECT_GT(r.made, RACE_ROUNDS / 2);
	EXPECT_GT(kept, 0);
	EXPECT_EQ(RACE_ROUNDS / 100, poked);
	npo_close_device(mine);
}

/*
 * A CQ_HEAD doorbell beyond the tail is ignored: a queue paused with its
 * completion ring full stays paused, the completions not yet consumed stay
 * as they were, and once the consumer really frees room everything
 * arrives, in order and once.
 */
TEST_F(queue, cq_head_doorbell_beyond_the_tail_is_ignored)
{
	struct npo_queue_attr attr = { .sq_entries = 4, .cq_entries = 4 };
	struct npo_queue *q;
	struct npo_cqe *c;
	unsigned int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	for (i = 0; i < 4; i++)
		npo_prep_nop(npo_get_sqe(q), 100 + i);
	npo_submit(q);
	for (i = 0; i < 1000 && npo_load_acquire(q->sq_head) != 4; i++)
		usleep(1000);
	ASSERT_EQ(4, npo_load_acquire(q->sq_head));
	for (i = 4; i < 8; i++)
		npo_prep_nop(npo_get_sqe(q), 100 + i);
	npo_submit(q);
	for (i = 0; i < 1000 &&
	     !(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL); i++)
		usleep(1000);
	ASSERT_TRUE(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL);

	npo_db_write(q, NPO_DB_CQ_HEAD, 1000);
	usleep(100000);
	EXPECT_TRUE(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL);
	EXPECT_EQ(4, npo_load_acquire(q->cq_tail));
	EXPECT_EQ(4, npo_load_acquire(q->sq_head));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(100 + i, q->cqes[i].wr_id);

	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, npo_wait_cqe(q, &c, 10000)) TH_LOG("completion %u", i);
		EXPECT_EQ(100 + i, c->wr_id);
		EXPECT_EQ(NPO_STATUS_OK, c->status);
		npo_cq_advance(q, 1);
	}
	EXPECT_FALSE(npo_queue_in_error(q));
	EXPECT_FALSE(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL);
	npo_destroy_queue(q);
}

static unsigned long long irq_count(const char *name)
{
	char line[1024];
	unsigned long long total = 0, n;
	FILE *f = fopen("/proc/interrupts", "r");
	char *p;

	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, name))
			continue;
		p = strchr(line, ':');
		while (p && sscanf(p + 1, "%llu", &n) == 1) {
			total += n;
			p = strchr(p + 1, ' ');
			while (p && p[1] == ' ')
				p++;
		}
	}
	if (f)
		fclose(f);
	return total;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

TEST_F(queue, interrupt_mode_sleeps_and_wakes)
{
	struct npo_queue_attr attr = { .sq_entries = 16,
				       .flags = NPO_QUEUE_INTERRUPT };
	struct npo_queue_create qc;
	struct npo_queue *q;
	struct npo_cqe *c;
	unsigned long long before;
	char name[32];
	double cpu;
	int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	ASSERT_GE(q->event_fd, 0);
	snprintf(name, sizeof(name), "npo0-q%u", q->id);
	before = irq_count(name);

	/* Nothing posted: the wait sleeps rather than spins. */
	cpu = cpu_seconds();
	EXPECT_EQ(-ETIMEDOUT, npo_wait_cqe(q, &c, 300));
	EXPECT_LT(cpu_seconds() - cpu, 0.15);

	for (i = 0; i < 8; i++) {
		npo_prep_write(npo_get_sqe(q), i, npo_mr_lkey(self->src_mr),
			       self->src, BUF_SIZE, self->node,
			       npo_mr_rkey(self->dst_mr), (uintptr_t)self->dst);
		npo_submit(q);
		ASSERT_EQ(0, npo_wait_cqe(q, &c, 10000));
		EXPECT_EQ(i, c->wr_id);
		EXPECT_EQ(NPO_STATUS_OK, c->status);
		npo_cq_advance(q, 1);
	}
	/* At least one of those waits was woken by the queue's vector. */
	EXPECT_GT(irq_count(name), before) TH_LOG("no interrupt on %s", name);
	npo_destroy_queue(q);

	/* Bad eventfd combinations. */
	memset(&qc, 0, sizeof(qc));
	qc.sq_entries = qc.cq_entries = 4;
	qc.flags = NPO_QUEUE_CREATE_EVENTFD;
	qc.eventfd = -1;
	EXPECT_EQ(-1, ioctl(npo_device_fd(self->dev), NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EBADF, errno);
	qc.eventfd = 0;		/* stdin: not an eventfd */
	EXPECT_EQ(-1, ioctl(npo_device_fd(self->dev), NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
	qc.flags = 0;
	qc.eventfd = 3;
	EXPECT_EQ(-1, ioctl(npo_device_fd(self->dev), NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
}

/* A dumb buffer of vgem, the exporter without hardware, as a dma-buf. */
/* A vgem buffer exported as a dma-buf, writable or read-only. */
static int vgem_dmabuf(size_t size, int *card, bool writable)
{
	struct drm_mode_create_dumb cd = { .width = 1024, .bpp = 32 };
	char path[64];
	int i, fd = -1, buf;

	for (i = 0; i < 16 && fd < 0; i++) {
		drmVersionPtr v;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (!v || strcmp(v->name, "vgem")) {
			close(fd);
			fd = -1;
		}
		drmFreeVersion(v);
	}
	if (fd < 0)
		return -1;
	cd.height = size / 4096;
	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &cd) ||
	    drmPrimeHandleToFD(fd, cd.handle,
			       DRM_CLOEXEC | (writable ? DRM_RDWR : 0), &buf)) {
		close(fd);
		return -1;
	}
	*card = fd;
	return buf;
}

/* Device memory of another driver, through dma-buf: written and read. */
TEST_F(queue, dmabuf_from_vgem_is_reachable)
{
	const size_t size = 1 << 20;
	const uint64_t iova = 0x100000000ULL;
	int buf, card, fd = npo_device_fd(self->dev);
	struct npo_queue_attr attr = { .sq_entries = 4 };
	struct npo_dmabuf_reg reg;
	struct npo_queue *q;
	struct npo_mr *mr;
	struct npo_cqe c;
	uint8_t *map;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root to load vgem");
	npo_test_run(NULL, 0, "/sbin/modprobe vgem 2>/dev/null");
	buf = vgem_dmabuf(size, &card, true);
	if (buf < 0)
		SKIP(return, "no vgem device");
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
	ASSERT_NE(MAP_FAILED, map);
	memset(map, 0, size);

	ASSERT_EQ(0, npo_reg_dmabuf(self->dev, buf, 0, size, iova,
				    NPO_ACCESS_ALL, &mr));
	fill(self->src, size, 21);
	npo_prep_write(npo_get_sqe(self->q), 1, npo_mr_lkey(self->src_mr),
		       self->src, size - 4096, self->node, npo_mr_rkey(mr),
		       iova + 4096);
	ASSERT_EQ(0, run_one(self->q, &c));
	ASSERT_EQ(NPO_STATUS_OK, c.status) TH_LOG("%s", npo_status_str(c.status));
	EXPECT_EQ(0, memcmp(map + 4096, self->src, size - 4096));
	EXPECT_EQ(0, map[4095]);

	memset(self->dst, 0, size);
	npo_prep_read(npo_get_sqe(self->q), 2, npo_mr_lkey(self->dst_mr),
		      self->dst, size, self->node, npo_mr_rkey(mr), iova);
	ASSERT_EQ(0, run_one(self->q, &c));
	ASSERT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(0, memcmp(self->dst, map, size));
	/* Past the registered length is out of bounds, as for any region. */
	npo_prep_read(npo_get_sqe(self->q), 3, npo_mr_lkey(self->dst_mr),
		      self->dst, 8, self->node, npo_mr_rkey(mr), iova + size);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_REMOTE_ACCESS, c.status);
	EXPECT_EQ(0, npo_dereg_mr(mr));

	/* Bad arguments: not a dma-buf, no file, beyond it, unaligned. */
	memset(&reg, 0, sizeof(reg));
	reg.length = 4096;
	reg.fd = card;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.fd = -1;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EBADF, errno);
	reg.fd = buf;
	reg.offset = size;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.offset = 100;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EINVAL, errno);
	/* A region still registered when the file closes goes with it. */
	reg.offset = 0;
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	munmap(map, size);
	close(buf);
	close(card);

	/* A buffer its exporter handed out read-only registers for reading only. */
	buf = vgem_dmabuf(size, &card, false);
	ASSERT_GE(buf, 0);
	memset(&reg, 0, sizeof(reg));
	reg.fd = buf;
	reg.length = size;
	reg.iova = iova;
	reg.access = NPO_ACCESS_REMOTE_WRITE;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EACCES, errno);
	reg.access = NPO_ACCESS_LOCAL_WRITE;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EACCES, errno);
	reg.access = NPO_ACCESS_REMOTE_READ;
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	/* And the device can read it (on a new queue: the last one is in error). */
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_read(npo_get_sqe(q), 4, npo_mr_lkey(self->dst_mr),
		      self->dst, 4096, self->node, reg.rkey, iova);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	npo_destroy_queue(q);
	close(buf);
	close(card);
}

static int64_t jint(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return json_object_get_int64(v);
}

/* Administrators see every process's queues and regions, others nothing. */
/* Listing every process's queues is for administrators.  Runs as nobody. */
static int npoctl_queue_is_refused(void *unused)
{
	char out[4096];

	return npo_test_run(out, sizeof(out), "npoctl queue 2>&1") == 1 &&
	       strstr(out, "permission denied") ? 0 : 11;
}

TEST_F(queue, npoctl_queue_shows_owners)
{
	static char out[1 << 16];
	struct json_object *doc, *list, *e;
	bool queue_seen = false;
	int i, regions = 0;
	uint32_t job;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	ASSERT_EQ(0, npo_device_job(self->dev, &job));
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "npoctl -j queue show npo0"));
	doc = json_tokener_parse(out);
	ASSERT_NE(NULL, doc) TH_LOG("%s", out);
	ASSERT_TRUE(json_object_object_get_ex(doc, "queues", &list));
	for (i = 0; i < (int)json_object_array_length(list); i++) {
		e = json_object_array_get_idx(list, i);
		if (jint(e, "pid") != getpid() || jint(e, "queue") != self->q->id)
			continue;
		queue_seen = true;
		EXPECT_EQ(64, jint(e, "sq_entries"));
		EXPECT_EQ(128, jint(e, "cq_entries"));
		EXPECT_EQ(0, jint(e, "uid"));
		EXPECT_EQ(job, jint(e, "job"));
	}
	EXPECT_TRUE(queue_seen) TH_LOG("%s", out);
	ASSERT_TRUE(json_object_object_get_ex(doc, "regions", &list));
	for (i = 0; i < (int)json_object_array_length(list); i++) {
		e = json_object_array_get_idx(list, i);
		if (jint(e, "pid") != getpid())
			continue;
		if (jint(e, "lkey") == npo_mr_lkey(self->src_mr) ||
		    jint(e, "lkey") == npo_mr_lkey(self->dst_mr)) {
			EXPECT_EQ(BUF_SIZE, jint(e, "length"));
			EXPECT_EQ(job, jint(e, "job"));
			regions++;
		}
		/* The remote keys, which grant access, are never shown. */
		EXPECT_FALSE(json_object_object_get_ex(e, "rkey", NULL));
	}
	EXPECT_EQ(2, regions) TH_LOG("%s", out);
	json_object_put(doc);
	/* The text view names the process. */
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "npoctl queue"));
	EXPECT_NE(NULL, strstr(out, "npo_queue_test")) TH_LOG("%s", out);

	EXPECT_EQ(0, npo_test_as_nobody(npoctl_queue_is_refused, NULL));
}

/*
 * Hang attribution: a queue whose process stopped reaping completions
 * makes no progress.  `npoctl queue stuck` names it, with the number of
 * descriptors the device still holds (checked against the ring's SQ_HEAD,
 * which the device writes), how long the oldest has waited, where it
 * goes and that it waits for completion room; once the process reaps, it
 * is no longer listed.
 */
TEST_F(queue, npoctl_queue_stuck_names_what_the_queue_waits_for)
{
	struct npo_queue_attr attr = { .sq_entries = 4, .cq_entries = 4 };
	static char out[1 << 16];
	struct json_object *doc, *list, *e = NULL;
	struct npo_queue *q;
	struct npo_cqe *c;
	unsigned int i;
	int rc;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	fill(self->src, 64, 7);
	/* Four completions fill the ring; four more writes stay behind. */
	for (i = 0; i < 8; i++) {
		if (i == 4) {
			for (int t = 0; t < 1000 &&
			     npo_load_acquire(q->sq_head) != 4; t++)
				usleep(1000);
			ASSERT_EQ(4, npo_load_acquire(q->sq_head));
		}
		npo_prep_write(npo_get_sqe(q), i, npo_mr_lkey(self->src_mr),
			       self->src, 64, self->node, npo_mr_rkey(self->dst_mr),
			       (uintptr_t)self->dst + i * 64);
		npo_submit(q);
	}
	for (i = 0; i < 1000 && !(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL); i++)
		usleep(1000);
	ASSERT_TRUE(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL);
	ASSERT_EQ(4, npo_load_acquire(q->sq_head));
	usleep(300000);

	rc = npo_test_run(out, sizeof(out), "npoctl -j queue stuck --older 200 npo0");
	EXPECT_EQ(3, rc) TH_LOG("%s", out);
	doc = json_tokener_parse(out);
	ASSERT_NE(NULL, doc) TH_LOG("%s", out);
	ASSERT_TRUE(json_object_object_get_ex(doc, "queues", &list));
	for (i = 0; i < json_object_array_length(list); i++) {
		struct json_object *k = json_object_array_get_idx(list, i);

		if (jint(k, "pid") == getpid() && jint(k, "queue") == q->id)
			e = k;
		/* The fixture's idle queue has nothing outstanding. */
		EXPECT_FALSE(jint(k, "pid") == getpid() &&
			     jint(k, "queue") == self->q->id);
	}
	ASSERT_NE(NULL, e) TH_LOG("%s", out);
	EXPECT_EQ(8 - npo_load_acquire(q->sq_head), jint(e, "outstanding"));
	EXPECT_LE(200, jint(e, "oldest_ms"));
	EXPECT_GT(60000, jint(e, "oldest_ms"));
	EXPECT_EQ(self->node, jint(e, "dest_node"));
	EXPECT_STREQ("write", json_object_get_string(
		     json_object_object_get(e, "opcode")));
	/* Loopback: no port. */
	EXPECT_FALSE(json_object_object_get_ex(e, "port", NULL));
	EXPECT_NE(NULL, strstr(json_object_get_string(
		  json_object_object_get(e, "waits_for")), "does not reap"));
	json_object_put(doc);
	/* The text form says the same in a line. */
	npo_test_run(out, sizeof(out), "npoctl queue stuck --older 200 npo0");
	EXPECT_NE(NULL, strstr(out, "4 outstanding")) TH_LOG("%s", out);

	/* Reaped, the queue drains and is no longer stuck. */
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, npo_wait_cqe(q, &c, 10000));
		EXPECT_EQ(i, c->wr_id);
		EXPECT_EQ(NPO_STATUS_OK, c->status);
		npo_cq_advance(q, 1);
	}
	rc = npo_test_run(out, sizeof(out), "npoctl -j queue stuck --older 0 npo0");
	EXPECT_EQ(0, rc) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "\"outstanding\"")) TH_LOG("%s", out);
	/* Bad times are refused. */
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl queue stuck --older -1 2>/dev/null"));
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl queue stuck --older 1x 2>/dev/null"));
	npo_destroy_queue(q);
}

/* A process killed with transfers in flight leaves nothing broken. */
/*
 * Pages pinned for DMA (FOLL_PIN) and not yet released, host-wide, from
 * /proc/vmstat: an independent view of what every region still holds.
 */
static long long pinned_pages(void)
{
	char line[128];
	long long acquired = -1, released = -1, v;
	FILE *f;

	/* Fold the per-CPU deltas in first, or the sums lag behind. */
	npo_test_write_file("/proc/sys/vm/stat_refresh", "1");
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "nr_foll_pin_acquired %lld", &v) == 1)
			acquired = v;
		else if (sscanf(line, "nr_foll_pin_released %lld", &v) == 1)
			released = v;
	}
	fclose(f);
	return acquired < 0 || released < 0 ? -1 : acquired - released;
}

TEST_F(queue, killed_with_transfers_in_flight)
{
	static char out[1 << 16];
	long long pinned_before = pinned_pages();
	pid_t pids[5];
	struct npo_cqe c;
	int status, round;

	NPO_TEST_SETUP_DONE();
	ASSERT_GE(pinned_before, 0) TH_LOG("no pin counters in /proc/vmstat");
	for (round = 0; round < 5; round++) {
		pid_t pid = fork();

		ASSERT_GE(pid, 0);
		if (pid == 0) {
			struct npo_queue_attr attr = { .sq_entries = 64 };
			struct npo_device *dev = npo_open_device("npo0");
			uint8_t *a = alloc_buf(BUF_SIZE), *b = alloc_buf(BUF_SIZE);
			struct npo_mr *ma, *mb;
			struct npo_queue *q;
			unsigned int i;

			if (!dev || npo_create_queue(dev, &attr, &q) ||
			    npo_reg_mr(dev, a, BUF_SIZE, ALL_ACCESS, &ma) ||
			    npo_reg_mr(dev, b, BUF_SIZE, ALL_ACCESS, &mb))
				_exit(1);
			for (i = 0; i < 64; i++)
				npo_prep_write(npo_get_sqe(q), i, npo_mr_lkey(ma), a,
					       BUF_SIZE, q->node_id, npo_mr_rkey(mb),
					       (uintptr_t)b);
			npo_submit(q);
			raise(SIGKILL);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status));
		pids[round] = pid;
	}
	/*
	 * Everything they held is gone: each pinned 16 MiB and died with
	 * 64 writes in flight, yet the pins are back where they were, and
	 * the administrator's view lists none of their queues or regions.
	 */
	EXPECT_EQ(pinned_before, pinned_pages());
	if (npo_test_is_root()) {
		ASSERT_EQ(0, npo_test_run(out, sizeof(out),
					  "npoctl -j queue show npo0"));
		for (round = 0; round < 5; round++) {
			char pid[32];

			snprintf(pid, sizeof(pid), "\"pid\":%d,", pids[round]);
			EXPECT_EQ(NULL, strstr(out, pid)) TH_LOG("%s", out);
		}
		EXPECT_NE(NULL, strstr(out, "\"queues\":[")) TH_LOG("%s", out);
	}
	/* This process's queue still works. */
	fill(self->src, 4096, 3);
	npo_prep_write(npo_get_sqe(self->q), 9, npo_mr_lkey(self->src_mr),
		       self->src, 4096, self->node, npo_mr_rkey(self->dst_mr),
		       (uintptr_t)self->dst);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(0, memcmp(self->dst, self->src, 4096));
}

/*
 * Many processes, several queues each, millions of descriptors: every one
 * completes exactly once, on its own queue, and every write's bytes land.
 * wr_ids are unique across processes and queues, so a completion on the
 * wrong queue or a duplicate cannot cancel out a lost one.
 */
#define STRESS_PROCS	4
#define STRESS_QUEUES	3
#define STRESS_OPS	500000		/* per queue: 6 million in all */
#define STRESS_SLOTS	512		/* > SQ entries: no slot reused in flight */
#define STRESS_SLOT	64

struct stress_queue {
	struct npo_queue *q;
	uint8_t *seen;
	uint64_t posted, done;
	uint8_t *src, *dst;		/* STRESS_SLOTS slots each */
};

static uint64_t stress_wr_id(unsigned int proc, unsigned int queue,
			     uint64_t seq)
{
	return (uint64_t)proc << 48 | (uint64_t)queue << 40 | seq;
}

/* The bytes write seq of a queue carries: its wr_id, then a pattern. */
static void stress_payload(uint8_t *slot, uint64_t wr_id)
{
	unsigned int i;

	memcpy(slot, &wr_id, 8);
	for (i = 8; i < STRESS_SLOT; i++)
		slot[i] = (uint8_t)(wr_id * 31 + i);
}

/* Reap what has completed; 0, or the step that found it wrong. */
static int stress_reap(struct stress_queue *sq, unsigned int proc,
		       unsigned int queue)
{
	uint8_t want[STRESS_SLOT];
	struct npo_cqe *c;

	while ((c = npo_peek_cqe(sq->q))) {
		uint64_t seq = c->wr_id & ((1ULL << 40) - 1);

		if (c->status)
			return 10;
		if (c->wr_id != stress_wr_id(proc, queue, seq))
			return 11;	/* another queue's or process' completion */
		if (seq >= STRESS_OPS || sq->seen[seq]++)
			return 12;	/* out of range, or twice */
		if (c->opcode == NPO_OP_WRITE) {
			stress_payload(want, c->wr_id);
			if (memcmp(sq->dst + (seq % STRESS_SLOTS) * STRESS_SLOT,
				   want, STRESS_SLOT))
				return 13;	/* the bytes did not land */
		}
		sq->done++;
		npo_cq_advance(sq->q, 1);
	}
	return 0;
}

static int stress_one(unsigned int proc)
{
	struct npo_queue_attr attr = { .sq_entries = 256, .cq_entries = 256 };
	struct npo_device *dev = npo_open_device("npo0");
	size_t area = 2 * STRESS_SLOTS * STRESS_SLOT;
	uint8_t *buf = alloc_buf(STRESS_QUEUES * area);
	struct stress_queue sq[STRESS_QUEUES] = { 0 };
	uint64_t total = 0;
	struct npo_mr *mr;
	unsigned int i;
	int err;

	if (!dev || !buf || npo_reg_mr(dev, buf, STRESS_QUEUES * area,
				       ALL_ACCESS, &mr))
		return 1;
	for (i = 0; i < STRESS_QUEUES; i++) {
		sq[i].seen = calloc(STRESS_OPS, 1);
		sq[i].src = buf + i * area;
		sq[i].dst = sq[i].src + area / 2;
		if (!sq[i].seen || npo_create_queue(dev, &attr, &sq[i].q))
			return 2;
	}
	while (total < STRESS_QUEUES * (uint64_t)STRESS_OPS) {
		for (i = 0; i < STRESS_QUEUES; i++) {
			struct stress_queue *s = &sq[i];
			struct npo_sqe *sqe;

			while (s->posted < STRESS_OPS && (sqe = npo_get_sqe(s->q))) {
				uint64_t wr_id = stress_wr_id(proc, i, s->posted);
				size_t off = (s->posted % STRESS_SLOTS) * STRESS_SLOT;

				/* NOPs and small writes, each its own bytes. */
				if ((s->posted + proc) & 1) {
					npo_prep_nop(sqe, wr_id);
				} else {
					stress_payload(s->src + off, wr_id);
					npo_prep_write(sqe, wr_id, npo_mr_lkey(mr),
						       s->src + off, STRESS_SLOT,
						       s->q->node_id, npo_mr_rkey(mr),
						       (uintptr_t)s->dst + off);
				}
				s->posted++;
			}
			npo_submit(s->q);
			total -= s->done;
			err = stress_reap(s, proc, i);
			if (err)
				return err;
			total += s->done;
		}
	}
	/* Late duplicates would come now: none may. */
	usleep(200000);
	for (i = 0; i < STRESS_QUEUES; i++) {
		if (npo_peek_cqe(sq[i].q))
			return 20;
		if (memchr(sq[i].seen, 0, STRESS_OPS))
			return 21;
		npo_destroy_queue(sq[i].q);
	}
	return 0;
}

TEST_F_TIMEOUT(queue, every_descriptor_completes_exactly_once, 600)
{
	pid_t pids[STRESS_PROCS];
	struct timespec t0, t1;
	int i, status;

	NPO_TEST_SETUP_DONE();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < STRESS_PROCS; i++) {
		pids[i] = fork();
		ASSERT_GE(pids[i], 0);
		if (pids[i] == 0)
			_exit(stress_one(i));
	}
	for (i = 0; i < STRESS_PROCS; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("process %d, step %d", i,
							 WEXITSTATUS(status));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%d descriptors on %d queues in %.1f s, each completed once",
	       STRESS_PROCS * STRESS_QUEUES * STRESS_OPS,
	       STRESS_PROCS * STRESS_QUEUES,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
}

TEST_HARNESS_MAIN
