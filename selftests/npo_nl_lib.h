/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Generic netlink helpers for the NPO selftests: requests with their
 * errno, port replies and events parsed into one flat view, and a
 * multicast listener that waits for a given event.
 */
#ifndef NPO_NL_LIB_H
#define NPO_NL_LIB_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/genl/genl.h>
#include <linux/npo_netlink.h>

/*
 * A port as a PORT_GET reply or an NPO_CMD_EVENT describes it; a REFUSED
 * event fills in the refusal (and port 0).
 */
struct npo_nl_port {
	uint32_t event;			/* NPO_EVENT_*, 0 in a reply */
	uint32_t dev;
	uint32_t port;
	uint32_t state;
	uint32_t rate_mbps;
	uint32_t width;
	uint32_t max_width;
	uint32_t flags;
	uint32_t reason;
	int64_t peer_node;		/* -1 when the peer is unknown */
	int64_t peer_port;
	bool has_lanes;			/* the two masks below were sent */
	uint32_t fault_lanes;
	uint32_t ber_lanes;
	uint64_t flaps;
	bool has_risk;			/* the link watch's four below were sent */
	uint32_t risk_lanes;
	uint32_t risk_reason;		/* enum npo_risk */
	int64_t risk_lane;		/* -1 when not sent */
	int64_t risk_eta_s;		/* -1 when not sent */
	uint64_t counter[NPO_ATTR_CNT_SYMBOL_ERRORS + 1];
	uint32_t counters_present;	/* bit n: counter[n] was sent */
	uint32_t node_id;		/* the device's */
	int64_t health;			/* enum npo_health, -1 when not sent */
	uint32_t health_reason;		/* enum npo_health_reason */
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

struct nl_sock *npo_nl_connect(void);
int npo_nl_family(struct nl_sock *sk);
struct nl_msg *npo_nl_request(int family, uint8_t cmd, int flags);
struct nl_msg *npo_nl_port_request(int family, uint8_t cmd, int dev, int port);
/* Send and wait for the ack: 0 or the kernel's negative errno. */
int npo_nl_transact(struct nl_sock *sk, struct nl_msg *msg);
/* PORT_GET of DEV/PORT into *out: 0 or a negative errno. */
int npo_nl_get_port(struct nl_sock *sk, int family, int dev, int port,
		    struct npo_nl_port *out);

/* Listener on the events group; events are queued until taken. */
struct npo_nl_events;

struct npo_nl_events *npo_nl_events_open(void);
void npo_nl_events_close(struct npo_nl_events *ev);
/*
 * Take the first queued or arriving event of kind for DEV/PORT within
 * timeout_ms, leaving the others queued.  Returns whether one came; fills
 * *out (if not NULL) with it.
 */
bool npo_nl_wait_event(struct npo_nl_events *ev, uint32_t kind, int dev,
		       int port, int timeout_ms, struct npo_nl_port *out);
/* A one-line description of the queued events, for test logs. */
const char *npo_nl_events_dump(struct npo_nl_events *ev);

#endif
