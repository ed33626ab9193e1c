// SPDX-License-Identifier: GPL-2.0-only
/*
 * DMA through links: one-sided and two-sided operations between
 * neighbouring devices of a ring, with the port they used named in the
 * completion; a refused write flushes the writes streamed behind it;
 * link errors below the recovery threshold and retrains lose nothing; a
 * node cut off fails what is in flight with LINK_DOWN naming the port, a
 * node that does not exist is unreachable; npoctl topo impact predicts
 * exactly which queues and clocks a cut moves.  Routing beyond the
 * neighbours is npo_route_test's.
 *
 * Needs npo-vm --topology ring: device i port 0 to device i+1 port 1,
 * device i is node i + 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>
#include <npo.h>

#include "kselftest_harness.h"
#include "npo_test_json.h"
#include "npo_test_lib.h"

#define BUF_SIZE	(8u << 20)
/* The job the test's processes share, as a launcher would assign it. */
#define REMOTE_JOB	77

FIXTURE(remote) {
	struct npo_test_end a, b;	/* npo0 (node 1) and npo1 (node 2) */
};

static int end_open(struct npo_test_end *e, const char *name)
{
	struct npo_queue_attr attr = { .sq_entries = 256 };

	return npo_test_end_open(e, name, REMOTE_JOB, &attr, BUF_SIZE);
}

/* Wait until npo<dev> port <port> is active again, from debugfs. */
static bool port_active(int dev, int port)
{
	char path[96], buf[4096], want[32], *line;
	int tries, i;

	snprintf(path, sizeof(path), "/sys/kernel/debug/npo/npo%d/ports", dev);
	snprintf(want, sizeof(want), "port %d: active", port);
	for (tries = 0; tries < 300; tries++) {
		if (!npo_test_read_file(path, buf, sizeof(buf))) {
			line = buf;
			for (i = 0; i < port && line; i++) {
				line = strchr(line, '\n');
				line = line ? line + 1 : NULL;
			}
			if (line && !strncmp(line, want, strlen(want)))
				return true;
		}
		usleep(50000);
	}
	return false;
}

FIXTURE_SETUP(remote)
{
	struct npo_device_attr da;

	memset(self, 0, sizeof(*self));
	NPO_TEST_NEED_RING(3);
	if (!npo_test_is_root())
		SKIP(return, "needs root for debugfs");
	ASSERT_EQ(0, end_open(&self->a, "npo0"));
	ASSERT_EQ(0, npo_query_device(self->a.dev, &da));
	if (!(da.caps & NPO_CAP_QUEUES))
		SKIP(return, "device has no DMA queues");
	ASSERT_EQ(0, end_open(&self->b, "npo1"));
	ASSERT_TRUE(port_active(0, 0));
	ASSERT_TRUE(port_active(1, 1));
}

FIXTURE_TEARDOWN(remote)
{
	if (!access("/sys/kernel/debug/npo/npo0/fault", W_OK))
		npo_test_fault(0, "clear");
	npo_test_end_close(&self->a);
	npo_test_end_close(&self->b);
}

/* SEND len bytes of e's buffer to a queue of a node; its completion in *c. */
static int send_and_reap(struct npo_test_end *e, uint32_t node, uint16_t queue,
			 uint32_t len, struct npo_cqe *c)
{
	npo_prep_send(npo_get_sqe(e->q), 1, npo_mr_lkey(e->mr), e->buf, len,
		      node, queue);
	npo_submit(e->q);
	return npo_test_take_cqe(e->q, c, 10000);
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 197 + seed);
}

TEST_F(remote, write_read_and_atomics_to_the_neighbour)
{
	static const uint32_t sizes[] = { 1, 4096, 65537, 1u << 20, BUF_SIZE / 2 };
	struct npo_test_end *a = &self->a, *b = &self->b;
	uint64_t *counter = (uint64_t *)(b->buf + BUF_SIZE - 8);
	uint64_t *old = (uint64_t *)(a->buf + BUF_SIZE - 8);
	struct npo_cqe c;
	unsigned int i;

	NPO_TEST_SETUP_DONE();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		fill(a->buf, sizes[i], i);
		memset(b->buf, 0, sizes[i] + 1);
		npo_prep_write(npo_get_sqe(a->q), i, npo_mr_lkey(a->mr), a->buf,
			       sizes[i], b->q->node_id, npo_mr_rkey(b->mr),
			       (uintptr_t)b->buf);
		npo_submit(a->q);
		ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000));
		ASSERT_EQ(NPO_STATUS_OK, c.status) TH_LOG("%s", npo_status_str(c.status));
		EXPECT_EQ(0, c.port) TH_LOG("node 2 is behind port 0");
		EXPECT_EQ(0, memcmp(a->buf, b->buf, sizes[i]));
		EXPECT_EQ(0, b->buf[sizes[i]]);

		/* And back: b reads a's memory through its port 1. */
		memset(b->buf + BUF_SIZE / 2, 0, sizes[i]);
		npo_prep_read(npo_get_sqe(b->q), i, npo_mr_lkey(b->mr),
			      b->buf + BUF_SIZE / 2, sizes[i], a->q->node_id,
			      npo_mr_rkey(a->mr), (uintptr_t)a->buf);
		npo_submit(b->q);
		ASSERT_EQ(0, npo_test_take_cqe(b->q, &c, 10000));
		ASSERT_EQ(NPO_STATUS_OK, c.status);
		EXPECT_EQ(1, c.port);
		EXPECT_EQ(0, memcmp(a->buf, b->buf + BUF_SIZE / 2, sizes[i]));
	}

	*counter = 5;
	npo_prep_fetch_add(npo_get_sqe(a->q), 1, npo_mr_lkey(a->mr), old,
			   b->q->node_id, npo_mr_rkey(b->mr), (uintptr_t)counter, 10);
	npo_submit(a->q);
	ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(5, *old);
	EXPECT_EQ(15, *counter);
	npo_prep_cmp_swap(npo_get_sqe(a->q), 2, npo_mr_lkey(a->mr), old,
			  b->q->node_id, npo_mr_rkey(b->mr), (uintptr_t)counter,
			  15, 99);
	npo_submit(a->q);
	ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000));
	EXPECT_EQ(15, *old);
	EXPECT_EQ(99, *counter);
}

/* What a collective library asks before it builds its ring. */
TEST_F(remote, ports_show_their_peers)
{
	struct npo_port_attr pa;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_query_port(self->a.dev, 0, &pa));
	EXPECT_EQ(5, pa.state) TH_LOG("active");
	EXPECT_TRUE(pa.peer_known);
	EXPECT_EQ(self->b.q->node_id, pa.peer_node);
	EXPECT_EQ(1, pa.peer_port);
	EXPECT_EQ(212500, pa.rate_mbps);
	EXPECT_GE(pa.width, 1);
	/* An unconnected port: no peer, no error. */
	ASSERT_EQ(0, npo_query_port(self->a.dev, 3, &pa));
	EXPECT_FALSE(pa.peer_known);
	EXPECT_EQ(0, pa.width);
	EXPECT_EQ(-EINVAL, npo_query_port(self->a.dev, 99, &pa));
}

TEST_F(remote, immediate_data_arrives_with_its_origin)
{
	struct npo_test_end *a = &self->a, *b = &self->b;
	struct npo_cqe c;

	NPO_TEST_SETUP_DONE();
	fill(a->buf, 1000, 3);
	npo_prep_write_imm(npo_get_sqe(a->q), 77, npo_mr_lkey(a->mr), a->buf,
			   1000, b->q->node_id, b->q->id, npo_mr_rkey(b->mr),
			   (uintptr_t)b->buf, 0x5eed);
	npo_submit(a->q);
	ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	ASSERT_EQ(0, npo_test_take_cqe(b->q, &c, 10000));
	EXPECT_EQ(NPO_OP_RECV_IMM, c.opcode);
	EXPECT_EQ(0x5eed, c.imm);
	EXPECT_EQ(1000, c.length);
	EXPECT_EQ(a->q->node_id, c.peer_node);
	EXPECT_EQ(a->q->id, c.peer_queue);
	EXPECT_EQ(1, c.port) TH_LOG("arrived on npo1's port 1");
	EXPECT_EQ(0, memcmp(a->buf, b->buf, 1000));
}

TEST_F(remote, send_lands_in_the_neighbours_receive_buffer)
{
	struct npo_queue_attr attr = { .sq_entries = 8, .rq_entries = 4 };
	struct npo_test_end *a = &self->a, *b = &self->b;
	struct npo_queue *rq;
	struct npo_cqe c;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_create_queue(b->dev, &attr, &rq));
	ASSERT_EQ(0, npo_post_recv(rq, 42, npo_mr_lkey(b->mr), b->buf, 65536));
	fill(a->buf, 65536, 5);
	ASSERT_EQ(0, send_and_reap(a, b->q->node_id, rq->id, 65536, &c));
	EXPECT_EQ(NPO_STATUS_OK, c.status) TH_LOG("%s", npo_status_str(c.status));
	EXPECT_EQ(0, c.port);
	ASSERT_EQ(0, npo_test_take_cqe(rq, &c, 10000));
	EXPECT_EQ(NPO_OP_RECV, c.opcode);
	EXPECT_EQ(42, c.wr_id);
	EXPECT_EQ(65536, c.length);
	EXPECT_EQ(a->q->node_id, c.peer_node);
	EXPECT_EQ(1, c.port);
	EXPECT_EQ(0, memcmp(a->buf, b->buf, 65536));
	npo_destroy_queue(rq);
}

TEST_F(remote, remote_keys_are_checked_by_the_target)
{
	struct npo_test_end *a = &self->a, *b = &self->b;
	struct npo_cqe c;

	NPO_TEST_SETUP_DONE();
	/* a's own key means nothing on b. */
	npo_prep_write(npo_get_sqe(a->q), 1, npo_mr_lkey(a->mr), a->buf, 8,
		       b->q->node_id, npo_mr_rkey(a->mr) ^ 0x10000,
		       (uintptr_t)b->buf);
	npo_submit(a->q);
	ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000));
	EXPECT_EQ(NPO_STATUS_REMOTE_ACCESS, c.status);
	EXPECT_TRUE(npo_queue_in_error(a->q));
}

/*
 * Writes stream to a peer with several on the wire at once (over the
 * fabric transport, a window per queue), a READ waits for those before
 * it, and a write the target refuses fails alone: every write behind it
 * completes FLUSHED and leaves its target untouched, even though it was
 * on the wire before the refusal came back (the 2 MiB one right behind
 * it may be half sent then).  Each completes once, in order.
 */
TEST_F(remote, a_refused_write_flushes_the_writes_behind_it)
{
	enum { WRITES = 40, READ_AT = 20, REFUSED = 30, SLOT = 4096,
	       LONG = 2u << 20 };
	struct npo_test_end *a = &self->a, *b = &self->b;
	uint8_t *readback = a->buf + BUF_SIZE / 2;
	uint8_t *long_src = a->buf + BUF_SIZE / 4;
	uint8_t *long_dst = b->buf + BUF_SIZE / 2;
	uint8_t zero[SLOT] = { 0 };
	struct npo_cqe c;
	unsigned int i;

	NPO_TEST_SETUP_DONE();
	memset(b->buf, 0, (WRITES + 1) * SLOT);
	memset(long_dst, 0, LONG);
	memset(readback, 0, SLOT);
	fill(long_src, LONG, 77);
	for (i = 0; i <= WRITES; i++) {
		uint8_t *src = a->buf + i * SLOT;

		if (i == READ_AT) {
			/* What write 3 put there: it must be done first. */
			npo_prep_read(npo_get_sqe(a->q), i, npo_mr_lkey(a->mr),
				      readback, SLOT, b->q->node_id,
				      npo_mr_rkey(b->mr),
				      (uintptr_t)(b->buf + 3 * SLOT));
			continue;
		}
		if (i == REFUSED + 1) {
			npo_prep_write(npo_get_sqe(a->q), i, npo_mr_lkey(a->mr),
				       long_src, LONG, b->q->node_id,
				       npo_mr_rkey(b->mr), (uintptr_t)long_dst);
			continue;
		}
		fill(src, SLOT, i + 1);
		npo_prep_write(npo_get_sqe(a->q), i, npo_mr_lkey(a->mr), src,
			       SLOT, b->q->node_id,
			       npo_mr_rkey(b->mr) ^ (i == REFUSED ? 0x10000 : 0),
			       (uintptr_t)(b->buf + i * SLOT));
	}
	npo_submit(a->q);
	for (i = 0; i <= WRITES; i++) {
		ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000)) TH_LOG("completion %u", i);
		ASSERT_EQ(i, c.wr_id) TH_LOG("completions out of order");
		if (i < REFUSED) {
			ASSERT_EQ(NPO_STATUS_OK, c.status)
				TH_LOG("%u: %s", i, npo_status_str(c.status));
			EXPECT_EQ(0, c.port);
		} else if (i == REFUSED) {
			EXPECT_EQ(NPO_STATUS_REMOTE_ACCESS, c.status);
		} else {
			EXPECT_EQ(NPO_STATUS_FLUSHED, c.status)
				TH_LOG("%u: %s", i, npo_status_str(c.status));
		}
	}
	EXPECT_EQ(NULL, npo_peek_cqe(a->q));
	EXPECT_EQ(0, memcmp(readback, a->buf + 3 * SLOT, SLOT));
	for (i = 0; i < LONG; i += SLOT)
		if (memcmp(long_dst + i, zero, SLOT))
			break;
	EXPECT_EQ(LONG, i) TH_LOG("the long write landed after the refusal");
	for (i = 0; i <= WRITES; i++) {
		if (i == READ_AT || i == REFUSED + 1)
			continue;
		if (i < REFUSED) {
			EXPECT_EQ(0, memcmp(b->buf + i * SLOT, a->buf + i * SLOT,
					    SLOT)) TH_LOG("write %u did not land", i);
		} else {
			EXPECT_EQ(0, memcmp(b->buf + i * SLOT, zero, SLOT))
				TH_LOG("write %u landed after the refusal", i);
		}
	}
	EXPECT_TRUE(npo_queue_in_error(a->q));
}

TEST_F(remote, a_node_no_link_reaches_is_unreachable)
{
	struct npo_test_end *a = &self->a, *b = &self->b;
	struct npo_cqe c;

	NPO_TEST_SETUP_DONE();
	/* Node 999 does not exist: no route names it. */
	npo_prep_write(npo_get_sqe(a->q), 1, npo_mr_lkey(a->mr), a->buf, 8, 999,
		       npo_mr_rkey(b->mr), (uintptr_t)b->buf);
	npo_submit(a->q);
	ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000));
	EXPECT_EQ(NPO_STATUS_UNREACHABLE, c.status);
	EXPECT_EQ(NPO_CQE_PORT_NONE, c.port);
}

/*
 * Errors below the recovery threshold are replayed by the link layer and
 * a burst past it retrains the link: either way every byte arrives.
 */
TEST_F_TIMEOUT(remote, replays_and_retrains_lose_nothing, 120)
{
	struct npo_test_end *a = &self->a, *b = &self->b;
	unsigned int i, done = 0, n = 64;
	const uint32_t chunk = BUF_SIZE / 64;
	struct npo_cqe c;

	NPO_TEST_SETUP_DONE();
	fill(a->buf, BUF_SIZE, 11);
	memset(b->buf, 0, BUF_SIZE);
	/* A high but trainable BER: FEC corrects it. */
	ASSERT_EQ(0, npo_test_fault(0, "ber 0 2 4.5"));
	for (i = 0; i < n; i++) {
		npo_prep_write(npo_get_sqe(a->q), i, npo_mr_lkey(a->mr),
			       a->buf + i * chunk, chunk, b->q->node_id,
			       npo_mr_rkey(b->mr), (uintptr_t)(b->buf + i * chunk));
		npo_submit(a->q);
		/* Uncorrectable codewords below replay_limit (4): replayed. */
		if (i == n / 4)
			ASSERT_EQ(0, npo_test_fault(0, "burst 0 2"));
		/* Past it: the link retrains while writes are in flight. */
		if (i == n / 2)
			ASSERT_EQ(0, npo_test_fault(0, "burst 0 100"));
	}
	while (done < n) {
		ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000));
		EXPECT_EQ(done, c.wr_id);
		EXPECT_EQ(NPO_STATUS_OK, c.status) TH_LOG("write %u: %s", done,
							  npo_status_str(c.status));
		done++;
	}
	EXPECT_EQ(0, memcmp(a->buf, b->buf, BUF_SIZE));
	ASSERT_EQ(0, npo_test_fault(0, "clear"));
	ASSERT_TRUE(port_active(0, 0));
}

/*
 * Node 1 cut off from the ring (both its links): what it sends fails
 * LINK_DOWN naming the port the route went out of, once the routes say
 * there is no way round; the rest is flushed.
 */
TEST_F_TIMEOUT(remote, a_cut_fails_transfers_naming_the_port, 120)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	struct npo_test_end *a = &self->a, *b = &self->b;
	struct npo_cqe c;
	unsigned int i, down = 0;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_test_fault(0, "cut 0 1"));
	ASSERT_EQ(0, npo_test_fault(0, "cut 1 1"));
	for (i = 0; i < 4; i++)
		npo_prep_write(npo_get_sqe(a->q), i, npo_mr_lkey(a->mr), a->buf,
			       4096, b->q->node_id, npo_mr_rkey(b->mr),
			       (uintptr_t)b->buf);
	npo_submit(a->q);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000));
		EXPECT_EQ(i, c.wr_id);
		if (c.status == NPO_STATUS_LINK_DOWN) {
			EXPECT_EQ(0, c.port);
			down++;
		} else {
			EXPECT_EQ(NPO_STATUS_FLUSHED, c.status);
		}
	}
	EXPECT_EQ(1, down) TH_LOG("the first fails, the rest are flushed");
	ASSERT_EQ(0, npo_test_fault(0, "cut 0 0"));
	ASSERT_EQ(0, npo_test_fault(0, "cut 1 0"));
	ASSERT_TRUE(port_active(0, 0));
	ASSERT_TRUE(port_active(0, 1));

	/* After the link returns, a new queue carries data again. */
	npo_destroy_queue(a->q);
	ASSERT_EQ(0, npo_create_queue(a->dev, &attr, &a->q));
	npo_prep_write(npo_get_sqe(a->q), 9, npo_mr_lkey(a->mr), a->buf, 4096,
		       b->q->node_id, npo_mr_rkey(b->mr), (uintptr_t)b->buf);
	npo_submit(a->q);
	ASSERT_EQ(0, npo_test_take_cqe(a->q, &c, 10000));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
}

#define MAX_NODE	16

/* A clock's place in the tree: what a cut may change. */
struct tree_pos {
	bool locked;
	int64_t parent_port;	/* -1 on the grandmaster */
	int64_t steps;
	int64_t grandmaster;	/* its node id */
};

/* Every clock of this host by node id, from npoctl; how many, or -1. */
static int read_tree(struct tree_pos *t)
{
	static char out[1 << 16];
	struct json_object *doc, *list, *v;
	int i, n, node;

	if (npo_test_run(out, sizeof(out), "npoctl -j clock"))
		return -1;
	doc = json_tokener_parse(out);
	if (!doc || !json_object_object_get_ex(doc, "clocks", &list)) {
		json_object_put(doc);
		return -1;
	}
	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(list, i);

		node = jint(c, "node_id");
		if (node < 0 || node >= MAX_NODE)
			continue;
		t[node].locked = json_object_object_get_ex(c, "state", &v) &&
				 !strcmp(json_object_get_string(v), "locked");
		t[node].parent_port = jint(c, "parent_port");
		t[node].steps = jint(c, "steps");
		t[node].grandmaster = jint(c, "grandmaster");
	}
	json_object_put(doc);
	return n;
}

static bool all_locked(struct tree_pos *t, int ndev)
{
	int node;

	if (read_tree(t) != ndev)
		return false;
	/* Node 1 leads when it is there: one that came back leads again. */
	for (node = 1; node <= ndev; node++)
		if (!t[node].locked || t[node].grandmaster != 1)
			return false;
	return true;
}

/*
 * Every clock locked, and the tree the same 2 s later: one an earlier
 * cut moved (a grandmaster that came back leads again) has settled.
 */
static bool tree_settled(struct tree_pos *t, int ndev)
{
	struct tree_pos again[MAX_NODE];
	int node;

	if (!all_locked(t, ndev))
		return false;
	sleep(2);
	if (!all_locked(again, ndev))
		return false;
	for (node = 1; node <= ndev; node++)
		if (again[node].parent_port != t[node].parent_port ||
		    again[node].steps != t[node].steps)
			return false;
	return true;
}

/* A queue of this process in an impact listing: its "sends" and "receives". */
static bool impact_has(struct json_object *queues, const char *dev,
		       uint16_t queue, bool sends, bool receives)
{
	size_t i;

	for (i = 0; i < json_object_array_length(queues); i++) {
		struct json_object *e = json_object_array_get_idx(queues, i), *v;

		if (jint(e, "pid") != getpid() || jint(e, "queue") != queue ||
		    !json_object_object_get_ex(e, "device", &v) ||
		    strcmp(json_object_get_string(v), dev))
			continue;
		return json_object_object_get_ex(e, "sends", &v) &&
		       json_object_get_boolean(v) == sends &&
		       json_object_object_get_ex(e, "receives", &v) &&
		       json_object_get_boolean(v) == receives;
	}
	return false;
}

/*
 * npoctl topo impact names what a port's failure takes down before it
 * fails; the cut then takes down exactly that.  Node 1 (npo0) writes to
 * node 2 through port 0 and with immediate data to a queue of node 2,
 * which receives through its port 1; another queue of npo0 writes to the
 * last node through port 1.  Cutting npo0/0 must send the first the other
 * way round the ring and leave the second as it was, and move exactly the
 * clocks it predicted: node 2, whose parent is node 1 through that link,
 * and those that follow it.
 */
TEST_F_TIMEOUT(remote, topo_impact_predicts_what_a_cut_takes_down, 240)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	struct npo_test_end *a = &self->a, *b = &self->b, z = { 0 };
	struct tree_pos before[MAX_NODE] = { 0 }, now[MAX_NODE];
	bool predicted[MAX_NODE] = { false }, moved[MAX_NODE] = { false };
	static char out[1 << 16];
	struct json_object *doc, *queues, *clocks;
	int ndev = npo_test_count_devices(), node, t, rc;
	struct npo_queue *aq, *rq, *zq;
	bool settled = false;
	double since;
	char last[16];
	struct npo_cqe c, *r;
	size_t i;

	NPO_TEST_SETUP_DONE();
	snprintf(last, sizeof(last), "npo%d", ndev - 1);
	ASSERT_EQ(0, end_open(&z, last));
	/* A grandmaster cut off by the test before may take a while to lead. */
	for (since = npo_test_now_s(); npo_test_now_s() - since < 150 &&
	     !(settled = tree_settled(before, ndev));)
		usleep(100000);
	TH_LOG("the tree %s after %.1f s", settled ? "settled" : "was still moving",
	       npo_test_now_s() - since);
	for (node = 1; !settled && node <= ndev; node++)
		TH_LOG("node %d: %s, grandmaster %lld, parent port %lld", node,
		       before[node].locked ? "locked" : "not locked",
		       (long long)before[node].grandmaster,
		       (long long)before[node].parent_port);
	ASSERT_TRUE(settled) TH_LOG("the ring's clocks never settled");

	/* The traffic: to node 2 and its queue rq, and to the last node. */
	ASSERT_EQ(0, npo_create_queue(a->dev, &attr, &aq));
	ASSERT_EQ(0, npo_create_queue(a->dev, &attr, &zq));
	ASSERT_EQ(0, npo_create_queue(b->dev, &attr, &rq));
	npo_prep_write_imm(npo_get_sqe(aq), 1, npo_mr_lkey(a->mr), a->buf, 64,
			   b->q->node_id, rq->id, npo_mr_rkey(b->mr),
			   (uintptr_t)b->buf, 7);
	npo_submit(aq);
	ASSERT_EQ(0, npo_test_take_cqe(aq, &c, 10000));
	ASSERT_EQ(NPO_STATUS_OK, c.status);
	ASSERT_EQ(0, npo_wait_cqe(rq, &r, 10000));
	npo_cq_advance(rq, 1);
	npo_prep_write(npo_get_sqe(zq), 2, npo_mr_lkey(a->mr), a->buf, 64,
		       z.q->node_id, npo_mr_rkey(z.mr), (uintptr_t)z.buf);
	npo_submit(zq);
	ASSERT_EQ(0, npo_test_take_cqe(zq, &c, 10000));
	ASSERT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(1, c.port);

	rc = npo_test_run(out, sizeof(out), "npoctl -j topo impact npo0/0");
	EXPECT_EQ(3, rc) TH_LOG("%s", out);
	doc = json_tokener_parse(out);
	ASSERT_NE(NULL, doc) TH_LOG("%s", out);
	ASSERT_TRUE(json_object_object_get_ex(doc, "queues", &queues));
	ASSERT_TRUE(json_object_object_get_ex(doc, "clocks", &clocks));
	EXPECT_TRUE(impact_has(queues, "npo0", aq->id, true, false)) TH_LOG("%s", out);
	EXPECT_TRUE(impact_has(queues, "npo1", rq->id, false, true)) TH_LOG("%s", out);
	/* Nothing else: the other queues never used the link. */
	EXPECT_EQ(2, json_object_array_length(queues)) TH_LOG("%s", out);
	for (i = 0; i < json_object_array_length(clocks); i++) {
		node = jint(json_object_array_get_idx(clocks, i), "node_id");
		ASSERT_TRUE(node > 0 && node < MAX_NODE);
		predicted[node] = true;
	}
	EXPECT_TRUE(predicted[2]) TH_LOG("%s", out);
	EXPECT_FALSE(predicted[1]) TH_LOG("%s", out);
	json_object_put(doc);
	npo_test_run(out, sizeof(out), "npoctl topo impact npo0/0");
	EXPECT_NE(NULL, strstr(out, "sends to it")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "its parent is through port 1")) TH_LOG("%s", out);

	/*
	 * The cut: the predicted queue's peer is reached the other way
	 * round, through port 1; the other queue's traffic is untouched.
	 */
	memset(b->buf, 0, 64);
	fill(a->buf, 64, 3);
	ASSERT_EQ(0, npo_test_fault(0, "cut 0 1"));
	npo_prep_write(npo_get_sqe(aq), 3, npo_mr_lkey(a->mr), a->buf, 64,
		       b->q->node_id, npo_mr_rkey(b->mr), (uintptr_t)b->buf);
	npo_submit(aq);
	ASSERT_EQ(0, npo_test_take_cqe(aq, &c, 10000));
	EXPECT_EQ(NPO_STATUS_OK, c.status) TH_LOG("%s", npo_status_str(c.status));
	EXPECT_EQ(1, c.port);
	EXPECT_EQ(0, memcmp(a->buf, b->buf, 64));
	npo_prep_write(npo_get_sqe(zq), 4, npo_mr_lkey(a->mr), a->buf, 64,
		       z.q->node_id, npo_mr_rkey(z.mr), (uintptr_t)z.buf);
	npo_submit(zq);
	ASSERT_EQ(0, npo_test_take_cqe(zq, &c, 10000));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(0, memcmp(a->buf, z.buf, 64));

	/*
	 * The clocks: each predicted one leaves its place in the tree (holds
	 * over, or follows another way); no other ever does.
	 */
	for (t = 0; t < 900; t++) {
		bool all_moved = true;

		if (read_tree(now) != ndev)
			continue;
		for (node = 1; node <= ndev; node++) {
			if (!now[node].locked ||
			    now[node].parent_port != before[node].parent_port ||
			    now[node].steps != before[node].steps)
				moved[node] = true;
			if (predicted[node] && !moved[node])
				all_moved = false;
		}
		if (all_moved && all_locked(now, ndev))
			break;
		usleep(100000);
	}
	for (node = 1; node <= ndev; node++) {
		EXPECT_EQ(predicted[node], moved[node]) TH_LOG("node %d", node);
	}

	ASSERT_EQ(0, npo_test_fault(0, "cut 0 0"));
	ASSERT_TRUE(port_active(0, 0));
	npo_destroy_queue(aq);
	npo_destroy_queue(zq);
	npo_destroy_queue(rq);
	npo_test_end_close(&z);
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl topo impact npo0 2>/dev/null"));
	EXPECT_EQ(1, npo_test_run(NULL, 0, "npoctl topo impact npo0/99 2>/dev/null"));
}

/*
 * Processes killed with a SEND on its way to the neighbour: every receive
 * buffer they took completes once, OK or FLUSHED (a message the transport
 * abandoned half-way), the receiving queue stays usable, and the next
 * sender's message arrives intact after them.
 */
#define KILL_ROUNDS	3
#define KILL_SEND	BUF_SIZE

static void send_and_die(uint32_t node, uint16_t queue, unsigned int delay_us)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	struct npo_device *dev = npo_open_device("npo0");
	struct npo_queue *q;
	struct npo_mr *mr;
	void *p;

	p = mmap(NULL, KILL_SEND, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!dev || p == MAP_FAILED || npo_device_set_job(dev, REMOTE_JOB) ||
	    npo_create_queue(dev, &attr, &q) ||
	    npo_reg_mr(dev, p, KILL_SEND, NPO_ACCESS_ALL, &mr))
		_exit(1);
	npo_prep_send(npo_get_sqe(q), 1, npo_mr_lkey(mr), p, KILL_SEND, node,
		      queue);
	npo_submit(q);
	usleep(delay_us);
	raise(SIGKILL);
}

TEST_F_TIMEOUT(remote, a_killed_sender_leaves_the_receiver_working, 120)
{
	struct npo_queue_attr attr = { .sq_entries = 8, .rq_entries = 8 };
	const size_t size = (KILL_ROUNDS + 1) * (size_t)KILL_SEND;
	struct npo_test_end *a = &self->a, *b = &self->b;
	unsigned int i, round, flushed = 0, whole = 0;
	struct npo_queue *rq;
	struct npo_mr *rmr;
	struct npo_cqe c;
	uint8_t *bufs;
	int status;

	NPO_TEST_SETUP_DONE();
	bufs = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bufs);
	ASSERT_EQ(0, npo_reg_mr(b->dev, bufs, size, NPO_ACCESS_ALL, &rmr));
	ASSERT_EQ(0, npo_create_queue(b->dev, &attr, &rq));
	for (i = 0; i <= KILL_ROUNDS; i++)
		ASSERT_EQ(0, npo_post_recv(rq, i, npo_mr_lkey(rmr),
					   bufs + i * KILL_SEND, KILL_SEND));
	for (round = 0; round < KILL_ROUNDS; round++) {
		pid_t pid = fork();

		ASSERT_GE(pid, 0);
		if (pid == 0)
			send_and_die(b->q->node_id, rq->id, round * 5000);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status));
	}

	fill(a->buf, 4096, 77);
	ASSERT_EQ(0, send_and_reap(a, b->q->node_id, rq->id, 4096, &c));
	ASSERT_EQ(NPO_STATUS_OK, c.status) TH_LOG("%s", npo_status_str(c.status));
	for (;;) {
		ASSERT_EQ(0, npo_test_take_cqe(rq, &c, 10000)) TH_LOG("our message never came");
		ASSERT_LE(c.wr_id, KILL_ROUNDS);
		if (c.status == NPO_STATUS_OK && c.peer_queue == a->q->id)
			break;
		if (c.status == NPO_STATUS_FLUSHED)
			flushed++;
		else
			EXPECT_EQ(NPO_STATUS_OK, c.status)
				TH_LOG("%s", npo_status_str(c.status));
		whole += c.status == NPO_STATUS_OK;
	}
	EXPECT_EQ(4096, c.length);
	EXPECT_EQ(0, memcmp(a->buf, bufs + c.wr_id * KILL_SEND, 4096));
	EXPECT_FALSE(npo_queue_in_error(rq));
	TH_LOG("%u messages of killed senders arrived whole, %u were flushed",
	       whole, flushed);
	npo_destroy_queue(rq);
	npo_dereg_mr(rmr);
	munmap(bufs, size);
}

/* The example a collective library would start from runs and verifies. */
TEST_F_TIMEOUT(remote, allreduce_example_matches_the_cpu, 300)
{
	static char out[4096];

	NPO_TEST_SETUP_DONE();
	if (access("/usr/lib/npo/examples/npo-allreduce", X_OK))
		SKIP(return, "npo-allreduce not installed");
	EXPECT_EQ(0, npo_test_run(out, sizeof(out),
				  "/usr/lib/npo/examples/npo-allreduce -n 1000003 2>&1"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "verified")) TH_LOG("%s", out);
	/* A size that does not divide evenly, and tiny chunks. */
	EXPECT_EQ(0, npo_test_run(out, sizeof(out),
				  "/usr/lib/npo/examples/npo-allreduce -n 13 2>&1"))
		TH_LOG("%s", out);
}

/* npo-perf runs every operation and mode to the neighbour. */
TEST_F_TIMEOUT(remote, npo_perf_runs_each_test, 300)
{
	static const char *const runs[] = {
		"write -s 64K -n 64", "read -s 64K -n 64", "send -s 64K -n 64",
		"write lat -s 8 -n 50", "send rate -s 8 -n 256",
		"-I write -s 4K -n 64", "-q 3 write -s 1M -n 12",
	};
	static char out[4096];
	unsigned int i;

	NPO_TEST_SETUP_DONE();
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		EXPECT_EQ(0, npo_test_run(out, sizeof(out),
					  "npo-perf -j -r npo1 %s 2>&1", runs[i]))
			TH_LOG("%s: %s", runs[i], out);
		EXPECT_NE(NULL, strstr(out, "\"results\":[{")) TH_LOG("%s", out);
	}
	/* Bad usage is refused with status 2. */
	EXPECT_EQ(2, npo_test_run(out, sizeof(out), "npo-perf -s 9G write 2>&1"));
	EXPECT_EQ(2, npo_test_run(out, sizeof(out), "npo-perf frobnicate 2>&1"));
}

TEST_HARNESS_MAIN
