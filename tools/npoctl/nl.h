/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npoctl: talking to the npo generic netlink family through libnl-genl-3.
 */
#ifndef NPOCTL_NL_H
#define NPOCTL_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <npo.h>	/* libnpo: the names of what the family reports */

#include "npo_nl.h"	/* tools/lib: the family's client and decoders */

/* npo_nl_open(), saying why it failed: 0, or an exit code. */
int npoctl_nl_open(struct npo_nl *nl);
/* An exit code for a request's result, after saying why it failed. */
int npo_nl_report(struct npo_nl *nl, int err, const char *what);

/*
 * The lanes' PRBS counters by lane index, from a LANE_GET or PORT_TEST
 * reply (npo_nl_on_prbs, a handler).  They add up over tests: a test's
 * own figures are the difference from what the lanes had before it.
 */
#define NPO_NL_PRBS_LANES	64
struct npo_prbs_counts {
	uint64_t bits[NPO_NL_PRBS_LANES], errors[NPO_NL_PRBS_LANES];
	uint64_t seen;		/* bit per lane index */
};
int npo_nl_on_prbs(struct nlattr **tb, struct nlattr *attrs, int len,
		   uint8_t cmd, void *arg);
/* Lane i's bits and errors since before (all of them after a reset). */
void npo_prbs_delta(const struct npo_prbs_counts *before,
		    const struct npo_prbs_counts *after, uint32_t i,
		    uint64_t *bits, uint64_t *errors);

/* Parse "npoN" or "N": the device index, or -1. */
long npo_parse_dev(const char *s);
/* Parse "npoN/P" or "N/P". */
int npo_parse_port(const char *s, uint32_t *dev, uint32_t *port);
/* "NODE/PORT", a fabric node and one of its ports: 0, or -1. */
int npo_parse_node_port(const char *s, uint32_t *node, uint32_t *port);

/* A clock's role, state, grandmaster, offset, delay and frequency. */
void clock_print_state(const struct npo_nl_clock *c);
/* Pieces of a port's view that events print too (link.c). */
void link_print_speed(const char *key, uint32_t rate, uint32_t width);
void link_print_flags(uint32_t flags, bool admin_up);
void link_print_lanes(const char *key, const char *fmt, uint32_t mask);
/* link_diag.c: npoctl link diagnose DEV/PORT. */
int link_diagnose(struct npo_nl *nl, const char *which);
/* queue.c: why the device put a queue in error, if the reply says. */
void queue_print_owner(struct nlattr **tb);
void queue_print_error(struct nlattr **tb);

#endif
