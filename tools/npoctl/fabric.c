// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl fabric: the acceptance test of this host's links before a job
 * runs on them, and the merging of several hosts' reports.
 *
 * The test, for every link with an end on this host: a PRBS run on every
 * lane of both ends at once (the link is out of service meanwhile), the
 * optics against the thresholds the modules publish, a bandwidth and a
 * latency run through the DMA queues when both ends are on this host (the
 * completions name the port the data left by, so a run that took another
 * path is not counted for this link), the port counters during the runs,
 * and the clocks of both ends.  The verdict and the ranking are
 * fabric_report.c's.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <npo_datapath.h>

#include "fabric.h"
#include "nl.h"
#include "npoctl.h"
#include "print.h"

#define MAX_PORTS	1024
#define MAX_DEVS	256
/* Data runs: writes of CHUNK bytes, DEPTH in flight, over a region of
 * REGION bytes that the last pass leaves equal to the source. */
#define CHUNK		(1u << 20)
#define REGION		(8u << 20)
#define DEPTH		8
#define BW_RUNS		3
#define BW_RUN_MIN_S	0.1
/* Round trips: LAT_ROUNDS rounds, one before each timed bandwidth run
 * and one after the last, each of LAT_WARMUP + LAT_PER_ROUND writes. */
#define LAT_ROUNDS	(BW_RUNS + 1)
#define LAT_WARMUP	5
#define LAT_PER_ROUND	50
#define LAT_SAMPLES	(LAT_ROUNDS * LAT_PER_ROUND)
/* Passes of a link's data run, at most, before it is called slow. */
#define SPEED_PASSES	3
#define CQE_TIMEOUT_MS	5000
/* How long links may take to retrain after their PRBS run. */
#define LINK_RETRAIN_S	30
/* How long clocks may take to lock again, after a PRBS run say. */
#define CLOCK_RELOCK_S	30

struct port_info {
	uint32_t dev, node, port, state;
	uint32_t rate, width, max_rate, max_width;
	uint32_t target_rate, target_width;	/* an administrator's limit; 0: none */
	bool has_peer;
	uint32_t peer_node, peer_port;
	char name[32];
	bool has_tx_bytes;
	uint64_t crc, uncorrectable, link_downs, tx_bytes;
};

struct ports {
	struct port_info p[MAX_PORTS];
	int n;
};

struct clocks {
	uint32_t state[MAX_DEVS], role[MAX_DEVS];
	bool known[MAX_DEVS];
};

/* Locked, or handed to user space, whose sync the driver does not judge. */
static bool clock_ok(const struct clocks *c, uint32_t dev)
{
	return c->state[dev] == NPO_CLOCK_LOCKED ||
	       c->role[dev] == NPO_CLOCK_ROLE_USER;
}

struct fabric_opts {
	uint32_t prbs_ms;
	uint64_t bytes;
	struct fabric_limits lim;
};

static void fabric_usage(FILE *to)
{
	fprintf(to,
		"Usage: npoctl fabric test [ duration MS ] [ no-prbs ] [ bytes N ]\n"
		"                          [ slow-ratio R ] [ latency-ratio R ] [ min-efficiency E ]\n"
		"       npoctl fabric merge [ slow-ratio R ] [ latency-ratio R ]\n"
		"                           [ min-efficiency E ] REPORT.json...\n"
		"       npoctl fabric key { show | add | send | del } ...\n");
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int on_port(struct nlattr **tb, UNUSED struct nlattr *attrs,
		   UNUSED int len, uint8_t cmd, void *arg)
{
	struct ports *ps = arg;
	struct npo_nl_port np;
	struct port_info *p;

	if (cmd != NPO_CMD_PORT_GET || ps->n == MAX_PORTS)
		return 0;
	npo_nl_port_decode(tb, &np);
	p = &ps->p[ps->n++];
	*p = (struct port_info) {
		.dev = np.dev,
		.node = np.node_id,
		.port = np.port,
		.state = np.state,
		.rate = np.rate_mbps,
		.width = np.width,
		.max_rate = np.max_rate_mbps,
		.max_width = np.max_width,
		.target_rate = np.target_rate_mbps,
		.target_width = np.target_width,
		.has_peer = np.peer_node >= 0,
		.peer_node = np.peer_node >= 0 ? np.peer_node : 0,
		.peer_port = np.peer_port >= 0 ? np.peer_port : 0,
		.crc = np.counter[NPO_ATTR_CNT_CRC_ERRORS],
		.uncorrectable = np.counter[NPO_ATTR_CNT_FEC_UNCORRECTABLE],
		.link_downs = np.counter[NPO_ATTR_CNT_LINK_DOWNS],
		.has_tx_bytes = np.has_traffic,
		.tx_bytes = np.tx_bytes,
	};
	snprintf(p->name, sizeof(p->name), "%s", np.dev_name[0] ? np.dev_name : "?");
	return 0;
}

static int get_ports(struct npo_nl *nl, struct ports *ps)
{
	ps->n = 0;
	return npo_nl_dump(nl, NPO_CMD_PORT_GET, -1, on_port, ps);
}

static const struct port_info *find_port(const struct ports *ps, uint32_t node,
					 uint32_t port)
{
	int i;

	for (i = 0; i < ps->n; i++)
		if (ps->p[i].node == node && ps->p[i].port == port)
			return &ps->p[i];
	return NULL;
}

static int on_clock(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, void *arg)
{
	struct clocks *c = arg;
	struct npo_nl_clock nc;

	if (cmd != NPO_CMD_CLOCK_GET || !tb[NPO_ATTR_DEV_INDEX])
		return 0;
	npo_nl_clock_decode(tb, &nc);
	if (nc.dev >= MAX_DEVS)
		return 0;
	c->state[nc.dev] = nc.state;
	c->role[nc.dev] = nc.role;
	c->known[nc.dev] = true;
	return 0;
}

/*
 * A PRBS run (or a retrain just before the test) takes links out of
 * service, and time sync with them: give the clocks the time they need to
 * lock again before judging them.
 */
static int wait_clocks(struct npo_nl *nl, struct clocks *c, unsigned int secs)
{
	double deadline = now_s() + secs;

	for (;;) {
		bool all = true;
		int err, i;

		memset(c, 0, sizeof(*c));
		err = npo_nl_dump(nl, NPO_CMD_CLOCK_GET, -1, on_clock, c);
		if (err)
			return err;
		for (i = 0; i < MAX_DEVS; i++)
			all &= !c->known[i] || clock_ok(c, i);
		if (all || now_s() >= deadline)
			return 0;
		usleep(200000);
	}
}

/* The links with an end here; a link with both ends here appears once. */
static int build_links(const struct ports *ps, struct fabric_report *r)
{
	int i;

	r->links = calloc(ps->n + 1, sizeof(*r->links));
	if (!r->links)
		return -ENOMEM;
	for (i = 0; i < ps->n; i++) {
		const struct port_info *p = &ps->p[i], *q;
		struct fabric_link *l;

		if (!p->has_peer)
			continue;
		q = find_port(ps, p->peer_node, p->peer_port);
		if (q && q->has_peer && q->peer_node == p->node &&
		    q->peer_port == p->port && q < p)
			continue;	/* seen from its other end */
		l = &r->links[r->n++];
		l->a.node = p->node;
		l->a.port = p->port;
		l->b.node = p->peer_node;
		l->b.port = p->peer_port;
		l->a.measured = true;
		l->b.measured = q && q->has_peer && q->peer_node == p->node &&
				q->peer_port == p->port;
	}
	return 0;
}

/* --- PRBS, every end at once --------------------------------------------- */

struct prbs_job {
	uint32_t dev, port, ms;
	pthread_t thread;
	bool started;
	int err;
	char errmsg[96];
	struct npo_prbs_counts before, after;
};

static struct nl_msg *port_msg(struct npo_nl *nl, uint8_t cmd, uint32_t dev,
			       uint32_t port)
{
	struct nl_msg *msg = npo_nl_msg(nl, cmd, 0);

	if (msg) {
		nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
		nla_put_u32(msg, NPO_ATTR_PORT_INDEX, port);
	}
	return msg;
}

static void *prbs_run(void *arg)
{
	struct prbs_job *j = arg;
	struct nl_msg *msg;
	struct npo_nl nl;

	j->err = -EIO;
	if (npoctl_nl_open(&nl)) {
		snprintf(j->errmsg, sizeof(j->errmsg), "cannot reach the driver");
		return NULL;
	}
	msg = port_msg(&nl, NPO_CMD_LANE_GET, j->dev, j->port);
	j->err = msg ? npo_nl_request(&nl, msg, npo_nl_on_prbs, &j->before) : -ENOMEM;
	if (!j->err) {
		msg = port_msg(&nl, NPO_CMD_PORT_TEST, j->dev, j->port);
		if (msg)
			nla_put_u32(msg, NPO_ATTR_TEST_DURATION_MS, j->ms);
		j->err = msg ? npo_nl_request(&nl, msg, npo_nl_on_prbs, &j->after) :
			 -ENOMEM;
	}
	if (j->err) {
		char buf[64];

		/* strerror() is not for threads. */
		snprintf(j->errmsg, sizeof(j->errmsg), "%.90s", nl.errmsg[0] ?
			 nl.errmsg : strerror_r(-j->err, buf, sizeof(buf)));
	}
	npo_nl_close(&nl);
	return NULL;
}

static void end_dev_port(const struct ports *ps, const struct fabric_end *e,
			 uint32_t *dev, uint32_t *port)
{
	const struct port_info *p = find_port(ps, e->node, e->port);

	*dev = p ? p->dev : 0;
	*port = e->port;
}

static bool link_active(const struct ports *ps, const struct fabric_link *l)
{
	const struct port_info *a = find_port(ps, l->a.node, l->a.port);
	const struct port_info *b = l->b.measured ?
				    find_port(ps, l->b.node, l->b.port) : NULL;

	return a && a->state == NPO_PORT_ACTIVE &&
	       (!l->b.measured || (b && b->state == NPO_PORT_ACTIVE));
}

/*
 * Start every end's test together: each end's checker counts the other
 * end's pattern, so both directions are tested in one test's time.
 */
static int run_prbs(struct npo_nl *nl, struct ports *ps, struct fabric_report *r,
		    uint32_t ms, struct prbs_job **jobs_out, size_t *njobs)
{
	struct prbs_job *jobs = calloc(2 * r->n + 1, sizeof(*jobs));
	bool *tested = calloc(r->n + 1, sizeof(*tested));
	size_t i, n = 0;
	double deadline;

	if (!jobs || !tested) {
		free(jobs);
		free(tested);
		return -ENOMEM;
	}
	for (i = 0; i < r->n; i++) {
		struct fabric_link *l = &r->links[i];

		tested[i] = link_active(ps, l);
		if (!tested[i])
			continue;
		end_dev_port(ps, &l->a, &jobs[n].dev, &jobs[n].port);
		jobs[n++].ms = ms;
		if (l->b.measured) {
			end_dev_port(ps, &l->b, &jobs[n].dev, &jobs[n].port);
			jobs[n++].ms = ms;
		}
	}
	if (!print_is_json())
		fprintf(stderr, "%s: PRBS on %zu ports for %u ms; their links are out of service\n",
			progname, n, ms);
	for (i = 0; i < n; i++)
		jobs[i].started = !pthread_create(&jobs[i].thread, NULL,
						   prbs_run, &jobs[i]);
	for (i = 0; i < n; i++) {
		if (jobs[i].started) {
			pthread_join(jobs[i].thread, NULL);
			continue;
		}
		jobs[i].err = -EAGAIN;
		snprintf(jobs[i].errmsg, sizeof(jobs[i].errmsg),
			 "could not start a thread for it");
	}
	*jobs_out = jobs;
	*njobs = n;
	/* The tested links retrain after the test: wait for them to come back. */
	deadline = now_s() + LINK_RETRAIN_S + 2 * ms / 1000.0;
	for (;;) {
		bool all = true;
		int err = get_ports(nl, ps);

		if (err) {
			free(tested);
			return err;
		}
		for (i = 0; i < r->n; i++)
			all &= !tested[i] || link_active(ps, &r->links[i]);
		if (all || now_s() > deadline) {
			free(tested);
			return 0;
		}
		usleep(100000);
	}
}

static const struct prbs_job *find_job(const struct prbs_job *jobs, size_t n,
				       uint32_t dev, uint32_t port)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (jobs[i].dev == dev && jobs[i].port == port)
			return &jobs[i];
	return NULL;
}

/* --- what each end sees --------------------------------------------------- */

static int on_lanes(UNUSED struct nlattr **tb, struct nlattr *attrs, int len,
		    UNUSED uint8_t cmd, void *arg)
{
	struct fabric_end *e = arg;
	struct nlattr *lane;
	int rem;

	e->nlanes = 0;
	nla_for_each_attr(lane, attrs, len, rem) {
		struct nlattr *lt[NPO_ATTR_MAX + 1];
		struct fabric_lane *ln;
		uint32_t flags;

		if (nla_type(lane) != NPO_ATTR_LANE || e->nlanes == FABRIC_MAX_LANES ||
		    nla_parse_nested(lt, NPO_ATTR_MAX, lane, NULL))
			continue;
		ln = &e->lane[e->nlanes++];
		flags = get_u32(lt, NPO_ATTR_LANE_FLAGS, 0);
		ln->index = get_u32(lt, NPO_ATTR_LANE_INDEX, e->nlanes - 1);
		ln->los = flags & NPO_LANE_FLAG_LOS;
		ln->active = flags & NPO_LANE_FLAG_ACTIVE;
		ln->rx_dbm = (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_POWER, 0) / 100.0;
		ln->has_ber = lt[NPO_ATTR_LANE_BER];
		ln->ber = get_ber(lt, NPO_ATTR_LANE_BER);
		/* Thresholds read 0 while no firmware runs: none published. */
		ln->has_limits = lt[NPO_ATTR_LANE_RX_LOW_WARN] &&
				 get_u32(lt, NPO_ATTR_LANE_BER_ALARM, 0);
		if (!ln->has_limits)
			continue;
		ln->rx_warn_dbm = (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_LOW_WARN, 0) / 100.0;
		ln->rx_alarm_dbm = (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_LOW_ALARM, 0) / 100.0;
		ln->ber_warn = get_ber(lt, NPO_ATTR_LANE_BER_WARN);
		ln->ber_alarm = get_ber(lt, NPO_ATTR_LANE_BER_ALARM);
	}
	return 0;
}

static void fill_end(struct npo_nl *nl, const struct ports *ps,
		     const struct clocks *clk, const struct prbs_job *jobs,
		     size_t njobs, const char *host, struct fabric_end *e)
{
	const struct port_info *p = find_port(ps, e->node, e->port);
	const struct prbs_job *j;
	struct nl_msg *msg;
	unsigned int i;
	int err;

	if (!p) {
		snprintf(e->error, sizeof(e->error), "the port is gone");
		return;
	}
	snprintf(e->device, sizeof(e->device), "%s", p->name);
	snprintf(e->host, sizeof(e->host), "%s", host);
	if (p->dev < MAX_DEVS && clk->known[p->dev]) {
		e->clock_locked = clock_ok(clk, p->dev);
		snprintf(e->clock, sizeof(e->clock), "%s",
			 clk->role[p->dev] == NPO_CLOCK_ROLE_USER ? "user" :
			 npo_clock_state_str(clk->state[p->dev]));
	} else {
		snprintf(e->clock, sizeof(e->clock), "unknown");
	}
	msg = port_msg(nl, NPO_CMD_LANE_GET, p->dev, p->port);
	err = msg ? npo_nl_request(nl, msg, on_lanes, e) : -ENOMEM;
	if (err) {
		e->nlanes = 0;
		snprintf(e->error, sizeof(e->error), "its lanes cannot be read: %.60s",
			 nl->errmsg[0] ? nl->errmsg : strerror(-err));
		return;
	}
	j = find_job(jobs, njobs, p->dev, p->port);
	if (!j)
		return;
	if (j->err) {
		snprintf(e->error, sizeof(e->error), "PRBS test: %.80s", j->errmsg);
		return;
	}
	for (i = 0; i < e->nlanes; i++) {
		struct fabric_lane *ln = &e->lane[i];

		ln->prbs_run = ln->index < NPO_NL_PRBS_LANES &&
			       j->after.seen & (1ull << ln->index);
		npo_prbs_delta(&j->before, &j->after, ln->index, &ln->prbs_bits,
			       &ln->prbs_errors);
	}
}

/* A port's best, or less when an administrator set a target below it. */
static uint32_t port_rate_limit(const struct port_info *p)
{
	return p->target_rate && p->target_rate < p->max_rate ? p->target_rate :
	       p->max_rate;
}

static uint32_t port_width_limit(const struct port_info *p)
{
	return p->target_width && p->target_width < p->max_width ?
	       p->target_width : p->max_width;
}

static void fill_link(const struct ports *ps, struct fabric_link *l)
{
	const struct port_info *a = find_port(ps, l->a.node, l->a.port);
	const struct port_info *b = l->b.measured ?
				    find_port(ps, l->b.node, l->b.port) : NULL;

	l->active = link_active(ps, l);
	snprintf(l->state, sizeof(l->state), "%s", npo_port_state_str(
		 a && a->state != NPO_PORT_ACTIVE ? a->state :
		 b ? b->state : a ? a->state : NPO_PORT_DISABLED));
	if (!a)
		return;
	l->rate_mbps = a->rate;
	l->width = a->width;
	/* What both ends can do, and may, is what the link could train to. */
	l->max_rate_mbps = port_rate_limit(a);
	l->max_width = port_width_limit(a);
	if (b) {
		if (port_rate_limit(b) < l->max_rate_mbps)
			l->max_rate_mbps = port_rate_limit(b);
		if (port_width_limit(b) < l->max_width)
			l->max_width = port_width_limit(b);
	}
}

/* Counters over the data runs: what a port counted since 'then'. */
static void count_errors(const struct ports *then, const struct ports *now,
			 struct fabric_end *e)
{
	const struct port_info *p0 = find_port(then, e->node, e->port);
	const struct port_info *p1 = find_port(now, e->node, e->port);

	if (!e->measured || !p0 || !p1)
		return;
	/* Counters cleared meanwhile start again from 0. */
	e->crc_errors = p1->crc - (p1->crc >= p0->crc ? p0->crc : 0);
	e->uncorrectable = p1->uncorrectable -
			   (p1->uncorrectable >= p0->uncorrectable ? p0->uncorrectable : 0);
	e->link_downs = p1->link_downs -
			(p1->link_downs >= p0->link_downs ? p0->link_downs : 0);
}

/* --- data runs through the queues ---------------------------------------- */

struct data_run {
	struct npo_device *ldev, *rdev;
	struct npo_queue *q;
	struct npo_mr *lmr, *rmr;
	void *src, *dst;
	uint32_t dest_node, port;
	char *why, *why_end;
	size_t whylen;
};

static void *alloc_region(void)
{
	void *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* One completion; its status and port checked. */
static int reap(struct data_run *d)
{
	struct npo_cqe *cqe;
	char desc[160];
	int err = npo_wait_cqe(d->q, &cqe, CQE_TIMEOUT_MS);

	if (err) {
		snprintf(d->why, d->whylen, "no completion: %s", strerror(-err));
		return err;
	}
	if (cqe->status) {
		snprintf(d->why, d->whylen, "%s",
			 npo_cqe_describe(d->q, cqe, desc, sizeof(desc)));
		npo_cq_advance(d->q, 1);
		return -EIO;
	}
	if (cqe->port != d->port) {
		snprintf(d->why, d->whylen,
			 cqe->port == NPO_CQE_PORT_NONE ?
			 "traffic to node %u stays in the device, not on this link" :
			 "traffic to node %u leaves by port %u, not this link",
			 d->dest_node, cqe->port);
		npo_cq_advance(d->q, 1);
		return -EXDEV;
	}
	npo_cq_advance(d->q, 1);
	return 0;
}

static int post_write(struct data_run *d, uint64_t off, uint32_t len)
{
	struct npo_sqe *sqe = npo_get_sqe(d->q);

	if (!sqe)
		return -ENOSPC;
	npo_prep_write(sqe, off, npo_mr_lkey(d->lmr), (char *)d->src + off, len,
		       d->dest_node, npo_mr_rkey(d->rmr), (uintptr_t)d->dst + off);
	npo_submit(d->q);
	return 0;
}

/*
 * Writes of CHUNK bytes, DEPTH in flight, cycling over the region: at
 * least n of them, and for at least min_s seconds, so that one stall of
 * the host (a timer tick, another process) is a small part of the run.
 */
static int write_stream(struct data_run *d, uint64_t n, double min_s,
			uint64_t *written, double *secs)
{
	uint64_t posted = 0, done = 0;
	double t0 = now_s();
	int err;

	for (;;) {
		while (posted - done < DEPTH &&
		       (posted < n || now_s() - t0 < min_s)) {
			err = post_write(d, (posted % (REGION / CHUNK)) * CHUNK, CHUNK);
			if (err)
				return err;
			posted++;
		}
		if (done == posted)
			break;
		err = reap(d);
		if (err)
			return err;
		done++;
	}
	*written = done * CHUNK;
	*secs = now_s() - t0;
	return 0;
}

/*
 * LAT_PER_ROUND round trips of an 8-byte write after LAT_WARMUP untimed
 * ones: their median goes into round_median, every sample into t.
 */
static int latency_round(struct data_run *d, double *t, double *round_median)
{
	double r[LAT_PER_ROUND];
	unsigned int i;
	int err = 0;

	for (i = 0; i < LAT_WARMUP + LAT_PER_ROUND && !err; i++) {
		double t0 = now_s();

		err = post_write(d, 0, 8);
		if (!err)
			err = reap(d);
		if (!err && i >= LAT_WARMUP)
			r[i - LAT_WARMUP] = (now_s() - t0) * 1e6;
	}
	if (err)
		return err;
	memcpy(t, r, sizeof(r));
	*round_median = fabric_median(r, LAT_PER_ROUND);
	return 0;
}

/*
 * One untimed pass over the whole region first (it also leaves the far
 * end's copy complete, for the data check), then BW_RUNS timed runs of a
 * share of the bytes each (and BW_RUN_MIN_S at least): the median, with
 * the spread.  A round of round trips goes before each timed run and
 * after the last.  A link's round trip is the lowest round's median:
 * a slow link is slow in every round, while a stall of the host (a
 * timer, another process, an emulator's thread) spoils one round, not
 * the verdict.  The 99th percentile is over every round's samples.
 */
static int measure(struct data_run *d, uint64_t bytes, struct fabric_link *l)
{
	uint64_t n = (bytes / BW_RUNS + CHUNK - 1) / CHUNK, written;
	double secs, gbps[BW_RUNS], lat_med[LAT_ROUNDS];
	double *t = calloc(LAT_SAMPLES, sizeof(*t));
	unsigned int i;
	int err;

	if (!t)
		return -ENOMEM;
	err = write_stream(d, REGION / CHUNK, 0, &written, &secs);
	for (i = 0; i < LAT_ROUNDS && !err; i++) {
		err = latency_round(d, t + i * LAT_PER_ROUND, &lat_med[i]);
		if (err || i == BW_RUNS)
			break;
		err = write_stream(d, n, BW_RUN_MIN_S, &written, &secs);
		gbps[i] = written * 8.0 / secs / 1e9;
	}
	if (!err) {
		qsort(gbps, BW_RUNS, sizeof(gbps[0]), fabric_cmp_double);
		l->bandwidth_gbps = gbps[BW_RUNS / 2];
		l->bandwidth_min_gbps = gbps[0];
		l->bandwidth_max_gbps = gbps[BW_RUNS - 1];
		qsort(lat_med, LAT_ROUNDS, sizeof(lat_med[0]), fabric_cmp_double);
		l->latency_us = lat_med[0];
		qsort(t, LAT_SAMPLES, sizeof(*t), fabric_cmp_double);
		l->latency_p99_us = t[LAT_SAMPLES * 99 / 100];
	}
	free(t);
	return err;
}

static void data_close(struct data_run *d)
{
	if (d->q)
		npo_destroy_queue(d->q);
	if (d->lmr)
		npo_dereg_mr(d->lmr);
	if (d->rmr)
		npo_dereg_mr(d->rmr);
	if (d->rdev && d->rdev != d->ldev)
		npo_close_device(d->rdev);
	if (d->ldev)
		npo_close_device(d->ldev);
	if (d->src)
		munmap(d->src, REGION);
	if (d->dst)
		munmap(d->dst, REGION);
}

static void data_runs(const struct ports *ps, struct fabric_link *l,
		      uint64_t bytes)
{
	const struct port_info *a = find_port(ps, l->a.node, l->a.port);
	const struct port_info *b = find_port(ps, l->b.node, l->b.port);
	struct npo_queue_attr qa = { .sq_entries = 64 };
	struct data_run d = {
		.dest_node = l->b.node, .port = l->a.port,
		.why = l->why_not, .whylen = sizeof(l->why_not),
	};
	uint64_t *w;
	size_t i;
	int err;

	if (!l->b.measured) {
		snprintf(l->why_not, sizeof(l->why_not),
			 "the far end is on another host");
		return;
	}
	if (!l->active || !a || !b) {
		snprintf(l->why_not, sizeof(l->why_not), "the link is down");
		return;
	}
	if (a->dev == b->dev) {
		/* Data for the device's own node never leaves it. */
		snprintf(l->why_not, sizeof(l->why_not),
			 "a loopback cable: both ends on %s", a->name);
		return;
	}
	/* From here on, a run that does not finish is a failed test. */
	l->data_failed = true;
	d.ldev = npo_open_device(a->name);
	d.rdev = d.ldev ? npo_open_device(b->name) : NULL;
	d.src = alloc_region();
	d.dst = alloc_region();
	if (!d.ldev || !d.rdev || !d.src || !d.dst) {
		snprintf(l->why_not, sizeof(l->why_not), "cannot open %s and %s: %s",
			 a->name, b->name, strerror(errno));
		goto out;
	}
	/* A pattern of this link's own, so that another's data is noticed. */
	w = d.src;
	for (i = 0; i < REGION / sizeof(*w); i++)
		w[i] = (i * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)l->a.node << 48 |
						      (uint64_t)l->a.port << 40);
	err = npo_reg_mr(d.ldev, d.src, REGION, NPO_ACCESS_LOCAL_WRITE, &d.lmr);
	if (!err)
		err = npo_reg_mr(d.rdev, d.dst, REGION,
				 NPO_ACCESS_LOCAL_WRITE | NPO_ACCESS_REMOTE_WRITE,
				 &d.rmr);
	if (!err)
		err = npo_create_queue(d.ldev, &qa, &d.q);
	if (err) {
		snprintf(l->why_not, sizeof(l->why_not), "setting up: %s",
			 strerror(-err));
		goto out;
	}
	if (measure(&d, bytes, l))
		goto out;
	l->data_run = true;
	l->data_failed = false;
	l->data_ok = !memcmp(d.src, d.dst, REGION);
	l->data_passes = 1;
out:
	data_close(&d);
}

/*
 * A link whose data run makes it look slow, or slow to answer, is
 * measured again before it is blamed, up to SPEED_PASSES times in all,
 * and keeps its best bandwidth and round trip: a link's own fault shows
 * in every pass, while a stall of the host in one pass (another
 * process, a timer, an emulator's thread) is not the link's.  A pass
 * that fails or corrupts data counts as it is.
 */
static void confirm_outliers(const struct ports *ps, struct fabric_report *r,
			     const struct fabric_opts *o)
{
	unsigned int pass;
	size_t i;

	for (pass = 1; pass < SPEED_PASSES; pass++) {
		bool again = false;

		for (i = 0; i < r->n; i++) {
			struct fabric_link *l = &r->links[i], m = *l;

			if (l->data_passes != pass ||
			    !fabric_speed_outlier(r, l, &o->lim))
				continue;
			again = true;
			/* The pass starts afresh: its own outcome, not the first's. */
			m.data_run = m.data_ok = m.data_failed = false;
			m.why_not[0] = '\0';
			data_runs(ps, &m, o->bytes);
			if (!m.data_run || m.data_failed || !m.data_ok) {
				m.data_passes = pass + 1;
				*l = m;
				continue;
			}
			l->data_passes = pass + 1;
			if (m.bandwidth_gbps > l->bandwidth_gbps) {
				l->bandwidth_gbps = m.bandwidth_gbps;
				l->bandwidth_min_gbps = m.bandwidth_min_gbps;
				l->bandwidth_max_gbps = m.bandwidth_max_gbps;
			}
			if (m.latency_us < l->latency_us) {
				l->latency_us = m.latency_us;
				l->latency_p99_us = m.latency_p99_us;
			}
		}
		if (!again)
			break;
	}
}

/* --- output --------------------------------------------------------------- */

static void end_name(const struct fabric_end *e, char *buf, size_t len)
{
	if (e->measured)
		snprintf(buf, len, "node %u/%u (%s)", e->node, e->port, e->device);
	else
		snprintf(buf, len, "node %u/%u (remote)", e->node, e->port);
}

static void print_text_report(const struct fabric_report *r, size_t failed)
{
	size_t i;

	printf("%-4s  %-22s    %-22s  %-10s  %9s  %5s  %9s  %s\n", "RANK", "END",
	       "END", "SPEED", "BW(Gb/s)", "EFF", "RTT(us)", "RESULT");
	for (i = 0; i < r->n; i++) {
		const struct fabric_link *l = &r->links[i];
		char a[48], b[48], speed[24], bw[16] = "-", eff[8] = "-", lat[16] = "-";
		unsigned int k;

		end_name(&l->a, a, sizeof(a));
		end_name(&l->b, b, sizeof(b));
		snprintf(speed, sizeof(speed), "%s x%u",
			 l->active ? npo_lane_rate_str(l->rate_mbps) : "-", l->width);
		if (l->data_run && l->data_ok) {
			snprintf(bw, sizeof(bw), "%.3g", l->bandwidth_gbps);
			snprintf(eff, sizeof(eff), "%.0f%%", 100 * l->bandwidth_gbps /
				 fabric_capacity_gbps(l));
			snprintf(lat, sizeof(lat), "%.1f", l->latency_us);
		}
		printf("%-4zu  %-22s -- %-22s  %-10s  %9s  %5s  %9s  %s\n", i + 1, a, b,
		       speed, bw, eff, lat, l->nreasons ? "FAIL" : "pass");
		for (k = 0; k < l->nreasons; k++)
			printf("      %s: %s\n", fabric_reason_str(l->reason[k].kind),
			       l->reason[k].text);
		if (!l->data_run && !l->data_failed && l->why_not[0] && l->active)
			printf("      (no data run: %s)\n", l->why_not);
	}
	printf("%zu of %zu links failed\n", failed, r->n);
}

static int report(struct fabric_report *r, const struct fabric_limits *lim)
{
	size_t failed = fabric_judge(r, lim);

	if (print_is_json())
		print_json(NULL, fabric_to_json(r));
	else
		print_text_report(r, failed);
	/* Documented in npoctl-fabric(8): a failed link is exit 1. */
	return failed ? NPOCTL_EXIT_ERROR : NPOCTL_EXIT_OK;
}

/* --- commands ------------------------------------------------------------- */

static int fabric_test(struct fabric_opts *o)
{
	struct fabric_report r = { .prbs_ms = o->prbs_ms, .hosts = 1 };
	struct prbs_job *jobs = NULL;
	struct ports *ps, *before;
	struct clocks clk = { 0 };
	char host[64] = "";
	size_t njobs = 0, i;
	struct npo_nl nl;
	int err;

	ps = calloc(1, sizeof(*ps));
	before = calloc(1, sizeof(*before));
	if (!ps || !before) {
		free(ps);
		free(before);
		npoctl_err("fabric test: %s", strerror(ENOMEM));
		return NPOCTL_EXIT_ERROR;
	}
	gethostname(host, sizeof(host) - 1);
	err = npoctl_nl_open(&nl);
	if (err)
		goto out_free;
	err = get_ports(&nl, ps);
	if (!err)
		err = build_links(ps, &r);
	if (!err && !r.n) {
		npoctl_err("fabric test: no port of this host has a link");
		err = NPOCTL_EXIT_ERROR;
		goto out;
	}
	if (!err && o->prbs_ms)
		err = run_prbs(&nl, ps, &r, o->prbs_ms, &jobs, &njobs);
	if (err) {
		err = npo_nl_report(&nl, err, "fabric test");
		goto out;
	}
	*before = *ps;
	for (i = 0; i < r.n; i++) {
		fill_link(ps, &r.links[i]);
		data_runs(ps, &r.links[i], o->bytes);
	}
	confirm_outliers(ps, &r, o);
	err = get_ports(&nl, ps);
	if (!err)
		err = wait_clocks(&nl, &clk, CLOCK_RELOCK_S);
	if (err) {
		err = npo_nl_report(&nl, err, "fabric test");
		goto out;
	}
	for (i = 0; i < r.n; i++) {
		struct fabric_link *l = &r.links[i];

		/* A link that went down during the data runs is down. */
		l->active &= link_active(ps, l);
		if (!l->active)
			fill_link(ps, l);
		fill_end(&nl, ps, &clk, jobs, njobs, host, &l->a);
		if (l->b.measured)
			fill_end(&nl, ps, &clk, jobs, njobs, host, &l->b);
		count_errors(before, ps, &l->a);
		count_errors(before, ps, &l->b);
	}
	err = report(&r, &o->lim);
out:
	npo_nl_close(&nl);
out_free:
	free(jobs);
	fabric_free(&r);
	free(ps);
	free(before);
	return err;
}

static int fabric_merge_files(int argc, char **argv,
			      const struct fabric_limits *lim)
{
	struct fabric_report all = { 0 };
	char err[256];
	int i, ret = NPOCTL_EXIT_ERROR;

	for (i = 0; i < argc; i++) {
		struct json_object *o;
		struct fabric_report one;

		/* Unreadable is exit 1, not JSON exit 2, as topo check. */
		if (access(argv[i], R_OK)) {
			npoctl_err("fabric merge: %s: %s", argv[i], strerror(errno));
			goto out;
		}
		o = json_object_from_file(argv[i]);
		if (!o) {
			npoctl_err("fabric merge: %s: not JSON: %s", argv[i],
				   json_util_get_last_err());
			ret = NPOCTL_EXIT_USAGE;
			goto out;
		}
		if (fabric_from_json(o, &one, err, sizeof(err))) {
			json_object_put(o);
			npoctl_err("fabric merge: %s: %s", argv[i], err);
			ret = NPOCTL_EXIT_USAGE;
			goto out;
		}
		json_object_put(o);
		if (fabric_merge(&all, &one, err, sizeof(err))) {
			fabric_free(&one);
			npoctl_err("fabric merge: %s: %s", argv[i], err);
			ret = NPOCTL_EXIT_USAGE;
			goto out;
		}
		fabric_free(&one);
	}
	ret = report(&all, lim);
out:
	fabric_free(&all);
	return ret;
}

static int parse_ratio(const char *what, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v < 0) {
		npoctl_err("fabric: %s must be a number >= 0, not \"%s\"", what, s);
		return -1;
	}
	return 0;
}

static int parse_u64(const char *what, const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	/* A duration may say its unit: 200ms, 2s. */
	if (!strcmp(what, "duration") && end != s && !errno) {
		if (!strcmp(end, "ms"))
			end += 2;
		else if (!strcmp(end, "s") && *v <= max / 1000)
			*v *= 1000, end++;
	}
	if (errno || end == s || *end || s[0] == '-' || !*v || *v > max) {
		npoctl_err("fabric: %s must be 1..%llu, not \"%s\"", what,
			   (unsigned long long)max, s);
		return -1;
	}
	return 0;
}

int cmd_fabric(int argc, char **argv)
{
	struct fabric_opts o = { .prbs_ms = 1000, .bytes = 64u << 20 };
	bool test, merge;
	int i;

	fabric_limits_default(&o.lim);
	if (!argc || matches(argv[0], "help")) {
		fabric_usage(argc ? stdout : stderr);
		return argc ? NPOCTL_EXIT_OK : NPOCTL_EXIT_USAGE;
	}
	if (matches(argv[0], "key"))
		return cmd_fabric_key(argc - 1, argv + 1);
	test = matches(argv[0], "test");
	merge = matches(argv[0], "merge");
	for (i = 1; i < argc && (test || merge); i++) {
		const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t v;

		/* As the synopsis writes it: -j after the command too. */
		if (!strcmp(arg, "-j") || !strcmp(arg, "--json")) {
			print_begin(true, print_is_pretty());
			continue;
		}
		/* getopt's spelling is taken too: --duration as duration. */
		if (!strncmp(arg, "--", 2) && arg[2])
			arg += 2;
		if (merge && !matches(arg, "slow-ratio") &&
		    !matches(arg, "latency-ratio") && !matches(arg, "min-efficiency"))
			break;	/* the files */
		if (test && matches(arg, "no-prbs")) {
			o.prbs_ms = 0;
			continue;
		}
		if (!((test && (matches(arg, "duration") || matches(arg, "bytes"))) ||
		      matches(arg, "slow-ratio") || matches(arg, "latency-ratio") ||
		      matches(arg, "min-efficiency"))) {
			npoctl_err("fabric: unknown option \"%s\"", argv[i]);
			fabric_usage(stderr);
			return NPOCTL_EXIT_USAGE;
		}
		if (!val) {
			npoctl_err("fabric: %s needs a value", argv[i]);
			return NPOCTL_EXIT_USAGE;
		}
		i++;
		if (matches(arg, "duration")) {
			/* The driver's limit for one PRBS test. */
			if (parse_u64("duration", val, 60000, &v))
				return NPOCTL_EXIT_USAGE;
			o.prbs_ms = v;
		} else if (matches(arg, "bytes")) {
			if (parse_u64("bytes", val, 1ull << 40, &v))
				return NPOCTL_EXIT_USAGE;
			o.bytes = v;
		} else if (matches(arg, "slow-ratio")) {
			if (parse_ratio("slow-ratio", val, &o.lim.slow_ratio))
				return NPOCTL_EXIT_USAGE;
		} else if (matches(arg, "latency-ratio")) {
			if (parse_ratio("latency-ratio", val, &o.lim.latency_ratio))
				return NPOCTL_EXIT_USAGE;
		} else if (parse_ratio("min-efficiency", val, &o.lim.min_efficiency)) {
			return NPOCTL_EXIT_USAGE;
		}
	}
	if (test && i == argc)
		return fabric_test(&o);
	if (merge && i < argc)
		return fabric_merge_files(argc - i, argv + i, &o.lim);
	npoctl_err("fabric: bad arguments");
	fabric_usage(stderr);
	return NPOCTL_EXIT_USAGE;
}
