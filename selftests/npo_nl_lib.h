/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Generic netlink helpers for the NPO selftests, on tools/lib's client
 * and decoders (npo_nl.h), as npoctl uses them: raw requests a test
 * builds (hostile ones too) with their errno, a port by PORT_GET, and a
 * multicast listener that waits for a given event.
 */
#ifndef NPO_NL_LIB_H
#define NPO_NL_LIB_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/genl/genl.h>
#include <linux/npo_netlink.h>

#include "npo_nl.h"

struct nl_sock *npo_nl_connect(void);
int npo_nl_family(struct nl_sock *sk);
struct nl_msg *npo_nl_new_msg(int family, uint8_t cmd, int flags);
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
/*
 * Wait up to timeout_ms for an event of kind (any device); return how many
 * came since the listener opened, and in *owned how many of them carried
 * attributes that describe a process (owner, protection domain, job,
 * wr_id).
 */
int npo_nl_wait_kind(struct npo_nl_events *ev, uint32_t kind, int timeout_ms,
		     unsigned int *owned);
/* A one-line description of the queued events, for test logs. */
const char *npo_nl_events_dump(struct npo_nl_events *ev);

#endif
