/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fabric acceptance report: what `npoctl fabric test` measured on
 * each link, the verdict on it, and the ranking of the worst links.  The
 * verdict is computed from the measurements alone, so that the reports of
 * several hosts, each measuring its own ends, merge into one fabric whose
 * links are judged again together (npoctl fabric merge).  No netlink
 * here: the judging, ranking and merging are tested on the host.
 */
#ifndef NPOCTL_FABRIC_H
#define NPOCTL_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#define FABRIC_MAX_LANES	16
#define FABRIC_MAX_REASONS	24

struct fabric_lane {
	uint32_t index;
	bool los;		/* no light */
	bool active;		/* carries the link */
	bool has_limits;	/* the module published thresholds */
	double rx_dbm, rx_warn_dbm, rx_alarm_dbm;
	double ber_warn, ber_alarm;
	bool has_ber;
	double ber;		/* pre-FEC, from the live traffic's FEC */
	bool prbs_run;
	uint64_t prbs_bits, prbs_errors;
};

/* One end of a link, measured by the host its device is on. */
struct fabric_end {
	uint32_t node, port;
	bool measured;		/* false: another host's end */
	char device[32];	/* when measured */
	char host[64];		/* when measured */
	bool clock_locked;
	char clock[16];		/* the clock's state, by name */
	/* During the data runs: what the port counted. */
	uint64_t crc_errors, uncorrectable, link_downs;
	char error[96];		/* what could not be tested here, and why */
	unsigned int nlanes;
	struct fabric_lane lane[FABRIC_MAX_LANES];
};

enum fabric_reason_kind {
	FABRIC_DOWN,
	FABRIC_DATA_CORRUPT,
	FABRIC_DEAD_LANE,
	FABRIC_DEGRADED,
	FABRIC_TEST_FAILED,
	FABRIC_BER_ALARM,	/* BER above the alarm */
	FABRIC_HIGH_BER,	/* BER above the warning */
	FABRIC_LOW_RX_ALARM,
	FABRIC_LOW_RX_WARN,
	FABRIC_LINK_ERRORS,
	FABRIC_CLOCK,
	FABRIC_SLOW,
	FABRIC_BELOW_FLOOR,
	FABRIC_HIGH_LATENCY,
};

struct fabric_reason {
	enum fabric_reason_kind kind;
	char end;		/* 'a', 'b' or 0: the link */
	int lane;		/* the worst lane; -1: not a lane */
	uint32_t lanes;		/* every lane with this fault */
	char text[160];
};

struct fabric_link {
	struct fabric_end a, b;
	bool active;
	char state[16];			/* the port's state, by name */
	uint32_t rate_mbps, width;	/* as trained */
	uint32_t max_rate_mbps, max_width;
	/*
	 * Data runs; not measured when why_not says why: not applicable
	 * (the far end on another host), or data_failed (a run went wrong).
	 */
	bool data_run, data_failed;
	double bandwidth_gbps, latency_us, latency_p99_us;
	double bandwidth_min_gbps, bandwidth_max_gbps;	/* the runs' spread */
	bool data_ok;
	unsigned int data_passes;	/* >1: measured again, looking slow */
	char why_not[96];
	/* The verdict (fabric_judge). */
	unsigned int score;
	unsigned int nreasons;
	struct fabric_reason reason[FABRIC_MAX_REASONS];
};

struct fabric_report {
	struct fabric_link *links;
	size_t n;
	uint32_t prbs_ms;	/* 0: no PRBS run */
	unsigned int hosts;	/* more than one: a merged report, where an
				 * end no host measured is a missing report */
};

/* What makes a link an outlier; fabric_limits_default() fills them. */
struct fabric_limits {
	double slow_ratio;	/* below this share of like links' median bw */
	double latency_ratio;	/* above this many times their median */
	double min_efficiency;	/* of rate x width; 0: not checked */
};

void fabric_limits_default(struct fabric_limits *l);
/* The link's data capacity, rate x width, in Gb/s. */
double fabric_capacity_gbps(const struct fabric_link *l);
/*
 * Judge every link from its measurements and sort the links worst
 * first.  Returns the number of links that failed.
 */
size_t fabric_judge(struct fabric_report *r, const struct fabric_limits *lim);
/*
 * Whether l's data run makes it a slow or high-latency outlier among r's
 * links, by the rule fabric_judge() applies.
 */
bool fabric_speed_outlier(const struct fabric_report *r,
			  const struct fabric_link *l,
			  const struct fabric_limits *lim);
const char *fabric_reason_str(enum fabric_reason_kind k);
/* qsort() order of doubles, for medians. */
int fabric_cmp_double(const void *x, const void *y);
/* The median of v[0..n), n > 0; sorts v. */
double fabric_median(double *v, size_t n);

/* The report as JSON (after fabric_judge), and back. */
struct json_object *fabric_to_json(const struct fabric_report *r);
int fabric_from_json(struct json_object *o, struct fabric_report *r,
		     char *err, size_t errlen);
/*
 * Add the links of src to dst: a link both hold (each host measured its
 * own end) becomes one with both ends measured, as narrow and as down as
 * either saw it.  Returns 0, or -1 with err set when an end was measured
 * in both or a port is at the end of two different links.
 */
int fabric_merge(struct fabric_report *dst, const struct fabric_report *src,
		 char *err, size_t errlen);
void fabric_free(struct fabric_report *r);

#endif
