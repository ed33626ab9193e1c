/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The npo generic netlink family from user space, on libnl-genl-3: one
 * client (requests, dumps and events, with the kernel's extended ACK
 * message) and one decoder of what the family reports, for npoctl and the
 * selftests alike.  Nothing here prints: callers say what went wrong.
 */
#ifndef NPO_NL_H
#define NPO_NL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <linux/npo_netlink.h>

struct npo_nl {
	struct nl_sock *sk;
	int family;
	char errmsg[256];	/* the kernel's extack message, if any */
};

/*
 * tb: the message's attributes, parsed (the last of a repeated one);
 * attrs/len: all of them, for repeated ones such as NPO_ATTR_LANE.
 * A handler returning < 0 hears no more of the reply (which is still
 * read to its end), or stops the listening.
 */
typedef int (*npo_nl_handler)(struct nlattr **tb, struct nlattr *attrs,
			      int len, uint8_t cmd, void *arg);

/* 0, -ENOENT when the npo family is not there (no driver), or -errno. */
int npo_nl_open(struct npo_nl *nl);
void npo_nl_close(struct npo_nl *nl);

struct nl_msg *npo_nl_msg(const struct npo_nl *nl, uint8_t cmd, int flags);
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
/*
 * Join the events group ("events-admin" with CAP_NET_ADMIN, else "events")
 * and feed each event to fn until fn returns < 0.
 */
int npo_nl_listen(struct npo_nl *nl, npo_nl_handler fn, void *arg);
/* Join it without waiting: for a caller that polls. */
int npo_nl_join_events(struct npo_nl *nl);
/* Feed what the socket holds now to fn; 0 or a negative errno. */
int npo_nl_receive_now(struct npo_nl *nl, npo_nl_handler fn, void *arg);

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
 * A port as a PORT_GET reply or a port event describes it; a REFUSED
 * event fills in the refusal (and port 0).
 */
struct npo_nl_port {
	uint32_t event;			/* NPO_EVENT_*, 0 in a reply */
	uint32_t dev;
	char dev_name[16];
	uint32_t node_id;		/* the device's */
	uint32_t port;
	uint32_t state;			/* enum npo_port_state */
	uint32_t rate_mbps;
	uint32_t width;
	uint32_t max_rate_mbps;
	uint32_t max_width;
	uint32_t target_rate_mbps;	/* the administrator's, 0 for none */
	uint32_t target_width;
	bool admin_up;
	uint32_t flags;			/* NPO_PORT_FLAG_* */
	uint32_t reason;		/* enum npo_link_reason */
	uint64_t time_in_state_ms;
	int64_t peer_node;		/* -1 when the peer is unknown */
	int64_t peer_port;
	int64_t planned_node;		/* -1 without a cabling plan */
	int64_t planned_port;
	bool has_lanes;			/* the two masks below were sent */
	uint32_t fault_lanes;
	uint32_t ber_lanes;
	uint32_t self_test_lanes;
	uint64_t flaps;
	bool has_risk;			/* the link watch's four below were sent */
	uint32_t risk_lanes;
	uint32_t risk_reason;		/* enum npo_risk */
	int64_t risk_lane;		/* -1 when not sent */
	int64_t risk_eta_s;		/* -1 when not sent */
	int64_t health;			/* enum npo_health, -1 when not sent */
	uint32_t health_reason;		/* enum npo_health_reason */
	uint64_t counter[NPO_ATTR_CNT_SYMBOL_ERRORS + 1];
	uint32_t counters_present;	/* bit n: counter[NPO_ATTR_CNT_CRC_ERRORS + n] */
	bool has_traffic;		/* the port counted what it carried */
	uint64_t tx_bytes, tx_frames, rx_bytes, rx_frames;
	struct {			/* NPO_EVENT_REFUSED */
		uint32_t side;
		uint32_t job;
		uint32_t peer_node;
		uint32_t queue;
		uint32_t status;
		uint32_t count;
		bool owned;		/* the four below were sent */
		uint32_t pid;
		uint32_t uid;
		uint32_t throttle_ms;
	} refusal;
};

/* A clock as a CLOCK_GET reply or a clock event describes it. */
struct npo_nl_clock {
	uint32_t dev;
	char dev_name[16];
	uint32_t node_id;
	int64_t phc_index;		/* -1 when not sent */
	uint32_t role;			/* enum npo_clock_role */
	uint32_t state;			/* enum npo_clock_state */
	bool sync;
	uint32_t priority;
	uint32_t gm_node;
	uint32_t gm_priority;
	uint32_t steps;
	int64_t parent_port;		/* -1 as grandmaster */
	int64_t offset_ns;
	int64_t path_delay_ns;
	int64_t freq_ppt;
	uint64_t steps_taken;
	bool has_bound;
	uint64_t error_bound_ns;
	bool has_reference;		/* older drivers do not say */
	bool reference;
	int64_t health;			/* enum npo_health, -1 when not sent */
	uint32_t health_reason;		/* enum npo_health_reason */
	uint64_t error_limit_ns;
	unsigned int gm_allow_n;	/* 0: any node may lead */
	uint32_t gm_allow[16];
	uint64_t refused_gms;
	uint64_t refused_steps;
	int64_t refused_age_ms;		/* -1: never refused */
	uint32_t refused_node;
	uint32_t refused_port;
};

void npo_nl_port_decode(struct nlattr **tb, struct npo_nl_port *p);
void npo_nl_clock_decode(struct nlattr **tb, struct npo_nl_clock *c);

#endif
