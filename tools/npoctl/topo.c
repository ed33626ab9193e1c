// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl topo: the fabric as the links discovered it.  Every port that
 * learned a peer contributes an edge; a link seen from both of its ends
 * (both devices on this host) is shown once.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl.h"
#include "nl.h"
#include "npoctl.h"
#include "plan.h"
#include "print.h"

#define MAX_EDGES 4096

struct edge {
	uint32_t node, port, peer_node, peer_port;
	char dev[32];
	uint32_t state, rate, width, flags;
};

struct local_port {
	uint32_t dev, node, port;
};

struct topo {
	struct edge e[MAX_EDGES];
	int n;
	/* Every node of this host, cabled or not. */
	uint32_t local[MAX_EDGES];
	size_t nlocal;
	/* Every port of this host, for the plan to be handed to. */
	struct local_port lp[MAX_EDGES];
	size_t nlp;
};

static int on_port(struct nlattr **tb, UNUSED struct nlattr *attrs,
		   UNUSED int len, UNUSED uint8_t cmd, void *arg)
{
	struct topo *t = arg;
	struct npo_nl_port np;
	struct edge *e;
	size_t i;

	npo_nl_port_decode(tb, &np);
	if (tb[NPO_ATTR_DEV_NODE_ID] && t->nlocal < MAX_EDGES) {
		for (i = 0; i < t->nlocal && t->local[i] != np.node_id; i++)
			;
		if (i == t->nlocal)
			t->local[t->nlocal++] = np.node_id;
		if (tb[NPO_ATTR_DEV_INDEX] && tb[NPO_ATTR_PORT_INDEX] &&
		    t->nlp < MAX_EDGES)
			t->lp[t->nlp++] = (struct local_port) {
				.dev = np.dev,
				.node = np.node_id,
				.port = np.port,
			};
	}
	if (np.peer_node < 0 || t->n == MAX_EDGES)
		return 0;
	e = &t->e[t->n++];
	e->node = np.node_id;
	e->port = np.port;
	e->peer_node = np.peer_node;
	e->peer_port = np.peer_port;
	snprintf(e->dev, sizeof(e->dev), "%s", np.dev_name);
	e->state = np.state;
	e->rate = np.rate_mbps;
	e->width = np.width;
	e->flags = np.flags;
	return 0;
}

/* The same link seen from its other end, earlier in the list? */
static bool seen_from_other_end(struct topo *t, int i)
{
	struct edge *e = &t->e[i];
	int j;

	for (j = 0; j < i; j++)
		if (t->e[j].node == e->peer_node &&
		    t->e[j].port == e->peer_port &&
		    t->e[j].peer_node == e->node &&
		    t->e[j].peer_port == e->port)
			return true;
	return false;
}

static const char *local_dev(struct topo *t, uint32_t node)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].node == node)
			return t->e[i].dev;
	return NULL;
}

static void print_dot(struct topo *t)
{
	int i;

	printf("graph npo {\n\tnode [shape=box];\n");
	for (i = 0; i < t->n; i++) {
		struct edge *e = &t->e[i];
		int j;

		for (j = 0; j < i && t->e[j].node != e->node; j++)
			;
		if (j == i)
			printf("\t\"%u\" [label=\"node %u\\n%s\"];\n", e->node,
			       e->node, e->dev);
		/* A peer on another host appears once, marked remote. */
		for (j = 0; j < i && t->e[j].peer_node != e->peer_node; j++)
			;
		if (j == i && !local_dev(t, e->peer_node))
			printf("\t\"%u\" [label=\"node %u\\nremote\", style=dashed];\n",
			       e->peer_node, e->peer_node);
	}
	for (i = 0; i < t->n; i++) {
		struct edge *e = &t->e[i];
		const char *style = e->state != NPO_PORT_ACTIVE ? "dashed" :
				    e->flags & NPO_PORT_FLAG_MISWIRED ? "dotted" :
				    "solid";
		const char *color = e->state != NPO_PORT_ACTIVE ||
				    (e->flags & NPO_PORT_FLAG_MISWIRED) ? "red" :
				    e->flags & (NPO_PORT_FLAG_DEGRADED |
						NPO_PORT_FLAG_HIGH_BER) ?
				    "orange" : "black";

		if (seen_from_other_end(t, i))
			continue;
		printf("\t\"%u\" -- \"%u\" [taillabel=\"%u\", headlabel=\"%u\", "
		       "label=\"%s x%u\", style=%s, color=%s];\n", e->node,
		       e->peer_node, e->port, e->peer_port, npo_lane_rate_str(e->rate),
		       e->width, style, color);
	}
	printf("}\n");
}

static int cmp_nccl_dev(const void *x, const void *y)
{
	const struct nccl_dev *a = x, *b = y;

	return a->index < b->index ? -1 : a->index > b->index;
}

/* This host's devices, by index, as their PCI functions show them. */
static int nccl_devs(struct nccl_dev **out, size_t *n)
{
	char path[PATH_MAX], link[PATH_MAX], buf[32];
	struct nccl_dev *devs = NULL;
	struct dirent *de;
	size_t cap = 0;
	DIR *dir;

	*n = 0;
	snprintf(path, sizeof(path), "%s/class/npo", npo_sysfs_root());
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		struct nccl_dev *d;
		unsigned int index;
		ssize_t len;
		char *slash;

		if (sscanf(de->d_name, "npo%u", &index) != 1)
			continue;
		if (*n == cap) {
			struct nccl_dev *grown;

			cap = cap ? 2 * cap : 16;
			grown = realloc(devs, cap * sizeof(*devs));
			if (!grown) {
				free(devs);
				closedir(dir);
				return -ENOMEM;
			}
			devs = grown;
		}
		d = &devs[(*n)++];
		memset(d, 0, sizeof(*d));
		snprintf(d->name, sizeof(d->name), "%.31s", de->d_name);
		d->index = index;
		snprintf(path, sizeof(path), "%s/class/npo/%s/device",
			 npo_sysfs_root(), d->name);
		len = readlink(path, link, sizeof(link) - 1);
		link[len > 0 ? len : 0] = '\0';
		slash = strrchr(link, '/');
		snprintf(d->busid, sizeof(d->busid), "%.15s", slash ? slash + 1 : link);
		d->numa = npo_sysfs_read(d->name, "device/numa_node", buf, sizeof(buf)) ?
			  -1 : atoi(buf);
		npo_sysfs_read(d->name, "device/class", d->pci_class, sizeof(d->pci_class));
		npo_sysfs_read(d->name, "device/vendor", d->vendor, sizeof(d->vendor));
		npo_sysfs_read(d->name, "device/device", d->device, sizeof(d->device));
		npo_sysfs_read(d->name, "device/subsystem_vendor", d->subsystem_vendor,
			       sizeof(d->subsystem_vendor));
		npo_sysfs_read(d->name, "device/subsystem_device", d->subsystem_device,
			       sizeof(d->subsystem_device));
		npo_sysfs_read(d->name, "device/current_link_speed", d->link_speed,
			       sizeof(d->link_speed));
		npo_sysfs_read(d->name, "device/current_link_width", d->link_width,
			       sizeof(d->link_width));
	}
	closedir(dir);
	if (*n)
		qsort(devs, *n, sizeof(*devs), cmp_nccl_dev);
	*out = devs;
	return 0;
}

static int nccl_dev_index(const struct nccl_dev *devs, size_t n, const char *name)
{
	size_t i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(devs[i].name, name))
			return i;
	return -1;
}

/* npoctl topo --nccl-xml: every active link, from each of its local ends. */
static int print_nccl_xml(struct topo *t)
{
	struct nccl_link *links = calloc(t->n + 1, sizeof(*links));
	struct nccl_dev *devs = NULL;
	char host[64] = "";
	size_t ndevs, n = 0;
	int i, err;

	err = links ? nccl_devs(&devs, &ndevs) : -ENOMEM;
	if (err) {
		npoctl_err("topo: the devices in sysfs: %s", strerror(-err));
		free(links);
		return NPOCTL_EXIT_ERROR;
	}
	for (i = 0; i < t->n; i++) {
		struct edge *e = &t->e[i];
		int dev = nccl_dev_index(devs, ndevs, e->dev);

		/* A quarantined cable carries no collective's data. */
		if (e->state != NPO_PORT_ACTIVE ||
		    (e->flags & NPO_PORT_FLAG_MISWIRED) || dev < 0)
			continue;
		links[n++] = (struct nccl_link) {
			.dev = dev, .port = e->port, .width = e->width,
			.peer_node = e->peer_node, .peer_port = e->peer_port,
			.peer_dev = nccl_dev_index(devs, ndevs,
						   local_dev(t, e->peer_node)),
		};
	}
	gethostname(host, sizeof(host) - 1);
	err = nccl_xml_write(stdout, host, devs, ndevs, links, n);
	free(links);
	free(devs);
	return err ? NPOCTL_EXIT_ERROR : NPOCTL_EXIT_OK;
}

static void print_topo(struct topo *t)
{
	char a[48], b[48], speed[32];
	int i;

	print_text("%-22s    %-22s  %-8s  %-9s  %s\n", "END", "END", "STATE",
		   "SPEED", "FLAGS");
	print_open_array(NULL);
	for (i = 0; i < t->n; i++) {
		struct edge *e = &t->e[i];
		const char *peer_dev = local_dev(t, e->peer_node);

		if (seen_from_other_end(t, i))
			continue;
		snprintf(a, sizeof(a), "node %u/%u (%s)", e->node, e->port,
			 e->dev);
		snprintf(b, sizeof(b), "node %u/%u (%s)", e->peer_node,
			 e->peer_port, peer_dev ? peer_dev : "remote");
		snprintf(speed, sizeof(speed), "%s x%u", npo_lane_rate_str(e->rate),
			 e->width);
		print_open_object(NULL);
		print_open_object("a");
		print_text("%-22s -- ", a);
		print_uint("node_id", "", e->node);
		print_uint("port", "", e->port);
		print_string("dev", "", e->dev);
		print_close_object();
		print_open_object("b");
		print_text("%-22s  ", b);
		print_uint("node_id", "", e->peer_node);
		print_uint("port", "", e->peer_port);
		if (peer_dev)
			print_string("dev", "", peer_dev);
		else
			print_null("dev", "");
		print_close_object();
		print_string("state", "%-8s", npo_port_state_str(e->state));
		print_uint("rate_mbps", "", e->rate);
		print_uint("width", "", e->width);
		print_text("  %-9s", e->rate ? speed : "-");
		print_open_array("flags");
		if (e->flags & NPO_PORT_FLAG_DEGRADED)
			print_string(NULL, "  %s", "DEGRADED");
		if (e->flags & NPO_PORT_FLAG_HIGH_BER)
			print_string(NULL, "  %s", "HIGH-BER");
		if (e->flags & NPO_PORT_FLAG_MISWIRED)
			print_string(NULL, "  %s", "MISWIRED");
		print_close_array();
		print_text("\n");
		print_close_object();
	}
	print_close_array();
}

/* The discovered links as a plan: each once, up or not, with its speed. */
static int topo_as_plan(struct topo *t, struct plan *found)
{
	size_t i;

	found->links = calloc(t->n ? t->n : 1, sizeof(*found->links));
	if (!found->links)
		return -1;
	found->n = 0;
	for (i = 0; i < (size_t)t->n; i++) {
		struct edge *e = &t->e[i];

		if (seen_from_other_end(t, i))
			continue;
		found->links[found->n++] = (struct plan_link) {
			.a = { e->node, e->port },
			.b = { e->peer_node, e->peer_port },
			.rate_mbps = e->rate,
			.width = e->width,
			.active = e->state == NPO_PORT_ACTIVE,
		};
	}
	return 0;
}

static void print_plan_end(const char *key, struct plan_end e)
{
	print_open_object(key);
	print_uint("node_id", "node %llu", e.node);
	print_uint("port", "/%llu", e.port);
	print_close_object();
}

static void print_finding(const struct plan_finding *f)
{
	print_open_object(NULL);
	print_string("kind", "%-13s  ", plan_kind_str(f->kind));
	switch (f->kind) {
	case PLAN_MISSING:
		print_plan_end("a", f->planned.a);
		print_text(" -- ");
		print_plan_end("b", f->planned.b);
		print_text(": planned, not there");
		break;
	case PLAN_MISWIRED:
		print_plan_end("a", f->found.a);
		print_text(" -- ");
		print_plan_end("b", f->found.b);
		print_text(":");
		/* Where each end of this cable should go. */
		if (f->has_want_a) {
			print_text(" %u/%u planned to ", f->found.a.node,
				   f->found.a.port);
			print_plan_end("a_planned_peer", f->want_a);
		}
		if (f->has_want_b) {
			print_text("%s %u/%u planned to ", f->has_want_a ? "," : "",
				   f->found.b.node, f->found.b.port);
			print_plan_end("b_planned_peer", f->want_b);
		}
		break;
	case PLAN_UNDER_TRAINED:
	case PLAN_DOWN:
		print_plan_end("a", f->found.a);
		print_text(" -- ");
		print_plan_end("b", f->found.b);
		print_uint("rate_mbps", ": %llu Mb/s", f->found.rate_mbps);
		print_uint("width", " x%llu", f->found.width);
		print_uint("planned_rate_mbps", ", planned %llu Mb/s",
			   f->planned.rate_mbps);
		print_uint("planned_width", " x%llu", f->planned.width);
		print_bool("active", f->found.active ? "" : " (down)",
			   f->found.active);
		break;
	case PLAN_EXTRA:
		print_plan_end("a", f->found.a);
		print_text(" -- ");
		print_plan_end("b", f->found.b);
		print_text(": not planned");
		break;
	}
	print_text("\n");
	print_close_object();
}

/*
 * Hand each port of this host the peer the plan names for it, or no plan
 * when it names none (plan NULL: forget every port's): the driver
 * quarantines a port cabled otherwise.  0 or an exit status.
 */
static int apply_plan(struct npo_nl *nl, const struct topo *t,
		      const struct plan *plan)
{
	size_t i, handed = 0, failed = 0;
	int ret = 0;

	for (i = 0; i < t->nlp; i++) {
		const struct local_port *lp = &t->lp[i];
		struct nl_msg *msg = npo_nl_msg(nl, NPO_CMD_PORT_SET, 0);
		struct plan_end peer;
		bool planned;
		char what[48];
		int err;

		if (!msg)
			return NPOCTL_EXIT_ERROR;
		nla_put_u32(msg, NPO_ATTR_DEV_INDEX, lp->dev);
		nla_put_u32(msg, NPO_ATTR_PORT_INDEX, lp->port);
		planned = plan && plan_link_at(plan, (struct plan_end) {
						.node = lp->node, .port = lp->port,
					  }, &peer);
		if (planned) {
			nla_put_u32(msg, NPO_ATTR_PORT_PLANNED_PEER_NODE, peer.node);
			nla_put_u32(msg, NPO_ATTR_PORT_PLANNED_PEER_PORT, peer.port);
		} else {
			nla_put_flag(msg, NPO_ATTR_PORT_PLAN_CLEAR);
		}
		snprintf(what, sizeof(what), "topo: npo%u/%u", lp->dev, lp->port);
		err = npo_nl_report(nl, npo_nl_request(nl, msg, NULL, NULL), what);
		/* Every other port still gets its plan; the failure is said. */
		if (err) {
			ret = err;
			failed++;
		} else if (planned) {
			handed++;
		}
	}
	if (plan)
		print_text("plan handed to %zu of this host's %zu ports%s\n",
			   handed, t->nlp, failed ? "; some refused it (above)" : "");
	else
		print_text("plan forgotten on %zu of this host's %zu ports\n",
			   t->nlp - failed, t->nlp);
	return ret;
}

/* npoctl topo check PLAN: exit 3 (NPOCTL_EXIT_UNHEALTHY) on any finding. */
static int topo_check(struct npo_nl *nl, struct topo *t, const char *path,
		      bool apply)
{
	struct plan plan = { 0 }, found = { 0 };
	struct plan_finding *f = NULL;
	size_t len = 0;
	char err[160], *text = NULL;
	int n, ret = NPOCTL_EXIT_ERROR;
	FILE *in = fopen(path, "r");

	if (!in) {
		npoctl_err("topo check: %s: %s", path, strerror(errno));
		return NPOCTL_EXIT_ERROR;
	}
	if (getdelim(&text, &len, '\0', in) < 0) {
		npoctl_err("topo check: %s: cannot read it", path);
		goto out;
	}
	if (plan_parse(text, &plan, err, sizeof(err))) {
		npoctl_err("topo check: %s: %s", path, err);
		ret = NPOCTL_EXIT_USAGE;
		goto out;
	}
	if (topo_as_plan(t, &found) ||
	    !(f = calloc(plan.n + found.n + 1, sizeof(*f)))) {
		npoctl_err("topo check: %s", strerror(ENOMEM));
		goto out;
	}
	if (apply) {
		ret = apply_plan(nl, t, &plan);
		if (ret)
			goto out;
		ret = NPOCTL_EXIT_ERROR;
	}
	/* A device of this host with every cable out still has its plan. */
	n = plan_compare(&plan, &found, t->local, t->nlocal, f, plan.n + found.n + 1);
	if (n < 0) {
		npoctl_err("topo check: the comparison failed");
		goto out;
	}
	print_open_array(NULL);
	for (int i = 0; i < n; i++)
		print_finding(&f[i]);
	print_close_array();
	print_text("%d finding%s against %zu planned links\n", n,
		   n == 1 ? "" : "s", plan.n);
	ret = n ? NPOCTL_EXIT_UNHEALTHY : NPOCTL_EXIT_OK;
out:
	fclose(in);
	free(text);
	free(f);
	plan_free(&plan);
	plan_free(&found);
	return ret;
}

int cmd_topo(int argc, char **argv)
{
	const char *plan = NULL;
	struct topo *t;
	struct npo_nl nl;
	struct nl_msg *msg;
	bool dot = false, nccl = false, apply = false, unplan = false;
	int ret;

	if (argc == 1 && matches(argv[0], "help")) {
		printf("Usage: npoctl topo [ --dot | --nccl-xml ]\n"
		       "       npoctl topo check [ --apply ] PLAN.json\n"
		       "       npoctl topo unplan\n"
		       "       npoctl topo impact DEV/PORT\n");
		return NPOCTL_EXIT_OK;
	}
	if (argc && !strcmp(argv[0], "impact"))
		return cmd_topo_impact(argc - 1, argv + 1);
	if (argc == 1 && !strcmp(argv[0], "--dot")) {
		dot = true;
	} else if (argc == 1 && !strcmp(argv[0], "--nccl-xml")) {
		nccl = true;
	} else if (argc == 2 && !strcmp(argv[0], "check")) {
		plan = argv[1];
	} else if (argc == 3 && !strcmp(argv[0], "check") &&
		   !strcmp(argv[1], "--apply")) {
		plan = argv[2];
		apply = true;
	} else if (argc == 1 && !strcmp(argv[0], "unplan")) {
		unplan = true;
	} else if (argc) {
		npoctl_err("topo: bad arguments");
		return NPOCTL_EXIT_USAGE;
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	t = calloc(1, sizeof(*t));
	msg = npo_nl_msg(&nl, NPO_CMD_PORT_GET, NLM_F_DUMP);
	if (!t || !msg) {
		npo_nl_close(&nl);
		free(t);
		return NPOCTL_EXIT_ERROR;
	}
	ret = npo_nl_request(&nl, msg, on_port, t);
	if (ret) {
		npo_nl_close(&nl);
		npoctl_err("topo: %s", strerror(-ret));
		free(t);
		return NPOCTL_EXIT_ERROR;
	}
	if (unplan)
		ret = apply_plan(&nl, t, NULL);
	else if (plan)
		ret = topo_check(&nl, t, plan, apply);
	else if (nccl)
		ret = print_nccl_xml(t);
	else if (dot)
		print_dot(t);
	else
		print_topo(t);
	npo_nl_close(&nl);
	free(t);
	return plan || nccl || unplan ? ret : NPOCTL_EXIT_OK;
}
