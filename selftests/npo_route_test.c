// SPDX-License-Identifier: GPL-2.0-only
/*
 * Routing: on a ring every node reaches every other, through the devices
 * between, by the shortest way round and both ways round; the routes the
 * driver computed are the shortest; a cut link is routed around while
 * writes stream across it, each completing once with its data in place,
 * and the device says so with a REROUTE event; the routes come back when
 * the link does.  The ports' traffic counters count every link of a path
 * and no other.
 *
 * Needs npo-vm --topology ring: device i port 0 to device i+1 port 1,
 * device i is node i + 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <json-c/json.h>
#include <npo.h>

#include "kselftest_harness.h"
#include "npo_test_json.h"
#include "npo_test_lib.h"
#include "npo_traffic_lib.h"

#define MAX_DEVS	16
#define SLOT		4096
#define BUF_SIZE	(MAX_DEVS * SLOT + SLOT)
#define ROUTE_JOB	78

FIXTURE(route) {
	struct npo_test_end e[MAX_DEVS];
	int n;
};

static int end_open(struct npo_test_end *e, int i)
{
	struct npo_queue_attr attr = { .sq_entries = 256, .cq_entries = 256 };
	char name[16];

	snprintf(name, sizeof(name), "npo%d", i);
	return npo_test_end_open(e, name, ROUTE_JOB, &attr, BUF_SIZE);
}

static uint8_t pattern(int from, int to, size_t i)
{
	return (uint8_t)(i * 31 + from * 7 + to * 13 + 1);
}

/* Links from device a to device b one way round, the other, the shortest. */
static int fwd(int n, int a, int b)
{
	return ((b - a) % n + n) % n;
}

static int hops(int n, int a, int b)
{
	int d = fwd(n, a, b);

	return d < n - d ? d : n - d;
}

/* Port 0 leads to the next device, port 1 to the one before. */
static bool port_ok(int n, int a, int b, unsigned int port)
{
	int d = fwd(n, a, b);

	if (2 * d == n)
		return port <= 1;
	return port == (2 * d < n ? 0u : 1u);
}

/* Every device's routes, from npoctl, until each reaches all n - 1 others. */
static struct json_object *routes_settled(int n, double limit_s)
{
	static char out[1 << 17];
	struct json_object *doc, *list;
	double start = npo_test_now_s();

	do {
		if (!npo_test_run(out, sizeof(out), "npoctl -j route")) {
			doc = json_tokener_parse(out);
			if (doc && json_object_object_get_ex(doc, "routes", &list) &&
			    (int)json_object_array_length(list) == n * (n - 1))
				return doc;
			json_object_put(doc);
		}
		usleep(200000);
	} while (npo_test_now_s() - start < limit_s);
	return NULL;
}

/* The route of device dev (node dev + 1) to node dest, or NULL. */
static struct json_object *route_of(struct json_object *doc, int dev,
				    int dest)
{
	struct json_object *list, *r;
	size_t i;

	json_object_object_get_ex(doc, "routes", &list);
	for (i = 0; i < json_object_array_length(list); i++) {
		r = json_object_array_get_idx(list, i);
		if (jint(r, "node_id") == dev + 1 && jint(r, "dest_node") == dest)
			return r;
	}
	return NULL;
}

FIXTURE_SETUP(route)
{
	struct npo_device_attr da;
	struct json_object *doc;
	int i;

	memset(self, 0, sizeof(*self));
	self->n = npo_test_count_devices();
	NPO_TEST_NEED_RING(4);
	if (!npo_test_is_root())
		SKIP(return, "needs root for debugfs");
	ASSERT_LE(self->n, MAX_DEVS);
	for (i = 0; i < self->n; i++) {
		ASSERT_EQ(0, end_open(&self->e[i], i)) TH_LOG("npo%d", i);
		ASSERT_EQ(i + 1, self->e[i].node);
	}
	ASSERT_EQ(0, npo_query_device(self->e[0].dev, &da));
	if (!(da.caps & NPO_CAP_QUEUES))
		SKIP(return, "device has no DMA queues");
	/* The adverts have gone round: every device knows every node. */
	doc = routes_settled(self->n, 30);
	ASSERT_NE(NULL, doc) TH_LOG("the routes never covered the ring");
	json_object_put(doc);
}

FIXTURE_TEARDOWN(route)
{
	int i;

	for (i = 0; i < self->n; i++) {
		if (!access("/sys/kernel/debug/npo/npo0/fault", W_OK))
			npo_test_fault(i, "clear");
		npo_test_end_close(&self->e[i]);
	}
}

/*
 * Every device writes its own pattern into a slot of every other's
 * buffer; each completion names the first port of a shortest way, and
 * each slot holds exactly its writer's bytes, the rest untouched.
 */
TEST_F_TIMEOUT(route, every_node_reaches_every_node, 180)
{
	int n = self->n, a, b;
	struct npo_cqe c;
	size_t i;

	NPO_TEST_SETUP_DONE();
	for (a = 0; a < n; a++) {
		memset(self->e[a].buf, 0, BUF_SIZE);
		for (i = 0; i < SLOT; i++)
			self->e[a].buf[BUF_SIZE - SLOT + i] = pattern(a, a, i);
	}
	for (a = 0; a < n; a++) {
		struct npo_test_end *s = &self->e[a];

		for (b = 0; b < n; b++) {
			/* The source bytes: written into s's own last slot. */
			for (i = 0; i < SLOT; i++)
				s->buf[BUF_SIZE - SLOT + i] = pattern(a, b, i);
			if (b == a)
				continue;
			npo_prep_write(npo_get_sqe(s->q), b, npo_mr_lkey(s->mr),
				       s->buf + BUF_SIZE - SLOT, SLOT,
				       self->e[b].node, npo_mr_rkey(self->e[b].mr),
				       (uintptr_t)self->e[b].buf + a * SLOT);
			npo_submit(s->q);
			ASSERT_EQ(0, npo_test_take_cqe(s->q, &c, 10000));
			EXPECT_EQ(NPO_STATUS_OK, c.status)
				TH_LOG("node %d to node %d: %s", a + 1, b + 1,
				       npo_status_str(c.status));
			EXPECT_TRUE(port_ok(n, a, b, c.port))
				TH_LOG("node %d to node %d went out of port %u",
				       a + 1, b + 1, c.port);
		}
	}
	for (b = 0; b < n; b++) {
		for (a = 0; a < n; a++) {
			uint8_t *slot = self->e[b].buf + a * SLOT;
			bool same = true;

			for (i = 0; i < SLOT && same; i++)
				same = slot[i] == (a == b ? 0 : pattern(a, b, i));
			EXPECT_TRUE(same) TH_LOG("node %d's slot for node %d",
						 b + 1, a + 1);
		}
	}
}

/* READ, FETCH_ADD and WRITE_IMM to the far side of the ring, both ways. */
TEST_F(route, reads_atomics_and_messages_cross_the_ring)
{
	int n = self->n, far = n / 2;
	struct npo_test_end *s = &self->e[0], *t = &self->e[far];
	uint64_t *counter = (uint64_t *)(t->buf + BUF_SIZE - 8);
	uint64_t *old = (uint64_t *)(s->buf + BUF_SIZE - 8);
	struct npo_cqe c, *r;
	size_t i;

	NPO_TEST_SETUP_DONE();
	for (i = 0; i < SLOT; i++)
		t->buf[i] = pattern(far, 0, i);
	memset(s->buf, 0, SLOT);
	npo_prep_read(npo_get_sqe(s->q), 1, npo_mr_lkey(s->mr), s->buf, SLOT,
		      t->node, npo_mr_rkey(t->mr), (uintptr_t)t->buf);
	npo_submit(s->q);
	ASSERT_EQ(0, npo_test_take_cqe(s->q, &c, 10000));
	ASSERT_EQ(NPO_STATUS_OK, c.status) TH_LOG("%s", npo_status_str(c.status));
	EXPECT_EQ(0, memcmp(s->buf, t->buf, SLOT));

	*counter = 40;
	npo_prep_fetch_add(npo_get_sqe(s->q), 2, npo_mr_lkey(s->mr), old,
			   t->node, npo_mr_rkey(t->mr), (uintptr_t)counter, 2);
	npo_submit(s->q);
	ASSERT_EQ(0, npo_test_take_cqe(s->q, &c, 10000));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(40, *old);
	EXPECT_EQ(42, *counter);

	/* The message names the sender and the port it came in through. */
	npo_prep_write_imm(npo_get_sqe(s->q), 3, npo_mr_lkey(s->mr), s->buf, 64,
			   t->node, t->q->id, npo_mr_rkey(t->mr),
			   (uintptr_t)t->buf + SLOT, 0x5eed);
	npo_submit(s->q);
	ASSERT_EQ(0, npo_test_take_cqe(s->q, &c, 10000));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	ASSERT_EQ(0, npo_wait_cqe(t->q, &r, 10000));
	EXPECT_EQ(NPO_OP_RECV_IMM, r->opcode);
	EXPECT_EQ(0x5eed, r->imm);
	EXPECT_EQ(s->node, r->peer_node);
	EXPECT_EQ(s->q->id, r->peer_queue);
	EXPECT_EQ(c.port == 0 ? 1 : 0, r->port)
		TH_LOG("left by port %u, came in by %u", c.port, r->port);
	npo_cq_advance(t->q, 1);
	EXPECT_EQ(0, memcmp(t->buf + SLOT, s->buf, 64));
}

/*
 * The driver's routes, read back: every destination at its shortest
 * distance, through the port of a shortest way and the node behind it;
 * the far side of the ring is split between the two ways round.
 */
TEST_F(route, routes_are_shortest_and_go_both_ways)
{
	int n = self->n, a, b, far[2] = { 0, 0 };
	struct json_object *doc, *r;

	NPO_TEST_SETUP_DONE();
	doc = routes_settled(n, 10);
	ASSERT_NE(NULL, doc);
	for (a = 0; a < n; a++) {
		for (b = 0; b < n; b++) {
			int port, want_next;

			if (a == b)
				continue;
			r = route_of(doc, a, b + 1);
			ASSERT_NE(NULL, r) TH_LOG("node %d has no route to %d",
						  a + 1, b + 1);
			port = jint(r, "port");
			EXPECT_EQ(hops(n, a, b), jint(r, "hops"))
				TH_LOG("node %d to %d", a + 1, b + 1);
			EXPECT_TRUE(port_ok(n, a, b, port))
				TH_LOG("node %d to %d: port %d", a + 1, b + 1, port);
			want_next = (port == 0 ? (a + 1) % n : (a + n - 1) % n) + 1;
			EXPECT_EQ(want_next, jint(r, "next_node"));
			if (n % 2 == 0 && 2 * fwd(n, a, b) == n && port >= 0 && port <= 1)
				far[port]++;
		}
	}
	if (n % 2 == 0) {
		EXPECT_LT(0, far[0]) TH_LOG("no far node goes the port-0 way");
		EXPECT_LT(0, far[1]) TH_LOG("no far node goes the port-1 way");
	}
	json_object_put(doc);
}

/* The newest event number of a device's history, 0 if none. */
static long long last_event_seq(int dev)
{
	static char out[1 << 18];
	struct json_object *doc;
	long long seq = 0;
	size_t i;

	if (npo_test_run(out, sizeof(out), "npoctl -j events npo%d", dev))
		return -1;
	doc = json_tokener_parse(out);
	for (i = 0; doc && i < json_object_array_length(doc); i++)
		seq = jint(json_object_array_get_idx(doc, i), "seq");
	json_object_put(doc);
	return seq;
}

/* A REROUTE of dev after seq that moved dest from old_port to port. */
static bool rerouted(int dev, long long after, int dest, int old_port,
		     int port, int hops)
{
	static char out[1 << 18];
	struct json_object *doc, *ev, *routes, *r;
	bool found = false;
	size_t i, j;

	if (npo_test_run(out, sizeof(out), "npoctl -j events npo%d", dev))
		return false;
	doc = json_tokener_parse(out);
	for (i = 0; doc && i < json_object_array_length(doc) && !found; i++) {
		struct json_object *name;

		ev = json_object_array_get_idx(doc, i);
		if (jint(ev, "seq") <= after ||
		    !json_object_object_get_ex(ev, "event", &name) ||
		    strcmp(json_object_get_string(name), "reroute") ||
		    !json_object_object_get_ex(ev, "routes", &routes))
			continue;
		for (j = 0; j < json_object_array_length(routes); j++) {
			r = json_object_array_get_idx(routes, j);
			if (jint(r, "dest_node") == dest &&
			    jint(r, "old_port") == old_port &&
			    jint(r, "port") == port && jint(r, "hops") == hops)
				found = true;
		}
	}
	json_object_put(doc);
	return found;
}

/*
 * Node 1 streams WRITE_IMMs to the node three links down port 0; the
 * second of those links is cut mid-stream.  The rest go the other way
 * round: every one completes once, OK, in order; every one lands, and the
 * receiver hears each exactly once.  Node 1 says it rerouted, naming the
 * node and both ports; with the link back, the short way returns.
 */
TEST_F_TIMEOUT(route, a_cut_is_routed_around_mid_stream, 240)
{
	enum { WRITES = 96, CUT_AT = 32 };
	int n = self->n, dest = 3;
	struct npo_test_end *s = &self->e[0], *t = &self->e[dest];
	unsigned int posted = 0, done = 0, heard = 0, after_cut_port1 = 0;
	double cut_at = 0, around_at = 0;
	bool seen[WRITES] = { false };
	struct json_object *doc, *r;
	long long seq;
	struct npo_cqe c, *m;
	double start;
	size_t i;

	NPO_TEST_SETUP_DONE();
	if (n < 6)
		SKIP(return, "needs a ring of at least 6: a way round of 5");
	seq = last_event_seq(0);
	ASSERT_LE(0, seq);
	for (i = 0; i < WRITES * 64; i++)
		s->buf[i] = pattern(0, dest, i);
	memset(t->buf, 0, WRITES * 64);
	start = npo_test_now_s();
	while (done < WRITES && npo_test_now_s() - start < 120) {
		/* A few in flight at a time, so that some are when the cut comes. */
		while (posted < WRITES && posted - done < 8) {
			npo_prep_write_imm(npo_get_sqe(s->q), posted,
					   npo_mr_lkey(s->mr), s->buf + posted * 64,
					   64, t->node, t->q->id, npo_mr_rkey(t->mr),
					   (uintptr_t)t->buf + posted * 64, posted);
			npo_submit(s->q);
			posted++;
		}
		ASSERT_EQ(0, npo_test_take_cqe(s->q, &c, 10000));
		EXPECT_EQ(done, c.wr_id);
		EXPECT_EQ(NPO_STATUS_OK, c.status)
			TH_LOG("write %u: %s", done, npo_status_str(c.status));
		if (cut_at && c.port == 1 && !around_at)
			around_at = npo_test_now_s();
		if (done >= CUT_AT + 8 && c.port == 1)
			after_cut_port1++;
		done++;
		if (done == CUT_AT) {
			/* npo1's port 0: the link from node 2 to node 3. */
			ASSERT_EQ(0, npo_test_fault(1, "cut 0 1"));
			cut_at = npo_test_now_s();
		}
		while ((m = npo_peek_cqe(t->q))) {
			if (m->imm < WRITES) {
				EXPECT_FALSE(seen[m->imm]) TH_LOG("imm %u twice", m->imm);
				seen[m->imm] = true;
			}
			heard++;
			npo_cq_advance(t->q, 1);
		}
	}
	ASSERT_EQ(WRITES, done);
	for (start = npo_test_now_s(); heard < WRITES &&
	     npo_test_now_s() - start < 10;) {
		m = npo_peek_cqe(t->q);
		if (!m) {
			usleep(10000);
			continue;
		}
		if (m->imm < WRITES) {
			EXPECT_FALSE(seen[m->imm]) TH_LOG("imm %u twice", m->imm);
			seen[m->imm] = true;
		}
		heard++;
		npo_cq_advance(t->q, 1);
	}
	EXPECT_EQ(WRITES, heard);
	EXPECT_EQ(0, memcmp(t->buf, s->buf, WRITES * 64));
	EXPECT_LT(0, after_cut_port1) TH_LOG("nothing went the other way round");
	if (around_at)
		TH_LOG("the first write the other way round completed %.0f ms after the cut",
		       (around_at - cut_at) * 1000);
	EXPECT_TRUE(rerouted(0, seq, dest + 1, 0, 1, n - dest))
		TH_LOG("no REROUTE of node %d from port 0 to port 1", dest + 1);

	/* With the link back, the short way is the route again. */
	seq = last_event_seq(0);
	ASSERT_EQ(0, npo_test_fault(1, "cut 0 0"));
	start = npo_test_now_s();
	do {
		doc = routes_settled(n, 10);
		ASSERT_NE(NULL, doc);
		r = route_of(doc, 0, dest + 1);
		i = r && jint(r, "port") == 0 && jint(r, "hops") == dest;
		json_object_put(doc);
		if (!i)
			usleep(200000);
	} while (!i && npo_test_now_s() - start < 30);
	EXPECT_TRUE(i) TH_LOG("node %d never went back to port 0", dest + 1);
	EXPECT_TRUE(rerouted(0, seq, dest + 1, 1, 0, dest));
	npo_prep_write(npo_get_sqe(s->q), 7, npo_mr_lkey(s->mr), s->buf, 64,
		       t->node, npo_mr_rkey(t->mr), (uintptr_t)t->buf);
	npo_submit(s->q);
	ASSERT_EQ(0, npo_test_take_cqe(s->q, &c, 10000));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(0, c.port);
}

/* npoctl -j ARGS, parsed; NULL on failure. */
static struct json_object *npoctl_json(const char *fmt, const char *arg)
{
	static char out[1 << 16];
	char args[128];

	snprintf(args, sizeof(args), fmt, arg);
	if (npo_test_run(out, sizeof(out), "npoctl -j %s", args))
		return NULL;
	return json_tokener_parse(out);
}

/* A link between two devices, each end with its traffic counters. */
struct link_end {
	char port[24];		/* npoN/P */
	int64_t c[4];		/* tx_bytes, tx_frames, rx_bytes, rx_frames */
};

static int read_traffic(struct link_end *e)
{
	static const char *const keys[] = {
		"tx_bytes", "tx_frames", "rx_bytes", "rx_frames",
	};
	struct json_object *doc, *c, *v;
	int i, err = 0;

	doc = npoctl_json("link show %s", e->port);
	if (!doc)
		return -1;
	c = jget(json_object_array_get_idx(doc, 0), "counters");
	for (i = 0; i < 4; i++) {
		v = jget(c, keys[i]);
		/* "unsupported" would be a string: the model counts them. */
		if (!v || !json_object_is_type(v, json_type_int))
			err = -1;
		else
			e->c[i] = json_object_get_int64(v);
	}
	json_object_put(doc);
	return err;
}

/* The ends of the link from device @a to device @b (npoN names). */
static int link_between(const char *a,
			const char *b, struct link_end *ea, struct link_end *eb)
{
	struct json_object *doc, *p, *peer;
	char node[16];
	size_t i;
	int found = -1;

	size_t alen = strlen(a);

	if (npo_test_read_attr(b, "node_id", node, sizeof(node)))
		return -1;
	doc = npoctl_json("link%s", "");
	for (i = 0; doc && i < json_object_array_length(doc); i++) {
		const char *name;

		p = json_object_array_get_idx(doc, i);
		name = jstr(p, "port");
		peer = jget(p, "peer");
		if (!name || strncmp(name, a, alen) || name[alen] != '/' ||
		    !peer || jint(peer, "node_id") != atoll(node))
			continue;
		snprintf(ea->port, sizeof(ea->port), "%s",
			 jstr(p, "port"));
		snprintf(eb->port, sizeof(eb->port), "%s/%lld", b,
			 (long long)jint(peer, "port"));
		found = 0;
		break;
	}
	json_object_put(doc);
	return found;
}

/*
 * Traffic counters count what moved, on every link of its path and on no
 * other.  64-byte WRITEs from npo0 to npo2 go npo0 -> npo1 -> npo2 (the
 * short way round the ring): each is one data frame out and one answer
 * back on both links, so the frames sent each way are exactly the writes
 * posted, and what one end of a link sends the other receives; a link
 * off the path (npo4 to npo5) counts nothing.
 */
TEST_F_TIMEOUT(route, traffic_counters_count_what_moved, 120)
{
	struct link_end l01[2], l12[2], l45[2], *all[6];
	struct link_end before[6];
	struct npo_test_traffic t;
	char why[160];
	int64_t posted;
	int i, k;

	NPO_TEST_SETUP_DONE();
	if (self->n < 8)
		SKIP(return, "needs the ring of 8");
	/* The short way to npo2 (node 3), as a cut before may have left it. */
	for (i = 0; i < 150; i++) {
		struct json_object *doc = routes_settled(self->n, 30), *r;
		bool ok = doc && (r = route_of(doc, 0, 3)) && jint(r, "hops") == 2;

		json_object_put(doc);
		if (ok)
			break;
		usleep(200000);
	}
	ASSERT_GT(150, i) TH_LOG("npo0's route to npo2 is not the short way");
	ASSERT_EQ(0, link_between("npo0", "npo1", &l01[0], &l01[1]));
	ASSERT_EQ(0, link_between("npo1", "npo2", &l12[0], &l12[1]));
	ASSERT_EQ(0, link_between("npo4", "npo5", &l45[0], &l45[1]));
	all[0] = &l01[0], all[1] = &l01[1], all[2] = &l12[0];
	all[3] = &l12[1], all[4] = &l45[0], all[5] = &l45[1];
	for (i = 0; i < 6; i++) {
		struct link_end *e = all[i];

		ASSERT_EQ(0, read_traffic(e)) TH_LOG("%s", e->port);
		before[i] = *e;
	}

	ASSERT_EQ(0, npo_test_traffic_open(&t, "npo0", "npo2", 0x7e58, 8));
	ASSERT_EQ(0, npo_test_traffic_start(&t));
	/* 200 writes take a few seconds; a loaded host gets a minute. */
	for (i = 0; i < 1200 && npo_test_traffic_ok(&t) < 200; i++)
		usleep(50000);
	npo_test_traffic_stop(&t);
	EXPECT_EQ(0, npo_test_traffic_check(&t, why, sizeof(why))) TH_LOG("%s", why);
	posted = t.posted;
	EXPECT_EQ(0, t.failed);
	npo_test_traffic_close(&t);
	ASSERT_LE(200, posted);

	for (i = 0; i < 6; i++) {
		struct link_end *e = all[i];

		ASSERT_EQ(0, read_traffic(e)) TH_LOG("%s", e->port);
		for (k = 0; k < 4; k++)
			e->c[k] -= before[i].c[k];
	}
	TH_LOG("%lld writes: %s sent %lld frames, %lld bytes; %s answered %lld, %lld bytes",
	       (long long)posted, l01[0].port, (long long)l01[0].c[1],
	       (long long)l01[0].c[0], l01[1].port, (long long)l01[1].c[1],
	       (long long)l01[1].c[0]);
	for (i = 0; i < 4; i += 2) {
		struct link_end *near = all[i], *far = all[i + 1];

		/*
		 * Out: a data frame per write; back: an answer per write.
		 * Between processes a request silent for 2 s is sent again,
		 * so a few more frames may cross there, never twice as many.
		 */
		EXPECT_LE(posted, near->c[1]) TH_LOG("%s frames sent", near->port);
		EXPECT_GE(posted + posted / 20, near->c[1]) TH_LOG("%s frames sent", near->port);
		EXPECT_EQ(near->c[1], far->c[3]) TH_LOG("%s frames received", far->port);
		EXPECT_LE(posted, far->c[1]) TH_LOG("%s answers sent", far->port);
		EXPECT_GE(posted + posted / 20, far->c[1]) TH_LOG("%s answers sent", far->port);
		EXPECT_EQ(far->c[1], near->c[3]) TH_LOG("%s answers received", near->port);
		/* Each data frame carries its 64 bytes and a header. */
		EXPECT_LE(posted * (64 + 4), near->c[0]) TH_LOG("%s bytes", near->port);
		EXPECT_EQ(near->c[0], far->c[2]) TH_LOG("%s -> %s", near->port, far->port);
		EXPECT_EQ(far->c[0], near->c[2]) TH_LOG("%s -> %s", far->port, near->port);
		EXPECT_LT(far->c[0], near->c[0]) TH_LOG("answers carry no data");
	}
	/* The same routed frames cross both links: the same bytes each. */
	EXPECT_EQ(l01[0].c[0], l12[0].c[0]);
	EXPECT_EQ(l01[1].c[0], l12[1].c[0]);
	for (i = 4; i < 6; i++) {
		struct link_end *e = all[i];

		for (k = 0; k < 4; k++)
			EXPECT_EQ(0, e->c[k]) TH_LOG("%s, off the path", e->port);
	}
}

TEST_HARNESS_MAIN
