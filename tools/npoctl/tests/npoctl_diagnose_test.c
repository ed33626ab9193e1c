// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of "which end is at fault" (tools/npoctl/diagnose.c): loss on
 * the way in with a normal far transmitter, a weak far transmitter, one
 * dark lane whose far laser is lit, a receiver that errs with enough light,
 * the same seen from the other end of the link, and a healthy link with
 * no finding.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "diagnose.h"

#define LANES	8

static void end(struct diag_end *e, uint32_t node, uint32_t port, bool own)
{
	unsigned int i;

	memset(e, 0, sizeof(*e));
	e->node = node;
	e->port = port;
	e->module.known = true;
	snprintf(e->module.vendor, sizeof(e->module.vendor), "NPO Optics");
	snprintf(e->module.part, sizeof(e->module.part), "NPO-OSFP-8X200G");
	snprintf(e->module.serial, sizeof(e->module.serial), "N%u-%u", node, port);
	e->module.tx_low_warn_dbm = -1.0;
	e->module.tx_low_alarm_dbm = -3.0;
	e->nlanes = LANES;
	for (i = 0; i < LANES; i++) {
		struct diag_lane *l = &e->lane[i];

		l->active = true;
		l->tx_dbm = 1.0 + 0.02 * i;
		l->rx_dbm = -1.8 - 0.05 * i;
		l->ber = 5e-8;
		if (!own)
			continue;
		l->has_limits = true;
		l->rx_warn_dbm = -3.02;
		l->rx_alarm_dbm = -5.02;
		l->ber_warn = 1e-6;
	}
}

/* node 7/0 here, node 8/1 there, both healthy. */
static void healthy(struct diag_input *in)
{
	memset(in, 0, sizeof(*in));
	end(&in->near, 7, 0, true);
	end(&in->far, 8, 1, false);
	in->far_reported = true;
	in->link_up = true;
	in->far_age_ms = 300;
}

static const struct diag_finding *find(const struct diag_result *r,
				       enum diag_kind k)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (r->f[i].kind == k)
			return &r->f[i];
	return NULL;
}

TEST(a_healthy_link_has_no_finding)
{
	struct diag_input in;
	struct diag_result r;

	healthy(&in);
	diag_judge(&in, &r);
	EXPECT_EQ(0, r.n) TH_LOG("%s", r.f[0].text);
}

TEST(loss_into_this_port_with_a_normal_far_transmitter)
{
	const struct diag_finding *f;
	struct diag_input in;
	struct diag_result r;
	unsigned int i;

	healthy(&in);
	for (i = 0; i < LANES; i++)
		in.near.lane[i].rx_dbm -= 2.4;
	diag_judge(&in, &r);
	ASSERT_EQ(1, r.n) TH_LOG("%s", r.f[1].text);
	f = find(&r, DIAG_PATH_IN);
	ASSERT_NE(NULL, f);
	EXPECT_EQ(0xffu, f->lanes);
	EXPECT_NE(NULL, strstr(f->text, "path loss into this port, far-end transmit normal"))
		TH_LOG("%s", f->text);
	/* The far end's view of the same link: loss out of it. */
	{
		struct diag_input back = { .far_reported = true, .link_up = true };
		struct diag_result rb;

		back.near = in.far;
		back.far = in.near;
		for (i = 0; i < LANES; i++) {
			back.near.lane[i].has_limits = true;
			back.near.lane[i].rx_warn_dbm = -3.02;
			back.near.lane[i].rx_alarm_dbm = -5.02;
			back.near.lane[i].ber_warn = 1e-6;
		}
		diag_judge(&back, &rb);
		ASSERT_EQ(1, rb.n);
		EXPECT_EQ(DIAG_PATH_OUT, rb.f[0].kind);
		EXPECT_NE(NULL, strstr(rb.f[0].text, "path loss out of this port, near-end transmit normal"));
	}
}

TEST(a_weak_far_transmitter_is_the_far_end)
{
	const struct diag_finding *f;
	struct diag_input in;
	struct diag_result r;
	unsigned int i;

	healthy(&in);
	/* 2.5 dB weaker: below its warning; this end receives as much less. */
	for (i = 0; i < LANES; i++) {
		in.far.lane[i].tx_dbm -= 2.5;
		in.near.lane[i].rx_dbm -= 2.5;
	}
	diag_judge(&in, &r);
	ASSERT_EQ(1, r.n) TH_LOG("%s", r.f[1].text);
	f = find(&r, DIAG_FAR_TX);
	ASSERT_NE(NULL, f);
	EXPECT_EQ(0, f->worst);		/* lane 0 launches least */
	EXPECT_NE(NULL, strstr(f->text, "far-end transmitter: node 8/1 lanes 0-7"))
		TH_LOG("%s", f->text);
	/* The module to replace, by its serial. */
	EXPECT_NE(NULL, strstr(f->text, "(module NPO Optics NPO-OSFP-8X200G serial N8-1)"))
		TH_LOG("%s", f->text);
	/* Not also called loss on the way. */
	EXPECT_EQ(NULL, find(&r, DIAG_PATH_IN));
}

TEST(one_dark_lane_with_its_far_laser_lit_is_that_lane)
{
	const struct diag_finding *f;
	struct diag_input in;
	struct diag_result r;

	healthy(&in);
	in.near.lane[3].los = true;
	in.near.lane[3].rx_dbm = -40;
	in.near.lane[3].ber = 0.5;
	diag_judge(&in, &r);
	ASSERT_EQ(1, r.n) TH_LOG("%s", r.f[1].text);
	f = find(&r, DIAG_LANE_IN);
	ASSERT_NE(NULL, f);
	EXPECT_EQ(1u << 3, f->lanes);
	EXPECT_EQ(3, f->worst);
	EXPECT_NE(NULL, strstr(f->text, "lane 3: no light arrives at node 7/0 (module NPO Optics NPO-OSFP-8X200G serial N7-0)"))
		TH_LOG("%s", f->text);

	/* Its far laser off instead: the far transmitter, not the fibre. */
	in.far.lane[3].tx_dbm = -30;
	diag_judge(&in, &r);
	EXPECT_EQ(NULL, find(&r, DIAG_LANE_IN));
	ASSERT_NE(NULL, find(&r, DIAG_FAR_TX));
	EXPECT_EQ(1u << 3, find(&r, DIAG_FAR_TX)->lanes);
}

TEST(errors_with_enough_light_are_the_receiver)
{
	struct diag_input in;
	struct diag_result r;

	healthy(&in);
	in.near.lane[2].ber = 2e-5;
	in.far.lane[6].ber = 3e-5;
	diag_judge(&in, &r);
	ASSERT_EQ(2, r.n);
	ASSERT_NE(NULL, find(&r, DIAG_NEAR_RX));
	EXPECT_EQ(1u << 2, find(&r, DIAG_NEAR_RX)->lanes);
	ASSERT_NE(NULL, find(&r, DIAG_FAR_RX));
	EXPECT_EQ(1u << 6, find(&r, DIAG_FAR_RX)->lanes);
}

TEST(a_weak_near_transmitter_is_this_end)
{
	struct diag_input in;
	struct diag_result r;

	healthy(&in);
	in.near.lane[5].tx_dbm = -2.0;
	in.far.lane[5].rx_dbm -= 3.0;
	diag_judge(&in, &r);
	ASSERT_EQ(1, r.n) TH_LOG("%s", r.f[1].text);
	EXPECT_EQ(DIAG_NEAR_TX, r.f[0].kind);
	EXPECT_EQ(1u << 5, r.f[0].lanes);
}

TEST(a_report_from_another_peer_or_too_old_is_not_evidence)
{
	struct diag_input in;
	struct diag_result r;

	healthy(&in);
	in.near.lane[1].rx_dbm = -6;	/* something to find, were it judged */
	in.peer_known = true;
	in.peer_node = 5;		/* recabled: now to node 5/1 */
	in.peer_port = 1;
	diag_judge(&in, &r);
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(DIAG_STALE, r.f[0].kind);
	EXPECT_NE(NULL, strstr(r.f[0].text, "came from node 8/1")) TH_LOG("%s", r.f[0].text);

	healthy(&in);
	in.peer_known = true;
	in.peer_node = 8;
	in.peer_port = 1;
	in.far_age_ms = DIAG_STALE_MS + 1;
	diag_judge(&in, &r);
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(DIAG_STALE, r.f[0].kind);
	/* The same age with the link down is the last word from before. */
	in.link_up = false;
	diag_judge(&in, &r);
	EXPECT_EQ(0, r.n);
}

TEST(no_light_on_any_lane_is_the_cable)
{
	struct diag_input in;
	struct diag_result r;
	unsigned int i;

	healthy(&in);
	in.link_up = false;
	in.far_age_ms = 2500;
	for (i = 0; i < LANES; i++) {
		in.near.lane[i].los = true;
		in.near.lane[i].active = false;
		in.near.lane[i].rx_dbm = -40;
	}
	diag_judge(&in, &r);
	ASSERT_LE(1, r.n);
	EXPECT_EQ(DIAG_CABLE, r.f[0].kind);
	EXPECT_EQ(0xffu, r.f[0].lanes);
	EXPECT_EQ(NULL, find(&r, DIAG_LANE_IN));
	EXPECT_NE(NULL, strstr(r.f[0].text, "2.5 s ago")) TH_LOG("%s", r.f[0].text);
}

TEST(unknown_limits_are_said_and_unused_lanes_left_alone)
{
	const struct diag_finding *f;
	struct diag_input in;
	struct diag_result r;
	unsigned int i;

	/* The far module's limits unknown: loss, not "transmit normal". */
	healthy(&in);
	in.far.module.known = false;
	for (i = 0; i < LANES; i++)
		in.near.lane[i].rx_dbm -= 2.4;
	diag_judge(&in, &r);
	f = find(&r, DIAG_PATH_IN);
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, strstr(f->text, "far-end transmit limits unknown")) TH_LOG("%s", f->text);
	EXPECT_EQ(NULL, strstr(f->text, "transmit normal"));

	/* Lanes outside the trained width are not judged for power or BER. */
	healthy(&in);
	for (i = 4; i < LANES; i++) {
		in.near.lane[i].active = false;
		in.near.lane[i].rx_dbm = -9;
	}
	diag_judge(&in, &r);
	EXPECT_EQ(0, r.n) TH_LOG("%s", r.f[0].text);

	/* This end without thresholds: said, not "healthy". */
	healthy(&in);
	for (i = 0; i < LANES; i++)
		in.near.lane[i].has_limits = false;
	diag_judge(&in, &r);
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(DIAG_NO_LIMITS, r.f[0].kind);
	EXPECT_EQ(0xffu, r.f[0].lanes);
}

TEST(without_a_report_nothing_is_guessed)
{
	struct diag_input in;
	struct diag_result r;

	healthy(&in);
	in.far_reported = false;
	in.near.lane[1].rx_dbm = -6;
	diag_judge(&in, &r);
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(DIAG_NO_REPORT, r.f[0].kind);
}

TEST_HARNESS_MAIN
