// SPDX-License-Identifier: GPL-2.0-only
/*
 * The expected-topology contract, as an operator runs it: `npoctl -j topo`
 * of a ring that trained right is its own plan (no finding, exit 0); a
 * mesh plan lists exactly the chords the ring lacks; a plan with two far
 * ends swapped (as two swapped cables look) finds two miswired cables,
 * exactly those, each naming where its ends belong; a slower or wider
 * plan than the links trained to finds every link under-trained; a plan
 * that is not one is refused (exit 2) with a reason.  The topology XML
 * written for NCCL names each device's two ring neighbours by the PCI
 * addresses sysfs gives them.
 *
 * Needs npo-vm --topology ring: device i port 0 to device i+1 port 1,
 * device i is node i + 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

#define PLAN "/tmp/npo_topo_test_plan.json"

FIXTURE(topo) {
	int n;
	char out[1 << 16];
};

FIXTURE_SETUP(topo)
{
	const char *topo = getenv("NPO_EXPECT_TOPOLOGY");

	self->n = npo_test_count_devices();
	if (self->n < 4)
		SKIP(return, "needs a ring of at least 4 devices");
	if (!topo || strcmp(topo, "ring"))
		SKIP(return, "NPO_EXPECT_TOPOLOGY=ring not set");
	if (npo_test_run(NULL, 0, "command -v npoctl >/dev/null"))
		SKIP(return, "npoctl not installed");
	ASSERT_TRUE(npo_test_ring_up(self->n)) TH_LOG("the ring did not come up");
}

FIXTURE_TEARDOWN(topo)
{
	unlink(PLAN);
}

static int write_plan(const char *text)
{
	FILE *f = fopen(PLAN, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* npoctl -j topo check PLAN: its exit status, its findings in *doc. */
static int check(FIXTURE_DATA(topo) *self, struct json_object **doc)
{
	int st = npo_test_run(self->out, sizeof(self->out),
			      "npoctl -j topo check " PLAN " 2>/dev/null");

	*doc = json_tokener_parse(self->out);
	return st;
}

static int64_t jnum(struct json_object *o, const char *a, const char *b)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, a, &x) ||
	    (b && !json_object_object_get_ex(x, b, &x)))
		return -1;
	return json_object_get_int64(x);
}

static const char *jkind(struct json_object *o)
{
	struct json_object *x;

	return json_object_object_get_ex(o, "kind", &x) ?
	       json_object_get_string(x) : "";
}

/* The ring as a plan: node k port 0 to node k+1 port 1, with extra text. */
static void ring_plan(FIXTURE_DATA(topo) *self, char *buf, size_t len,
		      int swap_a, int swap_b, const char *extra,
		      const char *speed)
{
	size_t off = snprintf(buf, len, "{\"links\": [");
	int k;

	for (k = 1; k <= self->n; k++) {
		int peer = k % self->n + 1;

		if (k == swap_a)
			peer = swap_b % self->n + 1;
		else if (k == swap_b)
			peer = swap_a % self->n + 1;
		off += snprintf(buf + off, len - off,
				"%s{\"a\":{\"node_id\":%d,\"port\":0},"
				"\"b\":{\"node_id\":%d,\"port\":1}%s}",
				k > 1 ? "," : "", k, peer, speed);
	}
	snprintf(buf + off, len - off, "%s]}", extra);
}

TEST_F(topo, the_discovered_ring_is_its_own_plan)
{
	struct json_object *doc;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_test_run(NULL, 0, "npoctl -j topo > " PLAN));
	EXPECT_EQ(0, check(self, &doc)) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, doc);
	EXPECT_EQ(0, json_object_array_length(doc));
	json_object_put(doc);
}

TEST_F(topo, a_mesh_plan_lists_the_missing_chords)
{
	char plan[8192];
	struct json_object *doc, *f;
	size_t i;

	NPO_TEST_SETUP_DONE();
	ring_plan(self, plan, sizeof(plan), 0, 0,
		  ",{\"a\":{\"node_id\":1,\"port\":2},\"b\":{\"node_id\":3,\"port\":2}}"
		  ",{\"a\":{\"node_id\":2,\"port\":2},\"b\":{\"node_id\":4,\"port\":2}}", "");
	ASSERT_EQ(0, write_plan(plan));
	EXPECT_EQ(3, check(self, &doc)) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, doc);
	ASSERT_EQ(2, json_object_array_length(doc)) TH_LOG("%s", self->out);
	for (i = 0; i < 2; i++) {
		f = json_object_array_get_idx(doc, i);
		EXPECT_STREQ("missing", jkind(f));
		EXPECT_EQ(2, jnum(f, "a", "port"));
		EXPECT_EQ(i + 1, jnum(f, "a", "node_id"));
	}
	json_object_put(doc);
}

TEST_F(topo, swapped_far_ends_are_two_miswired_cables)
{
	char plan[8192];
	struct json_object *doc, *f;
	size_t i;

	NPO_TEST_SETUP_DONE();
	/* Planned: 1/0 to 4/1 and 3/0 to 2/1; the ring has 1-2 and 3-4. */
	ring_plan(self, plan, sizeof(plan), 1, 3, "", "");
	ASSERT_EQ(0, write_plan(plan));
	EXPECT_EQ(3, check(self, &doc)) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, doc);
	ASSERT_EQ(2, json_object_array_length(doc)) TH_LOG("%s", self->out);
	for (i = 0; i < 2; i++) {
		int64_t a;

		f = json_object_array_get_idx(doc, i);
		EXPECT_STREQ("miswired", jkind(f));
		a = jnum(f, "a", "node_id");
		EXPECT_TRUE(a == 1 || a == 3) TH_LOG("cable at node %lld", (long long)a);
		EXPECT_EQ(0, jnum(f, "a", "port"));
		EXPECT_EQ(a + 1, jnum(f, "b", "node_id"));
		/* 1/0 belongs to 4/1 and 3/0 to 2/1, as planned. */
		EXPECT_EQ(a == 1 ? 4 : 2, jnum(f, "a_planned_peer", "node_id"));
	}
	json_object_put(doc);
}

TEST_F(topo, links_below_the_plan_are_under_trained)
{
	char plan[8192];
	struct json_object *doc;

	NPO_TEST_SETUP_DONE();
	/* Wider than any link here: every link falls short. */
	ring_plan(self, plan, sizeof(plan), 0, 0, "", ",\"width\":64");
	ASSERT_EQ(0, write_plan(plan));
	EXPECT_EQ(3, check(self, &doc)) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, doc);
	EXPECT_EQ(self->n, json_object_array_length(doc));
	EXPECT_STREQ("under-trained", jkind(json_object_array_get_idx(doc, 0)));
	json_object_put(doc);
}

TEST_F(topo, a_bad_plan_is_refused)
{
	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, write_plan("{\"links\": [{\"a\": {\"node_id\": 1}}]}"));
	EXPECT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl topo check " PLAN " 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "link 0")) TH_LOG("%s", self->out);
	/* No plan to read: an error, not a finding. */
	EXPECT_EQ(1, npo_test_run(NULL, 0, "npoctl topo check /nonexistent 2>/dev/null"));
}

/* Device i's PCI address, from sysfs: the independent view. */
static int busid(int i, char *buf, size_t len)
{
	char path[96], link[256];
	ssize_t n;
	char *slash;

	snprintf(path, sizeof(path), "/sys/class/npo/npo%d/device", i);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = '\0';
	slash = strrchr(link, '/');
	snprintf(buf, len, "%.31s", slash ? slash + 1 : link);
	return 0;
}

TEST_F(topo, nccl_xml_links_each_device_to_its_ring_neighbours)
{
	static char xml[1 << 16];
	char me[32], prev[32], next[32], key[96];
	int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, npo_test_run(xml, sizeof(xml), "npoctl topo --nccl-xml"));
	EXPECT_NE(NULL, strstr(xml, "<system version=\"1\">"));
	EXPECT_NE(NULL, strstr(xml, "</system>"));
	for (i = 0; i < self->n; i++) {
		const char *at, *end;
		int links = 0;

		ASSERT_EQ(0, busid(i, me, sizeof(me)));
		ASSERT_EQ(0, busid((i + self->n - 1) % self->n, prev, sizeof(prev)));
		ASSERT_EQ(0, busid((i + 1) % self->n, next, sizeof(next)));
		snprintf(key, sizeof(key), "<pci busid=\"%s\"", me);
		at = strstr(xml, key);
		ASSERT_NE(NULL, at) TH_LOG("npo%d (%s) is not in:\n%s", i, me, xml);
		end = strstr(at, "</pci>");
		ASSERT_NE(NULL, end);
		snprintf(key, sizeof(key), "<gpu dev=\"%d\">", i);
		EXPECT_NE(NULL, memmem(at, end - at, key, strlen(key)));
		/* Its two ring links, full width, and nothing else. */
		snprintf(key, sizeof(key), "<nvlink target=\"%s\" count=\"8\"", prev);
		EXPECT_NE(NULL, memmem(at, end - at, key, strlen(key))) TH_LOG("npo%d", i);
		snprintf(key, sizeof(key), "<nvlink target=\"%s\" count=\"8\"", next);
		EXPECT_NE(NULL, memmem(at, end - at, key, strlen(key))) TH_LOG("npo%d", i);
		for (const char *p = at; (p = memmem(p, end - p, "<nvlink", 7)); p++)
			links++;
		EXPECT_EQ(2, links);
	}
}

TEST_HARNESS_MAIN
