// SPDX-License-Identifier: GPL-2.0-only
/*
 * npo-perf in two processes, as perftest runs: a server and a client, each
 * with its own linked device, exchange their blobs over TCP on loopback
 * and measure.  The server, a second process, checks after each size that
 * what the client wrote is in its memory; a ping-pong only finishes if
 * every message reached the other side.  A server whose client is killed
 * mid-run ends with an error instead of hanging.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

#define NPO_PERF	"npo-perf"

FIXTURE(perf) {
	char server_dev[32];
	char client_dev[32];
};

FIXTURE_SETUP(perf)
{
	if (!npo_test_is_root())
		SKIP(return, "needs root (two processes join a job)");
	if (npo_test_count_devices() < 2)
		SKIP(return, "needs two linked NPO devices");
	ASSERT_EQ(0, npo_test_device_name(1, self->server_dev, sizeof(self->server_dev)));
	ASSERT_EQ(0, npo_test_device_name(0, self->client_dev, sizeof(self->client_dev)));
}

FIXTURE_TEARDOWN(perf)
{
}

struct proc {
	pid_t pid;
	int out;		/* its stdout and stderr */
	char text[16384];
	int status;
	double started, ended;	/* wall clock, s: to within 10 ms */
};

/* Start npo-perf with @args (NULL-terminated), output to a pipe. */
static int start(struct proc *p, const char *const *args)
{
	const char *argv[24] = { NPO_PERF };
	int fd[2], i;

	for (i = 0; args[i] && i < 22; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	if (pipe(fd))
		return -1;
	p->started = npo_test_now_s();
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (!p->pid) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		execvp(NPO_PERF, (char *const *)argv);
		_exit(127);
	}
	close(fd[1]);
	p->out = fd[0];
	return 0;
}

/* Wait for it to end (at most @secs), collecting its output. */
static int finish(struct proc *p, int secs)
{
	size_t len = 0;
	ssize_t n;
	int i;

	for (i = 0; i < secs * 100; i++) {
		if (waitpid(p->pid, &p->status, WNOHANG) == p->pid)
			break;
		usleep(10000);
	}
	p->ended = npo_test_now_s();
	if (i == secs * 100) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &p->status, 0);
	}
	while (len < sizeof(p->text) - 1 &&
	       (n = read(p->out, p->text + len, sizeof(p->text) - 1 - len)) > 0)
		len += n;
	p->text[len] = '\0';
	close(p->out);
	return i == secs * 100 ? -ETIMEDOUT : 0;
}

static bool exited_with(const struct proc *p, int code)
{
	return WIFEXITED(p->status) && WEXITSTATUS(p->status) == code;
}

/* A server and its client, to the end: both must succeed. */
/*
 * Whether a TCP socket listens on 127.0.0.1:port, from /proc/net/tcp
 * (state 0A), so that a client started then connects at once, not after
 * its retries.
 */
static bool listening(unsigned int port)
{
	char line[256], want[32];
	bool found = false;
	FILE *f = fopen("/proc/net/tcp", "r");

	snprintf(want, sizeof(want), "0100007F:%04X", port);
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, want) && strstr(line, " 0A ");
	if (f)
		fclose(f);
	return found;
}

static void run_pair(struct __test_metadata *_metadata, struct proc *s,
		     const char *const *server, struct proc *c,
		     const char *const *client)
{
	unsigned int port = 0;
	int i;

	for (i = 0; server[i]; i++)
		if (!strcmp(server[i], "-P") && server[i + 1])
			port = atoi(server[i + 1]);
	ASSERT_EQ(0, start(s, server));
	for (i = 0; port && i < 1000 && !listening(port); i++)
		usleep(10000);
	ASSERT_EQ(0, start(c, client));
	ASSERT_EQ(0, finish(c, 90)) TH_LOG("client: %s", c->text);
	ASSERT_EQ(0, finish(s, 30)) TH_LOG("server: %s", s->text);
	EXPECT_TRUE(exited_with(c, 0)) TH_LOG("client: %s", c->text);
	EXPECT_TRUE(exited_with(s, 0)) TH_LOG("server: %s", s->text);
}

/* The JSON document in @p's output: its last line starting with '{'. */
static struct json_object *doc_of(const struct proc *p)
{
	const char *line = NULL, *at = p->text;

	while (at) {
		if (*at == '{')
			line = at;
		at = strchr(at, '\n');
		if (at)
			at++;
	}
	return line ? json_tokener_parse(line) : NULL;
}

static struct json_object *first_result(struct json_object *doc)
{
	struct json_object *results;

	if (!doc || !json_object_object_get_ex(doc, "results", &results) ||
	    json_object_array_length(results) != 1)
		return NULL;
	return json_object_array_get_idx(results, 0);
}

static double num(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ?
	       json_object_get_double(v) : -1;
}

/*
 * The client's writes land in the server's memory, checked there by the
 * server after each size: a write that did not land, landed short or
 * in the wrong place fails the run.
 */
TEST_F_TIMEOUT(perf, bandwidth_between_two_processes_lands_verified, 120)
{
	const char *server[] = { "-d", self->server_dev, "-S", "-P", "18601",
				 "-B", "127.0.0.1", "-j", NULL };
	const char *client[] = { "-d", self->client_dev, "-C", "127.0.0.1",
				 "-P", "18601", "-j", "-s", "64K", "-n", "64",
				 "-t", "8", "write", "bw", NULL };
	struct json_object *sdoc, *cdoc, *r;
	struct proc s, c;

	NPO_TEST_SETUP_DONE();
	run_pair(_metadata, &s, server, &c, client);
	cdoc = doc_of(&c);
	sdoc = doc_of(&s);
	ASSERT_NE(NULL, cdoc) TH_LOG("client: %s", c.text);
	ASSERT_NE(NULL, sdoc) TH_LOG("server: %s", s.text);
	EXPECT_EQ(2, num(cdoc, "processes"));
	EXPECT_EQ(1, num(sdoc, "sizes_served"));
	r = first_result(cdoc);
	EXPECT_EQ(65536, num(r, "bytes"));
	EXPECT_EQ(64, num(r, "iterations"));
	EXPECT_LT(0, num(r, "bw_gbps"));
	json_object_put(cdoc);
	json_object_put(sdoc);
}

/* A ping-pong of n 8 B round trips; the client's wall clock, in s. */
static double pingpong(struct __test_metadata *_metadata, const char *sdev,
		       const char *cdev, const char *port, const char *n,
		       struct json_object **cdoc)
{
	const char *server[] = { "-d", sdev, "-S", "-P", port, "-B",
				 "127.0.0.1", NULL };
	const char *client[] = { "-d", cdev, "-C", "127.0.0.1", "-P", port,
				 "-j", "-s", "8", "-n", n, "write", "lat",
				 NULL };
	struct proc s, c;

	*cdoc = NULL;
	run_pair(_metadata, &s, server, &c, client);
	EXPECT_NE(NULL, strstr(s.text, "served 1 sizes of write_lat")) TH_LOG("%s", s.text);
	*cdoc = doc_of(&c);
	EXPECT_NE(NULL, *cdoc) TH_LOG("client: %s", c.text);
	return c.ended - c.started;
}

/*
 * Ping-pong: each message must reach the other process before the next
 * goes, so 2000 round trips finishing is 4000 writes delivered in order.
 * The figure is half a round trip, as ib_write_lat's: checked against the
 * client's wall clock, not the program's word.  The difference between a
 * run of 2000 round trips and a run of one is 1999 round trips (setting
 * up costs both the same); the mean the client reports, doubled, must be
 * that round trip to within 40 %: a full round trip reported would be
 * twice it, a quarter half of it.
 */
TEST_F_TIMEOUT(perf, pingpong_latency_is_half_a_round_trip, 240)
{
	struct json_object *one, *many, *r;
	double wall_one, wall_many, rtt_us, half_us;

	NPO_TEST_SETUP_DONE();
	wall_one = pingpong(_metadata, self->server_dev, self->client_dev,
			    "18604", "1", &one);
	wall_many = pingpong(_metadata, self->server_dev, self->client_dev,
			     "18602", "2000", &many);
	ASSERT_NE(NULL, many);
	r = first_result(many);
	EXPECT_EQ(2000, num(r, "iterations"));
	EXPECT_LT(0, num(r, "lat_min_us"));
	EXPECT_LE(num(r, "lat_min_us"), num(r, "lat_median_us"));
	EXPECT_LE(num(r, "lat_median_us"), num(r, "lat_p99_us"));
	rtt_us = (wall_many - wall_one) / 1999 * 1e6;
	half_us = num(r, "lat_avg_us");
	TH_LOG("client wall clock: 2000 round trips %.2f s, one %.2f s: "
	       "%.1f us a round trip; mean reported %.1f us", wall_many,
	       wall_one, rtt_us, half_us);
	EXPECT_LT(0.6 * rtt_us / 2, half_us);
	EXPECT_GT(1.4 * rtt_us / 2, half_us);
	json_object_put(one);
	json_object_put(many);
}

/*
 * The client is killed in the middle of a ping-pong: the server says the
 * peer stopped (or that its write to the client's gone memory failed)
 * and exits 1 within its 10 s timeout; nothing hangs.
 */
TEST_F_TIMEOUT(perf, a_server_whose_client_is_killed_ends_with_an_error, 120)
{
	const char *server[] = { "-d", self->server_dev, "-S", "-P", "18603",
				 "-B", "127.0.0.1", NULL };
	const char *client[] = { "-d", self->client_dev, "-C", "127.0.0.1",
				 "-P", "18603", "-s", "8", "-n", "2000000",
				 "write", "lat", NULL };
	struct proc s, c;
	double t0;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, start(&s, server));
	ASSERT_EQ(0, start(&c, client));
	/* Under way first: a debug kernel's lane takes longer to get there. */
	sleep(3 * npo_test_time_scale());
	kill(c.pid, SIGKILL);
	finish(&c, 10);
	t0 = npo_test_now_s();
	ASSERT_EQ(0, finish(&s, 30 * npo_test_time_scale()))
		TH_LOG("server: %s", s.text);
	EXPECT_GT(20 * npo_test_time_scale(), npo_test_now_s() - t0);
	EXPECT_TRUE(exited_with(&s, 1)) TH_LOG("server: %s", s.text);
	/* Silence, or its own write into the dead client's memory failing. */
	EXPECT_TRUE(strstr(s.text, "the peer stopped answering") ||
		    strstr(s.text, "no such region")) TH_LOG("%s", s.text);
}

TEST_HARNESS_MAIN
