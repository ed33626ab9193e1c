// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO routing: any node of the fabric reaches any other.
 *
 * Each device advertises its active links (port, peer node, peer port,
 * rate, width) in a link-state advert, numbered, flooded to the whole
 * fabric over link messages: a device that hears an advert newer than
 * the one it keeps passes it on through its other active ports.  Every
 * device so keeps every node's latest advert, its link-state database,
 * and computes from it the shortest path to each node, every link
 * costing one; a link counts only when both its ends advertise it.  A
 * destination equally far through several ports goes out of one of them
 * chosen by the pair of nodes, so that both ways round a ring carry
 * traffic.  The first hop of each path is the device's route table
 * (ROUTE_SET), and each device on the way forwards by its own.
 *
 * A link going down changes its ends' adverts at once; every device
 * recomputes as they arrive, and one whose routes moved says so with an
 * NPO_EVENT_REROUTE.  Until then the device holds descriptors whose path
 * is broken (ROUTE_HOLD_MS) instead of failing them.  Adverts are
 * refreshed every NPO_RT_REFRESH_MS and forgotten after NPO_RT_MAX_AGE_MS
 * unheard, for a node that left the fabric.  Documentation/hardware.rst
 * ("Routing") describes the advert on the wire.
 */
#include <linux/bsearch.h>
#include <linux/dma-mapping.h>
#include <linux/jhash.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "npo.h"
#include "npo_genl.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_route.h"

static unsigned int route_hold_ms = 1000;
module_param(route_hold_ms, uint, 0644);
MODULE_PARM_DESC(route_hold_ms,
		 "How long a descriptor whose path a link failure cut waits for new routes, ms (0-60000; 0 fails it at once)");

#define NPO_RT_REFRESH_MS	5000
#define NPO_RT_MAX_AGE_MS	(4 * NPO_RT_REFRESH_MS)
/*
 * A device advertises at most this often, link changes coalesced; a newer
 * advert of one origin arriving sooner than MIN_ARRIVAL after the last is
 * dropped (OSPF's MinLSInterval and MinLSArrival), and routes are computed
 * at most once per SPF_HOLD: a peer flooding adverts costs bounded work.
 */
#define NPO_RT_MIN_INTERVAL_MS	50
#define NPO_RT_MIN_ARRIVAL_MS	40
#define NPO_RT_SPF_HOLD_MS	50
/*
 * An old advert is answered with ours, and an advert in a neighbour's
 * name passed to it, at most this often per origin.
 */
#define NPO_RT_TELL_MS		1000
/*
 * Origins first learnt through one port may fill at most this share of
 * the table while other ports are up: a neighbour inventing nodes leaves
 * room for those learnt elsewhere.
 */
#define NPO_RT_PORT_SHARE(max)	((max) * 3 / 4)
/* The port our own advert was "learnt" through. */
#define NPO_RT_VIA_SELF		U8_MAX
/* Destinations a REROUTE event lists; NPO_ATTR_ROUTE_MOVED counts all. */
#define NPO_RT_EVENT_ROUTES	16

/* Link message types: the first byte of every link message. */
#define NPO_LMSG_TYPE_ADVERT	1	/* NPO_LMSG_TYPE_DIAG is 2 (npo.h) */
#define NPO_RT_ADVERT_VERSION	1

/**
 * struct npo_rt_link - one link in an advert, little endian on the wire
 * @peer_node: the node at its far end.
 * @port: the advertising device's port.
 * @peer_port: the far end's port.
 * @rate: &enum npo_hw_rate it runs at.
 * @width: lanes it runs on.
 */
struct npo_rt_link {
	__le32 peer_node;
	u8 port;
	u8 peer_port;
	u8 rate;
	u8 width;
} __packed;

/**
 * struct npo_rt_advert - a link-state advert, a link message
 * @type: %NPO_LMSG_TYPE_ADVERT.
 * @version: %NPO_RT_ADVERT_VERSION; a receiver drops any other.
 * @nlinks: entries in @link.
 * @rsvd: zero.
 * @origin: the node whose links these are.
 * @seq: its advert number, newer if greater (modulo 2^32).
 * @link: its active links.
 */
struct npo_rt_advert {
	u8 type;
	u8 version;
	u8 nlinks;
	u8 rsvd;
	__le32 origin;
	__le32 seq;
	struct npo_rt_link link[];
} __packed;

#define NPO_RT_MAX_LINKS \
	((NPO_LMSG_BODY_MAX - sizeof(struct npo_rt_advert)) / \
	 sizeof(struct npo_rt_link))

/**
 * struct npo_rt_lsa - a node's latest advert, as kept
 * @node: the node.
 * @seq: the advert's number.
 * @heard: jiffies when it, a newer one than the last, arrived.
 * @told: jiffies when it was last sent back to a port that had an older
 *	one, so that a replayed advert is not answered at line rate.
 * @relayed: jiffies when an advert in its name was last passed to it.
 * @flooded: jiffies when it was last passed on.
 * @pending_from: 1 + the port a newer one came in through too soon after
 *	the last to be passed on yet; 0 if none waits.
 * @via: the port its origin was first learnt through, for the share.
 * @reached: the last computation found a path to its origin.
 * @nlinks: entries in @link.
 * @link: its links.
 */
struct npo_rt_lsa {
	u32 node;
	u32 seq;
	unsigned long heard;
	unsigned long told;
	unsigned long relayed;
	unsigned long flooded;
	u8 pending_from;
	u8 via;
	bool reached;
	u8 nlinks;
	struct npo_rt_link link[NPO_RT_MAX_LINKS];
};

/*
 * Tables set in any device since load, from 1: a dump of every device's
 * routes that spans a change is marked interrupted (0 means untracked).
 */
static atomic_t npo_rt_tables_set = ATOMIC_INIT(1);

static bool npo_rt_newer(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

/**
 * npo_lmsg_supported() - whether the device has link messages
 * @ndev: the device.
 *
 * Return: true from interface 1.13 (link messages, the route table), for
 * a device with ports.
 */
bool npo_lmsg_supported(struct npo_dev *ndev)
{
	return ndev->ports &&
	       FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
	       NPO_IF_MINOR_ROUTING;
}

/* --- link messages --------------------------------------------------------- */

/**
 * npo_lmsg_send() - send a link message to the far end of a port
 * @ndev: the device.
 * @port: an active port.
 * @msg: the message, its first byte its type (hardware.rst, "Link
 *	messages").
 * @len: its length, 1..%NPO_LMSG_BODY_MAX.
 *
 * The message is signed with the fabric key, if the device holds one.
 *
 * Context: process context; takes &npo_dev.cmd_lock.
 * Return: 0, -EMSGSIZE for a message too long to sign, the crypto API's
 * error, or the mailbox's.
 */
int npo_lmsg_send(struct npo_dev *ndev, unsigned int port, const void *msg,
		  size_t len)
{
	u32 args[4];
	int err;

	if (WARN_ON_ONCE(!len || len > NPO_LMSG_BODY_MAX))
		return -EMSGSIZE;
	mutex_lock(&ndev->cmd_lock);
	memcpy(ndev->cmd_buf, msg, len);
	err = npo_fkey_sign(ndev, NPO_FKEY_CTX_LMSG, ndev->cmd_buf, len,
			    NPO_LMSG_MAX, 0, 0);
	if (err < 0) {
		mutex_unlock(&ndev->cmd_lock);
		return err;
	}
	args[0] = FIELD_PREP(NPO_LMSG_SEND_PORT, port);
	args[1] = err;
	args[2] = lower_32_bits(ndev->cmd_dma);
	args[3] = upper_32_bits(ndev->cmd_dma);
	err = npo_mbox_read(ndev, NPO_MBOX_OP_LMSG_SEND, args, ARRAY_SIZE(args),
			    NULL, 0);
	mutex_unlock(&ndev->cmd_lock);
	return err;
}

static int npo_lmsg_recv(struct npo_dev *ndev, struct npo_hw_link_msg *m)
{
	u32 args[2];
	int err;

	mutex_lock(&ndev->cmd_lock);
	args[0] = lower_32_bits(ndev->cmd_dma);
	args[1] = upper_32_bits(ndev->cmd_dma);
	err = npo_mbox_read(ndev, NPO_MBOX_OP_LMSG_RECV, args, ARRAY_SIZE(args),
			    NULL, 0);
	if (!err)
		memcpy(m, ndev->cmd_buf, sizeof(*m));
	mutex_unlock(&ndev->cmd_lock);
	return err;
}

/*
 * Ports whose links are up now, from the cached state, but for miswired
 * ones: a cable into another fabric must not merge the two.
 */
static unsigned long npo_rt_active_ports(struct npo_dev *ndev)
{
	unsigned long active = 0;
	unsigned int i;

	mutex_lock(&ndev->link_lock);
	for (i = 0; i < ndev->num_ports; i++)
		if (FIELD_GET(NPO_PST_STATE, ndev->ports[i].status) ==
		    NPO_HW_PORT_ACTIVE && ndev->ports[i].peer_valid &&
		    !npo_port_miswired(&ndev->ports[i]))
			active |= BIT(i);
	mutex_unlock(&ndev->link_lock);
	return active;
}

static size_t npo_rt_advert_fill(const struct npo_rt_lsa *lsa,
				 struct npo_rt_advert *a)
{
	a->type = NPO_LMSG_TYPE_ADVERT;
	a->version = NPO_RT_ADVERT_VERSION;
	a->nlinks = lsa->nlinks;
	a->rsvd = 0;
	a->origin = cpu_to_le32(lsa->node);
	a->seq = cpu_to_le32(lsa->seq);
	memcpy(a->link, lsa->link, lsa->nlinks * sizeof(a->link[0]));
	return struct_size(a, link, lsa->nlinks);
}

/* Send lsa out of every active port in ports. */
static void npo_rt_flood(struct npo_dev *ndev, const struct npo_rt_lsa *lsa,
			 unsigned long ports)
{
	u8 buf[NPO_LMSG_MAX] __aligned(4);
	struct npo_rt_advert *a = (void *)buf;
	size_t len = npo_rt_advert_fill(lsa, a);
	unsigned int i;

	ports &= npo_rt_active_ports(ndev);
	for_each_set_bit(i, &ports, ndev->num_ports)
		npo_lmsg_send(ndev, i, a, len);
}

/* The node at the far end of a port, 0 if unknown. */
static u32 npo_rt_next_node(struct npo_dev *ndev, unsigned int port)
{
	u32 node = 0;

	mutex_lock(&ndev->link_lock);
	if (ndev->ports[port].peer_valid)
		node = ndev->ports[port].peer_node;
	mutex_unlock(&ndev->link_lock);
	return node;
}

/* --- the link-state database ------------------------------------------------ */

/* This device's links as they are now. */
static void npo_rt_own_links(struct npo_dev *ndev, struct npo_rt_lsa *lsa)
{
	unsigned int i;

	lsa->node = ndev->node_id;
	lsa->nlinks = 0;
	mutex_lock(&ndev->link_lock);
	for (i = 0; i < ndev->num_ports && lsa->nlinks < NPO_RT_MAX_LINKS; i++) {
		struct npo_port *port = &ndev->ports[i];
		u32 st = port->status;

		/* A miswired port is no link of ours: nothing is routed over it. */
		if (FIELD_GET(NPO_PST_STATE, st) != NPO_HW_PORT_ACTIVE ||
		    !port->peer_valid || port->plan.miswired)
			continue;
		lsa->link[lsa->nlinks++] = (struct npo_rt_link) {
			.peer_node = cpu_to_le32(port->peer_node),
			.port = i,
			.peer_port = port->peer_port,
			.rate = FIELD_GET(NPO_PST_RATE, st),
			.width = FIELD_GET(NPO_PST_WIDTH, st),
		};
	}
	mutex_unlock(&ndev->link_lock);
}

static bool npo_rt_same_links(const struct npo_rt_lsa *a,
			      const struct npo_rt_lsa *b)
{
	return a->nlinks == b->nlinks &&
	       !memcmp(a->link, b->link, a->nlinks * sizeof(a->link[0]));
}

static void npo_rt_forget(struct npo_routing *rt, struct npo_rt_lsa *lsa)
{
	xa_erase(&rt->lsdb, lsa->node);
	if (lsa->via != NPO_RT_VIA_SELF)
		rt->learnt_via[lsa->via]--;
	kfree(lsa);
	rt->nodes--;
	rt->dirty = true;
}

/*
 * A full table, or a port's full share, makes room by forgetting the
 * origin no path reached that was heard from longest ago (of those learnt
 * through port via, unless NPO_RT_VIA_SELF): made-up origins are not
 * linked to the fabric, since a link counts only when both its ends
 * advertise it.
 */
static bool npo_rt_evict(struct npo_routing *rt, unsigned int via)
{
	struct npo_rt_lsa *lsa, *victim = NULL;
	unsigned long node;

	xa_for_each(&rt->lsdb, node, lsa)
		if (node != rt->self && !lsa->reached &&
		    (via == NPO_RT_VIA_SELF || lsa->via == via) &&
		    (!victim || time_before(lsa->heard, victim->heard)))
			victim = lsa;
	if (!victim)
		return false;
	npo_rt_forget(rt, victim);
	rt->evicted++;
	return true;
}

/*
 * Keep a copy of lsa as node's latest, its origin new if first learnt
 * through port via (NPO_RT_VIA_SELF for our own) while active ports are
 * up; 0, -ENOSPC or -ENOMEM.
 */
static int npo_rt_store(struct npo_routing *rt, const struct npo_rt_lsa *lsa,
			unsigned int via, unsigned int active)
{
	struct npo_rt_lsa *kept = xa_load(&rt->lsdb, lsa->node);

	if (!kept) {
		/* A flood of made-up origins never shuts out our own. */
		if (lsa->node != rt->self && via != NPO_RT_VIA_SELF && active > 1 &&
		    rt->learnt_via[via] >= NPO_RT_PORT_SHARE(NPO_ROUTE_MAX) &&
		    !npo_rt_evict(rt, via)) {
			rt->share_refused++;
			return -ENOSPC;
		}
		if (rt->nodes >= NPO_ROUTE_MAX && lsa->node != rt->self &&
		    !npo_rt_evict(rt, NPO_RT_VIA_SELF)) {
			rt->full_refused++;
			return -ENOSPC;
		}
		kept = kmalloc(sizeof(*kept), GFP_KERNEL);
		if (!kept)
			return -ENOMEM;
		if (xa_err(xa_store(&rt->lsdb, lsa->node, kept, GFP_KERNEL))) {
			kfree(kept);
			return -ENOMEM;
		}
		rt->nodes++;
		if (via != NPO_RT_VIA_SELF)
			rt->learnt_via[via]++;
		*kept = *lsa;
		kept->via = via;
		/* Long ago, whatever jiffies started at. */
		kept->told = jiffies - msecs_to_jiffies(NPO_RT_TELL_MS);
		kept->relayed = kept->told;
		kept->flooded = jiffies - msecs_to_jiffies(NPO_RT_MIN_ARRIVAL_MS);
		kept->pending_from = 0;
		/* Unknown until routes are computed: not the first to go. */
		kept->reached = true;
	} else {
		kept->seq = lsa->seq;
		kept->nlinks = lsa->nlinks;
		memcpy(kept->link, lsa->link, lsa->nlinks * sizeof(lsa->link[0]));
	}
	kept->heard = jiffies;
	rt->dirty = true;
	return 0;
}

/*
 * Our own advert: a new one when our links changed or the last is due
 * for a refresh, sent out of every active port.
 */
static void npo_rt_advertise(struct npo_dev *ndev, bool force)
{
	struct npo_routing *rt = &ndev->rt;
	struct npo_rt_lsa *kept = xa_load(&rt->lsdb, ndev->node_id);
	struct npo_rt_lsa now;

	npo_rt_own_links(ndev, &now);
	if (!force && kept && npo_rt_same_links(kept, &now) &&
	    time_before(jiffies, kept->heard + msecs_to_jiffies(NPO_RT_REFRESH_MS)))
		return;
	/* Changes coming fast go out together, a little later. */
	if (kept && time_before(jiffies, kept->heard +
				msecs_to_jiffies(NPO_RT_MIN_INTERVAL_MS))) {
		rt->readvertise = true;
		return;
	}
	now.seq = ++rt->seq;
	if (npo_rt_store(rt, &now, NPO_RT_VIA_SELF, 0))
		return;
	npo_rt_flood(ndev, &now, ~0UL);
}

/* Forget the adverts of nodes unheard for too long: they left. */
static void npo_rt_age(struct npo_dev *ndev)
{
	struct npo_routing *rt = &ndev->rt;
	unsigned long max_age = msecs_to_jiffies(NPO_RT_MAX_AGE_MS);
	struct npo_rt_lsa *lsa;
	unsigned long node;

	xa_for_each(&rt->lsdb, node, lsa) {
		if (node == ndev->node_id ||
		    time_before(jiffies, lsa->heard + max_age))
			continue;
		npo_rt_forget(rt, lsa);
	}
}

/* Adverts kept too soon after the last of their origin: pass them on now. */
static void npo_rt_flood_pending(struct npo_dev *ndev)
{
	struct npo_routing *rt = &ndev->rt;
	unsigned long node, active = 0;
	struct npo_rt_lsa *lsa;
	bool left = false;

	if (!rt->pending)
		return;
	xa_for_each(&rt->lsdb, node, lsa) {
		if (!lsa->pending_from)
			continue;
		if (time_before(jiffies, lsa->flooded +
				msecs_to_jiffies(NPO_RT_MIN_ARRIVAL_MS))) {
			left = true;
			continue;
		}
		if (!active)
			active = npo_rt_active_ports(ndev);
		lsa->flooded = jiffies;
		npo_rt_flood(ndev, lsa, active & ~BIT(lsa->pending_from - 1));
		lsa->pending_from = 0;
	}
	rt->pending = left;
}

/* --- shortest paths ---------------------------------------------------------- */

/* The link of a that leads to b on b's port b_port from a's port a_port. */
static bool npo_rt_has_link(const struct npo_rt_lsa *a, u32 b, u8 a_port,
			    u8 b_port)
{
	unsigned int i;

	for (i = 0; i < a->nlinks; i++)
		if (le32_to_cpu(a->link[i].peer_node) == b &&
		    a->link[i].port == a_port && a->link[i].peer_port == b_port)
			return true;
	return false;
}

static int npo_rt_find_node(const void *key, const void *elt)
{
	u32 node = *(const u32 *)key;
	u32 e = (*(struct npo_rt_lsa * const *)elt)->node;

	return node < e ? -1 : node > e;
}

/**
 * struct npo_rt_spf - working space of one computation
 * @lsa: every kept advert, by node.
 * @n: entries in @lsa.
 * @dist: links from this device to each, 0 for itself, U8_MAX unreached.
 * @ports: this device's ports that start a shortest path to each.
 * @queue: the breadth-first order.
 */
struct npo_rt_spf {
	struct npo_rt_lsa **lsa;
	unsigned int n;
	u8 *dist;
	unsigned long *ports;
	u32 *queue;
};

static int npo_rt_index(const struct npo_rt_spf *w, u32 node)
{
	struct npo_rt_lsa **at;

	at = bsearch(&node, w->lsa, w->n, sizeof(*w->lsa), npo_rt_find_node);
	return at ? at - w->lsa : -1;
}

static void npo_rt_spf_free(struct npo_rt_spf *w)
{
	kvfree(w->lsa);
	kvfree(w->dist);
	kvfree(w->ports);
	kvfree(w->queue);
}

/*
 * Breadth first from this device over links both ends advertise; each
 * node's port set is the union of its parents' at one link less.
 */
static int npo_rt_spf(struct npo_dev *ndev, struct npo_rt_spf *w)
{
	struct npo_routing *rt = &ndev->rt;
	unsigned int head = 0, tail = 0, i;
	struct npo_rt_lsa *lsa;
	unsigned long node;
	int self;

	w->n = 0;
	w->lsa = kvmalloc_array(rt->nodes, sizeof(*w->lsa), GFP_KERNEL);
	w->dist = kvmalloc_array(rt->nodes, sizeof(*w->dist), GFP_KERNEL);
	w->ports = kvcalloc(rt->nodes, sizeof(*w->ports), GFP_KERNEL);
	w->queue = kvmalloc_array(rt->nodes, sizeof(*w->queue), GFP_KERNEL);
	if (!w->lsa || !w->dist || !w->ports || !w->queue)
		return -ENOMEM;
	/* The xarray walks in index order: by node, for npo_rt_index(). */
	xa_for_each(&rt->lsdb, node, lsa)
		if (w->n < rt->nodes)
			w->lsa[w->n++] = lsa;
	memset(w->dist, U8_MAX, w->n);
	self = npo_rt_index(w, ndev->node_id);
	if (self < 0)
		return 0;
	w->dist[self] = 0;
	w->queue[tail++] = self;
	while (head < tail) {
		unsigned int u = w->queue[head++];
		const struct npo_rt_lsa *a = w->lsa[u];

		if (w->dist[u] >= NPO_ROUTE_MAX_HOPS)
			continue;
		for (i = 0; i < a->nlinks; i++) {
			u32 peer = le32_to_cpu(a->link[i].peer_node);
			int v = npo_rt_index(w, peer);

			if (v < 0 || !npo_rt_has_link(w->lsa[v], a->node,
						      a->link[i].peer_port,
						      a->link[i].port))
				continue;
			if (w->dist[v] == U8_MAX) {
				w->dist[v] = w->dist[u] + 1;
				w->queue[tail++] = v;
			} else if (w->dist[v] != w->dist[u] + 1) {
				continue;
			}
			w->ports[v] |= u == self ? BIT(a->link[i].port) :
				       w->ports[u];
		}
	}
	return 0;
}

/* One of ports, the same for the same pair of nodes. */
static unsigned int npo_rt_pick(u32 self, u32 dest, unsigned long ports)
{
	unsigned int k = jhash_2words(self, dest, 0) % hweight_long(ports);
	unsigned int i;

	for_each_set_bit(i, &ports, BITS_PER_LONG)
		if (!k--)
			return i;
	return __ffs(ports);
}

/* The route table from the database: every node reached, by node. */
static int npo_rt_compute(struct npo_dev *ndev, struct npo_rt_route **out,
			  unsigned int *count)
{
	struct npo_rt_spf w = { };
	struct npo_rt_route *t;
	unsigned int i, n = 0;
	int err;

	*out = NULL;
	*count = 0;
	err = npo_rt_spf(ndev, &w);
	if (err)
		goto out;
	t = kvcalloc(max(w.n, 1u), sizeof(*t), GFP_KERNEL);
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < w.n; i++) {
		unsigned int port;

		w.lsa[i]->reached = w.dist[i] != U8_MAX;
		if (!w.dist[i] || w.dist[i] == U8_MAX || !w.ports[i])
			continue;
		port = npo_rt_pick(ndev->node_id, w.lsa[i]->node, w.ports[i]);
		t[n++] = (struct npo_rt_route) {
			.node = w.lsa[i]->node,
			.port = port,
			.hops = w.dist[i],
		};
	}
	*out = t;
	*count = n;
out:
	npo_rt_spf_free(&w);
	return err;
}

/* --- the device's table -------------------------------------------------------- */

static int npo_rt_program(struct npo_dev *ndev, const struct npo_rt_route *t,
			  unsigned int n)
{
	struct npo_hw_route *hw = NULL;
	dma_addr_t dma = 0;
	size_t size = max_t(size_t, n, 1) * sizeof(*hw);
	u32 args[4];
	unsigned int i;
	int err;

	hw = dma_alloc_coherent(&ndev->pdev->dev, size, &dma, GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		hw[i] = (struct npo_hw_route) {
			.node = cpu_to_le32(t[i].node),
			.port = t[i].port,
			.hops = t[i].hops,
		};
	npo_wr32(ndev, NPO_REG_ROUTE_HOLD_MS,
		 min_t(unsigned int, READ_ONCE(route_hold_ms),
		       NPO_ROUTE_HOLD_MS_MAX));
	args[0] = FIELD_PREP(NPO_ROUTE_SET_COUNT, n);
	args[1] = 0;
	args[2] = lower_32_bits(dma);
	args[3] = upper_32_bits(dma);
	err = npo_mbox_read(ndev, NPO_MBOX_OP_ROUTE_SET, args, ARRAY_SIZE(args),
			    NULL, 0);
	npo_mbox_settle(ndev, NPO_MBOX_OP_ROUTE_SET, err);
	dma_free_coherent(&ndev->pdev->dev, size, hw, dma);
	return err;
}

static const struct npo_rt_route *npo_rt_lookup(const struct npo_rt_route *t,
						unsigned int n, u32 node)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (t[mid].node == node)
			return &t[mid];
		if (t[mid].node < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int npo_rt_put_route(struct sk_buff *msg, const struct npo_rt_route *now,
			    const struct npo_rt_route *was)
{
	struct nlattr *nest = nla_nest_start(msg, NPO_ATTR_ROUTE);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, NPO_ATTR_ROUTE_DEST_NODE, was->node) ||
	    nla_put_u32(msg, NPO_ATTR_ROUTE_OLD_PORT, was->port) ||
	    nla_put_u32(msg, NPO_ATTR_ROUTE_OLD_HOPS, was->hops) ||
	    (now && (nla_put_u32(msg, NPO_ATTR_ROUTE_PORT, now->port) ||
		     nla_put_u32(msg, NPO_ATTR_ROUTE_HOPS, now->hops)))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * Tell listeners which destinations moved between the tables old and
 * new: those that go out of another port, or nowhere, now.
 */
static void npo_rt_reroute_event(struct npo_dev *ndev,
				 const struct npo_rt_route *old, unsigned int n_old,
				 const struct npo_rt_route *new, unsigned int n_new)
{
	const struct npo_rt_route *first = NULL, *first_now = NULL;
	unsigned int i, moved = 0, listed = 0;
	bool say;
	struct sk_buff *msg;
	void *hdr;
	int err;

	for (i = 0; i < n_old; i++) {
		const struct npo_rt_route *now = npo_rt_lookup(new, n_new,
							       old[i].node);

		if (now && now->port == old[i].port)
			continue;
		if (!moved++) {
			first = &old[i];
			first_now = now;
		}
	}
	if (!moved)
		return;
	ndev->rt.reroutes++;
	/* A peer's link changes cause these: the events keep every one. */
	say = __ratelimit(&ndev->rt.log);
	if (say && first_now)
		npo_info(ndev, "rerouted %u destinations: node %u now through port %u, %u hops (was port %u)\n",
			 moved, first->node, first_now->port, first_now->hops,
			 first->port);
	else if (say)
		npo_info(ndev, "rerouted %u destinations: node %u unreachable (was through port %u)\n",
			 moved, first->node, first->port);
	msg = npo_genl_event_new(NPO_EVENT_REROUTE, &hdr);
	if (!msg)
		return;
	err = nla_put_u32(msg, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	      nla_put_string(msg, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
	      nla_put_u32(msg, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
	      nla_put_u32(msg, NPO_ATTR_ROUTE_MOVED, moved) ? -EMSGSIZE : 0;
	for (i = 0; !err && i < n_old && listed < NPO_RT_EVENT_ROUTES; i++) {
		const struct npo_rt_route *now = npo_rt_lookup(new, n_new,
							       old[i].node);

		if (now && now->port == old[i].port)
			continue;
		err = npo_rt_put_route(msg, now, &old[i]);
		listed++;
	}
	npo_genl_event_send(ndev, msg, hdr, err);
}

/* Compute, and set the device's table if it differs or the device reset. */
static void npo_rt_update(struct npo_dev *ndev)
{
	struct npo_routing *rt = &ndev->rt;
	u32 resets = npo_rd32(ndev, NPO_REG_RESET_COUNT);
	struct npo_rt_route *t;
	unsigned int n;

	if (!rt->dirty && rt->programmed && resets == rt->programmed_resets)
		return;
	/* At most one computation per hold: the work comes back for it. */
	if (rt->computed && time_before(jiffies, rt->computed +
					msecs_to_jiffies(NPO_RT_SPF_HOLD_MS)))
		return;
	if (npo_rt_compute(ndev, &t, &n))
		return;
	rt->computed = jiffies ?: 1;
	rt->computations++;
	rt->dirty = false;
	if (rt->programmed && resets == rt->programmed_resets &&
	    n == rt->entries && !memcmp(t, rt->table, n * sizeof(*t))) {
		kvfree(t);
		return;
	}
	if (npo_rt_program(ndev, t, n)) {
		/* Tried again on the next run. */
		rt->dirty = true;
		kvfree(t);
		return;
	}
	if (rt->programmed)
		npo_rt_reroute_event(ndev, rt->table, rt->entries, t, n);
	kvfree(rt->table);
	rt->table = t;
	rt->entries = n;
	atomic_inc(&npo_rt_tables_set);
	rt->programmed = true;
	rt->programmed_resets = resets;
}

static void npo_rt_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(to_delayed_work(work),
					    struct npo_dev, rt.work);
	struct npo_routing *rt = &ndev->rt;

	if (npo_state(ndev) == NPO_DEV_STATE_READY) {
		bool force;

		mutex_lock(&rt->lock);
		force = rt->readvertise;
		rt->readvertise = false;
		npo_rt_advertise(ndev, force);
		npo_rt_flood_pending(ndev);
		npo_rt_age(ndev);
		npo_rt_update(ndev);
		mutex_unlock(&rt->lock);
	}
	if (READ_ONCE(rt->running))
		queue_delayed_work(rt->wq, &rt->work,
				   msecs_to_jiffies(rt->dirty || rt->readvertise ||
						    rt->pending ?
						    NPO_RT_SPF_HOLD_MS :
						    NPO_RT_REFRESH_MS / 5));
}

/* --- receiving ------------------------------------------------------------------ */

/* A message refused by its fabric key: counted there, said here, briefly. */
static void npo_rt_refused(struct npo_dev *ndev, unsigned int port, int err)
{
	if (__ratelimit(&ndev->rt.log))
		npo_warn(ndev, "port %u: refused a link message from node %u: %s\n",
			 port, npo_rt_next_node(ndev, port),
			 err == -EPERM ? "unsigned, and this device holds a fabric key" :
			 err == -ENOKEY ? "signed with a fabric key this device does not hold" :
			 "its MAC does not match");
}

/* An advert as kept, from one checked on the wire. */
static void npo_rt_lsa_from(const struct npo_rt_advert *a,
			    struct npo_rt_lsa *lsa)
{
	lsa->node = le32_to_cpu(a->origin);
	lsa->seq = le32_to_cpu(a->seq);
	lsa->nlinks = a->nlinks;
	memcpy(lsa->link, a->link, a->nlinks * sizeof(a->link[0]));
}

/*
 * A neighbour speaks for itself through its own cable only: an advert in
 * its name through another port is someone else's.  A neighbour is a
 * node whose own advert, as kept, lists its link to this port: what the
 * far end of a cable says of itself in training is not signed, and a
 * cable peer claiming another node's id must not get that node's adverts
 * refused.  Returns true if the advert may be believed; else *to has the
 * ports that lead to the neighbour it names.
 */
static bool npo_rt_origin_fits_port(struct npo_dev *ndev,
				    const struct npo_rt_lsa *kept, u32 origin,
				    unsigned int from, unsigned long *to)
{
	bool neighbour = false, through_it = false;
	unsigned int i;

	*to = 0;
	if (!kept)
		return true;
	mutex_lock(&ndev->link_lock);
	for (i = 0; i < ndev->num_ports; i++) {
		const struct npo_port *p = &ndev->ports[i];

		if (FIELD_GET(NPO_PST_STATE, p->status) != NPO_HW_PORT_ACTIVE ||
		    !p->peer_valid || p->peer_node != origin ||
		    npo_port_miswired(p) ||
		    !npo_rt_has_link(kept, ndev->node_id, p->peer_port, i))
			continue;
		neighbour = true;
		through_it |= i == from;
		*to |= BIT(i);
	}
	mutex_unlock(&ndev->link_lock);
	return !neighbour || through_it;
}

/* An advert came in through port from: keep it and pass it on if news. */
static void npo_rt_rx_advert(struct npo_dev *ndev, unsigned int from,
			     const struct npo_rt_advert *a, size_t len)
{
	struct npo_routing *rt = &ndev->rt;
	u32 origin = le32_to_cpu(a->origin), seq = le32_to_cpu(a->seq);
	struct npo_rt_lsa *kept, lsa;
	unsigned long active, to;
	bool soon;

	if (a->version != NPO_RT_ADVERT_VERSION || !origin ||
	    a->nlinks > NPO_RT_MAX_LINKS ||
	    len < struct_size(a, link, a->nlinks))
		return;
	if (origin == ndev->node_id) {
		/*
		 * Ours from before a reload, or someone speaking in our name:
		 * either way, go on past its number, a little later.
		 */
		if (npo_rt_newer(seq, rt->seq)) {
			rt->seq = seq;
			rt->readvertise = true;
			rt->self_claims++;
			if (__ratelimit(&rt->log))
				npo_info(ndev, "port %u: an advert in this node's name, newer than its own: from before a reload, or forged\n",
					 from);
		}
		return;
	}
	kept = xa_load(&rt->lsdb, origin);
	if (!npo_rt_origin_fits_port(ndev, kept, origin, from, &to)) {
		/* Copies of its adverts that came round the other way: no news. */
		if (!npo_rt_newer(seq, kept->seq))
			return;
		rt->spoofed_refused++;
		/*
		 * Not believed, but the node it names hears what is said in
		 * its name, and outbids it with a newer advert of its own,
		 * which every device then believes.  Once a second at most.
		 */
		if (time_after_eq(jiffies, kept->relayed +
				  msecs_to_jiffies(NPO_RT_TELL_MS))) {
			kept->relayed = jiffies;
			npo_rt_lsa_from(a, &lsa);
			npo_rt_flood(ndev, &lsa, to);
		}
		return;
	}
	if (kept && !npo_rt_newer(seq, kept->seq)) {
		/* Its origin restarted its numbers: tell it ours, not too often. */
		if (seq != kept->seq &&
		    time_after_eq(jiffies, kept->told + msecs_to_jiffies(NPO_RT_TELL_MS))) {
			kept->told = jiffies;
			npo_rt_flood(ndev, kept, BIT(from));
		}
		return;
	}
	npo_rt_lsa_from(a, &lsa);
	active = npo_rt_active_ports(ndev);
	/*
	 * Sooner after the last passed on than an origin advertises: kept,
	 * as the newest, but passed on only when the interval is over
	 * (npo_rt_flood_pending()): a peer flooding adverts of one origin
	 * costs one flood per interval (and routes are computed at most once
	 * per SPF hold), and nothing is lost.
	 */
	soon = kept && time_before(jiffies, kept->flooded +
				   msecs_to_jiffies(NPO_RT_MIN_ARRIVAL_MS));
	if (npo_rt_store(rt, &lsa, from, hweight_long(active)))
		return;
	kept = xa_load(&rt->lsdb, origin);
	if (soon) {
		kept->pending_from = from + 1;
		rt->too_soon++;
		rt->pending = true;
		return;
	}
	kept->flooded = jiffies;
	npo_rt_flood(ndev, kept, active & ~BIT(from));
}

static void npo_rt_rx_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(work, struct npo_dev, rt.rx_work);
	struct npo_routing *rt = &ndev->rt;
	struct npo_hw_link_msg *m;
	int budget = NPO_LMSG_RX_DEPTH;
	bool news = false;
	int err;

	if (npo_state(ndev) != NPO_DEV_STATE_READY)
		return;
	m = kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return;
	mutex_lock(&rt->lock);
	while (budget-- && !npo_lmsg_recv(ndev, m)) {
		size_t len = le16_to_cpu(m->len);

		if (m->port >= ndev->num_ports || !len || len > NPO_LMSG_MAX)
			continue;
		err = npo_fkey_verify(ndev, NPO_FKEY_CTX_LMSG, m->payload, &len,
				      0, 0);
		if (err) {
			npo_rt_refused(ndev, m->port, err);
			continue;
		}
		if (m->payload[0] == NPO_LMSG_TYPE_DIAG) {
			npo_link_diag_rx(ndev, m->port, m->payload, len);
			continue;
		}
		/* Other types are for others: none yet. */
		if (m->payload[0] != NPO_LMSG_TYPE_ADVERT ||
		    len < sizeof(struct npo_rt_advert))
			continue;
		/* Another fabric's, or nobody's: not ours to learn from. */
		if (npo_port_miswired(&ndev->ports[m->port])) {
			rt->miswired_refused++;
			continue;
		}
		npo_rt_rx_advert(ndev, m->port, (void *)m->payload, len);
		news = true;
	}
	mutex_unlock(&rt->lock);
	kfree(m);
	if (!READ_ONCE(rt->running))
		return;
	/* More may have come than one pass takes. */
	if (budget < 0)
		queue_work(rt->wq, &rt->rx_work);
	if (news)
		mod_delayed_work(rt->wq, &rt->work, 0);
}

/**
 * npo_route_irq() - a link message arrived
 * @ndev: the device.
 *
 * Context: hard interrupt.
 */
void npo_route_irq(struct npo_dev *ndev)
{
	if (READ_ONCE(ndev->rt.running))
		queue_work(ndev->rt.wq, &ndev->rt.rx_work);
}

/**
 * npo_route_keys_changed() - the fabric keys changed: advertise again now
 * @ndev: the device.
 *
 * Neighbours that refused its last advert hear a new one at once rather
 * than at the next refresh.
 *
 * Context: process context.
 */
void npo_route_keys_changed(struct npo_dev *ndev)
{
	struct npo_routing *rt = &ndev->rt;

	if (!READ_ONCE(rt->running))
		return;
	mutex_lock(&rt->lock);
	rt->readvertise = true;
	mutex_unlock(&rt->lock);
	mod_delayed_work(rt->wq, &rt->work, 0);
}

/**
 * npo_route_port_event() - a port's link changed: advertise and recompute
 * @port: the port.
 * @event: &enum npo_event.
 *
 * Context: process context, under &npo_dev.link_lock.
 */
void npo_route_port_event(struct npo_port *port, u32 event)
{
	struct npo_routing *rt = &port->ndev->rt;

	switch (event) {
	case NPO_EVENT_LINK_UP:
	case NPO_EVENT_LINK_DOWN:
	case NPO_EVENT_RECOVERED:
	case NPO_EVENT_DEGRADED:
	case NPO_EVENT_MISWIRED:
		if (READ_ONCE(rt->running))
			mod_delayed_work(rt->wq, &rt->work, 0);
		break;
	}
}

/* --- netlink ----------------------------------------------------------------------- */

/**
 * npo_route_dump_dev() - one device's routes for NPO_CMD_ROUTE_GET
 * @skb: the dump's buffer.
 * @cb: the dump; cb->args[1] is the next entry.
 * @ndev: the device.
 *
 * Return: 0 once done, -EMSGSIZE when @skb is full.
 */
int npo_route_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
		       struct npo_dev *ndev)
{
	struct npo_routing *rt = &ndev->rt;
	int err = 0;

	down_read(&ndev->remove_lock);
	mutex_lock(&rt->lock);
	/* A table replaced between two rounds marks the dump interrupted. */
	cb->seq = atomic_read(&npo_rt_tables_set);
	while (ndev->pdev && cb->args[1] < rt->entries) {
		const struct npo_rt_route *r = &rt->table[cb->args[1]];
		u32 next = npo_rt_next_node(ndev, r->port);
		void *hdr;

		hdr = npo_genl_put(skb, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI,
				   NPO_CMD_ROUTE_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		err = nla_put_u32(skb, NPO_ATTR_DEV_INDEX, ndev->minor) ||
		      nla_put_string(skb, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
		      nla_put_u32(skb, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
		      nla_put_u32(skb, NPO_ATTR_ROUTE_DEST_NODE, r->node) ||
		      nla_put_u32(skb, NPO_ATTR_ROUTE_PORT, r->port) ||
		      nla_put_u32(skb, NPO_ATTR_ROUTE_HOPS, r->hops) ||
		      (next && nla_put_u32(skb, NPO_ATTR_ROUTE_NEXT_NODE, next)) ?
		      -EMSGSIZE : 0;
		err = npo_genl_end(skb, hdr, err);
		if (err)
			break;
		cb->args[1]++;
	}
	mutex_unlock(&rt->lock);
	up_read(&ndev->remove_lock);
	return err;
}

/**
 * npo_route_show() - routing's counters, for debugfs
 * @ndev: the device.
 * @m: where to print: one line of "name value" pairs, then the origins
 *	kept by the port they were first learnt through.
 *
 * Context: process context; takes the routing lock.
 */
void npo_route_show(struct npo_dev *ndev, struct seq_file *m)
{
	struct npo_routing *rt = &ndev->rt;
	unsigned int i;

	mutex_lock(&rt->lock);
	if (!rt->learnt_via) {
		mutex_unlock(&rt->lock);
		return;
	}
	seq_printf(m, "nodes %u entries %u seq %u computations %llu reroutes %llu miswired_refused %llu spoofed_refused %llu too_soon %llu self_claims %llu share_refused %llu full_refused %llu evicted %llu\n",
		   rt->nodes, rt->entries, rt->seq, rt->computations,
		   rt->reroutes, rt->miswired_refused, rt->spoofed_refused,
		   rt->too_soon, rt->self_claims, rt->share_refused,
		   rt->full_refused, rt->evicted);
	for (i = 0; i < ndev->num_ports; i++)
		seq_printf(m, "port %u learnt %u\n", i, rt->learnt_via[i]);
	mutex_unlock(&rt->lock);
}

/* --- life cycle ---------------------------------------------------------------------- */

/**
 * npo_route_start() - start routing on a device
 * @ndev: the device, probed.
 *
 * A device older than interface 1.13 reaches its direct peers only.
 *
 * Return: 0, or -ENOMEM.
 */
int npo_route_start(struct npo_dev *ndev)
{
	struct npo_routing *rt = &ndev->rt;

	mutex_init(&rt->lock);
	xa_init(&rt->lsdb);
	ratelimit_state_init(&rt->log, 10 * HZ, 5);
	rt->self = ndev->node_id;
	if (!npo_lmsg_supported(ndev))
		return 0;
	rt->learnt_via = kcalloc(ndev->num_ports, sizeof(*rt->learnt_via),
				 GFP_KERNEL);
	if (!rt->learnt_via)
		return -ENOMEM;
	rt->wq = alloc_ordered_workqueue("npo%d_route", WQ_MEM_RECLAIM,
					 ndev->minor);
	if (!rt->wq) {
		kfree(rt->learnt_via);
		rt->learnt_via = NULL;
		return -ENOMEM;
	}
	INIT_DELAYED_WORK(&rt->work, npo_rt_work);
	INIT_WORK(&rt->rx_work, npo_rt_rx_work);
	WRITE_ONCE(rt->running, true);
	queue_delayed_work(rt->wq, &rt->work, 0);
	return 0;
}

/**
 * npo_route_stop() - stop routing and forget what was learnt
 * @ndev: the device.
 */
void npo_route_stop(struct npo_dev *ndev)
{
	struct npo_routing *rt = &ndev->rt;
	struct npo_rt_lsa *lsa;
	unsigned long node;

	if (!rt->wq)
		return;
	/*
	 * Nothing queues work once we start tearing it down: not the
	 * interrupt, not a port event (it looks under link_lock), not the
	 * works themselves, the reader first since it queues the other.
	 */
	mutex_lock(&ndev->link_lock);
	WRITE_ONCE(rt->running, false);
	mutex_unlock(&ndev->link_lock);
	synchronize_irq(pci_irq_vector(ndev->pdev, NPO_IRQ_VECTOR_ADMIN));
	cancel_work_sync(&rt->rx_work);
	cancel_delayed_work_sync(&rt->work);
	destroy_workqueue(rt->wq);
	rt->wq = NULL;
	/* Under the lock: shutdown leaves debugfs, whose reader takes it. */
	mutex_lock(&rt->lock);
	xa_for_each(&rt->lsdb, node, lsa)
		kfree(lsa);
	xa_destroy(&rt->lsdb);
	rt->nodes = 0;
	kvfree(rt->table);
	rt->table = NULL;
	rt->entries = 0;
	kfree(rt->learnt_via);
	rt->learnt_via = NULL;
	mutex_unlock(&rt->lock);
}
