// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * npo_flush_revoked() on final rings built here as the driver leaves them
 * after a reset: every descriptor and receive buffer without a completion
 * gets exactly one, in posting order, within the completion ring's room,
 * and a hostile index cannot make it read outside the rings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "npo.h"

#define SQ	8
#define CQ	4
#define RQ	4

FIXTURE(final)
{
	void *mem;
	struct npo_queue q;
	uint32_t doorbell[1024];	/* takes npo_post_recv()'s writes */
};

static uint32_t *hdr_word(FIXTURE_DATA(final) *self, unsigned int off)
{
	return (uint32_t *)((char *)self->mem + off);
}

FIXTURE_SETUP(final)
{
	char *base;

	self->mem = calloc(1, NPO_RING_HEADER_SIZE +
			      SQ * sizeof(struct npo_sqe) +
			      CQ * sizeof(struct npo_cqe) +
			      RQ * sizeof(struct npo_rqe));
	ASSERT_NE(NULL, self->mem);
	base = self->mem;
	self->q.sqes = (struct npo_sqe *)(base + NPO_RING_HEADER_SIZE);
	self->q.cqes = (struct npo_cqe *)(self->q.sqes + SQ);
	self->q.rqes = (struct npo_rqe *)(self->q.cqes + CQ);
	self->q.sq_head = hdr_word(self, NPO_RING_SQ_HEAD);
	self->q.cq_tail = hdr_word(self, NPO_RING_CQ_TAIL);
	self->q.cq_head = hdr_word(self, NPO_RING_CQ_HEAD);
	self->q.status = hdr_word(self, NPO_RING_STATUS);
	self->q.rq_head = hdr_word(self, NPO_RING_RQ_HEAD);
	self->q.sq_mask = SQ - 1;
	self->q.cq_mask = CQ - 1;
	self->q.rq_mask = RQ - 1;
	self->q.doorbell = self->doorbell;
	self->q.node_id = 3;
	self->q.event_fd = -1;
}

FIXTURE_TEARDOWN(final)
{
	free(self->mem);
}

/*
 * Post @n writes (wr_id 10 + i) and SENDs every third, from a ring index
 * near 2^32 so that the counts wrap.
 */
static void post(FIXTURE_DATA(final) *self, uint32_t start, unsigned int n)
{
	unsigned int i;

	*hdr_word(self, NPO_RING_SQ_HEAD) = start;
	self->q.sq_tail = start;
	for (i = 0; i < n; i++) {
		struct npo_sqe *d = npo_get_sqe(&self->q);

		if (i % 3 == 2)
			npo_prep_send(d, 10 + i, 1, NULL, 8, 5, 7);
		else
			npo_prep_write(d, 10 + i, 1, NULL, 8, 5, 1, 0);
	}
	self->q.sq_rung = self->q.sq_tail;
}

/* Consume every completion there is; wr_ids into @out, opcodes too. */
static unsigned int drain(struct npo_queue *q, uint64_t *out, uint8_t *ops,
			  uint32_t *st, unsigned int max)
{
	struct npo_cqe *c;
	unsigned int n = 0;

	while ((c = npo_peek_cqe(q)) && n < max) {
		out[n] = c->wr_id;
		ops[n] = c->opcode;
		st[n++] = c->status;
		npo_cq_advance(q, 1);
	}
	return n;
}

TEST_F(final, every_outstanding_entry_completes_once_in_order)
{
	const uint32_t start = UINT32_MAX - 2;
	uint64_t ids[16];
	uint32_t st[16];
	uint8_t ops[16];
	unsigned int n, i;

	post(self, start, 6);
	/* The device completed two; their CQEs wait unconsumed. */
	*hdr_word(self, NPO_RING_SQ_HEAD) = start + 2;
	self->q.cq_head_local = 100;
	*hdr_word(self, NPO_RING_CQ_TAIL) = 102;
	self->q.cqes[100 % CQ].wr_id = 10;
	self->q.cqes[101 % CQ].wr_id = 11;
	/* Two receive buffers, one taken by a SEND that completed. */
	self->q.rq_tail = 0;
	npo_post_recv(&self->q, 50, 1, NULL, 64);
	npo_post_recv(&self->q, 51, 1, NULL, 64);
	*hdr_word(self, NPO_RING_RQ_HEAD) = 1;
	*hdr_word(self, NPO_RING_STATUS) = NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED |
					   NPO_QSTAT_FINAL;

	/* Room for two: two flushed, three still owed. */
	EXPECT_EQ(3, npo_flush_revoked(&self->q));
	n = drain(&self->q, ids, ops, st, 16);
	ASSERT_EQ(4, n);
	EXPECT_EQ(10, ids[0]);
	EXPECT_EQ(11, ids[1]);
	EXPECT_EQ(12, ids[2]);
	EXPECT_EQ(13, ids[3]);
	EXPECT_EQ(NPO_STATUS_RESET, st[2]);
	EXPECT_EQ(NPO_OP_SEND, ops[2]);
	/* The rest, buffers after descriptors. */
	EXPECT_EQ(0, npo_flush_revoked(&self->q));
	n = drain(&self->q, ids, ops, st, 16);
	ASSERT_EQ(3, n);
	EXPECT_EQ(14, ids[0]);
	EXPECT_EQ(15, ids[1]);
	EXPECT_EQ(51, ids[2]);
	EXPECT_EQ(NPO_OP_RECV, ops[2]);
	for (i = 0; i < n; i++)
		EXPECT_EQ(NPO_STATUS_RESET, st[i]);
	/* Nothing twice. */
	EXPECT_EQ(0, npo_flush_revoked(&self->q));
	EXPECT_EQ(NULL, npo_peek_cqe(&self->q));

	/* What the caller posts on the dead queue later is owed one too. */
	npo_prep_nop(npo_get_sqe(&self->q), 99);
	EXPECT_EQ(0, npo_flush_revoked(&self->q));
	n = drain(&self->q, ids, ops, st, 16);
	ASSERT_EQ(1, n);
	EXPECT_EQ(99, ids[0]);
}

TEST_F(final, the_flush_names_the_destination)
{
	struct npo_cqe *c;

	post(self, 0, 3);
	*hdr_word(self, NPO_RING_STATUS) = NPO_QSTAT_REVOKED | NPO_QSTAT_FINAL;
	EXPECT_EQ(0, npo_flush_revoked(&self->q));
	c = npo_peek_cqe(&self->q);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(5, c->peer_node);
	EXPECT_EQ(0, c->peer_queue);
	EXPECT_EQ(NPO_CQE_PORT_NONE, c->port);
	EXPECT_EQ(0, c->length);
	npo_cq_advance(&self->q, 2);
	c = npo_peek_cqe(&self->q);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(NPO_OP_SEND, c->opcode);
	EXPECT_EQ(7, c->peer_queue);
}

TEST_F(final, only_a_revoked_queue_with_final_rings_is_flushed)
{
	post(self, 0, 2);
	EXPECT_EQ(-EBUSY, npo_flush_revoked(&self->q));
	*hdr_word(self, NPO_RING_STATUS) = NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED;
	EXPECT_EQ(-ENODEV, npo_flush_revoked(&self->q));
	EXPECT_EQ(NULL, npo_peek_cqe(&self->q));
	EXPECT_EQ(-EINVAL, npo_flush_revoked(NULL));
}

/*
 * A device that wrote a wild SQ_HEAD before it stopped: no more is owed
 * than the ring holds, and each slot is read once.
 */
TEST_F(final, a_wild_head_owes_at_most_a_ring)
{
	uint64_t ids[16];
	uint32_t st[16];
	uint8_t ops[16];

	post(self, 0, 4);
	*hdr_word(self, NPO_RING_SQ_HEAD) = 0x80000000u;
	*hdr_word(self, NPO_RING_RQ_HEAD) = 12345;
	*hdr_word(self, NPO_RING_STATUS) = NPO_QSTAT_REVOKED | NPO_QSTAT_FINAL;
	/* A whole SQ and a whole RQ at most, a CQ's room at a time. */
	EXPECT_EQ(SQ + RQ - CQ, npo_flush_revoked(&self->q));
	EXPECT_EQ(CQ, drain(&self->q, ids, ops, st, 16));
	EXPECT_EQ(SQ + RQ - 2 * CQ, npo_flush_revoked(&self->q));
	EXPECT_EQ(CQ, drain(&self->q, ids, ops, st, 16));
	EXPECT_EQ(0, npo_flush_revoked(&self->q));
	EXPECT_EQ(CQ, drain(&self->q, ids, ops, st, 16));
	EXPECT_EQ(0, npo_flush_revoked(&self->q));
}

TEST_HARNESS_MAIN
