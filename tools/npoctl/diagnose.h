/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which end of a link is at fault (npoctl link diagnose): this end's lanes
 * and the report the far end sent over the link, set side by side, lane
 * by lane and direction by direction.  No netlink here, so that the
 * reasoning is tested on the host.
 *
 * Lane i of one end faces lane i of the other, as a straight fibre
 * bundle wires them.
 */
#ifndef NPOCTL_DIAGNOSE_H
#define NPOCTL_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIAG_MAX_LANES		16
#define DIAG_MAX_FINDINGS	16

struct diag_lane {
	bool los;
	bool active;			/* carries the link */
	double tx_dbm, rx_dbm;
	double ber;			/* pre-FEC */
	/* This end's own lanes only: the thresholds at the link's rate. */
	bool has_limits;
	double rx_warn_dbm, rx_alarm_dbm, ber_warn;
};

struct diag_module {
	bool known;
	char vendor[17], part[17], serial[17];
	double tx_low_warn_dbm, tx_low_alarm_dbm;
	/* Shown, not judged here: this end's own module only. */
	bool has_own_limits;
	double tx_high_warn_dbm, tx_high_alarm_dbm;
	double temp_high_warn_c, temp_high_alarm_c;
	double bias_high_warn_ma, bias_high_alarm_ma;
};

struct diag_end {
	uint32_t node, port;
	struct diag_module module;
	unsigned int nlanes;
	struct diag_lane lane[DIAG_MAX_LANES];
};

struct diag_input {
	struct diag_end near, far;
	bool far_reported;		/* a report came from the far end */
	uint32_t far_age_ms;
	bool link_up;
	/* The peer the port trained with, to check the report's sender by. */
	bool peer_known;
	uint32_t peer_node, peer_port;
};

/* A report this old while the link is up: the far end stopped sending. */
#define DIAG_STALE_MS		5000

enum diag_kind {
	DIAG_NO_REPORT,		/* nothing heard from the far end */
	DIAG_STALE,		/* a report from another peer, or too old */
	DIAG_NO_LIMITS,		/* this end publishes no thresholds */
	DIAG_CABLE,		/* no light on any lane */
	DIAG_LANE_IN,		/* one lane: no light in, far end sends */
	DIAG_LANE_OUT,		/* one lane: no light at the far end */
	DIAG_FAR_TX,		/* far-end transmitter weak */
	DIAG_NEAR_TX,		/* near-end transmitter weak */
	DIAG_PATH_IN,		/* loss between far transmitter and us */
	DIAG_PATH_OUT,		/* loss between us and the far receiver */
	DIAG_NEAR_RX,		/* enough light here, yet errors */
	DIAG_FAR_RX,		/* enough light there, yet errors */
};

struct diag_finding {
	enum diag_kind kind;
	uint32_t lanes;			/* the lanes it is about */
	int worst;			/* the worst of them, -1: none */
	char text[448];
};

struct diag_result {
	unsigned int n;
	struct diag_finding f[DIAG_MAX_FINDINGS];
};

/* Findings, most telling first; none when both directions are healthy. */
void diag_judge(const struct diag_input *in, struct diag_result *out);
const char *diag_kind_str(enum diag_kind k);

#endif
