// SPDX-License-Identifier: GPL-2.0-only
/*
 * Links: a ring of NPO devices trains every connected port at full width
 * and top speed with the right peers, leaves unconnected ports quietly
 * down, and each injected fault gives the right state and recovers.
 *
 * Reads the driver's debugfs view of the ports; faults go in through the
 * debugfs test interface.  Ring tests need NPO_EXPECT_TOPOLOGY=ring, as
 * npo-vm --topology ring wires it: device i port 0 to device i+1 port 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

struct port_view {
	char state[16];
	char rate[8];
	int width;
	int peer_node;
	int peer_port;
	unsigned long long flaps;
	unsigned long long recoveries;
	bool degraded;
	bool high_ber;
};

static int read_port(int dev, int port, struct port_view *v)
{
	char path[96], buf[4096], *line;
	int i;

	snprintf(path, sizeof(path), "/sys/kernel/debug/npo/npo%d/ports", dev);
	if (npo_test_read_file(path, buf, sizeof(buf)))
		return -1;
	line = buf;
	for (i = 0; i < port && line; i++) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line || !*line)
		return -1;
	*strchrnul(line, '\n') = '\0';
	memset(v, 0, sizeof(*v));
	v->peer_node = v->peer_port = -1;
	if (sscanf(line, "port %*d: %15s %7s x%d", v->state, v->rate,
		   &v->width) != 3)
		return -1;
	if (strstr(line, " peer -") == NULL)
		sscanf(strstr(line, " peer ") + 6, "%d/%d", &v->peer_node,
		       &v->peer_port);
	sscanf(strstr(line, " flaps ") + 7, "%llu recoveries %llu", &v->flaps,
	       &v->recoveries);
	v->degraded = strstr(line, "DEGRADED");
	v->high_ber = strstr(line, "HIGH-BER");
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait until port's state is want (and, if want_width, its width). */
static bool wait_state(int dev, int port, const char *want, int want_width,
		       double timeout_s, struct port_view *v)
{
	double end = now_s() + timeout_s;

	do {
		if (!read_port(dev, port, v) && !strcmp(v->state, want) &&
		    (!want_width || v->width == want_width))
			return true;
		usleep(50000);
	} while (now_s() < end);
	return false;
}

FIXTURE(link) {
	int ndev;
	int lanes;
};

FIXTURE_SETUP(link)
{
	char v[32];

	if (!npo_test_is_root())
		SKIP(return, "needs root for debugfs");
	self->ndev = npo_test_count_devices();
	NPO_TEST_NEED_RING(2);
	if (access("/sys/kernel/debug/npo/npo0/ports", R_OK))
		SKIP(return, "no link ports");
	ASSERT_EQ(0, npo_test_read_attr("npo0", "lanes_per_port", v, sizeof(v)));
	self->lanes = atoi(v);
}

FIXTURE_TEARDOWN(link)
{
	if (self->ndev >= 2 && !access("/sys/kernel/debug/npo/npo0/fault", W_OK)) {
		int i;

		for (i = 0; i < self->ndev; i++)
			npo_test_fault(i, "clear");
	}
}

static int ring_next(int i, int n)
{
	return (i + 1) % n;
}

static int ring_prev(int i, int n)
{
	return (i + n - 1) % n;
}

TEST_F_TIMEOUT(link, ring_trains_full_width_top_speed, 120)
{
	struct port_view v;
	int i;

	NPO_TEST_SETUP_DONE();
	for (i = 0; i < self->ndev; i++) {
		ASSERT_TRUE(wait_state(i, 0, "active", 0, 20, &v))
			TH_LOG("npo%d port 0: %s", i, v.state);
		EXPECT_STREQ("212G", v.rate);
		EXPECT_EQ(self->lanes, v.width);
		EXPECT_FALSE(v.degraded);
		EXPECT_FALSE(v.high_ber);
		/* Node ids are 1-based: device i is node i + 1. */
		EXPECT_EQ(ring_next(i, self->ndev) + 1, v.peer_node);
		EXPECT_EQ(1, v.peer_port);

		ASSERT_TRUE(wait_state(i, 1, "active", 0, 20, &v));
		EXPECT_EQ(self->lanes, v.width);
		EXPECT_EQ(ring_prev(i, self->ndev) + 1, v.peer_node);
		EXPECT_EQ(0, v.peer_port);
	}
}

TEST_F(link, unconnected_ports_stay_down_quietly)
{
	char log[1 << 16];
	struct port_view v;
	int i;

	NPO_TEST_SETUP_DONE();
	for (i = 0; i < self->ndev; i++) {
		ASSERT_EQ(0, read_port(i, 2, &v));
		EXPECT_STREQ("detect", v.state);
		EXPECT_EQ(-1, v.peer_node);
		EXPECT_EQ(0, v.flaps);
	}
	ASSERT_EQ(0, npo_test_dmesg_since(0, log, sizeof(log)));
	EXPECT_EQ(NULL, strstr(log, "port 2:")) TH_LOG("%s", log);
	EXPECT_EQ(NULL, strstr(log, "port 3:")) TH_LOG("%s", log);
}

TEST_F_TIMEOUT(link, dead_lane_trains_narrower_and_degraded, 120)
{
	struct port_view v, peer;
	size_t mark;
	char log[1 << 16];
	double end;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_state(0, 0, "active", self->lanes, 20, &v));
	mark = npo_test_dmesg_mark();
	ASSERT_EQ(0, npo_test_fault(0, "dead 0 7 1"));
	/* Lanes 0..3 still work both ways: x4, flagged degraded. */
	ASSERT_TRUE(wait_state(0, 0, "active", self->lanes / 2, 10, &v))
		TH_LOG("state %s x%d", v.state, v.width);
	EXPECT_TRUE(v.degraded);
	EXPECT_GE(v.recoveries, 1);
	ASSERT_TRUE(wait_state(1, 1, "active", self->lanes / 2, 10, &peer));
	EXPECT_TRUE(peer.degraded);
	/* The driver logs when it handles the event: soon. */
	end = now_s() + 2;
	do {
		ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
		if (strstr(log, "port 0: link degraded"))
			break;
		usleep(20000);
	} while (now_s() < end);
	EXPECT_NE(NULL, strstr(log, "port 0: link degraded")) TH_LOG("%s", log);
	EXPECT_EQ(0, v.flaps) TH_LOG("a recovery is not a flap");
}

TEST_F_TIMEOUT(link, cut_goes_down_and_restore_retrains, 120)
{
	struct port_view v, peer;
	unsigned long long flaps;
	double end;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_state(1, 1, "active", 0, 20, &peer));
	flaps = peer.flaps;
	ASSERT_EQ(0, npo_test_fault(0, "cut 0 1"));
	ASSERT_TRUE(wait_state(0, 0, "detect", 0, 5, &v)) TH_LOG("%s", v.state);
	/* The peer notices the silence on its own. */
	ASSERT_TRUE(wait_state(1, 1, "detect", 0, 5, &peer))
		TH_LOG("peer %s", peer.state);
	/* The driver counts the flap when it handles the event: soon. */
	end = now_s() + 2;
	while (peer.flaps == flaps && now_s() < end) {
		usleep(20000);
		ASSERT_EQ(0, read_port(1, 1, &peer));
	}
	EXPECT_EQ(flaps + 1, peer.flaps);

	ASSERT_EQ(0, npo_test_fault(0, "cut 0 0"));
	ASSERT_TRUE(wait_state(0, 0, "active", self->lanes, 15, &v))
		TH_LOG("after restore: %s x%d", v.state, v.width);
	ASSERT_TRUE(wait_state(1, 1, "active", self->lanes, 15, &peer));
	EXPECT_EQ(1, peer.peer_node);
	EXPECT_EQ(0, peer.peer_port);
}

TEST_F_TIMEOUT(link, high_ber_is_flagged, 60)
{
	struct port_view v;
	double end;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_state(2, 0, "active", 0, 20, &v));
	/* 2.8e-6: still trains, but above the 1e-6 warning threshold. */
	ASSERT_EQ(0, npo_test_fault(2, "ber 0 3 5.5"));
	end = now_s() + 5;
	do {
		ASSERT_EQ(0, read_port(2, 0, &v));
		if (v.high_ber)
			break;
		usleep(50000);
	} while (now_s() < end);
	EXPECT_TRUE(v.high_ber);
	EXPECT_STREQ("active", v.state);
}

TEST_F_TIMEOUT(link, error_burst_forces_recovery, 60)
{
	struct port_view v;
	unsigned long long before;

	NPO_TEST_SETUP_DONE();
	ASSERT_TRUE(wait_state(3, 0, "active", 0, 20, &v));
	before = v.recoveries;
	ASSERT_EQ(0, npo_test_fault(3, "burst 0 50"));
	usleep(500000);
	ASSERT_TRUE(wait_state(3, 0, "active", 0, 10, &v));
	EXPECT_GT(v.recoveries, before);
	EXPECT_EQ(0, v.flaps);
}

TEST_F(link, bad_fault_commands_rejected)
{
	static char log[1 << 16];
	size_t mark;

	NPO_TEST_SETUP_DONE();
	/* The driver refuses what does not parse, without asking the device. */
	mark = npo_test_dmesg_mark();
	EXPECT_EQ(-EINVAL, npo_test_fault(0, "frobnicate 1 2 3"));
	EXPECT_EQ(-EINVAL, npo_test_fault(0, "ber 0"));
	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	EXPECT_EQ(NULL, strstr(log, "mailbox command 0x20 failed")) TH_LOG("%s", log);
	/*
	 * The device refuses a port or lane it lacks: ARG, which the driver
	 * returns as -EINVAL and logs with the command.
	 */
	mark = npo_test_dmesg_mark();
	EXPECT_EQ(-EINVAL, npo_test_fault(0, "ber 99 0 1"));
	EXPECT_EQ(-EINVAL, npo_test_fault(0, "dead 0 99 1"));
	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "mailbox command 0x20 failed: argument out of range"))
		TH_LOG("%s", log);
}

TEST_HARNESS_MAIN
