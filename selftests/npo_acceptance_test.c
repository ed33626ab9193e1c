// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fabric acceptance test, as an operator runs it before the first job:
 * `npoctl fabric test` on a clean ring passes every link (exit 0) after
 * moving data over each of them (the ports' traffic counters, not the
 * tool's own figures, say the bytes went over that link) and running PRBS
 * on every lane of both ends; with one dead lane, one high-BER lane and
 * one link losing light, it fails (exit 1) and ranks exactly those three
 * links first, each for the right reason on the right end and lane, and
 * passes the rest.  Bad arguments and bad reports exit 2.
 *
 * Needs npo-vm --topology ring: device i port 0 to device i+1 port 1,
 * device i is node i + 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "npo_test_json.h"
#include "npo_test_lib.h"

#define REPORT	"/tmp/npo_acceptance_report.json"
#define BYTES	(8u << 20)

FIXTURE(accept) {
	int n;
	char out[1 << 18];
};

FIXTURE_SETUP(accept)
{
	self->n = npo_test_count_devices();
	/* The faults go on three ports of three different links. */
	NPO_TEST_NEED_RING(8);
	if (npo_test_run(NULL, 0, "command -v npoctl >/dev/null"))
		SKIP(return, "npoctl not installed");
	ASSERT_TRUE(npo_test_ring_up(self->n)) TH_LOG("the ring did not come up");
}

FIXTURE_TEARDOWN(accept)
{
	npo_test_ring_reset(self->n);
	unlink(REPORT);
}

/* npoctl -j fabric test ARGS: its exit status, its report in *doc. */
static int fabric_test(FIXTURE_DATA(accept) *self, const char *args,
		       struct json_object **doc)
{
	int st = npo_test_run(self->out, sizeof(self->out),
			      "npoctl -j fabric test %s 2>/dev/null", args);

	*doc = json_tokener_parse(self->out);
	return st;
}

/* A port's transmitted bytes, from the driver's netlink counters. */
static int64_t tx_bytes(FIXTURE_DATA(accept) *self, int dev, int port)
{
	struct json_object *doc, *c;
	int64_t v = -1;

	if (npo_test_run(self->out, sizeof(self->out), "npoctl -j link show npo%d/%d",
			 dev, port))
		return -1;
	doc = json_tokener_parse(self->out);
	if (json_object_is_type(doc, json_type_array))
		c = jget(json_object_array_get_idx(doc, 0), "counters");
	else
		c = jget(doc, "counters");
	v = jint(c, "tx_bytes");
	json_object_put(doc);
	return v;
}

static bool end_is(struct json_object *end, int node, int port)
{
	return jint(end, "node_id") == node && jint(end, "port") == port;
}

/* The report's link with an end at node/port, or NULL. */
static struct json_object *link_at(struct json_object *doc, int node, int port)
{
	struct json_object *links = jget(doc, "links");
	size_t i;

	for (i = 0; links && i < json_object_array_length(links); i++) {
		struct json_object *l = json_object_array_get_idx(links, i);

		if (end_is(jget(l, "a"), node, port) || end_is(jget(l, "b"), node, port))
			return l;
	}
	return NULL;
}

static bool has_reason(struct json_object *l, const char *kind, const char *end,
		       int lane)
{
	struct json_object *rs = jget(l, "reasons");
	size_t i;

	for (i = 0; rs && i < json_object_array_length(rs); i++) {
		struct json_object *r = json_object_array_get_idx(rs, i);

		if (!strcmp(jstr(r, "kind"), kind) && !strcmp(jstr(r, "end"), end) &&
		    (lane < 0 || jint(r, "lane") == lane))
			return true;
	}
	return false;
}

TEST_F_TIMEOUT(accept, a_clean_ring_passes_after_moving_data_over_each_link, 180)
{
	struct json_object *doc, *links;
	int64_t before[64][2];
	int i, st;

	NPO_TEST_SETUP_DONE();

	ASSERT_GE(64, self->n);
	for (i = 0; i < self->n; i++) {
		before[i][0] = tx_bytes(self, i, 0);
		before[i][1] = tx_bytes(self, i, 1);
	}
	st = fabric_test(self, "duration 200 bytes 8388608", &doc);
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	EXPECT_EQ(0, st) TH_LOG("%.2000s", self->out);
	EXPECT_STREQ("pass", jstr(doc, "result"));
	EXPECT_EQ(self->n, jint(doc, "links_tested"));
	EXPECT_EQ(0, jint(doc, "links_failed"));
	links = jget(doc, "links");
	ASSERT_NE(NULL, links);
	ASSERT_EQ(self->n, json_object_array_length(links));
	/* Each ring link once: node k port 0 to node k+1 port 1. */
	for (i = 0; i < self->n; i++) {
		struct json_object *l = link_at(doc, i + 1, 0);
		struct json_object *a = jget(l, "a"), *b = jget(l, "b");
		int peer = i + 1 < self->n ? i + 2 : 1;
		struct json_object *lanes;
		int64_t after;
		size_t k;
		int dev;

		ASSERT_NE(NULL, l) TH_LOG("no link at node %d/0", i + 1);
		EXPECT_TRUE(end_is(a, peer, 1) || end_is(b, peer, 1));
		EXPECT_TRUE(json_object_get_boolean(jget(a, "measured")));
		EXPECT_TRUE(json_object_get_boolean(jget(b, "measured")));
		EXPECT_TRUE(json_object_get_boolean(jget(l, "data_run")));
		EXPECT_TRUE(json_object_get_boolean(jget(l, "data_ok")));
		EXPECT_LT(0, jdouble(l, "bandwidth_gbps"));
		EXPECT_LT(0, jdouble(l, "latency_us"));
		EXPECT_EQ(0, json_object_array_length(jget(l, "reasons")))
			TH_LOG("%s", json_object_to_json_string(jget(l, "reasons")));
		/* PRBS ran on every lane of both ends: each checked bits. */
		lanes = jget(b, "lanes");
		ASSERT_NE(NULL, lanes);
		EXPECT_LT(0, json_object_array_length(lanes));
		for (k = 0; k < json_object_array_length(lanes); k++)
			EXPECT_LT(1000000000, jint(json_object_array_get_idx(lanes, k),
						  "prbs_bits"));
		/* The device counted the bytes out of end a's very port:
		 * the untimed 8 MiB pass, then BYTES at least timed. */
		dev = jint(a, "node_id") - 1;
		ASSERT_TRUE(dev >= 0 && dev < self->n);
		after = tx_bytes(self, dev, jint(a, "port"));
		EXPECT_LE(before[dev][jint(a, "port") & 1] + BYTES + (8 << 20), after)
			TH_LOG("npo%d/%lld sent %lld bytes during the test", dev,
			       (long long)jint(a, "port"),
			       (long long)(after - before[dev][jint(a, "port") & 1]));
	}
	json_object_put(doc);
}

TEST_F_TIMEOUT(accept, faulty_links_rank_first_with_their_reasons, 240)
{
	struct json_object *doc, *links;
	int i, st, dead, ber, dim;
	char cmd[64];

	NPO_TEST_SETUP_DONE();

	/* Three links, spread over the ring; node k is npo(k-1). */
	dead = 4;	/* npo4/0's lane 3 receives no light: node 5/0 -- node 6/1 */
	ber = 1;	/* npo1/0 lane 2 at 1e-5: node 2/0 -- node 3/1 */
	dim = self->n - 2;	/* 2.4 dB more loss into every lane of npo(n-2)/0 */
	ASSERT_EQ(0, npo_test_fault(dead, "dead 0 3 1"));
	ASSERT_EQ(0, npo_test_fault(ber, "ber 0 2 5"));
	for (i = 0; i < 8; i++) {
		snprintf(cmd, sizeof(cmd), "rxdrop 0 %d 2.4", i);
		npo_test_fault(dim, cmd);
	}
	/* The dark lane's link retrains without it. */
	for (i = 0; i < 100; i++) {
		if (!npo_test_run(self->out, sizeof(self->out),
				  "npoctl -j link show npo%d/0 | grep -q DEGRADED", dead))
			break;
		usleep(100000);
	}
	ASSERT_GT(100, i) TH_LOG("npo%d/0 did not drop its dark lane", dead);
	ASSERT_TRUE(npo_test_ring_up(self->n));

	st = fabric_test(self, "duration 200 bytes 8388608", &doc);
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	EXPECT_EQ(1, st);
	EXPECT_STREQ("fail", jstr(doc, "result"));
	EXPECT_EQ(3, jint(doc, "links_failed")) TH_LOG("%s", self->out);
	links = jget(doc, "links");
	ASSERT_NE(NULL, links);
	for (i = 0; i < (int)json_object_array_length(links); i++) {
		struct json_object *l = json_object_array_get_idx(links, i);
		int node = jint(jget(l, "a"), "node_id");
		bool faulty = l == link_at(doc, dead + 1, 0) ||
			      l == link_at(doc, ber + 1, 0) ||
			      l == link_at(doc, dim + 1, 0);

		/* Exactly the three, first; every other link passes. */
		EXPECT_EQ(i < 3, faulty) TH_LOG("rank %d: node %d/%lld", i + 1,
						node, (long long)jint(jget(l, "a"), "port"));
		EXPECT_STREQ(faulty ? "fail" : "pass", jstr(l, "result"));
	}
	/* The dark lane is named where the light is missing: node 5/0, end a. */
	EXPECT_TRUE(has_reason(link_at(doc, dead + 1, 0), "dead-lane", "a", 3))
		TH_LOG("%s", json_object_to_json_string(link_at(doc, dead + 1, 0)));
	EXPECT_TRUE(has_reason(link_at(doc, ber + 1, 0), "high-ber", "a", 2))
		TH_LOG("%s", json_object_to_json_string(jget(link_at(doc, ber + 1, 0), "reasons")));
	EXPECT_TRUE(has_reason(link_at(doc, dim + 1, 0), "low-rx-power", "a", -1))
		TH_LOG("%s", json_object_to_json_string(jget(link_at(doc, dim + 1, 0), "reasons")));
	json_object_put(doc);

	/*
	 * Without a PRBS run, in text: the same three, the BER lane judged by
	 * the live traffic's pre-FEC BER.
	 */
	st = npo_test_run(self->out, sizeof(self->out),
			  "npoctl fabric test no-prbs bytes 1048576 2>/dev/null");
	EXPECT_EQ(1, st);
	EXPECT_NE(NULL, strstr(self->out, "node 5/0 lane 3 receives no light"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "node 2/0 lane 2: pre-FEC BER"))
		TH_LOG("%s", self->out);
	snprintf(cmd, sizeof(cmd), "3 of %d links failed", self->n);
	EXPECT_NE(NULL, strstr(self->out, cmd)) TH_LOG("%s", self->out);
}

/* With every default (1 s of PRBS, 64 MiB a link), well under a minute. */
TEST_F_TIMEOUT(accept, the_whole_test_takes_well_under_a_minute, 180)
{
	double t0 = npo_test_now_s(), secs;
	struct json_object *doc;
	int st;

	NPO_TEST_SETUP_DONE();

	st = fabric_test(self, "", &doc);
	secs = npo_test_now_s() - t0;
	ASSERT_NE(NULL, doc) TH_LOG("%.2000s", self->out);
	EXPECT_EQ(0, st) TH_LOG("%.2000s", self->out);
	EXPECT_EQ(1000, jint(doc, "prbs_ms"));
	EXPECT_EQ(self->n, jint(doc, "links_tested"));
	EXPECT_GT(60, secs) TH_LOG("the test took %.1f s", secs);
	TH_LOG("the default test took %.1f s on %d links", secs, self->n);
	json_object_put(doc);
}

TEST_F(accept, bad_arguments_and_reports_exit_2)
{
	struct json_object *doc;
	FILE *f;

	NPO_TEST_SETUP_DONE();

	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl fabric test duration 0 2>/dev/null"));
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl fabric test bytes -5 2>/dev/null"));
	EXPECT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl fabric test sideways 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "unknown option")) TH_LOG("%s", self->out);
	/* The driver's limit for one PRBS test is 60 s. */
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl fabric test --duration 60001 2>/dev/null"));
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl fabric merge 2>/dev/null"));
	EXPECT_EQ(1, npo_test_run(NULL, 0, "npoctl fabric merge /nonexistent.json 2>/dev/null"));
	f = fopen(REPORT, "w");
	ASSERT_NE(NULL, f);
	fputs("{\"links\": 7}", f);
	fclose(f);
	EXPECT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl fabric merge " REPORT " 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "wrong type")) TH_LOG("%s", self->out);

	/* One host's own report merges to itself; twice is refused. */
	EXPECT_GE(1, fabric_test(self, "no-prbs bytes 1048576", &doc));
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	json_object_put(doc);
	f = fopen(REPORT, "w");
	ASSERT_NE(NULL, f);
	fputs(self->out, f);
	fclose(f);
	/* Exit 0 or 1: the verdict is the other tests' business here. */
	EXPECT_GE(1, npo_test_run(self->out, sizeof(self->out),
				  "npoctl -j fabric merge " REPORT));
	doc = json_tokener_parse(self->out);
	EXPECT_EQ(self->n, jint(doc, "links_tested")) TH_LOG("%s", self->out);
	json_object_put(doc);
	EXPECT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl fabric merge " REPORT " " REPORT " 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "two reports")) TH_LOG("%s", self->out);
}

TEST_HARNESS_MAIN
