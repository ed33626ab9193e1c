// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl topo impact DEV/PORT: what loses service if that port fails,
 * before it does: the processes and queues whose work went out of or came
 * in through either end of its link, and the clocks whose path to the
 * grandmaster runs over it.  An operator asks this before taking a port
 * down for maintenance, or while deciding which job a failing optic will
 * take with it.
 *
 * The queues' ports are the device's own record (QUEUE_PORTS); the clock
 * tree is what the devices on this host report.  A far end on another
 * host is named, but its queues and followers are that host's to list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl.h"
#include "npoctl.h"
#include "print.h"

#define MAX_PORTS	4096
#define MAX_CLOCKS	256

struct impact_port {
	uint32_t dev, node, port, state;
	bool has_peer;
	uint32_t peer_node, peer_port;
	char name[32];
};

struct impact_clock {
	uint32_t dev, node;
	bool has_parent;
	uint32_t parent_port;
	bool lost;
	uint32_t lost_through;	/* the node it loses, itself if its parent */
};

struct impact {
	struct impact_port ports[MAX_PORTS];
	int nports;
	struct impact_clock clocks[MAX_CLOCKS];
	int nclocks;
	/* The link's two ends; the far one is local if far_dev >= 0. */
	const struct impact_port *near;
	long far_dev;
	uint32_t far_port;
	/* Both ends reach each other through another active port too. */
	bool near_rerouted, far_rerouted;
	unsigned int queues, followers;
	/* Queues at either end whose ports the device does not record. */
	unsigned int unknown;
};

static int on_port(struct nlattr **tb, UNUSED struct nlattr *attrs,
		   UNUSED int len, uint8_t cmd, void *arg)
{
	struct impact *im = arg;
	struct npo_nl_port np;
	struct impact_port *p;

	if (cmd != NPO_CMD_PORT_GET || im->nports == MAX_PORTS)
		return 0;
	npo_nl_port_decode(tb, &np);
	p = &im->ports[im->nports++];
	*p = (struct impact_port) {
		.dev = np.dev,
		.node = np.node_id,
		.port = np.port,
		.state = np.state,
		.has_peer = np.peer_node >= 0,
		.peer_node = np.peer_node >= 0 ? np.peer_node : 0,
		.peer_port = np.peer_port >= 0 ? np.peer_port : 0,
	};
	snprintf(p->name, sizeof(p->name), "%s", np.dev_name[0] ? np.dev_name : "?");
	return 0;
}

static int on_clock(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, void *arg)
{
	struct impact *im = arg;
	struct npo_nl_clock nc;
	struct impact_clock *c;

	if (cmd != NPO_CMD_CLOCK_GET || im->nclocks == MAX_CLOCKS)
		return 0;
	npo_nl_clock_decode(tb, &nc);
	c = &im->clocks[im->nclocks++];
	*c = (struct impact_clock) {
		.dev = nc.dev,
		.node = nc.node_id,
		.has_parent = nc.parent_port >= 0,
		.parent_port = nc.parent_port >= 0 ? nc.parent_port : 0,
	};
	return 0;
}

static const struct impact_port *find_port(const struct impact *im,
					   uint32_t dev, uint32_t port)
{
	int i;

	for (i = 0; i < im->nports; i++)
		if (im->ports[i].dev == dev && im->ports[i].port == port)
			return &im->ports[i];
	return NULL;
}

/* The device of node @node on this host, or -1. */
static long local_dev_of(const struct impact *im, uint32_t node)
{
	int i;

	for (i = 0; i < im->nports; i++)
		if (im->ports[i].node == node)
			return im->ports[i].dev;
	return -1;
}

/* Does @dev reach @node through an active port other than @port? */
static bool reaches_another_way(const struct impact *im, uint32_t dev,
				uint32_t port, uint32_t node)
{
	int i;

	for (i = 0; i < im->nports; i++) {
		const struct impact_port *p = &im->ports[i];

		if (p->dev == dev && p->port != port && p->has_peer &&
		    p->peer_node == node && p->state == NPO_PORT_ACTIVE)
			return true;
	}
	return false;
}

/* The node a clock follows: the peer on its parent port. */
static bool parent_node(const struct impact *im, const struct impact_clock *c,
			uint32_t *node)
{
	const struct impact_port *p;

	if (!c->has_parent)
		return false;
	p = find_port(im, c->dev, c->parent_port);
	if (!p || !p->has_peer)
		return false;
	*node = p->peer_node;
	return true;
}

/*
 * The clocks whose parent is across the link, then every clock that
 * follows one of them, to a fixed point: the tree below the link.  A
 * parent reached another way is still lost: the clock holds over until
 * it has chosen again.
 */
static void mark_clocks(struct impact *im)
{
	const struct impact_port *n = im->near;
	bool changed = true;
	uint32_t parent;
	int i, j;

	for (i = 0; i < im->nclocks; i++) {
		struct impact_clock *c = &im->clocks[i];

		if (!c->has_parent)
			continue;
		if ((c->dev == n->dev && c->parent_port == n->port) ||
		    (im->far_dev >= 0 && c->dev == (uint32_t)im->far_dev &&
		     c->parent_port == im->far_port)) {
			c->lost = true;
			c->lost_through = c->node;
		}
	}
	while (changed) {
		changed = false;
		for (i = 0; i < im->nclocks; i++) {
			struct impact_clock *c = &im->clocks[i];

			if (c->lost || !parent_node(im, c, &parent))
				continue;
			for (j = 0; j < im->nclocks; j++) {
				if (!im->clocks[j].lost ||
				    im->clocks[j].node != parent)
					continue;
				c->lost = true;
				c->lost_through = im->clocks[j].lost_through;
				changed = true;
			}
		}
	}
}

static void print_link_end(const char *key, uint32_t node, uint32_t port,
		      const char *dev)
{
	print_open_object(key);
	print_uint("node_id", "node %llu", node);
	print_uint("port", "/%llu", port);
	if (dev)
		print_string("dev", " (%s)", dev);
	else
		print_null("dev", " (remote)");
	print_close_object();
}

static void print_link(const struct impact *im)
{
	const struct impact_port *n = im->near;
	const struct impact_port *f = im->far_dev >= 0 ?
		find_port(im, im->far_dev, im->far_port) : NULL;

	print_open_object("link");
	print_link_end("a", n->node, n->port, n->name);
	print_text(" -- ");
	if (n->has_peer)
		print_link_end("b", n->peer_node, n->peer_port, f ? f->name : NULL);
	else
		print_null("b", "no peer");
	print_string("state", ", %s", npo_port_state_str(n->state));
	print_bool("near_rerouted", "", im->near_rerouted);
	print_bool("far_rerouted", "", im->far_rerouted);
	print_text("\n");
	print_close_object();
}

/* A listed queue's object, opened with its owner and number. */
static void print_queue_open(struct nlattr **tb)
{
	print_open_object(NULL);
	print_text("  ");
	queue_print_owner(tb);
	print_uint("queue", "  queue %llu", get_u32(tb, NPO_ATTR_QUEUE_ID, 0));
}

/*
 * A queue at either end whose work went out of or came in through the
 * link's port there.  Work the device sends to the peer another way
 * (a second link to the same node) is rerouted, not lost; messages from
 * the peer are lost either way until the sender's device reroutes.
 */
static int on_queue(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, void *arg)
{
	struct impact *im = arg;
	uint32_t dev = get_u32(tb, NPO_ATTR_DEV_INDEX, 0);
	uint32_t tx = get_u32(tb, NPO_ATTR_QUEUE_TX_PORTS, 0);
	uint32_t rx = get_u32(tb, NPO_ATTR_QUEUE_RX_PORTS, 0);
	uint32_t port, peer;
	bool sends, receives, rerouted;

	if (cmd != NPO_CMD_QUEUE_GET)
		return 0;
	if (dev == im->near->dev) {
		port = im->near->port;
		peer = im->near->peer_node;
		rerouted = im->near_rerouted;
	} else if (im->far_dev >= 0 && dev == (uint32_t)im->far_dev) {
		port = im->far_port;
		peer = im->near->node;
		rerouted = im->far_rerouted;
	} else {
		return 0;
	}
	if (!tb[NPO_ATTR_QUEUE_TX_PORTS] || !tb[NPO_ATTR_QUEUE_RX_PORTS]) {
		/* A device before interface 1.12 keeps no record: say so. */
		im->unknown++;
		print_queue_open(tb);
		print_bool("unknown", "", true);
		print_text(": unknown (the device does not record a queue's ports)\n");
		print_close_object();
		return 0;
	}
	if (port >= 32)
		return 0;
	sends = tx & (1u << port) && !rerouted;
	receives = rx & (1u << port);
	if (!sends && !receives)
		return 0;
	im->queues++;
	print_queue_open(tb);
	print_uint("peer_node", ": node %llu,", peer);
	print_bool("sends", "", sends);
	print_bool("receives", "", receives);
	print_text(" %s\n", sends && receives ? "sends to it and receives from it" :
		   sends ? "sends to it" : "receives from it");
	print_close_object();
	return 0;
}

static void print_clocks(struct impact *im)
{
	int i;

	print_text("clocks that lose their path to the grandmaster:\n");
	print_open_array("clocks");
	for (i = 0; i < im->nclocks; i++) {
		const struct impact_clock *c = &im->clocks[i];

		if (!c->lost)
			continue;
		im->followers++;
		print_open_object(NULL);
		print_uint("node_id", "  node %llu", c->node);
		print_uint("dev_index", " (npo%llu)", c->dev);
		if (c->lost_through == c->node) {
			print_uint("parent_port", ": its parent is through port %llu",
				   c->parent_port);
			print_null("follows", "");
		} else {
			print_uint("follows", ": follows node %llu",
				   c->lost_through);
		}
		print_text("\n");
		print_close_object();
	}
	print_close_array();
	if (!im->followers)
		print_text("  none\n");
	/* Followers of a far end on another host are not ours to see. */
	if (im->far_dev < 0 && im->near->has_peer)
		print_text("  (node %u is on another host: ask it for its own)\n",
			   im->near->peer_node);
}

static int impact_gather(struct npo_nl *nl, struct impact *im)
{
	int err = npo_nl_dump(nl, NPO_CMD_PORT_GET, -1, on_port, im);

	return err ? err : npo_nl_dump(nl, NPO_CMD_CLOCK_GET, -1, on_clock, im);
}

static int topo_impact(struct npo_nl *nl, uint32_t dev, uint32_t port)
{
	struct impact *im = calloc(1, sizeof(*im));
	const struct impact_port *n;
	int err, ret;

	if (!im)
		return npo_nl_report(nl, -ENOMEM, "topo impact");
	err = impact_gather(nl, im);
	if (err) {
		free(im);
		return npo_nl_report(nl, err, "topo impact");
	}
	n = find_port(im, dev, port);
	if (!n) {
		npoctl_err("topo impact: no port npo%u/%u", dev, port);
		free(im);
		return NPOCTL_EXIT_ERROR;
	}
	im->near = n;
	im->far_dev = n->has_peer ? local_dev_of(im, n->peer_node) : -1;
	im->far_port = n->peer_port;
	if (n->has_peer) {
		im->near_rerouted = reaches_another_way(im, n->dev, n->port,
							n->peer_node);
		im->far_rerouted = im->far_dev >= 0 &&
			reaches_another_way(im, im->far_dev, n->peer_port,
					    n->node);
	}
	mark_clocks(im);

	print_open_object(NULL);
	print_link(im);
	print_text("queues that lose their peer through it:\n");
	print_open_array("queues");
	err = n->has_peer ? npo_nl_dump(nl, NPO_CMD_QUEUE_GET, -1, on_queue, im) : 0;
	print_close_array();
	if (!err && !im->queues && !im->unknown)
		print_text("  none\n");
	if (im->near_rerouted)
		print_text("  (node %u/%u's traffic to node %u moves to another port)\n",
			   n->node, n->port, n->peer_node);
	print_clocks(im);
	print_close_object();
	ret = npo_nl_report(nl, err, "topo impact");
	/* Unknown is not "nothing": whoever asks must not take it for safe. */
	if (!ret && (im->queues || im->followers || im->unknown))
		ret = NPOCTL_EXIT_UNHEALTHY;
	free(im);
	return ret;
}

/**
 * cmd_topo_impact() - npoctl topo impact DEV/PORT
 * @argc: arguments after "impact".
 * @argv: them.
 *
 * Return: 0 if nothing loses service, 3 if something would or a queue's
 * ports are unknown, 1 or 2 on errors.
 */
int cmd_topo_impact(int argc, char **argv)
{
	uint32_t dev, port;
	struct npo_nl nl;
	int ret;

	if (argc != 1 || npo_parse_port(argv[0], &dev, &port)) {
		npoctl_err("topo impact: expected DEV/PORT");
		return NPOCTL_EXIT_USAGE;
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	ret = topo_impact(&nl, dev, port);
	npo_nl_close(&nl);
	return ret;
}
