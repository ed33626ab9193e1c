// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the fabric acceptance verdict (tools/npoctl/fabric_report.c):
 * each fault gives its reason on the right end and lane, the worst links
 * rank first, speed is judged against like links and capacity, a report
 * survives its JSON, and the halves of a link measured by two hosts merge
 * into one link judged as a whole.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "fabric.h"

#define LANES	8

static void healthy_end(struct fabric_end *e, uint32_t node, uint32_t port,
			const char *host)
{
	unsigned int i;

	memset(e, 0, sizeof(*e));
	e->node = node;
	e->port = port;
	e->measured = true;
	snprintf(e->device, sizeof(e->device), "npo%u", node - 1);
	snprintf(e->host, sizeof(e->host), "%s", host);
	snprintf(e->clock, sizeof(e->clock), "locked");
	e->clock_locked = true;
	e->nlanes = LANES;
	for (i = 0; i < LANES; i++) {
		struct fabric_lane *ln = &e->lane[i];

		ln->index = i;
		ln->active = true;
		ln->has_limits = true;
		ln->rx_dbm = -1.7 - i * 0.05;
		ln->rx_warn_dbm = -3.02;
		ln->rx_alarm_dbm = -5.02;
		ln->ber_warn = 1e-6;
		ln->ber_alarm = 1e-4;
		ln->prbs_run = true;
		ln->prbs_bits = 42500000000ull;
		ln->prbs_errors = 2000;	/* 5e-8: the model's healthy lanes */
	}
}

/* A ring of n nodes on one host: link i joins node i+1 port 0 and node i+2 port 1. */
static void ring(struct fabric_report *r, unsigned int n)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->links = calloc(n, sizeof(*r->links));
	r->n = n;
	r->hosts = 1;
	r->prbs_ms = 200;
	for (i = 0; i < n; i++) {
		struct fabric_link *l = &r->links[i];

		healthy_end(&l->a, i + 1, 0, "h");
		healthy_end(&l->b, (i + 1) % n + 1, 1, "h");
		l->active = true;
		snprintf(l->state, sizeof(l->state), "active");
		l->rate_mbps = l->max_rate_mbps = 212500;
		l->width = l->max_width = LANES;
		l->data_run = l->data_ok = true;
		l->data_passes = 1;
		l->bandwidth_gbps = 60 + i;
		l->bandwidth_min_gbps = 59 + i;
		l->bandwidth_max_gbps = 62 + i;
		l->latency_us = 1.0 + i * 0.05;
		l->latency_p99_us = 2.0;
	}
}

static struct fabric_link *find(struct fabric_report *r, uint32_t node)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->links[i].a.node == node)
			return &r->links[i];
	return NULL;
}

static const struct fabric_reason *reason(const struct fabric_link *l,
					  enum fabric_reason_kind k)
{
	unsigned int i;

	for (i = 0; l && i < l->nreasons; i++)
		if (l->reason[i].kind == k)
			return &l->reason[i];
	return NULL;
}

TEST(a_clean_fabric_passes)
{
	struct fabric_limits lim;
	struct fabric_report r;
	size_t i;

	fabric_limits_default(&lim);
	ring(&r, 8);
	EXPECT_EQ(0, fabric_judge(&r, &lim));
	for (i = 0; i < r.n; i++) {
		EXPECT_EQ(0, r.links[i].nreasons) TH_LOG("%s", r.links[i].reason[0].text);
		EXPECT_EQ(0, r.links[i].score);
	}
	/* Ties keep the fabric's order. */
	EXPECT_EQ(1, r.links[0].a.node);
	EXPECT_EQ(8, r.links[7].a.node);
	fabric_free(&r);
}

/* The ring: one dead lane, one high-BER lane, one low-Rx link. */
TEST(the_faulty_links_rank_first_with_their_reasons)
{
	struct fabric_limits lim;
	struct fabric_report r;
	const struct fabric_reason *why;
	struct fabric_link *l;
	unsigned int i;
	size_t k;

	fabric_limits_default(&lim);
	ring(&r, 8);
	l = find(&r, 5);	/* lane 3 dark at node 6/1, trained x2 */
	l->b.lane[3].los = true;
	l->b.lane[3].active = false;
	l->b.lane[3].prbs_errors = l->b.lane[3].prbs_bits / 2;
	l->width = 2;
	l = find(&r, 2);	/* lane 2 of node 2/0 at 1e-5 */
	l->a.lane[2].prbs_errors = 425000;
	l = find(&r, 7);	/* 2.4 dB more loss into node 7/0 */
	for (i = 0; i < LANES; i++)
		l->a.lane[i].rx_dbm -= 2.4;

	EXPECT_EQ(3, fabric_judge(&r, &lim));
	for (k = 0; k < 3; k++)
		EXPECT_TRUE(r.links[k].a.node == 5 || r.links[k].a.node == 2 ||
			    r.links[k].a.node == 7) TH_LOG("rank %zu: node %u", k + 1,
							   r.links[k].a.node);
	for (k = 3; k < r.n; k++)
		EXPECT_EQ(0, r.links[k].nreasons);

	why = reason(find(&r, 5), FABRIC_DEAD_LANE);
	ASSERT_NE(NULL, why);
	EXPECT_EQ('b', why->end);
	EXPECT_EQ(3, why->lane);
	EXPECT_EQ(1u << 3, why->lanes);
	EXPECT_NE(NULL, strstr(why->text, "node 6/1 lane 3 receives no light"));
	/* The dead lane explains the narrow link: not also "degraded". */
	EXPECT_EQ(NULL, reason(find(&r, 5), FABRIC_DEGRADED));
	EXPECT_EQ(1, find(&r, 5)->nreasons);

	why = reason(find(&r, 2), FABRIC_HIGH_BER);
	ASSERT_NE(NULL, why);
	EXPECT_EQ('a', why->end);
	EXPECT_EQ(2, why->lane);
	EXPECT_EQ(1u << 2, why->lanes);
	EXPECT_EQ(1, find(&r, 2)->nreasons);

	why = reason(find(&r, 7), FABRIC_LOW_RX_WARN);
	ASSERT_NE(NULL, why);
	EXPECT_EQ('a', why->end);
	EXPECT_EQ(0xffu, why->lanes);
	EXPECT_EQ(7, why->lane);	/* the weakest */
	EXPECT_NE(NULL, strstr(why->text, "lanes 0-7: Rx power down to -4.45 dBm (lane 7)"))
		TH_LOG("%s", why->text);
	/* Worst first: a dead lane, then high BER, then a low Rx warning. */
	EXPECT_EQ(5, r.links[0].a.node);
	EXPECT_EQ(2, r.links[1].a.node);
	EXPECT_EQ(7, r.links[2].a.node);
	fabric_free(&r);
}

TEST(each_fault_has_its_reason)
{
	/* Node k+1's fault, worst first: the ranking follows it. */
	static const enum fabric_reason_kind order[] = {
		FABRIC_DOWN, FABRIC_DATA_CORRUPT, FABRIC_DEGRADED,
		FABRIC_TEST_FAILED, FABRIC_BER_ALARM, FABRIC_LOW_RX_ALARM,
		FABRIC_LINK_ERRORS, FABRIC_CLOCK, FABRIC_HIGH_BER,
	};
	struct fabric_limits lim;
	struct fabric_report r;
	size_t k;

	fabric_limits_default(&lim);
	ring(&r, 10);
	find(&r, 1)->active = false;
	snprintf(find(&r, 1)->state, sizeof(find(&r, 1)->state), "detect");
	find(&r, 2)->data_ok = false;
	find(&r, 3)->width = 4;
	snprintf(find(&r, 4)->b.error, sizeof(find(&r, 4)->b.error),
		 "PRBS test: the test did not finish");
	find(&r, 5)->a.lane[6].prbs_errors = 42500000000ull / 1000;
	find(&r, 6)->b.lane[1].rx_dbm = -6;
	find(&r, 7)->a.crc_errors = 3;
	find(&r, 8)->b.clock_locked = false;
	snprintf(find(&r, 8)->b.clock, sizeof(find(&r, 8)->b.clock), "holdover");
	/* Without a PRBS run, the live traffic's pre-FEC BER is judged. */
	for (k = 0; k < LANES; k++) {
		find(&r, 9)->a.lane[k].prbs_run = false;
		find(&r, 9)->a.lane[k].has_ber = true;
		find(&r, 9)->a.lane[k].ber = k == 4 ? 1e-5 : 1e-8;
	}
	find(&r, 10)->a.lane[1].has_ber = true;	/* PRBS wins over it */
	find(&r, 10)->a.lane[1].ber = 1e-5;

	EXPECT_EQ(9, fabric_judge(&r, &lim));
	for (k = 0; k < 9; k++) {
		const struct fabric_link *l = &r.links[k];

		EXPECT_EQ(k + 1, l->a.node) TH_LOG("rank %zu is node %u", k + 1, l->a.node);
		EXPECT_NE(NULL, reason(l, order[k]))
			TH_LOG("node %u lacks %s", l->a.node,
			       fabric_reason_str(order[k]));
	}
	EXPECT_NE(NULL, strstr(reason(find(&r, 8), FABRIC_CLOCK)->text, "holdover"));
	EXPECT_EQ('b', reason(find(&r, 6), FABRIC_LOW_RX_ALARM)->end);
	EXPECT_EQ(6, reason(find(&r, 5), FABRIC_BER_ALARM)->lane);
	EXPECT_NE(NULL, strstr(reason(find(&r, 5), FABRIC_BER_ALARM)->text, "PRBS BER"));
	EXPECT_EQ(4, reason(find(&r, 9), FABRIC_HIGH_BER)->lane);
	EXPECT_NE(NULL, strstr(reason(find(&r, 9), FABRIC_HIGH_BER)->text,
			       "lane 4: pre-FEC BER 1.0e-05, above the warning 1.0e-06"))
		TH_LOG("%s", reason(find(&r, 9), FABRIC_HIGH_BER)->text);
	EXPECT_EQ(0, find(&r, 10)->nreasons);
	/* A down link is not measured for anything else. */
	EXPECT_EQ(1, find(&r, 1)->nreasons);
	fabric_free(&r);
}

TEST(speed_is_judged_against_capacity_and_like_links)
{
	struct fabric_limits lim;
	struct fabric_report r;

	fabric_limits_default(&lim);
	ring(&r, 6);
	/* Half the width, half the data: as efficient as the rest. */
	find(&r, 1)->width = 4;
	find(&r, 1)->max_width = 4;
	find(&r, 1)->bandwidth_gbps = 31;
	/* Full width, a third of the data: slow. */
	find(&r, 2)->bandwidth_gbps = 20;
	/* Five times the others' round trip. */
	find(&r, 3)->latency_us = 5.5;
	EXPECT_EQ(2, fabric_judge(&r, &lim));
	EXPECT_EQ(0, find(&r, 1)->nreasons);
	EXPECT_NE(NULL, reason(find(&r, 2), FABRIC_SLOW));
	EXPECT_NE(NULL, reason(find(&r, 3), FABRIC_HIGH_LATENCY));
	EXPECT_EQ(NULL, reason(find(&r, 3), FABRIC_SLOW));
	/* What npoctl measures again before blaming: exactly those two. */
	EXPECT_FALSE(fabric_speed_outlier(&r, find(&r, 1), &lim));
	EXPECT_TRUE(fabric_speed_outlier(&r, find(&r, 2), &lim));
	EXPECT_TRUE(fabric_speed_outlier(&r, find(&r, 3), &lim));
	EXPECT_FALSE(fabric_speed_outlier(&r, find(&r, 4), &lim));
	/* Its second pass as quick as the rest: no longer an outlier. */
	find(&r, 3)->latency_us = 1.1;
	EXPECT_FALSE(fabric_speed_outlier(&r, find(&r, 3), &lim));
	find(&r, 3)->latency_us = 5.5;

	/* An absolute floor, when asked for: every link here is below 50%. */
	lim.min_efficiency = 0.5;
	EXPECT_EQ(6, fabric_judge(&r, &lim));
	EXPECT_NE(NULL, reason(find(&r, 4), FABRIC_BELOW_FLOOR));
	fabric_free(&r);

	/* Two links give no median to be an outlier of. */
	fabric_limits_default(&lim);
	ring(&r, 2);
	find(&r, 1)->bandwidth_gbps = 1;
	EXPECT_EQ(0, fabric_judge(&r, &lim));
	fabric_free(&r);
}

TEST(a_report_survives_its_json)
{
	struct fabric_limits lim;
	struct fabric_report r, back;
	struct json_object *o;
	char err[160];
	size_t i;

	fabric_limits_default(&lim);
	ring(&r, 4);
	find(&r, 3)->b.lane[5].los = true;
	find(&r, 3)->width = 4;
	find(&r, 2)->data_passes = 3;	/* measured again, looking slow */
	find(&r, 4)->b.measured = false;	/* its far end is elsewhere */
	find(&r, 4)->data_run = false;
	snprintf(find(&r, 4)->why_not, sizeof(find(&r, 4)->why_not), "far");
	fabric_judge(&r, &lim);
	o = fabric_to_json(&r);
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, fabric_from_json(o, &back, err, sizeof(err))) TH_LOG("%s", err);
	json_object_put(o);
	ASSERT_EQ(r.n, back.n);
	fabric_judge(&back, &lim);
	for (i = 0; i < r.n; i++) {
		EXPECT_EQ(r.links[i].a.node, back.links[i].a.node);
		EXPECT_EQ(r.links[i].b.measured, back.links[i].b.measured);
		EXPECT_EQ(r.links[i].nreasons, back.links[i].nreasons);
		EXPECT_EQ(r.links[i].score, back.links[i].score);
		EXPECT_TRUE(fabs(r.links[i].a.lane[7].rx_dbm -
				 back.links[i].a.lane[7].rx_dbm) < 0.006);
		EXPECT_EQ(r.links[i].a.lane[3].prbs_bits, back.links[i].a.lane[3].prbs_bits);
		EXPECT_EQ(r.links[i].width, back.links[i].width);
		EXPECT_EQ(r.links[i].data_run, back.links[i].data_run);
		if (r.links[i].b.measured) {
			EXPECT_EQ(r.links[i].b.lane[3].prbs_errors,
				  back.links[i].b.lane[3].prbs_errors);
			EXPECT_EQ(r.links[i].b.lane[5].los, back.links[i].b.lane[5].los);
		}
		if (r.links[i].data_run) {
			EXPECT_TRUE(fabs(r.links[i].bandwidth_gbps -
					 back.links[i].bandwidth_gbps) < 0.01);
			EXPECT_TRUE(fabs(r.links[i].latency_us - back.links[i].latency_us) < 0.001);
			EXPECT_EQ(r.links[i].data_passes, back.links[i].data_passes);
		}
		if (r.links[i].nreasons)
			EXPECT_STREQ(r.links[i].reason[0].text, back.links[i].reason[0].text);
	}
	fabric_free(&r);
	fabric_free(&back);
}

/* Host h1 holds nodes 1-2, h2 nodes 3-4: two links cross between them. */
static void half(struct fabric_report *r, const char *host, uint32_t n1)
{
	uint32_t n2 = n1 + 1, other = n1 == 1 ? 3 : 1;

	ring(r, 3);
	/* n1/0 -- n2/1 inside the host */
	healthy_end(&r->links[0].a, n1, 0, host);
	healthy_end(&r->links[0].b, n2, 1, host);
	/* n2/0 -- next host's first node /1, seen from here */
	healthy_end(&r->links[1].a, n2, 0, host);
	r->links[1].b.node = other;
	r->links[1].b.port = 1;
	r->links[1].b.measured = false;
	r->links[1].data_run = false;
	/* n1/1 -- the other host's second node /0 */
	healthy_end(&r->links[2].a, n1, 1, host);
	r->links[2].b.node = other + 1;
	r->links[2].b.port = 0;
	r->links[2].b.measured = false;
	r->links[2].data_run = false;
}

TEST(two_hosts_merge_into_one_fabric)
{
	struct fabric_report all = { 0 }, h1, h2;
	const struct fabric_reason *why;
	struct fabric_limits lim;
	char err[160];
	size_t i;

	fabric_limits_default(&lim);
	half(&h1, "h1", 1);
	half(&h2, "h2", 3);
	/* Node 4 port 0's receiver is weak: only h2 sees it. */
	h2.links[1].a.lane[4].rx_dbm = -3.5;	/* node 4/0, towards node 1/1 */
	/* h2 saw the 4/0 -- 1/1 link retrain narrower: the merge keeps that. */
	h2.links[1].width = 4;
	ASSERT_EQ(0, fabric_merge(&all, &h1, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, fabric_merge(&all, &h2, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(2, all.hosts);
	/* Two links inside the hosts, two between them, each once. */
	ASSERT_EQ(4, all.n);
	for (i = 0; i < all.n; i++) {
		EXPECT_TRUE(all.links[i].a.measured);
		EXPECT_TRUE(all.links[i].b.measured) TH_LOG("link %zu: %u/%u -- %u/%u",
			i, all.links[i].a.node, all.links[i].a.port,
			all.links[i].b.node, all.links[i].b.port);
	}
	EXPECT_EQ(1, fabric_judge(&all, &lim));
	why = reason(&all.links[0], FABRIC_LOW_RX_WARN);
	ASSERT_NE(NULL, why);
	EXPECT_NE(NULL, strstr(why->text, "node 4/0 lane 4")) TH_LOG("%s", why->text);
	/* The cross link's far end came from h2, named with its host. */
	EXPECT_STREQ("h2", all.links[0].a.node == 4 ? all.links[0].a.host :
		     all.links[0].b.host);

	EXPECT_EQ(4, all.links[0].width);
	EXPECT_NE(NULL, reason(&all.links[0], FABRIC_DEGRADED));

	/* One host's report twice is a mistake, not a fabric. */
	EXPECT_EQ(-1, fabric_merge(&all, &h1, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "two reports")) TH_LOG("%s", err);
	fabric_free(&all);
	fabric_free(&h1);
	fabric_free(&h2);
}

TEST(merging_finds_missing_reports_and_disagreements)
{
	struct fabric_report all = { 0 }, h1, h2;
	struct fabric_limits lim;
	char err[160];
	size_t i;

	fabric_limits_default(&lim);
	/* Only h1's report: its two links to h2 have an end no host measured. */
	half(&h1, "h1", 1);
	half(&h2, "h2", 3);
	ASSERT_EQ(0, fabric_merge(&all, &h1, err, sizeof(err)));
	ASSERT_EQ(0, fabric_merge(&all, &(struct fabric_report){ .hosts = 1 },
				  err, sizeof(err)));
	EXPECT_EQ(2, fabric_judge(&all, &lim));
	for (i = 0; i < 2; i++) {
		const struct fabric_reason *why = reason(&all.links[i], FABRIC_TEST_FAILED);

		ASSERT_NE(NULL, why);
		EXPECT_EQ('b', why->end);
		EXPECT_NE(NULL, strstr(why->text, "no report from its host")) TH_LOG("%s", why->text);
	}
	fabric_free(&all);

	/* h2 says its 4/0 goes to 2/1, where h1 has 4/0 at its 1/1. */
	h2.links[1].b.node = 2;
	ASSERT_EQ(0, fabric_merge(&all, &h1, err, sizeof(err)));
	EXPECT_EQ(-1, fabric_merge(&all, &h2, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "node 4/0 is cabled to node 1/1 in one report and elsewhere"))
		TH_LOG("%s", err);
	fabric_free(&all);
	fabric_free(&h1);
	fabric_free(&h2);
}

TEST(what_could_not_be_tested_fails_the_link)
{
	struct fabric_limits lim;
	struct fabric_report r;
	unsigned int i;

	fabric_limits_default(&lim);
	ring(&r, 5);
	/* A data run that went wrong. */
	find(&r, 1)->data_run = false;
	find(&r, 1)->data_failed = true;
	snprintf(find(&r, 1)->why_not, sizeof(find(&r, 1)->why_not), "no completion");
	/* A module with no thresholds: nothing to judge its optics by. */
	for (i = 0; i < LANES; i++)
		find(&r, 2)->b.lane[i].has_limits = false;
	/* A PRBS run that counted nothing on lane 5. */
	find(&r, 3)->a.lane[5].prbs_bits = 0;
	find(&r, 3)->a.lane[5].prbs_errors = 0;
	/* The lanes could not be read at all. */
	snprintf(find(&r, 4)->a.error, sizeof(find(&r, 4)->a.error),
		 "lanes: Operation not permitted");
	find(&r, 4)->a.nlanes = 0;

	EXPECT_EQ(4, fabric_judge(&r, &lim));
	EXPECT_NE(NULL, strstr(reason(find(&r, 1), FABRIC_TEST_FAILED)->text,
			       "data run: no completion"));
	EXPECT_EQ(0xffu, reason(find(&r, 2), FABRIC_TEST_FAILED)->lanes);
	EXPECT_NE(NULL, strstr(reason(find(&r, 2), FABRIC_TEST_FAILED)->text,
			       "no thresholds"));
	EXPECT_EQ(5, reason(find(&r, 3), FABRIC_TEST_FAILED)->lane);
	EXPECT_EQ('a', reason(find(&r, 4), FABRIC_TEST_FAILED)->end);
	EXPECT_EQ(0, find(&r, 5)->nreasons);
	fabric_free(&r);
}

TEST(bad_reports_are_refused_with_a_reason)
{
	static const struct {
		const char *json, *why;
	} bad[] = {
		{ "[]", "not a fabric report" },
		{ "{\"prbs_ms\":1,\"hosts\":1}", "\"links\" is missing" },
		{ "{\"prbs_ms\":1,\"hosts\":1,\"links\":[{}]}", "\"a\" is missing" },
		{ "{\"prbs_ms\":1,\"hosts\":1,\"links\":[{\"a\":{\"node_id\":\"x\",\"port\":0,\"measured\":false}}]}",
		  "\"node_id\" has the wrong type" },
		{ "{\"prbs_ms\":1,\"hosts\":1,\"links\":[{\"a\":{\"node_id\":-1,\"port\":0,\"measured\":false}}]}",
		  "\"node_id\" is out of range" },
		{ "{\"prbs_ms\":1,\"hosts\":1,\"links\":[{\"a\":{\"node_id\":1,\"port\":0,\"measured\":true,"
		  "\"device\":\"npo0\",\"host\":\"h\",\"clock\":\"locked\",\"clock_locked\":true,"
		  "\"crc_errors\":0,\"fec_uncorrectable\":0,\"link_downs\":0,\"lanes\":[{\"lane\":0,"
		  "\"los\":false,\"active\":true,\"rx_power_dbm\":-2,\"prbs_bits\":1,\"prbs_errors\":2}]}}]}",
		  "more PRBS errors than bits" },
		{ "{\"prbs_ms\":1,\"hosts\":1,\"links\":[{\"a\":{\"node_id\":1,\"port\":0,\"measured\":true,"
		  "\"device\":\"npo0\",\"host\":\"h\",\"clock\":\"locked\",\"clock_locked\":true,"
		  "\"crc_errors\":0,\"fec_uncorrectable\":0,\"link_downs\":0,\"lanes\":[{\"lane\":99,"
		  "\"los\":false,\"active\":true,\"rx_power_dbm\":-2}]}}]}",
		  "\"lane\" is out of range" },
		{ "{\"prbs_ms\":1,\"hosts\":1,\"links\":[{\"a\":{\"node_id\":1,\"port\":0,\"measured\":true,"
		  "\"device\":\"npo0\",\"host\":\"hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh\","
		  "\"clock\":\"locked\",\"clock_locked\":true,\"crc_errors\":0,\"fec_uncorrectable\":0,"
		  "\"link_downs\":0,\"lanes\":[]}}]}",
		  "\"host\" is longer than 63 characters" },
		{ "{\"prbs_ms\":1,\"hosts\":1,\"links\":[{\"a\":{\"node_id\":1,\"port\":0,\"measured\":true,"
		  "\"device\":\"npo0\",\"host\":\"h\",\"clock\":\"locked\",\"clock_locked\":true,"
		  "\"crc_errors\":0,\"fec_uncorrectable\":0,\"link_downs\":0,\"lanes\":[{\"lane\":1,"
		  "\"los\":false,\"active\":true,\"rx_power_dbm\":-2},{\"lane\":1,\"los\":false,"
		  "\"active\":true,\"rx_power_dbm\":-2}]}}]}",
		  "lane 1 twice" },
		{ "{\"prbs_ms\":1,\"hosts\":1,\"links\":[{\"a\":{\"node_id\":1,\"port\":0,\"measured\":false},"
		  "\"b\":{\"node_id\":2,\"port\":1,\"measured\":false},\"state\":\"active\",\"active\":true,"
		  "\"rate_mbps\":1,\"width\":1,\"max_rate_mbps\":1,\"max_width\":1,\"data_run\":false}]}",
		  "neither end was measured" },
	};
	struct fabric_report r;
	char err[160];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json_object *o = json_tokener_parse(bad[i].json);

		ASSERT_NE(NULL, o) TH_LOG("case %zu does not parse", i);
		err[0] = 0;
		EXPECT_EQ(-1, fabric_from_json(o, &r, err, sizeof(err))) TH_LOG("case %zu", i);
		EXPECT_NE(NULL, strstr(err, bad[i].why)) TH_LOG("case %zu: %s", i, err);
		json_object_put(o);
	}
}

TEST_HARNESS_MAIN
