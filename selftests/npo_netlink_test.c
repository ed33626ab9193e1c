// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic netlink: the npo family answers dumps and gets, refuses changes
 * from unprivileged callers and malformed requests with a clear error,
 * multicasts link events naming device, port and peer, and npoctl's link,
 * lane and test commands drive it.  Needs npo-vm --topology ring.
 */
#include <errno.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include <netlink/genl/genl.h>
#include <npo.h>

#include "kselftest_harness.h"
#include "npo_nl_lib.h"
#include "npo_test_json.h"
#include "npo_test_lib.h"

FIXTURE(netlink) {
	struct nl_sock *sk;
	int family;
	int ndev;
	pid_t monitor;		/* npoctl monitor, stopped at teardown */
	char out[1 << 16];
};

FIXTURE_SETUP(netlink)
{
	self->sk = NULL;
	self->ndev = npo_test_count_devices();
	NPO_TEST_NEED_RING(2);
	self->sk = npo_nl_connect();
	ASSERT_NE(NULL, self->sk);
	self->family = npo_nl_family(self->sk);
	ASSERT_GT(self->family, 0) TH_LOG("npo family not registered");
}

FIXTURE_TEARDOWN(netlink)
{
	/* A failed assertion must not leave the monitor behind. */
	if (self->monitor > 0) {
		kill(self->monitor, SIGTERM);
		waitpid(self->monitor, NULL, 0);
	}
	if (self->sk)
		nl_socket_free(self->sk);
}

static struct json_object *npoctl_json(FIXTURE_DATA(netlink) *self,
				       const char *args)
{
	if (npo_test_run(self->out, sizeof(self->out), "npoctl -j %s", args))
		return NULL;
	return json_tokener_parse(self->out);
}

/* Wait for port DEV/PORT to be active at width (0: any). */
static struct json_object *wait_active(FIXTURE_DATA(netlink) *self,
				       const char *port, int width)
{
	struct json_object *doc, *p;
	int tries;
	char args[64];

	snprintf(args, sizeof(args), "link show %s", port);
	for (tries = 0; tries < 200; tries++) {
		doc = npoctl_json(self, args);
		if (doc) {
			p = json_object_array_get_idx(doc, 0);
			if (!strcmp(jstr(p, "state"),
				    "active") &&
			    (!width || jint(jget(p, "speed"), "width") == width))
				return doc;
			json_object_put(doc);
		}
		usleep(50000);
	}
	return NULL;
}

TEST_F_TIMEOUT(netlink, dump_shows_every_port_with_peer, 60)
{
	struct json_object *doc, *p, *peer;
	int i, n, active = 0;

	NPO_TEST_SETUP_DONE();
	doc = wait_active(self, "npo0/0", 0);
	ASSERT_NE(NULL, doc);
	json_object_put(doc);
	doc = npoctl_json(self, "link");
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	n = json_object_array_length(doc);
	EXPECT_EQ(self->ndev * 4, n);
	for (i = 0; i < n; i++) {
		p = json_object_array_get_idx(doc, i);
		peer = jget(p, "peer");
		if (strcmp(jstr(p, "state"), "active"))
			continue;
		active++;
		ASSERT_NE(NULL, peer);
		EXPECT_EQ(212500, jint(jget(p, "speed"), "rate_mbps"));
		ASSERT_NE(NULL, jget(p, "counters"));
		EXPECT_NE(NULL, jget(jget(p, "counters"), "fec_corrected"));
	}
	EXPECT_EQ(self->ndev * 2, active);
	json_object_put(doc);
}

TEST_F(netlink, get_names_missing_device_and_port)
{
	struct nl_msg *msg;

	NPO_TEST_SETUP_DONE();
	msg = npo_nl_new_msg(self->family, NPO_CMD_PORT_GET, 0);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 200);
	nla_put_u32(msg, NPO_ATTR_PORT_INDEX, 0);
	EXPECT_EQ(-ENODEV, (npo_nl_transact(self->sk, msg)));

	msg = npo_nl_new_msg(self->family, NPO_CMD_PORT_GET, 0);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	nla_put_u32(msg, NPO_ATTR_PORT_INDEX, 99);
	EXPECT_EQ(-ENODEV, (npo_nl_transact(self->sk, msg)));

	/* Missing port attribute. */
	msg = npo_nl_new_msg(self->family, NPO_CMD_PORT_GET, 0);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	EXPECT_EQ(-EINVAL, (npo_nl_transact(self->sk, msg)));

	ASSERT_EQ(1, npo_test_run(self->out, sizeof(self->out),
				  "npoctl link show npo0/99 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "no such port")) TH_LOG("%s", self->out);
}

TEST_F(netlink, malformed_attributes_rejected)
{
	struct nl_msg *msg;

	NPO_TEST_SETUP_DONE();
	/* u8 where a u32 belongs. */
	msg = npo_nl_new_msg(self->family, NPO_CMD_PORT_GET, 0);
	nla_put_u8(msg, NPO_ATTR_DEV_INDEX, 0);
	nla_put_u32(msg, NPO_ATTR_PORT_INDEX, 0);
	EXPECT_NE(0, npo_nl_transact(self->sk, msg));

	/* Out of the policy's range. */
	msg = npo_nl_new_msg(self->family, NPO_CMD_PORT_SET, 0);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	nla_put_u32(msg, NPO_ATTR_PORT_INDEX, 0);
	nla_put_u8(msg, NPO_ATTR_PORT_ADMIN_UP, 7);
	EXPECT_NE(0, npo_nl_transact(self->sk, msg));

	msg = npo_nl_new_msg(self->family, NPO_CMD_PORT_TEST, 0);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	nla_put_u32(msg, NPO_ATTR_PORT_INDEX, 0);
	nla_put_u32(msg, NPO_ATTR_TEST_DURATION_MS, 0);
	EXPECT_NE(0, npo_nl_transact(self->sk, msg));

	/* An attribute number the family does not have. */
	msg = npo_nl_new_msg(self->family, NPO_CMD_PORT_GET, 0);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	nla_put_u32(msg, NPO_ATTR_PORT_INDEX, 0);
	nla_put_u32(msg, NPO_ATTR_MAX + 5, 1);
	EXPECT_NE(0, npo_nl_transact(self->sk, msg));

	/* An unknown command. */
	msg = npo_nl_new_msg(self->family, NPO_CMD_MAX + 3, 0);
	EXPECT_NE(0, npo_nl_transact(self->sk, msg));

	/* The extack message reaches npoctl. */
	ASSERT_EQ(1, npo_test_run(self->out, sizeof(self->out),
				  "npoctl link set npo0/0 width 3 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "power of two")) TH_LOG("%s", self->out);
	/* The family still works. */
	ASSERT_NE(NULL, npoctl_json(self, "link show npo0/0"));
}

/* Changing ports gets -EPERM; reading them works.  Runs as nobody. */
static int try_port_commands(void *unused)
{
	static const uint8_t cmds[] = {
		NPO_CMD_PORT_SET, NPO_CMD_PORT_RETRAIN, NPO_CMD_PORT_CLEAR,
		NPO_CMD_PORT_TEST,
	};
	struct nl_sock *sk;
	struct nl_msg *msg;
	unsigned int i;
	int fam, bad = 0;

	sk = npo_nl_connect();
	if (!sk || (fam = npo_nl_family(sk)) < 0)
		return 11;
	for (i = 0; i < sizeof(cmds); i++) {
		msg = npo_nl_new_msg(fam, cmds[i], 0);
		nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
		nla_put_u32(msg, NPO_ATTR_PORT_INDEX, 0);
		nla_put_u32(msg, NPO_ATTR_TEST_DURATION_MS, 10);
		if ((npo_nl_transact(sk, msg)) != -EPERM)
			bad |= 1 << i;
	}
	msg = npo_nl_new_msg(fam, NPO_CMD_PORT_GET, 0);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	nla_put_u32(msg, NPO_ATTR_PORT_INDEX, 0);
	if (npo_nl_transact(sk, msg))
		bad |= 0x40;
	return bad;
}

/* CAP_NET_ADMIN is needed for changes, not for looking. */
TEST_F(netlink, unprivileged_changes_get_eperm)
{
	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root to drop privileges");
	EXPECT_EQ(0, npo_test_as_nobody(try_port_commands, NULL));
}

TEST_F_TIMEOUT(netlink, width_limit_and_events, 120)
{
	struct json_object *doc, *p;
	char *ev;
	pid_t mon;
	FILE *f;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	doc = wait_active(self, "npo4/0", 8);
	ASSERT_NE(NULL, doc);
	json_object_put(doc);

	mon = fork();
	ASSERT_GE(mon, 0);
	if (mon == 0) {
		execl("/bin/sh", "sh", "-c",
		      "exec npoctl -j monitor > /tmp/npo-events 2>&1", NULL);
		_exit(127);
	}
	self->monitor = mon;
	usleep(300000);
	ASSERT_EQ(0, npo_test_run(self->out, sizeof(self->out),
				  "npoctl link set npo4/0 width 4 2>&1"));
	doc = wait_active(self, "npo4/0", 4);
	ASSERT_NE(NULL, doc) TH_LOG("did not retrain to x4");
	p = json_object_array_get_idx(doc, 0);
	EXPECT_STREQ("DEGRADED",
		     json_object_get_string(json_object_array_get_idx(jget(p, "flags"), 0)));
	json_object_put(doc);
	ASSERT_EQ(0, npo_test_run(NULL, 0, "npoctl link set npo4/0 width any"));
	doc = wait_active(self, "npo4/0", 8);
	ASSERT_NE(NULL, doc) TH_LOG("did not retrain back to x8");
	json_object_put(doc);
	usleep(300000);
	kill(mon, SIGTERM);
	waitpid(mon, NULL, 0);
	self->monitor = 0;

	f = fopen("/tmp/npo-events", "r");
	ASSERT_NE(NULL, f);
	self->out[fread(self->out, 1, sizeof(self->out) - 1, f)] = '\0';
	fclose(f);
	/* Both ends report the retrain; each event names port and peer. */
	ev = strstr(self->out, "\"port\":\"npo4/0\",\"event\":\"degraded\"");
	EXPECT_NE(NULL, ev) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\"port\":\"npo4/0\",\"event\":\"recovered\""));
	EXPECT_NE(NULL, strstr(self->out, "\"port\":\"npo5/1\",\"event\":\"retrain\""))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\"peer_node_id\":6")) TH_LOG("%s", self->out);
}

TEST_F_TIMEOUT(netlink, lanes_and_prbs_test, 120)
{
	struct json_object *doc, *lane;
	double own_ber[8];
	int64_t bits0;
	int i;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	doc = npoctl_json(self, "lane npo5/0");
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	ASSERT_EQ(8, (int)json_object_array_length(doc));
	for (i = 0; i < 8; i++) {
		lane = json_object_array_get_idx(doc, i);
		EXPECT_EQ(i, jint(lane, "lane"));
		EXPECT_GT(jdouble(lane, "rx_power_dbm"), -5.9);
		EXPECT_LT(jdouble(lane, "rx_power_dbm"), 4.0);
		EXPECT_LT(jdouble(lane, "ber"), 1e-6);
		EXPECT_GT(jdouble(lane, "ber"), 0);
	}
	json_object_put(doc);

	doc = npoctl_json(self, "link test npo5/0 time 100");
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	ASSERT_EQ(8, (int)json_object_array_length(doc));
	lane = json_object_array_get_idx(doc, 0);
	EXPECT_GT(jint(lane, "prbs_bits"), 1000000000LL);
	bits0 = jint(lane, "prbs_bits");
	json_object_put(doc);

	/*
	 * A pre-FEC BER of 1e-5 injected on lane 3 alone: the PRBS test
	 * measures it there, within counting noise, and on every other lane
	 * no more than that lane's own BER (1e-8 to 1e-6 in this model).
	 */
	doc = npoctl_json(self, "lane npo5/0");
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	for (i = 0; i < 8; i++)
		own_ber[i] = json_object_get_double(
			jget(json_object_array_get_idx(doc, i), "ber"));
	json_object_put(doc);
	ASSERT_EQ(0, npo_test_write_file("/sys/kernel/debug/npo/npo5/fault",
					 "ber 0 3 5"));
	doc = npoctl_json(self, "link test npo5/0 time 100");
	npo_test_write_file("/sys/kernel/debug/npo/npo5/fault", "clear");
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	ASSERT_EQ(8, (int)json_object_array_length(doc));
	for (i = 0; i < 8; i++) {
		double ber;

		lane = json_object_array_get_idx(doc, i);
		/* Each test shows its own figures, not the lanes' totals. */
		EXPECT_EQ(bits0, jint(lane, "prbs_bits"));
		ber = (double)jint(lane, "prbs_errors") / jint(lane, "prbs_bits");
		if (i == 3) {
			EXPECT_GT(ber, 0.9e-5) TH_LOG("lane 3: BER %g", ber);
			EXPECT_LT(ber, 1.1e-5) TH_LOG("lane 3: BER %g", ber);
			continue;
		}
		EXPECT_LT(ber, 3 * own_ber[i] + 1e-9)
			TH_LOG("lane %d: BER %g, its own %g", i, ber, own_ber[i]);
		EXPECT_LT(ber, 1e-6) TH_LOG("lane %d: BER %g", i, ber);
	}
	json_object_put(doc);
	/* Back to full width once the lane is clean again. */
	npo_test_run(NULL, 0, "npoctl link retrain npo5/0");
	/* An unattached port has nothing to test against. */
	ASSERT_EQ(1, npo_test_run(self->out, sizeof(self->out),
				  "npoctl link test npo5/3 time 10 2>&1"));
	EXPECT_NE(NULL, strstr(self->out, "no peer attached")) TH_LOG("%s", self->out);
	doc = wait_active(self, "npo5/0", 8);
	EXPECT_NE(NULL, doc);
	json_object_put(doc);
}

TEST_F_TIMEOUT(netlink, topology_is_the_ring, 60)
{
	struct json_object *doc, *l;
	const char *edge;
	int i, n;

	NPO_TEST_SETUP_DONE();
	for (i = 0; i < self->ndev; i++) {
		char port[16];

		snprintf(port, sizeof(port), "npo%d/0", i);
		doc = wait_active(self, port, 0);
		ASSERT_NE(NULL, doc);
		json_object_put(doc);
	}
	doc = npoctl_json(self, "topo");
	ASSERT_NE(NULL, doc) TH_LOG("%s", self->out);
	n = json_object_array_length(doc);
	/* A ring of N devices has N links, each listed once. */
	EXPECT_EQ(self->ndev, n);
	for (i = 0; i < n; i++) {
		int a, b;

		l = json_object_array_get_idx(doc, i);
		a = jint(jget(l, "a"), "node_id");
		b = jint(jget(l, "b"), "node_id");
		EXPECT_TRUE(b == a % self->ndev + 1 || a == b % self->ndev + 1)
			TH_LOG("link %d -- %d is not a ring link", a, b);
		EXPECT_STREQ("active", jstr(l, "state"));
	}
	json_object_put(doc);
	ASSERT_EQ(0, npo_test_run(self->out, sizeof(self->out),
				  "npoctl topo --dot"));
	EXPECT_EQ(0, strncmp(self->out, "graph npo {", 11));
	n = 0;
	for (edge = strstr(self->out, " -- "); edge; edge = strstr(edge + 4, " -- "))
		n++;
	EXPECT_EQ(self->ndev, n) TH_LOG("%s", self->out);
}

/* A few uncorrectable codewords are replayed; the link stays up. */
TEST_F_TIMEOUT(netlink, errors_below_threshold_are_replayed, 60)
{
	struct json_object *doc, *c;
	int tries;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	doc = wait_active(self, "npo7/0", 0);
	ASSERT_NE(NULL, doc);
	json_object_put(doc);
	ASSERT_EQ(0, npo_test_run(NULL, 0, "npoctl link clear npo7/0"));
	ASSERT_EQ(0, npo_test_write_file("/sys/kernel/debug/npo/npo7/fault",
					 "burst 0 2"));
	for (tries = 0; tries < 100; tries++) {
		doc = npoctl_json(self, "link show npo7/0");
		ASSERT_NE(NULL, doc);
		c = jget(json_object_array_get_idx(doc, 0), "counters");
		if (jint(c, "crc_errors"))
			break;
		json_object_put(doc);
		doc = NULL;
		usleep(20000);
	}
	ASSERT_NE(NULL, doc);
	EXPECT_EQ(2, jint(c, "crc_errors"));
	EXPECT_EQ(2, jint(c, "replays"));
	EXPECT_EQ(0, jint(c, "recoveries"));
	EXPECT_EQ(0, jint(c, "link_downs"));
	EXPECT_STREQ("active", json_object_get_string(
		     jget(json_object_array_get_idx(doc, 0), "state")));
	json_object_put(doc);
}

TEST_F(netlink, clear_zeroes_counters)
{
	struct json_object *doc, *c;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	ASSERT_EQ(0, npo_test_run(NULL, 0, "npoctl link clear npo6/0"));
	doc = npoctl_json(self, "link show npo6/0");
	ASSERT_NE(NULL, doc);
	c = jget(json_object_array_get_idx(doc, 0), "counters");
	EXPECT_EQ(0, jint(c, "crc_errors"));
	EXPECT_EQ(0, jint(c, "recoveries"));
	/* Counters restart from zero: a few ms of FEC traffic at most. */
	EXPECT_LT(jint(c, "fec_corrected"), 1000000);
	json_object_put(doc);
}

/* FEC_CORRECTED of npo7/0 as PORT_GET reports it, or -1. */
static int64_t fec_corrected(struct nl_sock *sk, int family)
{
	struct nlattr *tb[NPO_ATTR_MAX + 1], *cnt[NPO_ATTR_MAX + 1];
	static char buf[8192];
	struct nl_msg *msg;
	int len;

	msg = npo_nl_port_request(family, NPO_CMD_PORT_GET, 7, 0);
	if (!msg || nl_send_auto(sk, msg) < 0) {
		nlmsg_free(msg);
		return -1;
	}
	nlmsg_free(msg);
	len = recv(nl_socket_get_fd(sk), buf, sizeof(buf), 0);
	if (len <= 0 || !nlmsg_ok((struct nlmsghdr *)buf, len) ||
	    ((struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR ||
	    genlmsg_parse((struct nlmsghdr *)buf, 0, tb, NPO_ATTR_MAX, NULL) ||
	    !tb[NPO_ATTR_PORT_COUNTERS] ||
	    nla_parse_nested(cnt, NPO_ATTR_MAX, tb[NPO_ATTR_PORT_COUNTERS], NULL) ||
	    !cnt[NPO_ATTR_CNT_FEC_CORRECTED])
		return -1;
	return nla_get_u64(cnt[NPO_ATTR_CNT_FEC_CORRECTED]);
}

/* How often the counter changed while read back to back for 600 ms. */
struct readings {
	int changes;
	int reads;
	long ms;
};

static int count_changes(void *arg)
{
	struct readings *r = arg;
	struct nl_sock *sk = npo_nl_connect();
	struct timespec t0, t;
	int64_t v, prev = -1;
	int family;

	if (!sk)
		return 1;
	/* One reply per request, read raw: no acknowledgement after it. */
	nl_socket_disable_auto_ack(sk);
	family = npo_nl_family(sk);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		v = fec_corrected(sk, family);
		if (v < 0)
			return 2;
		if (v != prev)
			r->changes++;
		prev = v;
		r->reads++;
		clock_gettime(CLOCK_MONOTONIC, &t);
		r->ms = (t.tv_sec - t0.tv_sec) * 1000 +
			(t.tv_nsec - t0.tv_nsec) / 1000000;
	} while (r->ms < 600);
	nl_socket_free(sk);
	return 0;
}

/*
 * Port statistics cost the device a mailbox command each: readers without
 * CAP_NET_ADMIN share one reading for 200 ms (NPO_STATS_SHARED_MS), so a
 * flood of them cannot starve the mailbox, while an administrator always
 * gets fresh counters.  With errors on a lane the FEC counter moves every
 * 10 ms: read back to back for 600 ms, the administrator sees it move
 * many times, an unprivileged reader at most once per 200 ms.
 */
TEST_F_TIMEOUT(netlink, unprivileged_readers_share_one_reading, 60)
{
	struct readings *r = mmap(NULL, 2 * sizeof(*r), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct json_object *doc;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root to drop privileges");
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, 2 * sizeof(*r));
	doc = wait_active(self, "npo7/0", 0);
	ASSERT_NE(NULL, doc);
	json_object_put(doc);
	ASSERT_EQ(0, npo_test_write_file("/sys/kernel/debug/npo/npo7/fault",
					 "ber 0 3 4"));
	usleep(100000);
	EXPECT_EQ(0, count_changes(&r[0]));
	EXPECT_EQ(0, npo_test_as_nobody(count_changes, &r[1]));
	ASSERT_EQ(0, npo_test_write_file("/sys/kernel/debug/npo/npo7/fault",
					 "ber 0 3 0"));
	TH_LOG("administrator: %d changes in %d reads, %ld ms; unprivileged: %d in %d, %ld ms",
	       r[0].changes, r[0].reads, r[0].ms, r[1].changes, r[1].reads,
	       r[1].ms);
	/* The counter moves, or this proved nothing. */
	EXPECT_LE(10, r[0].changes);
	EXPECT_LE(10, r[1].reads);
	EXPECT_GE(r[1].ms / 200 + 2, r[1].changes);
	munmap(r, 2 * sizeof(*r));
}

/* Back-to-back PORT_DIAG_GET of one port for 1 s, one reply each. */
struct diag_flood {
	int dev, port, reads;
};

static int diag_reader(void *arg)
{
	struct diag_flood *f = arg;
	struct nl_sock *sk = npo_nl_connect();
	int family, i;
	double end;

	if (!sk)
		return 1;
	family = npo_nl_family(sk);
	end = npo_test_now_s() + 1;
	for (i = 0; npo_test_now_s() < end; i++) {
		struct nl_msg *msg = npo_nl_port_request(family,
							 NPO_CMD_PORT_DIAG_GET,
							 f->dev, f->port);

		if (!msg || npo_nl_transact(sk, msg))
			return 2;
	}
	__atomic_add_fetch(&f->reads, i, __ATOMIC_RELAXED);
	nl_socket_free(sk);
	return 0;
}

static void *diag_thread(void *arg)
{
	return (void *)(long)diag_reader(arg);
}

static int diag_flood_16(void *arg)
{
	pthread_t t[16];
	void *ret;
	int i, bad = 0;

	for (i = 0; i < 16; i++)
		if (pthread_create(&t[i], NULL, diag_thread, arg))
			return 1;
	for (i = 0; i < 16; i++) {
		pthread_join(t[i], &ret);
		bad |= ret != NULL;
	}
	return bad;
}

/*
 * A port with no peer still has a module, and reading it costs the
 * device a command (an I2C EEPROM read on silicon): 16 threads of an
 * unprivileged user asking for it back to back for a second cause at
 * most one MODULE_INFO per 200 ms, counted by the mailbox's own
 * tracepoint.
 */
TEST_F_TIMEOUT(netlink, unprivileged_diag_flood_shares_one_module_reading, 60)
{
	struct diag_flood *f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *trace = malloc(1 << 22), *at;
	int cmds = 0;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root to drop privileges");
	ASSERT_NE(MAP_FAILED, f);
	ASSERT_NE(NULL, trace);
	/* Ports 0 and 1 make the ring; a device's last port has no peer. */
	*f = (struct diag_flood) { .dev = 2, .port = 3 };
	ASSERT_TRUE(npo_test_trace_start(true));
	EXPECT_EQ(0, npo_test_as_nobody(diag_flood_16, f));
	ASSERT_LE(0, npo_test_trace_stop(trace, 1 << 22));
	for (at = trace; (at = strstr(at, "npo2 opcode 0x54")); at++)
		cmds++;
	TH_LOG("%d readings by 16 threads in 1 s: %d MODULE_INFO commands",
	       f->reads, cmds);
	EXPECT_LE(100, f->reads);
	EXPECT_LE(1, cmds);
	EXPECT_GE(1000 / 200 + 2, cmds);
	free(trace);
	munmap(f, sizeof(*f));
}

/*
 * A dump of the regions resumes where it stopped even when a file is
 * opened between two of its rounds: every region of the files open at
 * the start comes exactly once, and none twice.  (It used to resume by
 * list position, and a new file shifted every position by one.)
 */
#define DUMP_FILES	5
#define DUMP_REGIONS	30

static void count_keys(struct __test_metadata *_metadata, void *buf, int len,
		       uint32_t *keys, unsigned int *seen, unsigned int nkeys,
		       unsigned int *dups, bool *done)
{
	struct nlmsghdr *nlh;

	for (nlh = buf; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
		struct nlattr *tb[NPO_ATTR_MAX + 1];
		unsigned int i;
		uint32_t key;

		if (nlh->nlmsg_type == NLMSG_DONE) {
			*done = true;
			return;
		}
		ASSERT_NE(NLMSG_ERROR, nlh->nlmsg_type);
		ASSERT_EQ(0, genlmsg_parse(nlh, 0, tb, NPO_ATTR_MAX, NULL));
		ASSERT_NE(NULL, tb[NPO_ATTR_MR_KEY]);
		key = nla_get_u32(tb[NPO_ATTR_MR_KEY]);
		for (i = 0; i < nkeys; i++)
			if (keys[i] == key && seen[i]++)
				(*dups)++;
	}
}

TEST_F(netlink, region_dump_resumes_past_a_file_opened_meanwhile)
{
	const size_t page = 4096, n = (DUMP_FILES + 1) * DUMP_REGIONS;
	uint32_t keys[(DUMP_FILES + 1) * DUMP_REGIONS];
	unsigned int seen[(DUMP_FILES + 1) * DUMP_REGIONS] = { 0 };
	struct npo_device *files[DUMP_FILES + 1];
	unsigned int i, j, rounds = 0, dups = 0;
	static char buf[1 << 15];
	struct nl_msg *msg;
	bool done = false;
	uint8_t *mem;
	int len;

	NPO_TEST_SETUP_DONE();
	mem = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	for (i = 0; i < DUMP_FILES + 1; i++) {
		files[i] = npo_open_device("npo0");
		ASSERT_NE(NULL, files[i]);
	}
	/* The last file's regions come only after the dump started. */
	for (i = 0; i < DUMP_FILES; i++) {
		for (j = 0; j < DUMP_REGIONS; j++) {
			struct npo_mr *mr;
			size_t k = i * DUMP_REGIONS + j;

			ASSERT_EQ(0, npo_reg_mr(files[i], mem + k * page, page,
						NPO_ACCESS_LOCAL_WRITE, &mr));
			keys[k] = npo_mr_lkey(mr);
		}
	}

	msg = npo_nl_new_msg(self->family, NPO_CMD_MR_GET, NLM_F_DUMP);
	ASSERT_NE(NULL, msg);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	ASSERT_LE(0, nl_send_auto(self->sk, msg));
	nlmsg_free(msg);
	while (!done) {
		len = recv(nl_socket_get_fd(self->sk), buf, sizeof(buf), 0);
		ASSERT_LT(0, len);
		count_keys(_metadata, buf, len, keys, seen, DUMP_FILES * DUMP_REGIONS,
			   &dups, &done);
		if (rounds++)
			continue;
		/* Between the first round and the next: a new file, new regions. */
		for (j = 0; j < DUMP_REGIONS; j++) {
			struct npo_mr *mr;
			size_t k = DUMP_FILES * DUMP_REGIONS + j;

			ASSERT_EQ(0, npo_reg_mr(files[DUMP_FILES], mem + k * page,
						page, NPO_ACCESS_LOCAL_WRITE, &mr));
		}
	}
	/* Several rounds, or this proved nothing. */
	EXPECT_LT(2, rounds);
	EXPECT_EQ(0, dups);
	for (i = 0; i < DUMP_FILES * DUMP_REGIONS; i++)
		EXPECT_EQ(1, seen[i]) TH_LOG("region %u (key 0x%08x) seen %u times",
					     i, keys[i], seen[i]);
	for (i = 0; i < DUMP_FILES + 1; i++)
		npo_close_device(files[i]);
	munmap(mem, n * page);
}

TEST_HARNESS_MAIN
