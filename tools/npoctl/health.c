// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl health: one screen that says what is wrong on this host and
 * where.  The driver judges each port and clock (ok, degraded, at-risk
 * or failed, and why: NPO_ATTR_*_HEALTH and _HEALTH_REASON), by the rules
 * its devlink reporters follow; npoctl shows the verdicts, with the
 * details that explain them, since when, each device's state and last
 * fault, and the PCIe errors the PCI core counted for the device (AER).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl.h"
#include "npoctl.h"
#include "print.h"

#define MAX_DEVS	256
#define MAX_PORTS	64

/* The verdict of a driver too old to give one: shown as unknown, failed. */
#define HEALTH_UNKNOWN	UINT32_MAX

struct port_health {
	bool seen;
	uint32_t verdict;	/* enum npo_health */
	char state[16];
	char reason[160];	/* room for 32 lanes named one by one */
	uint64_t since_ms;	/* time in its state */
	bool unused;		/* never had a peer: nothing to judge */
};

struct clock_health {
	bool seen;
	uint32_t verdict;	/* enum npo_health */
	char reason[256];
};

/* The fabric key (FABRIC_KEY_GET, CAP_NET_ADMIN only: else not seen). */
struct key_health {
	bool seen;
	unsigned int keys;
	uint64_t rejected;
	bool recent;		/* a refusal within KEY_RECENT_MS */
};

/* Refusals this recent make the fabric line degraded; older are history. */
#define KEY_RECENT_MS	60000

struct dev_health {
	bool seen;
	struct port_health port[MAX_PORTS];
	unsigned int ports;
	struct clock_health clock;
	struct key_health key;
	uint64_t fault_time_ns;		/* the last device event, 0 if none */
	char fault[64];
};

struct host_health {
	struct dev_health dev[MAX_DEVS];
};

/* The worse of two verdicts; one npoctl could not read is the worst. */
static uint32_t worse(uint32_t a, uint32_t b)
{
	uint32_t ra = a > NPO_HEALTH_FAILED ? NPO_HEALTH_FAILED : a;
	uint32_t rb = b > NPO_HEALTH_FAILED ? NPO_HEALTH_FAILED : b;

	return ra >= rb ? ra : rb;
}

static const char *verdict_name(uint32_t v)
{
	return v == HEALTH_UNKNOWN ? "unknown" : npo_health_str(v);
}

static struct dev_health *dev_of(struct host_health *h, struct nlattr **tb)
{
	uint32_t i = get_u32(tb, NPO_ATTR_DEV_INDEX, MAX_DEVS);

	return i < MAX_DEVS ? &h->dev[i] : NULL;
}

/* What explains a port's verdict, in words. */
static void port_reason(const struct npo_nl_port *np, char *buf, size_t len)
{
	char lanes[96];

	switch (np->health_reason) {
	case NPO_HEALTH_REASON_MISWIRED:
		/* It stays quarantined with its cable pulled: no peer then. */
		if (np->peer_node < 0)
			snprintf(buf, len,
				 "miswired: no peer now, planned node %lld/%lld; quarantined",
				 (long long)np->planned_node,
				 (long long)np->planned_port);
		else
			snprintf(buf, len,
				 "miswired: cabled to node %lld/%lld, planned node %lld/%lld; quarantined",
				 (long long)np->peer_node, (long long)np->peer_port,
				 (long long)np->planned_node,
				 (long long)np->planned_port);
		break;
	case NPO_HEALTH_REASON_AT_RISK:
		snprintf(buf, len, "lane %lld %s", (long long)np->risk_lane,
			 npo_risk_str(np->risk_reason));
		if (np->risk_eta_s >= 0)
			snprintf(buf + strlen(buf), len - strlen(buf),
				 ", failing in about %lld s",
				 (long long)np->risk_eta_s);
		break;
	case NPO_HEALTH_REASON_HIGH_BER:
		snprintf(buf, len, "high BER");
		break;
	case NPO_HEALTH_REASON_DEGRADED:
		snprintf(buf, len, "%s x%u of %s x%u",
			 npo_lane_rate_str(np->rate_mbps), np->width,
			 npo_lane_rate_str(np->max_rate_mbps), np->max_width);
		break;
	case NPO_HEALTH_REASON_ADMIN_DOWN:
		snprintf(buf, len, "disabled by an administrator");
		break;
	case NPO_HEALTH_REASON_NO_PEER:
		snprintf(buf, len, "no peer attached");
		break;
	case NPO_HEALTH_REASON_SELF_TEST:
		print_lanes_str(lanes, sizeof(lanes), np->self_test_lanes);
		snprintf(buf, len,
			 "failed its self-test after a reset: lanes %s; held until retrained",
			 lanes);
		break;
	case NPO_HEALTH_REASON_DOWN:
		snprintf(buf, len, "%s", npo_link_reason_str(np->reason));
		break;
	default:
		buf[0] = '\0';
		break;
	}
}

/* A port: the driver's verdict, and the details that explain it. */
static int on_port(struct nlattr **tb, UNUSED struct nlattr *attrs,
		   UNUSED int len, uint8_t cmd, void *arg)
{
	struct dev_health *d = dev_of(arg, tb);
	struct port_health *p;
	struct npo_nl_port np;

	if (cmd != NPO_CMD_PORT_GET || !d)
		return 0;
	npo_nl_port_decode(tb, &np);
	if (np.port >= MAX_PORTS)
		return 0;
	p = &d->port[np.port];
	d->ports = d->ports > np.port + 1 ? d->ports : np.port + 1;
	p->seen = true;
	p->since_ms = np.time_in_state_ms;
	snprintf(p->state, sizeof(p->state), "%s", npo_port_state_str(np.state));
	p->verdict = np.health >= 0 ? (uint32_t)np.health : HEALTH_UNKNOWN;
	p->unused = np.health_reason == NPO_HEALTH_REASON_NO_PEER;
	if (p->verdict == HEALTH_UNKNOWN)
		snprintf(p->reason, sizeof(p->reason),
			 "the driver gives no verdict: too old for this npoctl");
	else
		port_reason(&np, p->reason, sizeof(p->reason));
	return 0;
}

static int on_clock(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, void *arg)
{
	struct dev_health *d = dev_of(arg, tb);
	struct npo_nl_clock nc;
	struct clock_health *c;
	size_t n;

	if (cmd != NPO_CMD_CLOCK_GET || !d)
		return 0;
	npo_nl_clock_decode(tb, &nc);
	c = &d->clock;
	c->seen = true;
	c->verdict = nc.health >= 0 ? (uint32_t)nc.health : HEALTH_UNKNOWN;
	if (nc.role == NPO_CLOCK_ROLE_GRANDMASTER)
		snprintf(c->reason, sizeof(c->reason), "%s, grandmaster",
			 npo_clock_state_str(nc.state));
	else if (nc.role == NPO_CLOCK_ROLE_FREE)
		snprintf(c->reason, sizeof(c->reason),
			 "free-running: may not lead, and no grandmaster it may follow is heard");
	else
		snprintf(c->reason, sizeof(c->reason), "%s to node %u",
			 npo_clock_state_str(nc.state), nc.gm_node);
	n = strlen(c->reason);
	switch (nc.health_reason) {
	case NPO_HEALTH_REASON_NO_BOUND:
		snprintf(c->reason + n, sizeof(c->reason) - n, ", no error bound");
		break;
	case NPO_HEALTH_REASON_BOUND:
		snprintf(c->reason + n, sizeof(c->reason) - n,
			 ", error bound %llu ns beyond %llu ns: not the fabric's timescale",
			 (unsigned long long)nc.error_bound_ns,
			 (unsigned long long)nc.error_limit_ns);
		break;
	case NPO_HEALTH_REASON_USER:
		snprintf(c->reason + n, sizeof(c->reason) - n,
			 ", owned by user space");
		break;
	case NPO_HEALTH_REASON_CLOCK_REFUSED:
		snprintf(c->reason + n, sizeof(c->reason) - n,
			 "; refused node %u through port %u %lld s ago (%llu grandmaster offers, %llu steps): a peer is broken or hostile",
			 nc.refused_node, nc.refused_port,
			 (long long)(nc.refused_age_ms / 1000),
			 (unsigned long long)nc.refused_gms,
			 (unsigned long long)nc.refused_steps);
		break;
	}
	if (c->verdict == HEALTH_UNKNOWN)
		snprintf(c->reason + strlen(c->reason),
			 sizeof(c->reason) - strlen(c->reason),
			 "; the driver gives no verdict: too old for this npoctl");
	return 0;
}

static int on_fkey(struct nlattr **tb, struct nlattr *attrs, int len,
		   uint8_t cmd, void *arg)
{
	struct dev_health *d = dev_of(arg, tb);
	struct nlattr *a;
	int rem;

	if (cmd != NPO_CMD_FABRIC_KEY_GET || !d)
		return 0;
	d->key.seen = true;
	d->key.rejected = get_u64(tb, NPO_ATTR_FKEY_REJECTED);
	d->key.recent = tb[NPO_ATTR_FKEY_REJECTED_AGE_MS] &&
			get_u64(tb, NPO_ATTR_FKEY_REJECTED_AGE_MS) < KEY_RECENT_MS;
	nla_for_each_attr(a, attrs, len, rem)
		d->key.keys += nla_type(a) == NPO_ATTR_FKEY;
	return 0;
}

/* The last device event of each device: its fault and when. */
static int on_kept(struct nlattr **tb, UNUSED struct nlattr *attrs,
		   UNUSED int len, uint8_t cmd, void *arg)
{
	struct dev_health *d = dev_of(arg, tb);

	if (cmd != NPO_CMD_EVENT_GET || !d ||
	    get_u32(tb, NPO_ATTR_EVENT, 0) != NPO_EVENT_DEVICE)
		return 0;
	d->fault_time_ns = get_u64(tb, NPO_ATTR_EVENT_TIME);
	snprintf(d->fault, sizeof(d->fault), "%s",
		 npo_dev_fault_str(get_u32(tb, NPO_ATTR_DEV_FAULT, 0)));
	return 0;
}

/* "12 s", "5 min", "3 h": how long, roughly. */
static void format_age(uint64_t ms, char *buf, size_t len)
{
	uint64_t s = ms / 1000;

	if (s < 120)
		snprintf(buf, len, "%llu s", (unsigned long long)s);
	else if (s < 7200)
		snprintf(buf, len, "%llu min", (unsigned long long)s / 60);
	else
		snprintf(buf, len, "%llu h", (unsigned long long)s / 3600);
}

static uint64_t now_real_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* PCIe errors of the device, as the kernel's AER core counted them. */
struct pcie_errors {
	bool known;
	unsigned long long correctable, nonfatal, fatal;
};

/* TOTAL line of /sys/class/npo/NAME/device/aer_dev_KIND; false if none. */
static bool read_aer_total(const char *name, const char *kind,
			   const char *total, unsigned long long *n)
{
	char path[PATH_MAX], line[128], key[64];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/npo/%s/device/aer_dev_%s",
		 npo_sysfs_root(), name, kind);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%63s %llu", key, n) == 2 &&
			!strcmp(key, total);
	fclose(f);
	return found;
}

static void read_pcie_errors(const char *name, struct pcie_errors *e)
{
	e->known = read_aer_total(name, "correctable", "TOTAL_ERR_COR",
				  &e->correctable) &&
		   read_aer_total(name, "nonfatal", "TOTAL_ERR_NONFATAL",
				  &e->nonfatal) &&
		   read_aer_total(name, "fatal", "TOTAL_ERR_FATAL", &e->fatal);
}

/*
 * Errors the link corrected or the driver recovered from are history,
 * not a fault: shown when there were any, judged ok.
 */
static void print_pcie(const struct pcie_errors *e)
{
	if (!e->known ||
	    (!print_is_json() && !e->correctable && !e->nonfatal && !e->fatal))
		return;
	print_open_object(NULL);
	print_string("what", "  %-8s", "pcie");
	print_string("health", " %-9s", npo_health_str(NPO_HEALTH_OK));
	print_uint("correctable", " %llu corrected", e->correctable);
	print_uint("nonfatal", ", %llu non-fatal", e->nonfatal);
	print_uint("fatal", ", %llu fatal errors since boot", e->fatal);
	print_text("\n");
	print_close_object();
}

static void print_item(const char *what, uint32_t v, const char *state,
		       const char *reason, uint64_t since_ms, bool since_known)
{
	char age[32];

	print_open_object(NULL);
	print_string("what", "  %-8s", what);
	print_string("health", " %-9s", verdict_name(v));
	if (state)
		print_string("state", " %-9s", state);
	print_string("reason", " %s", reason);
	if (since_known) {
		format_age(since_ms, age, sizeof(age));
		print_uint("since_ms", "", since_ms);
		print_text(" (for %s)", age);
	}
	print_text("\n");
	print_close_object();
}

/*
 * The fabric key's line: a device that refused messages in the last
 * minute is degraded (a neighbour without this fabric's key, or a
 * forger; a refusal while the hosts were given the key one after the
 * other is history after a minute); one without a key is
 * said to be unauthenticated, loudly, but a lab or a single host works
 * that way: it does not make the host unhealthy.  Returns the verdict
 * that counts.
 */
static uint32_t print_key(const struct key_health *k)
{
	char reason[192];

	if (!k->seen)
		return NPO_HEALTH_OK;
	if (!k->keys) {
		print_item("fabric", NPO_HEALTH_DEGRADED, NULL,
			   "unauthenticated: no fabric key, any peer may speak for the fabric (admin.rst, \"The fabric key\")",
			   0, false);
		return NPO_HEALTH_OK;
	}
	if (!k->recent) {
		if (print_is_json())
			print_item("fabric", NPO_HEALTH_OK, NULL,
				   "control messages signed and checked", 0,
				   false);
		return NPO_HEALTH_OK;
	}
	snprintf(reason, sizeof(reason),
		 "control messages refused in the last minute (%llu in all): a neighbour without this fabric's key, or a forger (npoctl fabric key)",
		 (unsigned long long)k->rejected);
	print_item("fabric", NPO_HEALTH_DEGRADED, NULL, reason, 0, false);
	return NPO_HEALTH_DEGRADED;
}

/* One device: its own line, then whatever is not ok (all of it in JSON). */
static uint32_t print_device(const struct npo_device_attr *a,
			     const struct dev_health *d)
{
	struct pcie_errors pcie;
	uint32_t worst, v;
	unsigned int i, ok_ports = 0, unused = 0;
	char what[16];

	v = a->state == NPO_DEV_STATE_READY ? NPO_HEALTH_OK :
	    a->state == NPO_DEV_STATE_RESETTING ? NPO_HEALTH_DEGRADED :
	    NPO_HEALTH_FAILED;
	worst = v;
	print_open_object(NULL);
	print_string("device", "%-6s", a->name);
	print_uint("node_id", " node %-4llu", a->node_id);
	print_string("health", " %-9s", verdict_name(v));
	print_string("state", " %s", npo_state_str(a->state));
	if (d->fault_time_ns) {
		if (v != NPO_HEALTH_OK || print_is_json())
			print_string("last_fault", " (%s)", d->fault);
		print_uint("last_event_ms", "",
			   (now_real_ns() - d->fault_time_ns) / 1000000);
	}
	print_text("\n");
	print_open_array("items");
	for (i = 0; i < d->ports; i++) {
		const struct port_health *p = &d->port[i];

		if (!p->seen)
			continue;
		worst = worse(worst, p->verdict);
		if (p->verdict == NPO_HEALTH_OK && !print_is_json()) {
			ok_ports += !p->unused;
			unused += p->unused;
			continue;
		}
		snprintf(what, sizeof(what), "port %u", i);
		print_item(what, p->verdict, p->state, p->reason, p->since_ms,
			   p->verdict != NPO_HEALTH_OK);
	}
	if (d->clock.seen) {
		worst = worse(worst, d->clock.verdict);
		if (d->clock.verdict != NPO_HEALTH_OK || print_is_json())
			print_item("clock", d->clock.verdict, NULL,
				   d->clock.reason, 0, false);
	}
	worst = worse(worst, print_key(&d->key));
	read_pcie_errors(a->name, &pcie);
	print_pcie(&pcie);
	print_close_array();
	if (!print_is_json() && unused)
		print_text("  %u ports ok, %u without a peer\n", ok_ports, unused);
	else if (!print_is_json() && ok_ports)
		print_text("  %u ports ok\n", ok_ports);
	print_close_object();
	return worst;
}

static void health_usage(FILE *to)
{
	fprintf(to, "Usage: npoctl health [ npoN ]\n");
}

int cmd_health(int argc, char **argv)
{
	uint32_t worst = NPO_HEALTH_OK, v;
	struct npo_device_entry *list;
	struct npo_device_attr attr;
	struct host_health *h;
	long only = -1;
	struct npo_nl nl;
	int i, n, ret, matched = 0;

	if (argc && matches(argv[0], "help")) {
		health_usage(stdout);
		return NPOCTL_EXIT_OK;
	}
	if (argc)
		only = npo_parse_dev(argv[0]);
	if (argc > 1 || (argc == 1 && (only < 0 || strncmp(argv[0], "npo", 3)))) {
		npoctl_err("health: bad arguments");
		health_usage(stderr);
		return NPOCTL_EXIT_USAGE;
	}
	list = npo_get_device_list(&n);
	if (!list) {
		npoctl_err(errno == ENOENT ?
			   "the npo driver is not loaded (try 'modprobe npo')" :
			   "cannot list devices");
		return NPOCTL_EXIT_ERROR;
	}
	h = calloc(1, sizeof(*h));
	ret = h ? npoctl_nl_open(&nl) : NPOCTL_EXIT_ERROR;
	if (ret) {
		free(h);
		npo_free_device_list(list);
		return ret;
	}
	ret = npo_nl_dump(&nl, NPO_CMD_PORT_GET, only, on_port, h);
	if (!ret)
		ret = npo_nl_dump(&nl, NPO_CMD_CLOCK_GET, only, on_clock, h);
	/* A driver older than interface 1.9 keeps no history: no last fault. */
	if (!ret) {
		ret = npo_nl_dump(&nl, NPO_CMD_EVENT_GET, only, on_kept, h);
		if (ret == -EOPNOTSUPP)
			ret = 0;
	}
	/* Keys are CAP_NET_ADMIN's to see; older drivers have none. */
	if (!ret) {
		ret = npo_nl_dump(&nl, NPO_CMD_FABRIC_KEY_GET, only, on_fkey, h);
		if (ret == -EPERM || ret == -EOPNOTSUPP)
			ret = 0;
	}
	if (ret) {
		ret = npo_nl_report(&nl, ret, "health");
		goto out;
	}
	print_open_object(NULL);
	print_open_array("devices");
	for (i = 0; i < n; i++) {
		long idx = npo_parse_dev(list[i].name);
		struct npo_device *dev;
		int err;

		if ((only >= 0 && idx != only) || idx < 0 || idx >= MAX_DEVS)
			continue;
		matched++;
		dev = npo_open_device(list[i].name);
		if (!dev) {
			npoctl_err("%s: %s", list[i].name, npo_strerror(errno));
			worst = NPO_HEALTH_FAILED;
			continue;
		}
		err = npo_query_device(dev, &attr);
		npo_close_device(dev);
		if (err) {
			npoctl_err("%s: %s", list[i].name, npo_strerror(err));
			worst = NPO_HEALTH_FAILED;
			continue;
		}
		v = print_device(&attr, &h->dev[idx]);
		worst = worse(worst, v);
	}
	print_close_array();
	if (only >= 0 && !matched) {
		print_close_object();
		npoctl_err("health: no device npo%ld", only);
		ret = NPOCTL_EXIT_ERROR;
		goto out;
	}
	print_string("health", "host: %s\n", verdict_name(worst));
	print_close_object();
	ret = worst == NPO_HEALTH_OK ? NPOCTL_EXIT_OK : NPOCTL_EXIT_UNHEALTHY;
out:
	npo_nl_close(&nl);
	npo_free_device_list(list);
	free(h);
	return ret;
}
