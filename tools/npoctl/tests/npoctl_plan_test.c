// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the expected-topology contract (tools/npoctl/plan.c): a
 * plan is parsed strictly, and a fabric compared with it gives exactly
 * the missing, miswired, down, under-trained and extra links, each once,
 * and nothing for links that are as planned or belong to other hosts.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "plan.h"

/* A ring of four nodes, port 0 of node n to port 1 of node n+1. */
static const char ring4[] =
	"{\"links\": ["
	"{\"a\":{\"node_id\":1,\"port\":0},\"b\":{\"node_id\":2,\"port\":1},\"rate_mbps\":112000,\"width\":8},"
	"{\"a\":{\"node_id\":2,\"port\":0},\"b\":{\"node_id\":3,\"port\":1},\"rate_mbps\":112000,\"width\":8},"
	"{\"a\":{\"node_id\":3,\"port\":0},\"b\":{\"node_id\":4,\"port\":1},\"rate_mbps\":112000,\"width\":8},"
	"{\"a\":{\"node_id\":4,\"port\":0},\"b\":{\"node_id\":1,\"port\":1},\"rate_mbps\":112000,\"width\":8}"
	"]}";

static const uint32_t all4[] = { 1, 2, 3, 4 };

/* The ring as found: every link up at full speed, from the plan. */
static void as_planned(struct __test_metadata *_metadata, struct plan *plan,
		       struct plan *found)
{
	char err[128];

	ASSERT_EQ(0, plan_parse(ring4, plan, err, sizeof(err))) TH_LOG("%s", err);
	found->n = plan->n;
	found->links = calloc(plan->n, sizeof(*found->links));
	memcpy(found->links, plan->links, plan->n * sizeof(*plan->links));
	for (size_t i = 0; i < found->n; i++)
		found->links[i].active = true;
}

TEST(a_fabric_as_planned_has_no_findings)
{
	struct plan plan, found;
	struct plan_finding f[8];

	as_planned(_metadata, &plan, &found);
	EXPECT_EQ(0, plan_compare(&plan, &found, all4, 4, f, 8));
	/* The ends may be found the other way round. */
	found.links[2].a = plan.links[2].b;
	found.links[2].b = plan.links[2].a;
	EXPECT_EQ(0, plan_compare(&plan, &found, all4, 4, f, 8));
	plan_free(&plan);
	plan_free(&found);
}

TEST(a_missing_link_is_named)
{
	struct plan plan, found;
	struct plan_finding f[8];

	as_planned(_metadata, &plan, &found);
	found.links[1] = found.links[--found.n];	/* 2/0 - 3/1 gone */
	ASSERT_EQ(1, plan_compare(&plan, &found, all4, 4, f, 8));
	EXPECT_EQ(PLAN_MISSING, f[0].kind);
	EXPECT_EQ(2, f[0].planned.a.node);
	EXPECT_EQ(0, f[0].planned.a.port);
	EXPECT_EQ(3, f[0].planned.b.node);
	plan_free(&plan);
	plan_free(&found);
}

TEST(swapped_cables_are_miswired_on_exactly_those_ports)
{
	struct plan plan, found;
	struct plan_finding f[8];
	int n;

	as_planned(_metadata, &plan, &found);
	/* The far ends of 1/0 and 3/0 swapped: 1/0-4/1 and 3/0-2/1. */
	found.links[0].b = (struct plan_end){ 4, 1 };
	found.links[2].b = (struct plan_end){ 2, 1 };
	n = plan_compare(&plan, &found, all4, 4, f, 8);
	ASSERT_EQ(2, n);
	for (int i = 0; i < n; i++) {
		EXPECT_EQ(PLAN_MISWIRED, f[i].kind);
		/* Each finding is one of the two swapped cables. */
		EXPECT_TRUE((f[i].found.a.node == 1 && f[i].found.b.node == 4) ||
			    (f[i].found.a.node == 3 && f[i].found.b.node == 2));
	}
	EXPECT_NE(f[0].found.a.node, f[1].found.a.node);
	/* Each says where both its ends belong. */
	for (int i = 0; i < n; i++) {
		EXPECT_TRUE(f[i].has_want_a);
		EXPECT_TRUE(f[i].has_want_b);
		if (f[i].found.a.node == 1) {
			EXPECT_EQ(2, f[i].want_a.node);	/* 1/0 belongs to 2/1 */
			EXPECT_EQ(3, f[i].want_b.node);	/* 4/1 belongs to 3/0 */
		}
	}
	plan_free(&plan);
	plan_free(&found);
}

TEST(slow_narrow_and_down_links)
{
	struct plan plan, found;
	struct plan_finding f[8];

	as_planned(_metadata, &plan, &found);
	found.links[0].rate_mbps = 56000;
	found.links[1].width = 4;
	found.links[3].active = false;
	ASSERT_EQ(3, plan_compare(&plan, &found, all4, 4, f, 8));
	EXPECT_EQ(PLAN_UNDER_TRAINED, f[0].kind);
	EXPECT_EQ(PLAN_UNDER_TRAINED, f[1].kind);
	EXPECT_EQ(PLAN_DOWN, f[2].kind);
	EXPECT_EQ(4, f[2].planned.a.node);
	/* Faster or wider than planned is no finding. */
	found.links[0].rate_mbps = 224000;
	found.links[1].width = 16;
	found.links[3].active = true;
	EXPECT_EQ(0, plan_compare(&plan, &found, all4, 4, f, 8));
	plan_free(&plan);
	plan_free(&found);
}

TEST(an_unplanned_link_is_extra)
{
	struct plan plan, found;
	struct plan_finding f[8];

	as_planned(_metadata, &plan, &found);
	found.links = realloc(found.links, 5 * sizeof(*found.links));
	found.links[found.n++] = (struct plan_link){ { 1, 2 }, { 3, 2 }, 112000, 8, true };
	ASSERT_EQ(1, plan_compare(&plan, &found, all4, 4, f, 8));
	EXPECT_EQ(PLAN_EXTRA, f[0].kind);
	EXPECT_EQ(2, f[0].found.a.port);
	plan_free(&plan);
	plan_free(&found);
}

TEST(other_hosts_links_are_theirs)
{
	struct plan plan, found;
	struct plan_finding f[8];
	static const uint32_t host_a[] = { 1, 2 };

	as_planned(_metadata, &plan, &found);
	/* 3/0 - 4/1 lies between two nodes of another host: not ours. */
	found.links[2] = found.links[--found.n];
	EXPECT_EQ(0, plan_compare(&plan, &found, host_a, 2, f, 8));
	EXPECT_EQ(1, plan_compare(&plan, &found, all4, 4, f, 8));
	plan_free(&plan);
	plan_free(&found);
}

TEST(a_mesh_plan_against_a_ring_lists_the_missing_links)
{
	static const char mesh[] =
		"[{\"a\":{\"node_id\":1,\"port\":0},\"b\":{\"node_id\":2,\"port\":1}},"
		"{\"a\":{\"node_id\":2,\"port\":0},\"b\":{\"node_id\":3,\"port\":1}},"
		"{\"a\":{\"node_id\":3,\"port\":0},\"b\":{\"node_id\":4,\"port\":1}},"
		"{\"a\":{\"node_id\":4,\"port\":0},\"b\":{\"node_id\":1,\"port\":1}},"
		"{\"a\":{\"node_id\":1,\"port\":2},\"b\":{\"node_id\":3,\"port\":2}},"
		"{\"a\":{\"node_id\":2,\"port\":2},\"b\":{\"node_id\":4,\"port\":2}}]";
	struct plan plan, ring, found;
	struct plan_finding f[8];
	char err[128];

	as_planned(_metadata, &ring, &found);
	ASSERT_EQ(0, plan_parse(mesh, &plan, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(2, plan_compare(&plan, &found, all4, 4, f, 8));
	EXPECT_EQ(PLAN_MISSING, f[0].kind);
	EXPECT_EQ(PLAN_MISSING, f[1].kind);
	EXPECT_EQ(2, f[0].planned.a.port);
	EXPECT_EQ(2, f[1].planned.a.port);
	plan_free(&plan);
	plan_free(&ring);
	plan_free(&found);
}

TEST(bad_plans_are_refused_with_a_reason)
{
	static const char *const bad[] = {
		"",
		"{}",
		"{\"links\": 3}",
		"[{\"a\":{\"node_id\":1},\"b\":{\"node_id\":2,\"port\":1}}]",
		"[{\"a\":{\"node_id\":1,\"port\":0},\"b\":{\"node_id\":1,\"port\":0}}]",
		"[{\"a\":{\"node_id\":1,\"port\":0},\"b\":{\"node_id\":2,\"port\":1}},"
		" {\"a\":{\"node_id\":3,\"port\":0},\"b\":{\"node_id\":1,\"port\":0}}]",
		"[{\"a\":{\"node_id\":-1,\"port\":0},\"b\":{\"node_id\":2,\"port\":1}}]",
		/* A port is a byte: 256 is none. */
		"[{\"a\":{\"node_id\":1,\"port\":256},\"b\":{\"node_id\":2,\"port\":1}}]",
		"[{\"a\":{\"node_id\":1,\"port\":0},\"b\":{\"node_id\":2,\"port\":1},\"width\":\"8\"}]",
	};
	struct plan plan;
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		EXPECT_GT(0, plan_parse(bad[i], &plan, err, sizeof(err))) TH_LOG("%s", bad[i]);
		EXPECT_NE('\0', err[0]) TH_LOG("no reason for %s", bad[i]);
		EXPECT_EQ(NULL, plan.links);
	}
}

TEST_HARNESS_MAIN
