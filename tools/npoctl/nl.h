/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npoctl: talking to the npo generic netlink family through libnl-genl-3.
 */
#ifndef NPOCTL_NL_H
#define NPOCTL_NL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <linux/npo_netlink.h>
#include <npo.h>	/* libnpo: the names of what the family reports */

struct npo_nl {
	struct nl_sock *sk;
	int family;
	char errmsg[256];	/* the kernel's extack message, if any */
};

/*
 * tb: the message's attributes, parsed (the last of a repeated one);
 * attrs/len: all of them, for repeated ones such as NPO_ATTR_LANE.
 */
typedef int (*npo_nl_handler)(struct nlattr **tb, struct nlattr *attrs,
			      int len, uint8_t cmd, void *arg);

/* 0, or an exit code after printing why (driver not loaded, ...). */
int npo_nl_open(struct npo_nl *nl);
void npo_nl_close(struct npo_nl *nl);

struct nl_msg *npo_nl_msg(struct npo_nl *nl, uint8_t cmd, int flags);
/* Send msg (freed), asking for an acknowledgement. */
int npo_nl_send(struct npo_nl *nl, struct nl_msg *msg);
/* Feed each reply to fn until the ack or dump end: 0 or a negative errno. */
int npo_nl_receive(struct npo_nl *nl, npo_nl_handler fn, void *arg);
/* Both: send msg (freed) and feed each reply to fn. */
int npo_nl_request(struct npo_nl *nl, struct nl_msg *msg, npo_nl_handler fn,
		   void *arg);
/* Dump cmd for every device, or device dev only (dev >= 0). */
int npo_nl_dump(struct npo_nl *nl, uint8_t cmd, long dev, npo_nl_handler fn,
		void *arg);
/* Join the events group and feed each event to fn until fn returns < 0. */
int npo_nl_listen(struct npo_nl *nl, npo_nl_handler fn, void *arg);

/* An exit code for a request's result, after saying why it failed. */
int npo_nl_report(struct npo_nl *nl, int err, const char *what);

/* Attribute values, or a default when the attribute is absent. */
static inline uint32_t get_u32(struct nlattr **tb, int attr, uint32_t dflt)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : dflt;
}

static inline uint64_t get_u64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : 0;
}

/* A BER the family reports as -log10(BER) x 100 (lanes, thresholds). */
static inline double get_ber(struct nlattr **tb, int attr)
{
	return pow(10, -(double)get_u32(tb, attr, 0) / 100);
}

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
void clock_print_state(struct nlattr **tb);
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
