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
 * addresses sysfs gives them.  The swapped plan handed to the driver
 * (npoctl topo check --apply) quarantines exactly the four ports at the
 * ends of the two cables, in the driver's flags and in the device's
 * CONTROL register; routes and fabric time then avoid them (two islands,
 * each with its own grandmaster) and data for the peer across one does
 * not take it; forgetting the plan takes them back.
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
	self->n = npo_test_count_devices();
	NPO_TEST_NEED_RING(4);
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

/* --- the plan handed to the driver ------------------------------------- */

#define QUARANTINE_BIT	(1u << 16)	/* port CONTROL.QUARANTINE, 1.16 */

/* The ports the plan with 1/0 and 3/0's far ends swapped miswires. */
static bool swapped_port(int64_t node, int64_t port)
{
	return (port == 0 && (node == 1 || node == 3)) ||
	       (port == 1 && (node == 2 || node == 4));
}

/* The island the two quarantined cables leave node in: 2-3, or the rest. */
static bool in_small_island(int64_t node)
{
	return node == 2 || node == 3;
}

static struct json_object *run_json(FIXTURE_DATA(topo) *self, const char *cmd,
				    const char *key)
{
	struct json_object *doc, *arr;

	if (npo_test_run(self->out, sizeof(self->out), "%s 2>/dev/null", cmd))
		return NULL;
	doc = json_tokener_parse(self->out);
	if (!key)
		return doc;
	if (!doc || !json_object_object_get_ex(doc, key, &arr)) {
		json_object_put(doc);
		return NULL;
	}
	json_object_get(arr);
	json_object_put(doc);
	return arr;
}

/*
 * Every route avoids the quarantined ports and, with them, node 1 has no
 * way into the island 2-3 (planned: the ring with them; unplanned: node 1
 * reaches node 2 through its port 0, one hop).
 */
static bool routes_as_expected(FIXTURE_DATA(topo) *self, bool planned)
{
	struct json_object *routes = run_json(self, "npoctl -j route", "routes");
	bool ok = routes && json_object_array_length(routes) > 0, direct = false;
	size_t i;

	for (i = 0; ok && i < json_object_array_length(routes); i++) {
		struct json_object *r = json_object_array_get_idx(routes, i);
		int64_t node = jnum(r, "node_id", NULL);
		int64_t dest = jnum(r, "dest_node", NULL);
		int64_t port = jnum(r, "port", NULL);

		if (planned && (swapped_port(node, port) ||
				in_small_island(node) != in_small_island(dest)))
			ok = false;
		if (node == 1 && dest == 2 && port == 0 && jnum(r, "hops", NULL) == 1)
			direct = true;
	}
	json_object_put(routes);
	return ok && (planned || direct);
}

/*
 * Every clock locked to a grandmaster of its own island, never through a
 * quarantined port (unplanned: all to one).
 */
static bool clocks_as_expected(FIXTURE_DATA(topo) *self, bool planned)
{
	struct json_object *clocks = run_json(self, "npoctl -j clock", "clocks");
	bool ok = clocks && (int)json_object_array_length(clocks) == self->n;
	int64_t gm[2] = { -1, -1 };
	size_t i;

	for (i = 0; ok && i < json_object_array_length(clocks); i++) {
		struct json_object *c = json_object_array_get_idx(clocks, i), *x;
		int64_t node = jnum(c, "node_id", NULL);
		int64_t g = jnum(c, "grandmaster", NULL);
		int island = planned && in_small_island(node);

		if (!json_object_object_get_ex(c, "state", &x) ||
		    (strcmp(json_object_get_string(x), "locked") && g != node))
			ok = false;
		if (json_object_object_get_ex(c, "parent_port", &x) &&
		    planned && swapped_port(node, json_object_get_int64(x)))
			ok = false;
		if (gm[island] < 0)
			gm[island] = g;
		ok = ok && g == gm[island] &&
		     (!planned || in_small_island(g) == island);
	}
	json_object_put(clocks);
	return ok;
}

/* Each port's MISWIRED flag and CONTROL.QUARANTINE as planned. */
static int ports_as_expected(FIXTURE_DATA(topo) *self, bool planned)
{
	struct json_object *ports = run_json(self, "npoctl -j link", NULL);
	int wrong = ports ? 0 : 1;
	size_t i, k;

	for (i = 0; ports && i < json_object_array_length(ports); i++) {
		struct json_object *p = json_object_array_get_idx(ports, i), *f, *x;
		int64_t node = jnum(p, "node_id", NULL);
		const char *name = json_object_get_string(
			json_object_object_get_ex(p, "port", &x) ? x : NULL);
		bool flag = false, want;
		unsigned int dev, port;
		char dname[16];
		long long ctl;

		if (!name || sscanf(name, "npo%u/%u", &dev, &port) != 2) {
			wrong++;
			continue;
		}
		want = planned && swapped_port(node, port);
		if (json_object_object_get_ex(p, "flags", &f))
			for (k = 0; k < json_object_array_length(f); k++)
				flag |= !strcmp(json_object_get_string(
					json_object_array_get_idx(f, k)), "MISWIRED");
		snprintf(dname, sizeof(dname), "npo%u", dev);
		ctl = npo_test_bar_read(dname, NPO_TEST_PORT_REG(port, 0));
		/* Ports 0 and 1 are in the plan; any other has none. */
		if (planned && port <= 1 &&
		    jnum(p, "planned_peer", "node_id") < 1)
			wrong++;
		if (flag != want || ctl < 0 || !!(ctl & QUARANTINE_BIT) != want) {
			fprintf(stderr, "# %s: MISWIRED %d, CONTROL 0x%llx, want %d\n",
				name, flag, ctl, want);
			wrong++;
		}
	}
	json_object_put(ports);
	return wrong;
}

struct miswired_events {
	int count[64][2];	/* per device and ring port */
	bool flagged[64][2];	/* the last one had MISWIRED set */
};

/*
 * The miswired events the devices kept (npoctl events), per port.  Each
 * device keeps its last 256 events: after a whole suite that is far more
 * than the fixture's buffer holds.
 */
static int miswired_events(FIXTURE_DATA(topo) *self, struct miswired_events *me)
{
	size_t len = 16 << 20;
	char *out = malloc(len);
	struct json_object *evs = NULL;
	unsigned int dev, port;
	size_t i, k;

	memset(me, 0, sizeof(*me));
	if (out && !npo_test_run(out, len, "npoctl -j events 2>/dev/null"))
		evs = json_tokener_parse(out);
	if (!evs)
		snprintf(self->out, sizeof(self->out), "%.4000s", out ? out : "");
	free(out);
	if (!evs)
		return -1;
	for (i = 0; i < json_object_array_length(evs); i++) {
		struct json_object *e = json_object_array_get_idx(evs, i), *x, *f;

		if (!json_object_object_get_ex(e, "event", &x) ||
		    strcmp(json_object_get_string(x), "miswired") ||
		    !json_object_object_get_ex(e, "port", &x) ||
		    sscanf(json_object_get_string(x), "npo%u/%u", &dev, &port) != 2 ||
		    dev >= 64 || port > 1)
			continue;
		me->count[dev][port]++;
		me->flagged[dev][port] = false;
		if (json_object_object_get_ex(e, "flags", &f))
			for (k = 0; k < json_object_array_length(f); k++)
				me->flagged[dev][port] |= !strcmp(json_object_get_string(
					json_object_array_get_idx(f, k)), "MISWIRED");
	}
	json_object_put(evs);
	return 0;
}

/*
 * Since base: on each swapped port, want more miswired events, the last
 * with MISWIRED as flagged; none elsewhere.  The number of ports amiss.
 */
static int events_as_expected(FIXTURE_DATA(topo) *self,
			      const struct miswired_events *base, int want,
			      bool flagged)
{
	struct miswired_events now;
	unsigned int dev, port;
	int wrong = 0;

	if (miswired_events(self, &now))
		return 1;
	for (dev = 0; dev < (unsigned int)self->n && dev < 64; dev++)
		for (port = 0; port <= 1; port++) {
			bool sw = swapped_port(dev + 1, port);
			int got = now.count[dev][port] - base->count[dev][port];

			if (got != (sw ? want : 0) ||
			    (sw && now.flagged[dev][port] != flagged)) {
				fprintf(stderr, "# npo%u/%u: %d new miswired events, last flagged %d\n",
					dev, port, got, now.flagged[dev][port]);
				wrong++;
			}
		}
	return wrong;
}

static bool wait_for(FIXTURE_DATA(topo) *self,
		     bool (*fn)(FIXTURE_DATA(topo) *, bool), bool planned,
		     int secs)
{
	double end = npo_test_now_s() + secs;

	do {
		if (fn(self, planned))
			return true;
		usleep(200000);
	} while (npo_test_now_s() < end);
	return false;
}

TEST_F_TIMEOUT(topo, an_applied_plan_quarantines_the_miswired_ports, 180)
{
	char plan[8192], log[1 << 14];
	struct json_object *doc;
	struct miswired_events base;
	size_t mark;
	int st, lines = 0;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_for(self, clocks_as_expected, false, 30)) TH_LOG("%s", self->out);
	ring_plan(self, plan, sizeof(plan), 1, 3, "", "");
	ASSERT_EQ(0, write_plan(plan));
	ASSERT_EQ(0, miswired_events(self, &base)) TH_LOG("%s", self->out);
	mark = npo_test_dmesg_mark();
	st = npo_test_run(self->out, sizeof(self->out),
			  "npoctl -j topo check --apply " PLAN " 2>/dev/null");
	EXPECT_EQ(3, st) TH_LOG("%s", self->out);
	doc = json_tokener_parse(self->out);
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	EXPECT_EQ(2, json_object_array_length(doc));
	json_object_put(doc);

	/* Exactly the four ends of the two cables, in the driver and the device. */
	EXPECT_EQ(0, ports_as_expected(self, true));
	EXPECT_EQ(0, events_as_expected(self, &base, 1, true));
	EXPECT_EQ(3, npo_test_run(self->out, sizeof(self->out), "npoctl health 2>&1"));
	EXPECT_NE(NULL, strstr(self->out,
			       "miswired: cabled to node 2/1, planned node 4/1; quarantined"))
		TH_LOG("%s", self->out);
	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	for (const char *p = log; (p = strstr(p, "quarantined")); p++)
		lines++;
	EXPECT_EQ(4, lines) TH_LOG("%s", log);
	/* No route and no clock goes through them: two islands. */
	EXPECT_TRUE(wait_for(self, routes_as_expected, true, 20)) TH_LOG("%s", self->out);
	EXPECT_TRUE(wait_for(self, clocks_as_expected, true, 60)) TH_LOG("%s", self->out);
	/*
	 * Data for the peer across a quarantined cable does not take it:
	 * with no route, the device's own "the peer is the destination"
	 * shortcut would, were the port not quarantined.
	 */
	EXPECT_NE(0, npo_test_run(self->out, sizeof(self->out),
				  "npo-perf -d npo0 -r npo1 -s 8 -n 4 write lat 2>&1"))
		TH_LOG("%s", self->out);
	/* The link itself stays up, for whoever recables it. */
	EXPECT_EQ(0, npo_test_run(NULL, 0,
				  "npoctl link show npo0/0 | grep -q 'state *active'"));

	/* Forgetting the plan takes the ports back. */
	EXPECT_EQ(0, npo_test_run(self->out, sizeof(self->out),
				  "npoctl topo unplan 2>&1")) TH_LOG("%s", self->out);
	EXPECT_EQ(0, ports_as_expected(self, false));
	EXPECT_EQ(0, events_as_expected(self, &base, 2, false));
	EXPECT_TRUE(wait_for(self, routes_as_expected, false, 20)) TH_LOG("%s", self->out);
	EXPECT_TRUE(wait_for(self, clocks_as_expected, false, 60)) TH_LOG("%s", self->out);
	EXPECT_EQ(0, npo_test_run(self->out, sizeof(self->out),
				  "npo-perf -d npo0 -r npo1 -s 8 -n 4 write lat 2>&1"))
		TH_LOG("%s", self->out);
}

TEST_F(topo, a_bad_port_plan_is_refused)
{
	NPO_TEST_SETUP_DONE();
	EXPECT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl link set npo0/0 plan 2 2>&1"));
	EXPECT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl link set npo0/0 plan npo2/1 2>&1"));
	EXPECT_EQ(2, npo_test_run(self->out, sizeof(self->out),
				  "npoctl link set npo0/0 plan 2/256 2>&1"));
	/* The same port planned and cleared at once is the driver's to refuse. */
	EXPECT_NE(0, npo_test_run(self->out, sizeof(self->out),
				  "npoctl link set npo0/0 plan 2/1 plan none 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "set and cleared")) TH_LOG("%s", self->out);
	/* Nothing was left behind. */
	EXPECT_EQ(0, ports_as_expected(self, false));
	EXPECT_EQ(0, npo_test_run(self->out, sizeof(self->out),
				  "npoctl -j link show npo0/0 | grep -q '\"planned_peer\":null'"))
		TH_LOG("%s", self->out);
	/* Planned as cabled: not miswired. */
	EXPECT_EQ(0, npo_test_run(NULL, 0, "npoctl link set npo0/0 plan 2/1"));
	EXPECT_EQ(0, ports_as_expected(self, false));
	EXPECT_EQ(0, npo_test_run(NULL, 0, "npoctl link set npo0/0 plan none"));
}

TEST_HARNESS_MAIN
