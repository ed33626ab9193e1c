// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which end of a link is at fault, as `npoctl link diagnose` tells it from
 * the reports the two ends exchange over the link: a healthy link has no
 * finding and the far end's report carries what that end's own lanes
 * read; more loss into one port is "path loss into this port, far-end
 * transmit normal" there and loss out of the port at the other end; a
 * dark lane is named; a transmitter launching weaker is "far-end
 * transmitter" at the other end and "near-end transmitter" at its own,
 * and the other end receives that much less; the far end's last report
 * outlives the link going down, and a cut reads as no light on any lane.
 *
 * Needs npo-vm --topology ring: device i port 0 to device i+1 port 1,
 * device i is node i + 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "npo_test_json.h"
#include "npo_test_lib.h"

FIXTURE(diag) {
	int n;
	char out[1 << 16];
};

FIXTURE_SETUP(diag)
{
	self->n = npo_test_count_devices();
	NPO_TEST_NEED_RING(8);
	if (npo_test_run(NULL, 0, "command -v npoctl >/dev/null"))
		SKIP(return, "npoctl not installed");
	ASSERT_TRUE(npo_test_ring_up(self->n)) TH_LOG("the ring did not come up");
}

FIXTURE_TEARDOWN(diag)
{
	npo_test_ring_reset(self->n);
}

/* npoctl -j link diagnose PORT: exit status, the report in *doc. */
static int diagnose(FIXTURE_DATA(diag) *self, const char *port,
		    struct json_object **doc)
{
	int st = npo_test_run(self->out, sizeof(self->out),
			      "npoctl -j link diagnose %s 2>/dev/null", port);

	*doc = json_tokener_parse(self->out);
	return st;
}

/* The finding of this kind, or NULL. */
static struct json_object *finding(struct json_object *doc, const char *kind)
{
	struct json_object *f = jget(doc, "findings");
	size_t i;

	for (i = 0; f && i < json_object_array_length(f); i++) {
		struct json_object *x = json_object_array_get_idx(f, i);

		if (!strcmp(jstr(x, "kind"), kind))
			return x;
	}
	return NULL;
}

/* Diagnose port until it finds kind (reports come every second), 15 s. */
static struct json_object *wait_finding(FIXTURE_DATA(diag) *self,
					const char *port, const char *kind,
					int *status)
{
	struct json_object *doc;
	int i;

	for (i = 0; i < 75; i++) {
		*status = diagnose(self, port, &doc);
		if (finding(doc, kind))
			return doc;
		json_object_put(doc);
		usleep(200000);
	}
	return NULL;
}

/* A port's own lanes (npoctl -j lane), parsed. */
static struct json_object *lanes(FIXTURE_DATA(diag) *self, const char *port)
{
	if (npo_test_run(self->out, sizeof(self->out), "npoctl -j lane %s", port))
		return NULL;
	return json_tokener_parse(self->out);
}

static void fault_all_lanes(struct __test_metadata *_metadata, int dev,
			    const char *kind, const char *value)
{
	char cmd[64];
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(cmd, sizeof(cmd), "%s 0 %d %s", kind, i, value);
		ASSERT_EQ(0, npo_test_fault(dev, cmd));
	}
}

TEST_F_TIMEOUT(diag, a_healthy_link_and_the_far_ends_true_report, 60)
{
	struct json_object *doc, *far, *mine, *nl, *fl, *module;
	const char *near_serial, *far_serial;
	size_t i;
	int st;

	NPO_TEST_SETUP_DONE();

	/* The first report comes with the link watch's first reading. */
	for (i = 0; i < 50; i++) {
		st = diagnose(self, "npo0/0", &doc);
		if (jget(doc, "far"))
			break;
		json_object_put(doc);
		doc = NULL;
		usleep(100000);
	}
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	EXPECT_EQ(0, st) TH_LOG("%s", self->out);
	EXPECT_EQ(0, json_object_array_length(jget(doc, "findings")));
	EXPECT_TRUE(json_object_get_boolean(jget(doc, "link_up")));
	EXPECT_GT(5000, jint(doc, "report_age_ms"));
	far = jget(doc, "far");
	ASSERT_NE(NULL, far);
	EXPECT_EQ(2, jint(far, "node_id"));
	EXPECT_EQ(1, jint(far, "port"));
	/* Each module is itself: the same vendor, a serial of its own. */
	near_serial = json_object_get_string(jget(jget(jget(doc, "near"), "module"), "serial"));
	far_serial = jstr(jget(far, "module"), "serial");
	ASSERT_NE(NULL, near_serial);
	ASSERT_NE(NULL, far_serial);
	EXPECT_STRNE(near_serial, far_serial);
	EXPECT_STREQ("NPO Optics", jstr(jget(far, "module"), "vendor"));
	/* The limits this end's module publishes, through netlink. */
	module = jget(jget(doc, "near"), "module");
	EXPECT_EQ(-1.0, jdouble(module, "tx_low_warn_dbm"));
	EXPECT_EQ(-3.0, jdouble(module, "tx_low_alarm_dbm"));
	EXPECT_EQ(4.0, jdouble(module, "tx_high_warn_dbm"));
	EXPECT_EQ(5.0, jdouble(module, "tx_high_alarm_dbm"));
	EXPECT_EQ(70.0, jdouble(module, "temp_high_warn_c"));
	EXPECT_EQ(75.0, jdouble(module, "temp_high_alarm_c"));
	EXPECT_EQ(75.0, jdouble(module, "bias_high_warn_ma"));
	EXPECT_EQ(85.0, jdouble(module, "bias_high_alarm_ma"));

	/* What the report says the far end transmits, its lanes read too. */
	mine = lanes(self, "npo1/1");
	ASSERT_NE(NULL, mine);
	nl = jget(doc, "lanes");
	ASSERT_NE(NULL, nl);
	ASSERT_EQ(json_object_array_length(mine), json_object_array_length(nl));
	for (i = 0; i < json_object_array_length(nl); i++) {
		fl = json_object_array_get_idx(mine, i);
		EXPECT_TRUE(fabs(jdouble(json_object_array_get_idx(nl, i), "far_tx_dbm") -
				 jdouble(fl, "tx_power_dbm")) < 0.015)
			TH_LOG("lane %zu: report %.2f, npo1/1 %.2f", i,
			       jdouble(json_object_array_get_idx(nl, i), "far_tx_dbm"),
			       jdouble(fl, "tx_power_dbm"));
	}
	json_object_put(mine);
	json_object_put(doc);
}

TEST_F_TIMEOUT(diag, loss_into_a_port_is_the_path_not_the_far_transmitter, 90)
{
	struct json_object *doc, *f;
	int st;

	NPO_TEST_SETUP_DONE();

	/* 2.4 dB more into every lane of npo6/0 (node 7/0 -- node 8/1). */
	fault_all_lanes(_metadata, 6, "rxdrop", "2.4");
	doc = wait_finding(self, "npo6/0", "path-loss-in", &st);
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	EXPECT_EQ(3, st);
	f = finding(doc, "path-loss-in");
	EXPECT_NE(NULL, strstr(jstr(f, "text"),
			       "path loss into this port, far-end transmit normal"))
		TH_LOG("%s", jstr(f, "text"));
	EXPECT_EQ(NULL, finding(doc, "far-end-transmitter"));
	json_object_put(doc);
	/* The other end: its light is lost on the way out. */
	doc = wait_finding(self, "npo7/1", "path-loss-out", &st);
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, finding(doc, "near-end-transmitter"));
	json_object_put(doc);
}

TEST_F_TIMEOUT(diag, a_dark_lane_is_named, 90)
{
	struct json_object *doc, *f;
	int st;

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, npo_test_fault(4, "dead 0 3 1"));
	doc = wait_finding(self, "npo4/0", "lane", &st);
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	f = finding(doc, "lane");
	EXPECT_EQ(3, jint(f, "lane"));
	EXPECT_NE(NULL, strstr(jstr(f, "text"), "lane 3:"))
		TH_LOG("%s", jstr(f, "text"));
	EXPECT_EQ(1, json_object_array_length(jget(doc, "findings")))
		TH_LOG("%s", self->out);
	json_object_put(doc);
}

TEST_F_TIMEOUT(diag, a_weak_transmitter_is_the_far_end_seen_from_the_other, 90)
{
	struct json_object *before, *after, *doc;
	double drop = 0;
	size_t i;
	int st;

	NPO_TEST_SETUP_DONE();

	before = lanes(self, "npo3/1");
	ASSERT_NE(NULL, before);
	/* npo2/0 (node 3/0) launches 2.5 dB weaker on every lane. */
	fault_all_lanes(_metadata, 2, "txdrop", "2.5");
	doc = wait_finding(self, "npo3/1", "far-end-transmitter", &st);
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	EXPECT_EQ(3, st);
	EXPECT_NE(NULL, strstr(jstr(finding(doc, "far-end-transmitter"), "text"), "node 3/0"));
	EXPECT_EQ(NULL, finding(doc, "path-loss-in"));
	json_object_put(doc);
	doc = wait_finding(self, "npo2/0", "near-end-transmitter", &st);
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	json_object_put(doc);

	/* The physics behind it: the far receiver gets that much less. */
	after = lanes(self, "npo3/1");
	ASSERT_NE(NULL, after);
	for (i = 0; i < json_object_array_length(after); i++)
		drop += jdouble(json_object_array_get_idx(before, i), "rx_power_dbm") -
			jdouble(json_object_array_get_idx(after, i), "rx_power_dbm");
	drop /= json_object_array_length(after);
	EXPECT_TRUE(fabs(drop - 2.5) < 0.1) TH_LOG("received %.2f dB less", drop);
	json_object_put(before);
	json_object_put(after);
}

TEST_F_TIMEOUT(diag, the_far_ends_report_outlives_the_link, 90)
{
	struct json_object *doc, *f;
	int st, i;

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, npo_test_fault(5, "cut 0 1"));
	for (i = 0; i < 50; i++) {
		st = diagnose(self, "npo5/0", &doc);
		if (doc && !json_object_get_boolean(jget(doc, "link_up")))
			break;
		json_object_put(doc);
		doc = NULL;
		usleep(100000);
	}
	ASSERT_NE(NULL, doc) TH_LOG("the link did not go down");
	/* No light on any lane, while the far end's lasers were lit. */
	f = finding(doc, "cable");
	ASSERT_NE(NULL, f) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(jstr(f, "text"),
			       "no light on any lane into node 6/0"))
		TH_LOG("%s", jstr(f, "text"));
	EXPECT_NE(NULL, strstr(jstr(f, "text"), "s ago"));
	EXPECT_EQ(NULL, finding(doc, "lane"));
	EXPECT_EQ(3, st);
	EXPECT_EQ(7, jint(jget(doc, "far"), "node_id"));
	json_object_put(doc);
	ASSERT_EQ(0, npo_test_fault(5, "cut 0 0"));
}

TEST_F(diag, bad_ports_are_refused)
{
	NPO_TEST_SETUP_DONE();
	EXPECT_EQ(1, npo_test_run(self->out, sizeof(self->out),
				  "npoctl link diagnose npo99/0 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "no such NPO device")) TH_LOG("%s", self->out);
	EXPECT_EQ(1, npo_test_run(NULL, 0, "npoctl link diagnose npo0/9 2>/dev/null"));
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl link diagnose sideways 2>/dev/null"));
}

TEST_HARNESS_MAIN
