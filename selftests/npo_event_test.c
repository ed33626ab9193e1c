// SPDX-License-Identifier: GPL-2.0-only
/*
 * Link events: every injected fault gives the right state, counter and
 * multicast event, attributed to the right device, port, lane and peer,
 * and the link comes back when the fault is cleared.
 *
 * Listens on the npo generic netlink "events" group as any monitoring
 * agent would; faults go in through the debugfs test interface.  Needs
 * npo-vm --topology ring (device i port 0 to device i+1 port 1; device i
 * is node i + 1), so each test works on a link of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "npo_nl_lib.h"
#include "npo_test_json.h"
#include "npo_test_lib.h"
#include "npo_traffic_lib.h"

#define CNT(name)	NPO_ATTR_CNT_##name

FIXTURE(event) {
	struct nl_sock *sk;
	struct npo_nl_events *ev;
	int family;
	int ndev;
	int lanes;
};

FIXTURE_SETUP(event)
{
	char v[32];

	self->sk = NULL;
	self->ev = NULL;
	if (!npo_test_is_root())
		SKIP(return, "needs root for fault injection");
	self->ndev = npo_test_count_devices();
	NPO_TEST_NEED_RING(8);
	if (access("/sys/kernel/debug/npo/npo0/fault", W_OK))
		SKIP(return, "device has no fault injection");
	ASSERT_EQ(0, npo_test_read_attr("npo0", "lanes_per_port", v, sizeof(v)));
	self->lanes = atoi(v);
	self->sk = npo_nl_connect();
	ASSERT_NE(NULL, self->sk);
	self->family = npo_nl_family(self->sk);
	ASSERT_GT(self->family, 0);
	self->ev = npo_nl_events_open();
	ASSERT_NE(NULL, self->ev) TH_LOG("cannot join the events group");
}

FIXTURE_TEARDOWN(event)
{
	int i;

	if (self->ev)
		for (i = 0; i < self->ndev; i++)
			npo_test_fault(i, "clear");
	npo_nl_events_close(self->ev);
	if (self->sk)
		nl_socket_free(self->sk);
}

/* Poll DEV/PORT until it is active at width (0: any). */
static bool wait_active(FIXTURE_DATA(event) *self, int dev, int port,
			int width, struct npo_nl_port *p)
{
	int tries;

	for (tries = 0; tries < 300; tries++) {
		if (!npo_nl_get_port(self->sk, self->family, dev, port, p) &&
		    p->state == NPO_PORT_ACTIVE && (!width || p->width == width))
			return true;
		usleep(50000);
	}
	return false;
}

static int retrain(FIXTURE_DATA(event) *self, int dev, int port)
{
	return npo_nl_transact(self->sk,
			       npo_nl_port_request(self->family,
						   NPO_CMD_PORT_RETRAIN, dev, port));
}

static int set_admin(FIXTURE_DATA(event) *self, int dev, int port, bool up)
{
	struct nl_msg *msg = npo_nl_port_request(self->family, NPO_CMD_PORT_SET,
						 dev, port);

	nla_put_u8(msg, NPO_ATTR_PORT_ADMIN_UP, up);
	return npo_nl_transact(self->sk, msg);
}

/* The job the traffic's two ends share. */
#define TRAFFIC_JOB	0x7e57

/*
 * Writes from device @dev into its neighbour through port 0, running
 * through the fault, as a job's traffic would.
 */
static void traffic_begin(struct __test_metadata *_metadata,
			  FIXTURE_DATA(event) *self, struct npo_test_traffic *t,
			  int dev)
{
	char a[16], b[16];
	int i;

	snprintf(a, sizeof(a), "npo%d", dev);
	snprintf(b, sizeof(b), "npo%d", (dev + 1) % self->ndev);
	ASSERT_EQ(0, npo_test_traffic_open(t, a, b, TRAFFIC_JOB, 16));
	ASSERT_EQ(0, npo_test_traffic_start(t));
	for (i = 0; i < 200 && npo_test_traffic_ok(t) < 20; i++)
		usleep(50000);
	ASSERT_LE(20, npo_test_traffic_ok(t)) TH_LOG("no traffic before the fault");
}

/*
 * The link is back: the traffic flows again, and every write it posted
 * completed exactly once with its bytes where they belong; with
 * @lossless, none failed (a recovery pauses traffic, it loses none).
 */
static void traffic_end(struct __test_metadata *_metadata,
			struct npo_test_traffic *t, bool lossless)
{
	unsigned long ok = npo_test_traffic_ok(t);
	char why[160];
	int i;

	for (i = 0; i < 300 && npo_test_traffic_ok(t) < ok + 20; i++)
		usleep(50000);
	EXPECT_LE(ok + 20, npo_test_traffic_ok(t))
		TH_LOG("no traffic after the link came back");
	npo_test_traffic_stop(t);
	EXPECT_EQ(0, npo_test_traffic_check(t, why, sizeof(why))) TH_LOG("%s", why);
	TH_LOG("traffic: %s", why);
	if (lossless)
		EXPECT_EQ(0, t->failed) TH_LOG("%s", why);
	npo_test_traffic_close(t);
}

#define EXPECT_PEER(e, node, port_)				\
	do {							\
		EXPECT_EQ(node, (e).peer_node);			\
		EXPECT_EQ(port_, (e).peer_port);		\
	} while (0)

TEST_F_TIMEOUT(event, dead_lane_degrades_naming_the_lane, 120)
{
	struct npo_nl_port before, e, p;
	struct npo_test_traffic t;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 0, 0, self->lanes, &before));
	ASSERT_TRUE(before.has_lanes) TH_LOG("device reports no fault lanes");
	traffic_begin(_metadata, self, &t, 0);
	ASSERT_EQ(0, npo_test_fault(0, "dead 0 7 1"));

	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_RETRAIN, 0, 0, 5000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	EXPECT_PEER(e, 2, 1);
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_DEGRADED, 0, 0, 10000, &e));
	EXPECT_EQ(NPO_PORT_ACTIVE, e.state);
	EXPECT_EQ(self->lanes / 2, e.width);
	EXPECT_TRUE(e.flags & NPO_PORT_FLAG_DEGRADED);
	EXPECT_EQ(1u << 7, e.fault_lanes);
	EXPECT_PEER(e, 2, 1);
	/* The other end blames the same lane. */
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_DEGRADED, 1, 1, 5000, &e));
	EXPECT_EQ(1u << 7, e.fault_lanes);
	EXPECT_PEER(e, 1, 0);
	/* A recovery, not a link down. */
	EXPECT_FALSE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 0, 0, 0, NULL));
	ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, 0, 0, &p));
	EXPECT_GT(p.counter[CNT(RECOVERIES)], before.counter[CNT(RECOVERIES)]);
	EXPECT_EQ(before.flaps, p.flaps);

	/* The lane is back: a retrain restores the full width. */
	ASSERT_EQ(0, npo_test_fault(0, "dead 0 7 0"));
	ASSERT_EQ(0, retrain(self, 0, 0));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_RECOVERED, 0, 0, 10000, &e));
	ASSERT_TRUE(wait_active(self, 0, 0, self->lanes, &p));
	EXPECT_FALSE(p.flags & NPO_PORT_FLAG_DEGRADED);
	EXPECT_EQ(0, p.fault_lanes);
	traffic_end(_metadata, &t, true);
}

/*
 * Wait for an at-risk event on DEV/PORT that names lanes and says reason
 * (any, if NPO_RISK_NONE), or with @over one that says the risk is over;
 * earlier ones are taken and dropped.
 */
static bool wait_risk_event(FIXTURE_DATA(event) *self, int dev, int port,
			    bool over, uint32_t reason, int timeout_ms,
			    struct npo_nl_port *e)
{
	double end = npo_test_now_s() + timeout_ms / 1000.0;

	while (npo_test_now_s() < end) {
		if (!npo_nl_wait_event(self->ev, NPO_EVENT_AT_RISK, dev, port,
				       (int)((end - npo_test_now_s()) * 1000) + 1,
				       e))
			return false;
		if (over ? !e->risk_lanes :
			   e->risk_lanes && (reason == NPO_RISK_NONE ||
					     e->risk_reason == reason))
			return true;
	}
	return false;
}

static bool wait_risk(FIXTURE_DATA(event) *self, int dev, int port,
		      uint32_t reason, int timeout_ms, struct npo_nl_port *e)
{
	return wait_risk_event(self, dev, port, false, reason, timeout_ms, e);
}

static bool wait_risk_over(FIXTURE_DATA(event) *self, int dev, int port,
			   int timeout_ms, struct npo_nl_port *e)
{
	return wait_risk_event(self, dev, port, true, NPO_RISK_NONE, timeout_ms, e);
}

TEST_F_TIMEOUT(event, high_ber_crosses_threshold_naming_the_lane, 120)
{
	struct npo_nl_port before, e, p;
	int tries;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 2, 0, 0, &before));
	/* 2.8e-6: trains, but above the 1e-6 warning threshold. */
	ASSERT_EQ(0, npo_test_fault(2, "ber 0 3 5.5"));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_ERR_THRESHOLD, 2, 0,
				      5000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	EXPECT_EQ(NPO_PORT_ACTIVE, e.state);
	EXPECT_TRUE(e.flags & NPO_PORT_FLAG_HIGH_BER);
	EXPECT_EQ(1u << 3, e.ber_lanes);
	EXPECT_PEER(e, 4, 1);
	usleep(200000);
	ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, 2, 0, &p));
	EXPECT_GT(p.counter[CNT(FEC_CORRECTED)], before.counter[CNT(FEC_CORRECTED)]);
	EXPECT_GT(p.counter[CNT(SYMBOL_ERRORS)], before.counter[CNT(SYMBOL_ERRORS)]);

	/* The watch holds the lane at risk for it. */
	ASSERT_TRUE(wait_risk(self, 2, 0, NPO_RISK_HIGH_BER, 5000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	EXPECT_EQ(1u << 3, e.risk_lanes);
	EXPECT_EQ(3, e.risk_lane);

	/*
	 * 7.9e-7, just better than the warning: the device's flag and lane
	 * mask go, but a lane hovering at the threshold stays at risk until
	 * it is clear by a margin, rather than flapping.
	 */
	ASSERT_EQ(0, npo_test_fault(2, "ber 0 3 6.1"));
	for (tries = 0; tries < 100; tries++) {
		ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, 2, 0, &p));
		if (!(p.flags & NPO_PORT_FLAG_HIGH_BER))
			break;
		usleep(50000);
	}
	EXPECT_FALSE(p.flags & NPO_PORT_FLAG_HIGH_BER);
	EXPECT_EQ(0, p.ber_lanes);
	EXPECT_FALSE(wait_risk_over(self, 2, 0, 3000, &e));
	ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, 2, 0, &p));
	EXPECT_EQ(1u << 3, p.risk_lanes);
	EXPECT_TRUE(p.flags & NPO_PORT_FLAG_AT_RISK);

	/*
	 * Cleared: the device says nothing when the BER falls back; the watch
	 * sees it and says the risk is over.  The link never dropped.
	 */
	ASSERT_EQ(0, npo_test_fault(2, "ber 0 3 0"));
	EXPECT_TRUE(wait_risk_over(self, 2, 0, 5000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, 2, 0, &p));
	EXPECT_EQ(0, p.risk_lanes);
	EXPECT_FALSE(p.flags & NPO_PORT_FLAG_AT_RISK);
	EXPECT_EQ(NPO_PORT_ACTIVE, p.state);
	EXPECT_EQ(before.flaps, p.flaps);
	EXPECT_FALSE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 2, 0, 0, NULL));
}

static double lane_rx_dbm(struct json_object *lanes, int i)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(json_object_array_get_idx(lanes, i),
				  "rx_power_dbm", &v);
	return json_object_get_double(v);
}

TEST_F_TIMEOUT(event, rx_power_drop_fails_the_lane, 120)
{
	struct npo_nl_port before, e, p;
	struct npo_test_traffic t;
	struct json_object *lanes;
	char out[1 << 14];
	int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 3, 0, self->lanes, &before));
	traffic_begin(_metadata, self, &t, 3);
	/* 10 dB more loss on lane 5: well below sensitivity at any rate. */
	ASSERT_EQ(0, npo_test_fault(3, "rxdrop 0 5 10"));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_DEGRADED, 3, 0, 10000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	EXPECT_EQ(1u << 5, e.fault_lanes);
	EXPECT_PEER(e, 5, 1);
	EXPECT_LT(e.width * e.rate_mbps, self->lanes * before.rate_mbps);
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_DEGRADED, 4, 1, 5000, &e));
	EXPECT_EQ(1u << 5, e.fault_lanes);

	/* The lane table shows where the light went. */
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "npoctl -j lane npo3/0"));
	lanes = json_tokener_parse(out);
	ASSERT_NE(NULL, lanes) TH_LOG("%s", out);
	for (i = 0; i < self->lanes; i++)
		if (i != 5)
			EXPECT_LT(lane_rx_dbm(lanes, 5), lane_rx_dbm(lanes, i) - 9.0)
				TH_LOG("lane 5 %.2f dBm, lane %d %.2f dBm",
				       lane_rx_dbm(lanes, 5), i, lane_rx_dbm(lanes, i));
	json_object_put(lanes);

	ASSERT_EQ(0, npo_test_fault(3, "rxdrop 0 5 0"));
	ASSERT_EQ(0, retrain(self, 3, 0));
	ASSERT_TRUE(wait_active(self, 3, 0, self->lanes, &p));
	EXPECT_EQ(before.rate_mbps, p.rate_mbps);
	EXPECT_FALSE(p.flags & NPO_PORT_FLAG_DEGRADED);
	traffic_end(_metadata, &t, true);
}

/* Undo a slow fault: clear it, retrain, back at full width and clean. */
static void restore_link(struct __test_metadata *_metadata,
			 FIXTURE_DATA(event) *self, int dev, int port)
{
	struct npo_nl_port p;
	int tries;

	ASSERT_EQ(0, npo_test_fault(dev, "clear"));
	ASSERT_EQ(0, retrain(self, dev, port));
	ASSERT_TRUE(wait_active(self, dev, port, self->lanes, &p));
	EXPECT_FALSE(p.flags & NPO_PORT_FLAG_DEGRADED);
	/* The watch forgets the lanes when the link retrains. */
	for (tries = 0; tries < 100 && p.risk_lanes; tries++) {
		usleep(50000);
		ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, dev, port, &p));
	}
	EXPECT_EQ(0, p.risk_lanes);
	EXPECT_FALSE(p.flags & NPO_PORT_FLAG_AT_RISK);
}

TEST_F_TIMEOUT(event, ber_ramp_warns_before_the_lane_fails, 150)
{
	struct npo_test_traffic t;
	struct npo_nl_port before, e;
	double warned, failed;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 1, 0, self->lanes, &before));
	ASSERT_TRUE(before.has_risk) TH_LOG("the driver does not watch lanes");
	ASSERT_EQ(0, before.risk_lanes);
	traffic_begin(_metadata, self, &t, 1);
	/*
	 * Lane 6's BER rises 0.2 decades a second from about 1e-8: past the
	 * 1e-6 warning in about 10 s and the 1e-4 training threshold in about
	 * 20 s, minutes compressed into seconds.
	 */
	ASSERT_EQ(0, npo_test_fault(1, "berramp 0 6 0.2"));
	ASSERT_TRUE(wait_risk(self, 1, 0, NPO_RISK_NONE, 30000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	warned = npo_test_now_s();
	/* Early: the link still carries traffic at full width. */
	EXPECT_FALSE(npo_nl_wait_event(self->ev, NPO_EVENT_RETRAIN, 1, 0, 0, NULL));
	EXPECT_FALSE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 1, 0, 0, NULL));
	EXPECT_EQ(NPO_PORT_ACTIVE, e.state);
	EXPECT_EQ((uint32_t)self->lanes, e.width);
	EXPECT_EQ(1u << 6, e.risk_lanes);
	EXPECT_EQ(6, e.risk_lane);
	EXPECT_TRUE(e.flags & NPO_PORT_FLAG_AT_RISK);
	EXPECT_PEER(e, 3, 1);
	/*
	 * The first warning comes from the trend, within the watch's
	 * ten-minute horizon; it sharpens as readings of the ramp replace
	 * those from before it.
	 */
	EXPECT_EQ(NPO_RISK_BER_TREND, e.risk_reason);
	EXPECT_GE(e.risk_eta_s, 2);
	EXPECT_LE(e.risk_eta_s, 600);

	/* The link then drops the lane, as predicted. */
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_DEGRADED, 1, 0, 60000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	failed = npo_test_now_s();
	EXPECT_TRUE(e.fault_lanes & (1u << 6));
	TH_LOG("at risk %.1f s before the lane failed", failed - warned);
	EXPECT_GT(failed - warned, 2.0);
	restore_link(_metadata, self, 1, 0);
	traffic_end(_metadata, &t, true);
}

TEST_F_TIMEOUT(event, rx_power_drift_warns_naming_the_lane, 150)
{
	struct npo_nl_port before, e;
	struct json_object *lanes, *lane, *v;
	char out[1 << 14];

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 4, 0, self->lanes, &before));
	/* Lane 2 loses 0.1 dB a second: a connector working loose. */
	ASSERT_EQ(0, npo_test_fault(4, "rxdrift 0 2 0.1"));
	ASSERT_TRUE(wait_risk(self, 4, 0, NPO_RISK_RX_POWER, 60000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	EXPECT_FALSE(npo_nl_wait_event(self->ev, NPO_EVENT_RETRAIN, 4, 0, 0, NULL));
	EXPECT_EQ(NPO_PORT_ACTIVE, e.state);
	EXPECT_EQ(1u << 2, e.risk_lanes);
	EXPECT_EQ(2, e.risk_lane);
	EXPECT_PEER(e, 6, 1);
	EXPECT_GE(e.risk_eta_s, 1);

	/* The lane table shows the lane below its warning, falling. */
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "npoctl -j lane npo4/0"));
	lanes = json_tokener_parse(out);
	ASSERT_NE(NULL, lanes) TH_LOG("%s", out);
	lane = json_object_array_get_idx(lanes, 2);
	ASSERT_TRUE(json_object_object_get_ex(lane, "rx_power_warn_dbm", &v))
		TH_LOG("%s", out);
	EXPECT_LT(lane_rx_dbm(lanes, 2), json_object_get_double(v));
	ASSERT_TRUE(json_object_object_get_ex(lane, "rx_trend_db_per_min", &v));
	EXPECT_LT(json_object_get_double(v), -3.0);
	EXPECT_GT(json_object_get_double(v), -9.0);
	ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(lanes, 0),
					      "rx_trend_db_per_min", &v));
	EXPECT_GT(json_object_get_double(v), -0.5);
	json_object_put(lanes);

	/* npoctl names it in the port's view too. */
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "npoctl link show npo4/0"));
	EXPECT_NE(NULL, strstr(out, "low Rx power")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "AT-RISK")) TH_LOG("%s", out);
	restore_link(_metadata, self, 4, 0);
}

/* A device's kept events (npoctl -j events [ARGS] DEV), NULL on failure. */
static struct json_object *kept_events(int dev, const char *args)
{
	static char out[1 << 18];

	if (npo_test_run(out, sizeof(out), "npoctl -j events %s npo%d", args, dev))
		return NULL;
	return json_tokener_parse(out);
}

/* The first kept link-down after seq on the port, NULL if none. */
static struct json_object *kept_down(struct json_object *ev, const char *port,
				     int64_t seq)
{
	size_t i;

	for (i = 0; ev && i < json_object_array_length(ev); i++) {
		struct json_object *e = json_object_array_get_idx(ev, i);

		if (json_object_get_int64(jget(e, "seq")) > seq &&
		    !strcmp(jstr(e, "event"), "link-down") &&
		    !strcmp(jstr(e, "port"), port))
			return e;
	}
	return NULL;
}

static int64_t kept_last_seq(struct json_object *ev)
{
	size_t n = ev ? json_object_array_length(ev) : 0;

	return n ? json_object_get_int64(jget(json_object_array_get_idx(ev, n - 1),
						 "seq")) : 0;
}

/* The lanes a kept link-down says it had before, NULL if none. */
static struct json_object *lanes_before(struct json_object *e)
{
	return jget(e, "lanes_before");
}

static double lane_before_rx(struct json_object *e, int lane)
{
	return json_object_get_double(jget(json_object_array_get_idx(lanes_before(e),
									lane),
					      "rx_power_dbm"));
}

/*
 * Operators arrive after the failure: both ends of a cut link keep the
 * link-down, numbered, with its reason and peer, on the wall clock and on
 * the fabric clock.  Each is a flight record: the instant the devices
 * latched the loss of signal, the same fabric time at both ends to within
 * microseconds, and the lanes as read just before, where a weak lane
 * shows.
 */
TEST_F_TIMEOUT(event, history_keeps_a_cut_on_both_ends, 120)
{
	struct json_object *a0, *b0, *a, *b, *ea, *eb;
	double t0 = (double)time(NULL);
	int64_t fa, fb, before;
	static char trace[1 << 17];
	static char out[1 << 16];
	int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 5, 0, self->lanes, &(struct npo_nl_port){ 0 }));
	/* Lane 4 receives 3 dB less: weak, not failing; the watch reads it. */
	ASSERT_EQ(0, npo_test_fault(5, "rxdrop 0 4 3"));
	usleep(2500000);
	a0 = kept_events(5, "");
	b0 = kept_events(6, "");
	ASSERT_NE(NULL, a0);
	ASSERT_NE(NULL, b0);
	ASSERT_TRUE(npo_test_trace_start(false)) TH_LOG("no tracefs");
	ASSERT_EQ(0, npo_test_fault(5, "cut 0 1"));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 6, 1, 5000, NULL));
	ASSERT_EQ(0, npo_test_fault(5, "cut 0 0"));
	ASSERT_TRUE(wait_active(self, 5, 0, 0, &(struct npo_nl_port){ 0 }));
	/* The tracepoint saw it too: npo5 (node 6) port 0, LINK_DOWN (2). */
	ASSERT_EQ(0, npo_test_trace_stop(trace, sizeof(trace)));
	EXPECT_NE(NULL, strstr(trace, "npo_port_event: npo5 node 6 port 0 event 2 "))
		TH_LOG("%s", trace);
	EXPECT_NE(NULL, strstr(trace, "npo_port_event: npo6 node 7 port 1 event 2 "))
		TH_LOG("%s", trace);

	a = kept_events(5, "");
	b = kept_events(6, "");
	ea = kept_down(a, "npo5/0", kept_last_seq(a0));
	eb = kept_down(b, "npo6/1", kept_last_seq(b0));
	ASSERT_NE(NULL, ea) TH_LOG("%s", json_object_to_json_string(a));
	ASSERT_NE(NULL, eb) TH_LOG("%s", json_object_to_json_string(b));
	EXPECT_STREQ("loss of signal", jstr(ea, "reason"));
	EXPECT_EQ(7, json_object_get_int(jget(ea, "peer_node_id")));
	EXPECT_EQ(6, json_object_get_int(jget(eb, "peer_node_id")));
	EXPECT_GE(json_object_get_int64(jget(ea, "time_ns")) / 1e9, t0 - 1);
	EXPECT_LE(json_object_get_int64(jget(ea, "time_ns")) / 1e9,
		  (double)time(NULL) + 1);
	/* Both ends saw the cut within a few ticks of each other. */
	ASSERT_NE(NULL, jget(ea, "fabric_time_ns"));
	ASSERT_NE(NULL, jget(eb, "fabric_time_ns"));
	fa = json_object_get_int64(jget(ea, "fabric_time_ns"));
	fb = json_object_get_int64(jget(eb, "fabric_time_ns"));
	TH_LOG("the two ends' link-down %.3f ms apart in fabric time",
	       llabs(fa - fb) / 1e6);
	EXPECT_LT(llabs(fa - fb), 500000000LL);
	/* The devices' own latch: the same instant, within microseconds. */
	ASSERT_NE(NULL, jget(ea, "down_time_ns"));
	ASSERT_NE(NULL, jget(eb, "down_time_ns"));
	fa = json_object_get_int64(jget(ea, "down_time_ns"));
	fb = json_object_get_int64(jget(eb, "down_time_ns"));
	TH_LOG("the two ends latched the loss %lld ns apart", llabs(fa - fb));
	EXPECT_LT(llabs(fa - fb), 10000LL);
	EXPECT_LE(fa, json_object_get_int64(jget(ea, "fabric_time_ns")));
	/* The lanes just before: lane 4 weak at npo5, not at the far end. */
	ASSERT_NE(NULL, lanes_before(ea)) TH_LOG("%s", json_object_to_json_string(ea));
	ASSERT_NE(NULL, lanes_before(eb));
	ASSERT_EQ((size_t)self->lanes, json_object_array_length(lanes_before(ea)));
	EXPECT_LE(json_object_get_int(jget(ea, "lanes_age_ms")), 1500);
	for (i = 0; i < self->lanes; i++) {
		EXPECT_EQ(i, json_object_get_int(jget(json_object_array_get_idx(
			lanes_before(ea), i), "lane")));
		if (i != 4)
			EXPECT_LT(lane_before_rx(ea, 4), lane_before_rx(ea, i) - 2.5)
				TH_LOG("lane 4 %.2f dBm, lane %d %.2f dBm",
				       lane_before_rx(ea, 4), i, lane_before_rx(ea, i));
	}
	EXPECT_GT(lane_before_rx(eb, 4), lane_before_rx(ea, 4) + 2.5);
	/* npoctl link history: this port's record alone, lanes and all. */
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "npoctl link history npo5/0"));
	EXPECT_NE(NULL, strstr(out, "lost at fabric")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "lane 4 ")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "npo5/1:")) TH_LOG("%s", out);
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl link history npo5"));
	/* The weak lane may have cost the retrained link width: undo it. */
	restore_link(_metadata, self, 5, 0);
	/* And the link coming back, after it. */
	EXPECT_LT(kept_last_seq(a0), kept_last_seq(a));
	before = kept_last_seq(a0);
	json_object_put(a0);
	json_object_put(b0);
	json_object_put(a);
	json_object_put(b);

	/*
	 * --since: the cut is not of the last zero seconds, but of the last
	 * hour.  (Older events may look newer: phc2sys in npo_clock_test
	 * steps the system clock, and kept times are the wall clock's.)
	 */
	a = kept_events(5, "--since 0s");
	ASSERT_NE(NULL, a);
	EXPECT_EQ(NULL, kept_down(a, "npo5/0", before));
	json_object_put(a);
	a = kept_events(5, "--since 1h");
	ASSERT_NE(NULL, a);
	EXPECT_NE(NULL, kept_down(a, "npo5/0", before));
	json_object_put(a);
	/* Longer ago than the epoch is every event; past a century, no. */
	a = kept_events(5, "--since 36500d");
	ASSERT_NE(NULL, a);
	EXPECT_NE(NULL, kept_down(a, "npo5/0", before));
	json_object_put(a);
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl events --since yesterday npo5"));
	EXPECT_EQ(2, npo_test_run(NULL, 0,
				  "npoctl events --since 9999999999999999d npo5"));
}

/* npoctl -j health's item for "port P" of device dev, NULL if none. */
static struct json_object *health_item(struct json_object *h, int dev,
				       const char *what)
{
	struct json_object *devs = jget(h, "devices"), *items;
	char name[16];
	size_t i, j;

	snprintf(name, sizeof(name), "npo%d", dev);
	for (i = 0; devs && i < json_object_array_length(devs); i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);

		if (strcmp(jstr(d, "device"), name))
			continue;
		items = jget(d, "items");
		for (j = 0; items && j < json_object_array_length(items); j++) {
			struct json_object *it = json_object_array_get_idx(items, j);

			if (!strcmp(jstr(it, "what"), what))
				return it;
		}
	}
	return NULL;
}

static struct json_object *health(int *status)
{
	static char out[1 << 16];

	*status = npo_test_run(out, sizeof(out), "npoctl -j health");
	return json_tokener_parse(out);
}

/*
 * npoctl health says what is wrong and where: a cut link is failed on both
 * of its ports with the reason, the host is not ok (exit 3), and once the
 * fibre is back both ports are ok again.
 */
TEST_F_TIMEOUT(event, health_names_a_cut_link, 120)
{
	struct json_object *h, *it;
	int status, tries;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 5, 0, 0, &(struct npo_nl_port){ 0 }));
	h = health(&status);
	ASSERT_NE(NULL, h);
	EXPECT_STREQ("ok", jstr(health_item(h, 5, "port 0"), "health"));
	json_object_put(h);

	ASSERT_EQ(0, npo_test_fault(5, "cut 0 1"));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 6, 1, 5000, NULL));
	h = health(&status);
	ASSERT_NE(NULL, h);
	EXPECT_EQ(3, status);
	EXPECT_STREQ("failed", jstr(h, "health"));
	it = health_item(h, 5, "port 0");
	ASSERT_NE(NULL, it);
	EXPECT_STREQ("failed", jstr(it, "health"));
	EXPECT_STREQ("loss of signal", jstr(it, "reason"));
	EXPECT_NE(NULL, jget(it, "since_ms"));
	it = health_item(h, 6, "port 1");
	ASSERT_NE(NULL, it);
	EXPECT_STREQ("failed", jstr(it, "health"));
	/* The neighbours' other ports are fine. */
	EXPECT_STREQ("ok", jstr(health_item(h, 5, "port 1"), "health"));
	json_object_put(h);

	ASSERT_EQ(0, npo_test_fault(5, "cut 0 0"));
	ASSERT_TRUE(wait_active(self, 5, 0, self->lanes, &(struct npo_nl_port){ 0 }));
	for (tries = 0; tries < 50; tries++) {
		h = health(&status);
		ASSERT_NE(NULL, h);
		if (!strcmp(jstr(health_item(h, 6, "port 1"), "health"), "ok"))
			break;
		json_object_put(h);
		h = NULL;
		usleep(100000);
	}
	ASSERT_NE(NULL, h);
	EXPECT_STREQ("ok", jstr(health_item(h, 5, "port 0"), "health"));
	json_object_put(h);
	/* The text form says it in one line per device. */
	EXPECT_NE(2, npo_test_run(NULL, 0, "npoctl health"));
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl health npoX"));
	/* A device that is not there is an error, not a healthy host. */
	EXPECT_EQ(1, npo_test_run(NULL, 0, "npoctl health npo99"));
}

/*
 * A cut takes both ends of the link down, each noticing on its own, and
 * back up when mended; the traffic across it goes the other way round the
 * ring meanwhile, losing nothing.
 */
TEST_F_TIMEOUT(event, cut_takes_both_ends_down_and_back, 120)
{
	struct npo_nl_port before, e, p;
	struct npo_test_traffic t;
	unsigned long ok;
	int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 5, 0, 0, &before));
	traffic_begin(_metadata, self, &t, 5);
	ASSERT_EQ(0, npo_test_fault(5, "cut 0 1"));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 5, 0, 5000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	EXPECT_EQ(NPO_REASON_LOSS_OF_SIGNAL, e.reason);
	EXPECT_PEER(e, 7, 1);
	/* The far end notices the silence on its own. */
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 6, 1, 5000, &e));
	EXPECT_EQ(NPO_REASON_LOSS_OF_SIGNAL, e.reason);
	EXPECT_PEER(e, 6, 0);
	ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, 5, 0, &p));
	EXPECT_EQ(before.flaps + 1, p.flaps);
	EXPECT_EQ(before.counter[CNT(LINK_DOWNS)] + 1, p.counter[CNT(LINK_DOWNS)]);
	EXPECT_NE(NPO_PORT_ACTIVE, p.state);
	ok = npo_test_traffic_ok(&t);
	for (i = 0; i < 200 && npo_test_traffic_ok(&t) < ok + 20; i++)
		usleep(50000);
	EXPECT_LE(ok + 20, npo_test_traffic_ok(&t))
		TH_LOG("no traffic the other way round while the link was down");

	ASSERT_EQ(0, npo_test_fault(5, "cut 0 0"));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_UP, 5, 0, 15000, &e));
	EXPECT_EQ(self->lanes, e.width);
	EXPECT_PEER(e, 7, 1);
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_UP, 6, 1, 15000, &e));
	EXPECT_PEER(e, 6, 0);
	/* Routed around: what was in flight waited for the new routes. */
	traffic_end(_metadata, &t, true);
}

TEST_F_TIMEOUT(event, burst_forces_a_recovery_without_loss, 60)
{
	struct npo_nl_port before, e, p;
	struct npo_test_traffic t;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 6, 0, 0, &before));
	traffic_begin(_metadata, self, &t, 6);
	ASSERT_EQ(0, npo_test_fault(6, "burst 0 50"));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_RETRAIN, 6, 0, 5000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	EXPECT_PEER(e, 8, 1);
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_RECOVERED, 6, 0, 10000, &e));
	EXPECT_EQ(NPO_PORT_ACTIVE, e.state);
	EXPECT_FALSE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 6, 0, 0, NULL));
	ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, 6, 0, &p));
	EXPECT_GE(p.counter[CNT(CRC_ERRORS)], before.counter[CNT(CRC_ERRORS)] + 50);
	/* Every codeword that failed its CRC was replayed. */
	EXPECT_EQ(p.counter[CNT(CRC_ERRORS)] - before.counter[CNT(CRC_ERRORS)],
		  p.counter[CNT(REPLAYS)] - before.counter[CNT(REPLAYS)]);
	EXPECT_EQ(before.counter[CNT(RECOVERIES)] + 1, p.counter[CNT(RECOVERIES)]);
	EXPECT_EQ(before.flaps, p.flaps);
	traffic_end(_metadata, &t, true);
}

TEST_F_TIMEOUT(event, prbs_test_says_why_the_link_went_down, 60)
{
	struct nl_msg *msg;
	struct npo_nl_port e;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 7, 0, 0, &e));
	msg = npo_nl_port_request(self->family, NPO_CMD_PORT_TEST, 7, 0);
	nla_put_u32(msg, NPO_ATTR_TEST_DURATION_MS, 100);
	ASSERT_EQ(0, npo_nl_transact(self->sk, msg));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 7, 0, 5000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	EXPECT_EQ(NPO_REASON_TEST, e.reason);
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 0, 1, 5000, &e));
	EXPECT_EQ(NPO_REASON_PEER_TEST, e.reason);
	EXPECT_PEER(e, 8, 0);
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_TEST_DONE, 7, 0, 5000, NULL));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_UP, 7, 0, 15000, &e));
	EXPECT_PEER(e, 1, 1);
}

TEST_F_TIMEOUT(event, admin_down_names_both_reasons, 60)
{
	struct npo_nl_port e;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 4, 0, 0, &e));
	ASSERT_EQ(0, set_admin(self, 4, 0, false));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 4, 0, 5000, &e))
		TH_LOG("events: %s", npo_nl_events_dump(self->ev));
	EXPECT_EQ(NPO_REASON_ADMIN_DISABLED, e.reason);
	EXPECT_TRUE(e.flags & NPO_PORT_FLAG_ADMIN_DOWN);
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_DOWN, 5, 1, 5000, &e));
	EXPECT_EQ(NPO_REASON_PEER_DISABLED, e.reason);
	EXPECT_PEER(e, 5, 0);
	ASSERT_EQ(0, set_admin(self, 4, 0, true));
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_UP, 4, 0, 15000, &e));
	EXPECT_PEER(e, 6, 1);
	ASSERT_TRUE(npo_nl_wait_event(self->ev, NPO_EVENT_LINK_UP, 5, 1, 15000, NULL));
}

/*
 * Both ends act on training sequences 3 ms late, three resend intervals:
 * every retrain meets late repeats and late answers of the attempt
 * before.  Each retrain must settle once, and the link then stay quiet:
 * one recovery per retrain on each end, no retrain storm between them.
 */
TEST_F_TIMEOUT(event, slow_training_answers_settle, 120)
{
	struct npo_nl_port before[2], p[2], later[2];
	static const int dev[2] = { 1, 2 }, port[2] = { 0, 1 };
	int i, end;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_active(self, 1, 0, self->lanes, &before[0]));
	ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, 2, 1, &before[1]));
	ASSERT_EQ(0, npo_test_fault(1, "slow 0 3000"));
	ASSERT_EQ(0, npo_test_fault(2, "slow 1 3000"));
	for (i = 0; i < 3; i++) {
		/* From alternate ends; each retrain recovers both. */
		ASSERT_EQ(0, retrain(self, dev[i % 2], port[i % 2]));
		for (end = 0; end < 2; end++)
			ASSERT_TRUE(npo_nl_wait_event(self->ev,
						      NPO_EVENT_RECOVERED,
						      dev[end], port[end],
						      10000, NULL))
				TH_LOG("retrain %d: events: %s", i,
				       npo_nl_events_dump(self->ev));
	}
	usleep(300000);
	for (end = 0; end < 2; end++)
		ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, dev[end],
					     port[end], &p[end]));
	usleep(1000000);
	for (end = 0; end < 2; end++) {
		ASSERT_EQ(0, npo_nl_get_port(self->sk, self->family, dev[end],
					     port[end], &later[end]));
		EXPECT_EQ(NPO_PORT_ACTIVE, later[end].state);
		EXPECT_EQ(self->lanes, later[end].width);
		EXPECT_EQ(p[end].counter[CNT(RECOVERIES)],
			  later[end].counter[CNT(RECOVERIES)])
			TH_LOG("npo%d/%d still retraining", dev[end], port[end]);
		EXPECT_EQ(before[end].counter[CNT(RECOVERIES)] + 3,
			  later[end].counter[CNT(RECOVERIES)])
			TH_LOG("npo%d/%d", dev[end], port[end]);
		EXPECT_EQ(before[end].flaps, later[end].flaps);
	}
}

TEST_HARNESS_MAIN
