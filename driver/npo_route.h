/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: routing, so that any node reaches any node (npo_route.c):
 * link-state adverts, shortest paths, the device's route table, and the
 * link messages that carry adverts and link reports.
 */
#ifndef _NPO_ROUTE_H
#define _NPO_ROUTE_H

#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "npo_fabric_key.h"
#include "npo_regs.h"

struct netlink_callback;
struct seq_file;
struct npo_dev;
struct npo_port;
struct sk_buff;

struct npo_rt_route;

/**
 * struct npo_routing - the device's part in routing (npo_route.c)
 * @lock: protects everything below but @running, @wq and the works.
 * @self: this device's node id.
 * @lsdb: every node's latest link-state advert, by node id.
 * @nodes: entries in @lsdb.
 * @seq: the number of this device's last advert.
 * @readvertise: send a new advert on the next run.
 * @dirty: @lsdb changed since the routes were last computed.
 * @table: the routes last set in the device, by node.
 * @entries: entries in @table.
 * @programmed: @table is in the device.
 * @programmed_resets: the device's RESET_COUNT then: a reset empties it.
 * @reroutes: REROUTE events sent.
 * @miswired_refused: adverts that came in through a miswired port.
 * @spoofed_refused: adverts in a neighbour's name through another port.
 * @too_soon: adverts newer than the one kept but sooner after the last
 *	passed on than an origin may advertise: kept, passed on later.
 * @pending: some of those wait to be passed on.
 * @self_claims: adverts in this node's name newer than its own.
 * @share_refused: new origins refused: their port's share was full.
 * @full_refused: new origins refused: the table was full of reached ones.
 * @evicted: unreached origins forgotten to make room.
 * @learnt_via: origins kept, by the port they were first learnt through;
 *	an array of the device's ports.
 * @computed: jiffies of the last route computation, 0 before the first.
 * @computations: route computations since start.
 * @log: limits the log's lines a peer can cause (refused messages,
 *	reroutes, claims in our name); events keep the full record.
 * @running: interrupts and port events may queue work; cleared under
 *	&npo_dev.link_lock.
 * @wq: runs @work and @rx_work, one at a time.
 * @work: advertises, ages adverts, recomputes and sets the routes.
 * @rx_work: reads link messages.
 */
struct npo_routing {
	struct mutex lock; /* everything below but running, wq, the works */
	u32 self;
	struct xarray lsdb;
	unsigned int nodes;
	u32 seq;
	bool readvertise;
	bool dirty;
	struct npo_rt_route *table;
	unsigned int entries;
	bool programmed;
	u32 programmed_resets;
	u64 reroutes;
	u64 miswired_refused;
	u64 spoofed_refused;
	u64 too_soon;
	bool pending;
	u64 self_claims;
	u64 share_refused;
	u64 full_refused;
	u64 evicted;
	unsigned int *learnt_via;
	unsigned long computed;
	u64 computations;
	struct ratelimit_state log;
	bool running;
	struct workqueue_struct *wq;
	struct delayed_work work;
	struct work_struct rx_work;
};

/**
 * struct npo_rt_route - one route
 * @node: the destination.
 * @port: the first hop.
 * @hops: links on the path.
 */
struct npo_rt_route {
	u32 node;
	u8 port;
	u8 hops;
};

/* What a link message may hold besides its fabric key trailer. */
#define NPO_LMSG_BODY_MAX	(NPO_LMSG_MAX - sizeof(struct npo_fkey_trailer))

int npo_route_start(struct npo_dev *ndev);
void npo_route_stop(struct npo_dev *ndev);
void npo_route_irq(struct npo_dev *ndev);
bool npo_lmsg_supported(struct npo_dev *ndev);
int npo_lmsg_send(struct npo_dev *ndev, unsigned int port, const void *msg,
		  size_t len);
void npo_route_port_event(struct npo_port *port, u32 event);
void npo_route_keys_changed(struct npo_dev *ndev);
void npo_route_show(struct npo_dev *ndev, struct seq_file *m);
int npo_route_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
		       struct npo_dev *ndev);

#endif /* _NPO_ROUTE_H */
