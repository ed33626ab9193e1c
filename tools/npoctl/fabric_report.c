// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fabric acceptance report (fabric.h): the verdict on each link from
 * its measurements, the ranking, the report's JSON and the merging of
 * several hosts' reports.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "print.h"

static const struct {
	const char *name;
	unsigned int weight;	/* how bad, for the ranking */
} reasons[] = {
	[FABRIC_DOWN] = { "down", 100 },
	[FABRIC_DATA_CORRUPT] = { "data-corrupt", 100 },
	[FABRIC_DEAD_LANE] = { "dead-lane", 60 },
	[FABRIC_DEGRADED] = { "degraded", 50 },
	[FABRIC_TEST_FAILED] = { "test-failed", 50 },
	[FABRIC_BER_ALARM] = { "ber-alarm", 40 },
	[FABRIC_LOW_RX_ALARM] = { "low-rx-power-alarm", 40 },
	[FABRIC_HIGH_BER] = { "high-ber", 30 },
	[FABRIC_LINK_ERRORS] = { "link-errors", 30 },
	[FABRIC_CLOCK] = { "clock-unlocked", 30 },
	[FABRIC_LOW_RX_WARN] = { "low-rx-power", 25 },
	[FABRIC_SLOW] = { "slow", 20 },
	[FABRIC_BELOW_FLOOR] = { "below-floor", 20 },
	[FABRIC_HIGH_LATENCY] = { "high-latency", 15 },
};

/* Fewer measured links than this give no meaningful median. */
#define MIN_PEERS	3

const char *fabric_reason_str(enum fabric_reason_kind k)
{
	if ((unsigned int)k < sizeof(reasons) / sizeof(reasons[0]) && reasons[k].name)
		return reasons[k].name;
	return "unknown";
}

void fabric_limits_default(struct fabric_limits *l)
{
	l->slow_ratio = 0.5;
	l->latency_ratio = 3.0;
	l->min_efficiency = 0;
}

double fabric_capacity_gbps(const struct fabric_link *l)
{
	return l->rate_mbps / 1000.0 * l->width;
}

static void add_reason(struct fabric_link *l, enum fabric_reason_kind kind,
		       char end, int lane, uint32_t lanes, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void add_reason(struct fabric_link *l, enum fabric_reason_kind kind,
		       char end, int lane, uint32_t lanes, const char *fmt, ...)
{
	struct fabric_reason *r;
	va_list ap;

	if (l->nreasons == FABRIC_MAX_REASONS)
		return;
	r = &l->reason[l->nreasons++];
	r->kind = kind;
	r->end = end;
	r->lane = lane;
	r->lanes = lanes;
	va_start(ap, fmt);
	vsnprintf(r->text, sizeof(r->text), fmt, ap);
	va_end(ap);
}

/* The lanes of one end with one kind of fault, and the worst of them. */
struct lane_set {
	uint32_t mask;
	int worst;
	double value, limit;
};

static void lane_set_add(struct lane_set *set, const struct fabric_lane *ln,
			 double value, double limit, bool higher_is_worse)
{
	if (!set->mask || (higher_is_worse ? value > set->value : value < set->value)) {
		set->worst = ln->index;
		set->value = value;
		set->limit = limit;
	}
	set->mask |= 1u << ln->index;
}

/*
 * "node 7/0 lane 2: Rx power -4.07 dBm, below the warning -3.02 dBm", or
 * for several lanes their worst: "lanes 0-7: Rx power down to ...".
 */
static void lane_reason(struct fabric_link *l, enum fabric_reason_kind kind,
			char which, const struct fabric_end *e,
			const struct lane_set *set, const char *what,
			const char *fmt, const char *limit)
{
	bool low = kind == FABRIC_LOW_RX_ALARM || kind == FABRIC_LOW_RX_WARN;
	char ls[64], value[24], bound[24], shown[64];

	if (!set->mask)
		return;
	print_lanes_text(ls, sizeof(ls), set->mask);
	snprintf(value, sizeof(value), fmt, set->value);
	snprintf(bound, sizeof(bound), fmt, set->limit);
	if (set->mask & (set->mask - 1))
		snprintf(shown, sizeof(shown), "%s to %s (lane %d)",
			 low ? "down" : "up", value, set->worst);
	else
		snprintf(shown, sizeof(shown), "%s", value);
	add_reason(l, kind, which, set->worst, set->mask,
		   "node %u/%u %s: %s %s, %s %s %s", e->node, e->port, ls, what,
		   shown, low ? "below" : "above", limit, bound);
}

static void judge_lanes(struct fabric_link *l, const struct fabric_end *e,
			char which)
{
	struct lane_set los = { 0 }, rx_alarm = { 0 }, rx_warn = { 0 };
	struct lane_set ber_alarm = { 0 }, ber_warn = { 0 };
	struct lane_set no_limits = { 0 }, no_bits = { 0 };
	bool many, prbs, measured_by_prbs = false;
	char ls[64];
	unsigned int i;

	for (i = 0; i < e->nlanes; i++) {
		const struct fabric_lane *ln = &e->lane[i];
		double ber;

		if (ln->index >= 32)
			continue;
		if (ln->los) {
			lane_set_add(&los, ln, 0, 0, false);
			continue;
		}
		if (ln->prbs_run && !ln->prbs_bits)
			lane_set_add(&no_bits, ln, 0, 0, false);
		if (!ln->has_limits) {
			lane_set_add(&no_limits, ln, 0, 0, false);
			continue;
		}
		if (ln->rx_dbm < ln->rx_alarm_dbm)
			lane_set_add(&rx_alarm, ln, ln->rx_dbm, ln->rx_alarm_dbm, false);
		else if (ln->rx_dbm < ln->rx_warn_dbm)
			lane_set_add(&rx_warn, ln, ln->rx_dbm, ln->rx_warn_dbm, false);
		/* The PRBS run's count when there was one, else the live FEC's. */
		prbs = ln->prbs_run && ln->prbs_bits;
		if (!prbs && !ln->has_ber)
			continue;
		ber = prbs ? (double)ln->prbs_errors / ln->prbs_bits : ln->ber;
		if (ber > ln->ber_alarm)
			lane_set_add(&ber_alarm, ln, ber, ln->ber_alarm, true);
		else if (ber > ln->ber_warn)
			lane_set_add(&ber_warn, ln, ber, ln->ber_warn, true);
		measured_by_prbs |= prbs;
	}
	if (los.mask) {
		print_lanes_text(ls, sizeof(ls), los.mask);
		many = los.mask & (los.mask - 1);
		add_reason(l, FABRIC_DEAD_LANE, which, los.worst, los.mask,
			   "node %u/%u %s receive%s no light%s", e->node, e->port,
			   ls, many ? "" : "s", l->width >= l->max_width ? "" :
			   many ? ": the link runs without them" :
			   ": the link runs without it");
	}
	if (no_limits.mask) {
		print_lanes_text(ls, sizeof(ls), no_limits.mask);
		add_reason(l, FABRIC_TEST_FAILED, which, no_limits.worst, no_limits.mask,
			   "node %u/%u %s: the module publishes no thresholds, so Rx power and BER cannot be judged",
			   e->node, e->port, ls);
	}
	if (no_bits.mask) {
		print_lanes_text(ls, sizeof(ls), no_bits.mask);
		add_reason(l, FABRIC_TEST_FAILED, which, no_bits.worst, no_bits.mask,
			   "node %u/%u %s: the PRBS run counted no bits", e->node,
			   e->port, ls);
	}
	lane_reason(l, FABRIC_LOW_RX_ALARM, which, e, &rx_alarm,
		    "Rx power", "%.2f dBm", "the alarm");
	lane_reason(l, FABRIC_LOW_RX_WARN, which, e, &rx_warn,
		    "Rx power", "%.2f dBm", "the warning");
	lane_reason(l, FABRIC_BER_ALARM, which, e, &ber_alarm,
		    measured_by_prbs ? "PRBS BER" : "pre-FEC BER", "%.1e", "the alarm");
	lane_reason(l, FABRIC_HIGH_BER, which, e, &ber_warn,
		    measured_by_prbs ? "PRBS BER" : "pre-FEC BER", "%.1e", "the warning");
}

static void judge_end(struct fabric_link *l, const struct fabric_end *e,
		      char which)
{
	if (!e->measured)
		return;
	if (e->error[0])
		add_reason(l, FABRIC_TEST_FAILED, which, -1, 0, "node %u/%u: %s",
			   e->node, e->port, e->error);
	judge_lanes(l, e, which);
	if (e->crc_errors || e->uncorrectable || e->link_downs)
		add_reason(l, FABRIC_LINK_ERRORS, which, -1, 0,
			   "node %u/%u counted %llu CRC errors, %llu uncorrectable codewords, %llu link downs during the test",
			   e->node, e->port, (unsigned long long)e->crc_errors,
			   (unsigned long long)e->uncorrectable,
			   (unsigned long long)e->link_downs);
	if (!e->clock_locked)
		add_reason(l, FABRIC_CLOCK, which, -1, 0,
			   "%s (node %u): clock %s, not locked to the fabric's time",
			   e->device, e->node, e->clock);
}

static bool any_dark_lane(const struct fabric_end *e)
{
	unsigned int i;

	for (i = 0; e->measured && i < e->nlanes; i++)
		if (e->lane[i].los)
			return true;
	return false;
}

static void judge_link(struct fabric_link *l, bool merged)
{
	bool dead = any_dark_lane(&l->a) || any_dark_lane(&l->b);

	l->nreasons = 0;
	/* The link's own reasons first: they are never crowded out. */
	if (merged && (!l->a.measured || !l->b.measured)) {
		const struct fabric_end *e = l->a.measured ? &l->b : &l->a;

		add_reason(l, FABRIC_TEST_FAILED, l->a.measured ? 'b' : 'a', -1, 0,
			   "node %u/%u was not measured: no report from its host",
			   e->node, e->port);
	}
	if (!l->active) {
		add_reason(l, FABRIC_DOWN, 0, -1, 0, "link %s", l->state);
		return;
	}
	if (l->data_run && !l->data_ok)
		add_reason(l, FABRIC_DATA_CORRUPT, 0, -1, 0,
			   "data written across the link did not arrive intact");
	if (l->data_failed)
		add_reason(l, FABRIC_TEST_FAILED, 0, -1, 0, "data run: %s",
			   l->why_not);
	/* A dark lane explains a narrower link, not a slower one. */
	if ((!dead && l->width < l->max_width) || l->rate_mbps < l->max_rate_mbps)
		add_reason(l, FABRIC_DEGRADED, 0, -1, 0,
			   "trained x%u at %.3g Gb/s a lane; the ports can do x%u at %.3g",
			   l->width, l->rate_mbps / 1000.0, l->max_width,
			   l->max_rate_mbps / 1000.0);
	judge_end(l, &l->a, 'a');
	judge_end(l, &l->b, 'b');
}

int fabric_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double fabric_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), fabric_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool data_measured(const struct fabric_link *l)
{
	return l->active && l->data_run && l->data_ok && l->rate_mbps && l->width;
}

/*
 * Bandwidth is compared as a share of each link's capacity: a link that
 * trained narrower is expected to move less, and the host (PCIe, memory)
 * may bound every link below its capacity alike.  The medians are 0 when
 * too few links were measured to have one.
 */
static int speed_medians(const struct fabric_report *r, double *eff_med,
			 double *lat_med)
{
	double *eff = calloc(r->n + 1, sizeof(*eff));
	double *lat = calloc(r->n + 1, sizeof(*lat));
	size_t i, n = 0;

	*eff_med = *lat_med = 0;
	if (!eff || !lat) {
		free(eff);
		free(lat);
		return -1;
	}
	for (i = 0; i < r->n; i++) {
		if (!data_measured(&r->links[i]))
			continue;
		eff[n] = r->links[i].bandwidth_gbps / fabric_capacity_gbps(&r->links[i]);
		lat[n++] = r->links[i].latency_us;
	}
	if (n >= MIN_PEERS) {
		*eff_med = fabric_median(eff, n);
		*lat_med = fabric_median(lat, n);
	}
	free(eff);
	free(lat);
	return 0;
}

static bool slow(const struct fabric_link *l, double eff_med,
		 const struct fabric_limits *lim)
{
	return eff_med > 0 &&
	       l->bandwidth_gbps / fabric_capacity_gbps(l) < lim->slow_ratio * eff_med;
}

static bool high_latency(const struct fabric_link *l, double lat_med,
			 const struct fabric_limits *lim)
{
	return lat_med > 0 && l->latency_us > lim->latency_ratio * lat_med;
}

bool fabric_speed_outlier(const struct fabric_report *r,
			  const struct fabric_link *l,
			  const struct fabric_limits *lim)
{
	double eff_med, lat_med;

	if (!data_measured(l) || speed_medians(r, &eff_med, &lat_med))
		return false;
	return slow(l, eff_med, lim) || high_latency(l, lat_med, lim);
}

static void judge_speed(struct fabric_report *r, const struct fabric_limits *lim)
{
	double eff_med, lat_med;
	size_t i;

	if (speed_medians(r, &eff_med, &lat_med))
		return;
	for (i = 0; i < r->n; i++) {
		struct fabric_link *l = &r->links[i];
		double e;

		if (!data_measured(l))
			continue;
		e = l->bandwidth_gbps / fabric_capacity_gbps(l);
		if (slow(l, eff_med, lim))
			add_reason(l, FABRIC_SLOW, 0, -1, 0,
				   "moved %.3g Gb/s, %.0f%% of its capacity where the median link moves %.0f%% of its own",
				   l->bandwidth_gbps, e * 100, eff_med * 100);
		if (lim->min_efficiency > 0 && e < lim->min_efficiency)
			add_reason(l, FABRIC_BELOW_FLOOR, 0, -1, 0,
				   "moved %.3g Gb/s, %.0f%% of its %.4g Gb/s capacity, below the floor of %.0f%%",
				   l->bandwidth_gbps, e * 100,
				   fabric_capacity_gbps(l), lim->min_efficiency * 100);
		if (high_latency(l, lat_med, lim))
			add_reason(l, FABRIC_HIGH_LATENCY, 0, -1, 0,
				   "round trip %.1f us, %.1f times the median link's %.1f us",
				   l->latency_us, l->latency_us / lat_med, lat_med);
	}
}

/* Each kind counts once: a link is as bad as the kinds of its faults. */
static unsigned int score(const struct fabric_link *l)
{
	bool seen[sizeof(reasons) / sizeof(reasons[0])] = { false };
	unsigned int i, s = 0;

	for (i = 0; i < l->nreasons; i++) {
		enum fabric_reason_kind k = l->reason[i].kind;

		if (!seen[k])
			s += reasons[k].weight;
		seen[k] = true;
	}
	return s;
}

static int cmp_rank(const void *x, const void *y)
{
	const struct fabric_link *a = x, *b = y;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->nreasons != b->nreasons)
		return a->nreasons > b->nreasons ? -1 : 1;
	if (a->a.node != b->a.node)
		return a->a.node < b->a.node ? -1 : 1;
	return a->a.port < b->a.port ? -1 : a->a.port > b->a.port;
}

size_t fabric_judge(struct fabric_report *r, const struct fabric_limits *lim)
{
	size_t i, failed = 0;

	for (i = 0; i < r->n; i++)
		judge_link(&r->links[i], r->hosts > 1);
	judge_speed(r, lim);
	for (i = 0; i < r->n; i++) {
		r->links[i].score = score(&r->links[i]);
		failed += r->links[i].nreasons > 0;
	}
	qsort(r->links, r->n, sizeof(*r->links), cmp_rank);
	return failed;
}

/* --- JSON ---------------------------------------------------------------- */

static void put(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

/* A measurement with the digits it has, not the binary noise of %.17g. */
static struct json_object *num(double v, const char *fmt)
{
	char buf[32];

	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static struct json_object *end_to_json(const struct fabric_end *e)
{
	struct json_object *o = json_object_new_object();
	struct json_object *lanes;
	unsigned int i;

	put(o, "node_id", json_object_new_int64(e->node));
	put(o, "port", json_object_new_int64(e->port));
	put(o, "measured", json_object_new_boolean(e->measured));
	if (!e->measured)
		return o;
	put(o, "device", json_object_new_string(e->device));
	put(o, "host", json_object_new_string(e->host));
	put(o, "clock", json_object_new_string(e->clock));
	put(o, "clock_locked", json_object_new_boolean(e->clock_locked));
	put(o, "crc_errors", json_object_new_uint64(e->crc_errors));
	put(o, "fec_uncorrectable", json_object_new_uint64(e->uncorrectable));
	put(o, "link_downs", json_object_new_uint64(e->link_downs));
	if (e->error[0])
		put(o, "error", json_object_new_string(e->error));
	lanes = json_object_new_array();
	for (i = 0; i < e->nlanes; i++) {
		const struct fabric_lane *ln = &e->lane[i];
		struct json_object *lo = json_object_new_object();

		put(lo, "lane", json_object_new_int64(ln->index));
		put(lo, "los", json_object_new_boolean(ln->los));
		put(lo, "active", json_object_new_boolean(ln->active));
		put(lo, "rx_power_dbm", num(ln->rx_dbm, "%.2f"));
		if (ln->has_ber)
			put(lo, "ber", num(ln->ber, "%.3g"));
		if (ln->has_limits) {
			put(lo, "rx_power_warn_dbm", num(ln->rx_warn_dbm, "%.2f"));
			put(lo, "rx_power_alarm_dbm", num(ln->rx_alarm_dbm, "%.2f"));
			put(lo, "ber_warn", num(ln->ber_warn, "%.3g"));
			put(lo, "ber_alarm", num(ln->ber_alarm, "%.3g"));
		}
		if (ln->prbs_run) {
			put(lo, "prbs_bits", json_object_new_uint64(ln->prbs_bits));
			put(lo, "prbs_errors", json_object_new_uint64(ln->prbs_errors));
		}
		json_object_array_add(lanes, lo);
	}
	put(o, "lanes", lanes);
	return o;
}

static struct json_object *num_or_null(bool have, double v, const char *fmt)
{
	return have ? num(v, fmt) : NULL;
}

static struct json_object *link_to_json(const struct fabric_link *l, size_t rank)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rs = json_object_new_array();
	bool data = l->data_run && l->data_ok;
	double cap = fabric_capacity_gbps(l);
	unsigned int i;

	put(o, "rank", json_object_new_int64(rank));
	put(o, "result", json_object_new_string(l->nreasons ? "fail" : "pass"));
	put(o, "score", json_object_new_int64(l->score));
	put(o, "a", end_to_json(&l->a));
	put(o, "b", end_to_json(&l->b));
	put(o, "state", json_object_new_string(l->state));
	put(o, "active", json_object_new_boolean(l->active));
	put(o, "rate_mbps", json_object_new_int64(l->rate_mbps));
	put(o, "width", json_object_new_int64(l->width));
	put(o, "max_rate_mbps", json_object_new_int64(l->max_rate_mbps));
	put(o, "max_width", json_object_new_int64(l->max_width));
	put(o, "capacity_gbps", num(cap, "%.6g"));
	put(o, "data_run", json_object_new_boolean(l->data_run));
	put(o, "data_failed", json_object_new_boolean(l->data_failed));
	if (l->data_run) {
		put(o, "data_ok", json_object_new_boolean(l->data_ok));
		put(o, "data_passes", json_object_new_int64(l->data_passes));
	}
	put(o, "bandwidth_gbps", num_or_null(data, l->bandwidth_gbps, "%.4g"));
	put(o, "bandwidth_min_gbps", num_or_null(data, l->bandwidth_min_gbps, "%.4g"));
	put(o, "bandwidth_max_gbps", num_or_null(data, l->bandwidth_max_gbps, "%.4g"));
	put(o, "efficiency", num_or_null(data && cap > 0, l->bandwidth_gbps / cap, "%.3g"));
	put(o, "latency_us", num_or_null(data, l->latency_us, "%.4g"));
	put(o, "latency_p99_us", num_or_null(data, l->latency_p99_us, "%.4g"));
	if (!l->data_run && l->why_not[0])
		put(o, "not_measured", json_object_new_string(l->why_not));
	for (i = 0; i < l->nreasons; i++) {
		const struct fabric_reason *r = &l->reason[i];
		struct json_object *ro = json_object_new_object();
		char end[2] = { r->end, 0 };

		put(ro, "kind", json_object_new_string(fabric_reason_str(r->kind)));
		put(ro, "end", r->end ? json_object_new_string(end) : NULL);
		put(ro, "lane", r->lane >= 0 ? json_object_new_int64(r->lane) : NULL);
		if (r->lanes) {
			struct json_object *la = json_object_new_array();
			unsigned int b;

			for (b = 0; b < 32; b++)
				if (r->lanes & (1u << b))
					json_object_array_add(la, json_object_new_int64(b));
			put(ro, "lanes", la);
		}
		put(ro, "text", json_object_new_string(r->text));
		json_object_array_add(rs, ro);
	}
	put(o, "reasons", rs);
	return o;
}

struct json_object *fabric_to_json(const struct fabric_report *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *links = json_object_new_array();
	size_t i, failed = 0;

	for (i = 0; i < r->n; i++) {
		failed += r->links[i].nreasons > 0;
		json_object_array_add(links, link_to_json(&r->links[i], i + 1));
	}
	put(o, "result", json_object_new_string(failed ? "fail" : "pass"));
	put(o, "links_tested", json_object_new_int64(r->n));
	put(o, "links_failed", json_object_new_int64(failed));
	put(o, "hosts", json_object_new_int64(r->hosts));
	put(o, "prbs_ms", json_object_new_int64(r->prbs_ms));
	put(o, "links", links);
	return o;
}

/* Reading a report back: strict about types, so a bad file is named. */
struct reader {
	char *err;
	size_t errlen;
	bool failed;
};

static void bad(struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	if (rd->failed)
		return;
	rd->failed = true;
	va_start(ap, fmt);
	vsnprintf(rd->err, rd->errlen, fmt, ap);
	va_end(ap);
}

static struct json_object *field(struct reader *rd, struct json_object *o,
				 const char *key, enum json_type type, bool need)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    json_object_is_type(v, json_type_null)) {
		if (need)
			bad(rd, "\"%s\" is missing", key);
		return NULL;
	}
	/* A whole number is a fine double. */
	if (json_object_is_type(v, type) ||
	    (type == json_type_double && json_object_is_type(v, json_type_int)))
		return v;
	bad(rd, "\"%s\" has the wrong type", key);
	return NULL;
}

static uint64_t read_uint(struct reader *rd, struct json_object *o,
			  const char *key, bool need, uint64_t max)
{
	struct json_object *v = field(rd, o, key, json_type_int, need);
	int64_t n;

	if (!v)
		return 0;
	/* json-c keeps values above INT64_MAX as unsigned. */
	if (json_object_get_int64(v) == INT64_MAX)
		return json_object_get_uint64(v) <= max ? json_object_get_uint64(v) :
		       (bad(rd, "\"%s\" is out of range", key), 0);
	n = json_object_get_int64(v);
	if (n < 0 || (uint64_t)n > max) {
		bad(rd, "\"%s\" is out of range", key);
		return 0;
	}
	return n;
}

static double read_double(struct reader *rd, struct json_object *o,
			  const char *key, bool need)
{
	struct json_object *v = field(rd, o, key, json_type_double, need);
	double d = v ? json_object_get_double(v) : 0;

	if (v && !isfinite(d))
		bad(rd, "\"%s\" is not a number", key);
	return d;
}

static bool read_bool(struct reader *rd, struct json_object *o,
		      const char *key, bool need)
{
	struct json_object *v = field(rd, o, key, json_type_boolean, need);

	return v && json_object_get_boolean(v);
}

static void read_string(struct reader *rd, struct json_object *o,
			const char *key, bool need, char *buf, size_t len)
{
	struct json_object *v = field(rd, o, key, json_type_string, need);

	buf[0] = '\0';
	if (!v)
		return;
	if ((size_t)json_object_get_string_len(v) >= len) {
		bad(rd, "\"%s\" is longer than %zu characters", key, len - 1);
		return;
	}
	memcpy(buf, json_object_get_string(v), json_object_get_string_len(v) + 1);
}

/* A member that is there and not null. */
static bool present(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       !json_object_is_type(v, json_type_null);
}

static void read_lane(struct reader *rd, struct json_object *o,
		      struct fabric_lane *ln)
{
	ln->index = read_uint(rd, o, "lane", true, FABRIC_MAX_LANES - 1);
	ln->los = read_bool(rd, o, "los", true);
	ln->active = read_bool(rd, o, "active", true);
	ln->rx_dbm = read_double(rd, o, "rx_power_dbm", true);
	ln->has_ber = present(o, "ber");
	if (ln->has_ber)
		ln->ber = read_double(rd, o, "ber", true);
	ln->has_limits = present(o, "rx_power_warn_dbm");
	if (ln->has_limits) {
		ln->rx_warn_dbm = read_double(rd, o, "rx_power_warn_dbm", true);
		ln->rx_alarm_dbm = read_double(rd, o, "rx_power_alarm_dbm", true);
		ln->ber_warn = read_double(rd, o, "ber_warn", true);
		ln->ber_alarm = read_double(rd, o, "ber_alarm", true);
		if (ln->ber_warn > ln->ber_alarm || ln->rx_warn_dbm < ln->rx_alarm_dbm)
			bad(rd, "lane %u: a warning beyond its alarm", ln->index);
	}
	ln->prbs_run = present(o, "prbs_bits");
	if (ln->prbs_run) {
		ln->prbs_bits = read_uint(rd, o, "prbs_bits", true, UINT64_MAX);
		ln->prbs_errors = read_uint(rd, o, "prbs_errors", true, UINT64_MAX);
		if (ln->prbs_errors > ln->prbs_bits)
			bad(rd, "lane %u: more PRBS errors than bits", ln->index);
	}
}

static void read_end(struct reader *rd, struct json_object *l, const char *key,
		     struct fabric_end *e)
{
	struct json_object *o = field(rd, l, key, json_type_object, true);
	struct json_object *lanes;
	size_t i, k;

	if (!o)
		return;
	e->node = read_uint(rd, o, "node_id", true, UINT32_MAX);
	e->port = read_uint(rd, o, "port", true, UINT32_MAX);
	e->measured = read_bool(rd, o, "measured", true);
	if (!e->measured)
		return;
	read_string(rd, o, "device", true, e->device, sizeof(e->device));
	read_string(rd, o, "host", true, e->host, sizeof(e->host));
	read_string(rd, o, "clock", true, e->clock, sizeof(e->clock));
	e->clock_locked = read_bool(rd, o, "clock_locked", true);
	e->crc_errors = read_uint(rd, o, "crc_errors", true, UINT64_MAX);
	e->uncorrectable = read_uint(rd, o, "fec_uncorrectable", true, UINT64_MAX);
	e->link_downs = read_uint(rd, o, "link_downs", true, UINT64_MAX);
	read_string(rd, o, "error", false, e->error, sizeof(e->error));
	lanes = field(rd, o, "lanes", json_type_array, true);
	if (!lanes)
		return;
	if (json_object_array_length(lanes) > FABRIC_MAX_LANES) {
		bad(rd, "more than %d lanes", FABRIC_MAX_LANES);
		return;
	}
	e->nlanes = json_object_array_length(lanes);
	for (i = 0; i < e->nlanes; i++) {
		struct json_object *lo = json_object_array_get_idx(lanes, i);

		if (!json_object_is_type(lo, json_type_object)) {
			bad(rd, "a lane is not an object");
			return;
		}
		read_lane(rd, lo, &e->lane[i]);
		for (k = 0; k < i; k++)
			if (e->lane[k].index == e->lane[i].index)
				bad(rd, "lane %u twice", e->lane[i].index);
	}
}

static void read_link(struct reader *rd, struct json_object *o,
		      struct fabric_link *l)
{
	read_end(rd, o, "a", &l->a);
	read_end(rd, o, "b", &l->b);
	read_string(rd, o, "state", true, l->state, sizeof(l->state));
	l->active = read_bool(rd, o, "active", true);
	l->rate_mbps = read_uint(rd, o, "rate_mbps", true, UINT32_MAX);
	l->width = read_uint(rd, o, "width", true, FABRIC_MAX_LANES);
	l->max_rate_mbps = read_uint(rd, o, "max_rate_mbps", true, UINT32_MAX);
	l->max_width = read_uint(rd, o, "max_width", true, FABRIC_MAX_LANES);
	if (l->width > l->max_width || l->rate_mbps > l->max_rate_mbps)
		bad(rd, "trained beyond what the ports can do");
	if (!l->a.measured && !l->b.measured)
		bad(rd, "neither end was measured");
	l->data_run = read_bool(rd, o, "data_run", true);
	l->data_failed = read_bool(rd, o, "data_failed", false);
	read_string(rd, o, "not_measured", false, l->why_not, sizeof(l->why_not));
	if (!l->data_run)
		return;
	l->data_ok = read_bool(rd, o, "data_ok", true);
	l->data_passes = 1;
	if (present(o, "data_passes"))
		l->data_passes = read_uint(rd, o, "data_passes", true, 1000);
	if (!l->data_ok)
		return;
	l->bandwidth_gbps = read_double(rd, o, "bandwidth_gbps", true);
	l->bandwidth_min_gbps = l->bandwidth_max_gbps = l->bandwidth_gbps;
	if (present(o, "bandwidth_min_gbps"))
		l->bandwidth_min_gbps = read_double(rd, o, "bandwidth_min_gbps", true);
	if (present(o, "bandwidth_max_gbps"))
		l->bandwidth_max_gbps = read_double(rd, o, "bandwidth_max_gbps", true);
	l->latency_us = read_double(rd, o, "latency_us", true);
	l->latency_p99_us = read_double(rd, o, "latency_p99_us", true);
	if (l->bandwidth_gbps <= 0 || l->latency_us <= 0)
		bad(rd, "bandwidth and latency must be positive");
	if (l->bandwidth_min_gbps > l->bandwidth_gbps ||
	    l->bandwidth_max_gbps < l->bandwidth_gbps)
		bad(rd, "the bandwidth is outside its own spread");
}

int fabric_from_json(struct json_object *o, struct fabric_report *r,
		     char *err, size_t errlen)
{
	struct reader rd = { .err = err, .errlen = errlen };
	struct json_object *links;
	size_t i, n;

	memset(r, 0, sizeof(*r));
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "not a fabric report (an object)");
		return -1;
	}
	links = field(&rd, o, "links", json_type_array, true);
	r->prbs_ms = read_uint(&rd, o, "prbs_ms", true, UINT32_MAX);
	r->hosts = read_uint(&rd, o, "hosts", true, UINT32_MAX);
	if (rd.failed)
		return -1;
	n = json_object_array_length(links);
	r->links = calloc(n + 1, sizeof(*r->links));
	if (!r->links) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	for (i = 0; i < n && !rd.failed; i++) {
		struct json_object *lo = json_object_array_get_idx(links, i);

		if (!json_object_is_type(lo, json_type_object)) {
			bad(&rd, "a link is not an object");
			break;
		}
		read_link(&rd, lo, &r->links[i]);
		r->n++;
		if (rd.failed) {
			char why[128];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "link %zu: %s", i + 1, why);
		}
	}
	if (rd.failed) {
		fabric_free(r);
		return -1;
	}
	return 0;
}

/* --- merging ------------------------------------------------------------- */

static bool same_end(const struct fabric_end *x, const struct fabric_end *y)
{
	return x->node == y->node && x->port == y->port;
}

static int take_end(struct fabric_end *dst, const struct fabric_end *src,
		    char *err, size_t errlen)
{
	if (!src->measured)
		return 0;
	if (dst->measured) {
		snprintf(err, errlen,
			 "node %u/%u is in two reports (hosts %s and %s): merge each host's report once",
			 src->node, src->port, dst->host, src->host);
		return -1;
	}
	*dst = *src;
	return 0;
}

/* A port at the end of a link dst already has, to another port? */
static int port_taken(const struct fabric_report *dst, const struct fabric_end *e,
		      char *err, size_t errlen)
{
	size_t j;

	for (j = 0; j < dst->n; j++) {
		const struct fabric_link *c = &dst->links[j];

		if (same_end(&c->a, e) || same_end(&c->b, e)) {
			snprintf(err, errlen,
				 "node %u/%u is cabled to node %u/%u in one report and elsewhere in another",
				 e->node, e->port,
				 same_end(&c->a, e) ? c->b.node : c->a.node,
				 same_end(&c->a, e) ? c->b.port : c->a.port);
			return -1;
		}
	}
	return 0;
}

/* The link as both ends see it: the worse of their two views. */
static void take_link(struct fabric_link *d, const struct fabric_link *s)
{
	if (d->active && !s->active) {
		d->active = false;
		memcpy(d->state, s->state, sizeof(d->state));
	}
	if (s->width < d->width)
		d->width = s->width;
	if (s->rate_mbps < d->rate_mbps)
		d->rate_mbps = s->rate_mbps;
	d->data_failed |= s->data_failed && !d->data_run;
	if (!d->data_run && s->data_run) {
		d->data_run = true;
		d->data_ok = s->data_ok;
		d->data_passes = s->data_passes;
		d->bandwidth_gbps = s->bandwidth_gbps;
		d->bandwidth_min_gbps = s->bandwidth_min_gbps;
		d->bandwidth_max_gbps = s->bandwidth_max_gbps;
		d->latency_us = s->latency_us;
		d->latency_p99_us = s->latency_p99_us;
		d->data_failed = false;
		d->why_not[0] = 0;
	}
}

int fabric_merge(struct fabric_report *dst, const struct fabric_report *src,
		 char *err, size_t errlen)
{
	struct fabric_link *grown;
	size_t i, j;

	grown = realloc(dst->links, (dst->n + src->n + 1) * sizeof(*grown));
	if (!grown) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	dst->links = grown;
	for (i = 0; i < src->n; i++) {
		const struct fabric_link *s = &src->links[i];
		struct fabric_link *d = NULL;
		bool swapped = false;

		for (j = 0; j < dst->n && !d; j++) {
			struct fabric_link *c = &dst->links[j];

			if (same_end(&c->a, &s->a) && same_end(&c->b, &s->b))
				d = c;
			else if (same_end(&c->a, &s->b) && same_end(&c->b, &s->a))
				d = c, swapped = true;
		}
		if (!d) {
			if (port_taken(dst, &s->a, err, errlen) ||
			    port_taken(dst, &s->b, err, errlen))
				return -1;
			dst->links[dst->n++] = *s;
			continue;
		}
		if (take_end(&d->a, swapped ? &s->b : &s->a, err, errlen) ||
		    take_end(&d->b, swapped ? &s->a : &s->b, err, errlen))
			return -1;
		take_link(d, s);
	}
	dst->hosts += src->hosts;
	if (src->prbs_ms > dst->prbs_ms)
		dst->prbs_ms = src->prbs_ms;
	return 0;
}

void fabric_free(struct fabric_report *r)
{
	free(r->links);
	r->links = NULL;
	r->n = 0;
}
