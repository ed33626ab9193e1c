// SPDX-License-Identifier: GPL-2.0-only
/*
 * DMA queues in loopback on one device: every operation and size class
 * moves the right bytes, every descriptor completes exactly once, a full
 * completion ring pauses without loss, interrupt mode sleeps and wakes,
 * and every hostile descriptor fails only itself with a clear status while
 * other queues and processes carry on.
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
#include "npo_queue_fixture.h"
#include "npo_test_lib.h"

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
