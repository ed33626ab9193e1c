// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl health: one screen that says what is wrong on this host and
 * where.  Each device, port and clock is judged ok, degraded, at-risk or
 * failed, with the reason and since when, from what the driver reports
 * (ports and clocks over netlink, device state from libnpo, and the last
 * device event from each device's history), and the PCIe errors the PCI
 * core counted for the device (AER).
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

enum verdict { OK, DEGRADED, AT_RISK, FAILED };

static const char *const verdict_names[] = {
	[OK] = "ok", [DEGRADED] = "degraded", [AT_RISK] = "at-risk",
	[FAILED] = "failed",
};

struct port_health {
	bool seen;
	enum verdict verdict;
	char state[16];
	char reason[160];	/* room for 32 lanes named one by one */
	uint64_t since_ms;	/* time in its state */
	bool unused;		/* never had a peer: nothing to judge */
};

struct clock_health {
	bool seen;
	enum verdict verdict;
	char reason[128];
};

/*
 * The error bound beyond which a clock's time is not to be trusted: the
 * driver's, as its devlink clock reporter judges, or its default.
 */
static uint64_t time_error_limit_ns(void)
{
	unsigned long long v;
	FILE *f = fopen("/sys/module/npo/parameters/time_error_limit_ns", "r");
	int n = f ? fscanf(f, "%llu", &v) : 0;

	if (f)
		fclose(f);
	return n == 1 ? v : 1000;
}

struct dev_health {
	bool seen;
	struct port_health port[MAX_PORTS];
	unsigned int ports;
	struct clock_health clock;
	uint64_t fault_time_ns;		/* the last device event, 0 if none */
	char fault[64];
};

struct host_health {
	struct dev_health dev[MAX_DEVS];
};

static struct dev_health *dev_of(struct host_health *h, struct nlattr **tb)
{
	uint32_t i = get_u32(tb, NPO_ATTR_DEV_INDEX, MAX_DEVS);

	return i < MAX_DEVS ? &h->dev[i] : NULL;
}

/* A port's verdict from its state, flags and the link watch's risk. */
static int on_port(struct nlattr **tb, UNUSED struct nlattr *attrs,
		   UNUSED int len, uint8_t cmd, void *arg)
{
	struct dev_health *d = dev_of(arg, tb);
	uint32_t i = get_u32(tb, NPO_ATTR_PORT_INDEX, MAX_PORTS);
	uint32_t state = get_u32(tb, NPO_ATTR_PORT_STATE, 0);
	uint32_t flags = get_u32(tb, NPO_ATTR_PORT_FLAGS, 0);
	struct port_health *p;

	if (cmd != NPO_CMD_PORT_GET || !d || i >= MAX_PORTS)
		return 0;
	p = &d->port[i];
	d->ports = d->ports > i + 1 ? d->ports : i + 1;
	p->seen = true;
	p->since_ms = get_u64(tb, NPO_ATTR_PORT_TIME_IN_STATE_MS);
	snprintf(p->state, sizeof(p->state), "%s", npo_port_state_str(state));
	/* Up or not, a cable out of plan carries nothing: quarantined. */
	if ((flags & NPO_PORT_FLAG_MISWIRED) && tb[NPO_ATTR_PORT_PLANNED_PEER_NODE]) {
		p->verdict = FAILED;
		snprintf(p->reason, sizeof(p->reason),
			 "miswired: cabled to node %u/%u, planned node %u/%u; quarantined",
			 get_u32(tb, NPO_ATTR_PORT_PEER_NODE_ID, 0),
			 get_u32(tb, NPO_ATTR_PORT_PEER_PORT, 0),
			 nla_get_u32(tb[NPO_ATTR_PORT_PLANNED_PEER_NODE]),
			 get_u32(tb, NPO_ATTR_PORT_PLANNED_PEER_PORT, 0));
		return 0;
	}
	if (state == NPO_PORT_ACTIVE) {
		if (get_u32(tb, NPO_ATTR_PORT_RISK_LANES, 0)) {
			p->verdict = AT_RISK;
			snprintf(p->reason, sizeof(p->reason), "lane %u %s",
				 get_u32(tb, NPO_ATTR_PORT_RISK_LANE, 0),
				 npo_risk_str(get_u32(tb, NPO_ATTR_PORT_RISK_REASON, 0)));
			if (tb[NPO_ATTR_PORT_RISK_ETA_S])
				snprintf(p->reason + strlen(p->reason),
					 sizeof(p->reason) - strlen(p->reason),
					 ", failing in about %u s",
					 nla_get_u32(tb[NPO_ATTR_PORT_RISK_ETA_S]));
		} else if (flags & NPO_PORT_FLAG_HIGH_BER) {
			p->verdict = AT_RISK;
			snprintf(p->reason, sizeof(p->reason), "high BER");
		} else if (flags & NPO_PORT_FLAG_DEGRADED) {
			p->verdict = DEGRADED;
			snprintf(p->reason, sizeof(p->reason), "%s x%u of %s x%u",
				 npo_lane_rate_str(get_u32(tb, NPO_ATTR_PORT_RATE, 0)),
				 get_u32(tb, NPO_ATTR_PORT_WIDTH, 0),
				 npo_lane_rate_str(get_u32(tb, NPO_ATTR_PORT_MAX_RATE, 0)),
				 get_u32(tb, NPO_ATTR_PORT_MAX_WIDTH, 0));
		}
		return 0;
	}
	/* Down: disabled on purpose, never cabled, or failed. */
	if (flags & NPO_PORT_FLAG_ADMIN_DOWN) {
		snprintf(p->reason, sizeof(p->reason), "disabled by an administrator");
		return 0;
	}
	if (!(flags & NPO_PORT_FLAG_PEER_PRESENT) &&
	    !get_u64(tb, NPO_ATTR_PORT_FLAPS)) {
		p->unused = true;
		snprintf(p->reason, sizeof(p->reason), "no peer attached");
		return 0;
	}
	p->verdict = FAILED;
	if (flags & NPO_PORT_FLAG_SELF_TEST_FAILED) {
		char lanes[96];

		print_lanes_str(lanes, sizeof(lanes),
			       get_u32(tb, NPO_ATTR_PORT_SELF_TEST_LANES, 0));
		snprintf(p->reason, sizeof(p->reason),
			 "failed its self-test after a reset: lanes %s; held until retrained",
			 lanes);
		return 0;
	}
	snprintf(p->reason, sizeof(p->reason), "%s",
		 npo_link_reason_str(get_u32(tb, NPO_ATTR_PORT_REASON, 0)));
	return 0;
}

static int on_clock(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, void *arg)
{
	struct dev_health *d = dev_of(arg, tb);
	uint32_t state = get_u32(tb, NPO_ATTR_CLOCK_STATE, 0);
	struct clock_health *c;

	if (cmd != NPO_CMD_CLOCK_GET || !d)
		return 0;
	c = &d->clock;
	c->seen = true;
	c->verdict = state == NPO_CLOCK_LOCKED ? OK :
		     state == NPO_CLOCK_LOCKING ? DEGRADED :
		     state == NPO_CLOCK_HOLDOVER ? AT_RISK : FAILED;
	if (get_u32(tb, NPO_ATTR_CLOCK_ROLE, 0) == NPO_CLOCK_ROLE_GRANDMASTER)
		snprintf(c->reason, sizeof(c->reason), "%s, grandmaster",
			 npo_clock_state_str(state));
	else
		snprintf(c->reason, sizeof(c->reason), "%s to node %u",
			 npo_clock_state_str(state),
			 get_u32(tb, NPO_ATTR_CLOCK_GM_NODE_ID, 0));
	/*
	 * Locked to a grandmaster that lost the fabric's timescale (an
	 * isolated node leading itself, say) is not time to trust.
	 */
	if (!tb[NPO_ATTR_CLOCK_REFERENCE]) {
		/* A driver that does not say: judge by the state alone. */
	} else if (c->verdict == OK && !tb[NPO_ATTR_CLOCK_ERROR_BOUND]) {
		c->verdict = AT_RISK;
		snprintf(c->reason + strlen(c->reason),
			 sizeof(c->reason) - strlen(c->reason),
			 ", no error bound");
	} else if (c->verdict == OK &&
		   get_u64(tb, NPO_ATTR_CLOCK_ERROR_BOUND) > time_error_limit_ns()) {
		c->verdict = AT_RISK;
		snprintf(c->reason + strlen(c->reason),
			 sizeof(c->reason) - strlen(c->reason),
			 ", error bound %llu ns: not the fabric's timescale",
			 (unsigned long long)get_u64(tb, NPO_ATTR_CLOCK_ERROR_BOUND));
	}
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
	print_string("health", " %-9s", "ok");
	print_uint("correctable", " %llu corrected", e->correctable);
	print_uint("nonfatal", ", %llu non-fatal", e->nonfatal);
	print_uint("fatal", ", %llu fatal errors since boot", e->fatal);
	print_text("\n");
	print_close_object();
}

static void print_item(const char *what, enum verdict v, const char *state,
		       const char *reason, uint64_t since_ms, bool since_known)
{
	char age[32];

	print_open_object(NULL);
	print_string("what", "  %-8s", what);
	print_string("health", " %-9s", verdict_names[v]);
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

/* One device: its own line, then whatever is not ok (all of it in JSON). */
static enum verdict print_device(const struct npo_device_attr *a,
				 const struct dev_health *d)
{
	struct pcie_errors pcie;
	enum verdict worst, v;
	unsigned int i, ok_ports = 0, unused = 0;
	char what[16];

	v = a->state == NPO_DEV_STATE_READY ? OK :
	    a->state == NPO_DEV_STATE_RESETTING ? DEGRADED : FAILED;
	worst = v;
	print_open_object(NULL);
	print_string("device", "%-6s", a->name);
	print_uint("node_id", " node %-4llu", a->node_id);
	print_string("health", " %-9s", verdict_names[v]);
	print_string("state", " %s", npo_state_str(a->state));
	if (d->fault_time_ns) {
		if (v != OK || print_is_json())
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
		worst = p->verdict > worst ? p->verdict : worst;
		if (p->verdict == OK && !print_is_json()) {
			ok_ports += !p->unused;
			unused += p->unused;
			continue;
		}
		snprintf(what, sizeof(what), "port %u", i);
		print_item(what, p->verdict, p->state, p->reason, p->since_ms,
			   p->verdict != OK);
	}
	if (d->clock.seen) {
		worst = d->clock.verdict > worst ? d->clock.verdict : worst;
		if (d->clock.verdict != OK || print_is_json())
			print_item("clock", d->clock.verdict, NULL,
				   d->clock.reason, 0, false);
	}
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
	enum verdict worst = OK, v;
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
	ret = h ? npo_nl_open(&nl) : NPOCTL_EXIT_ERROR;
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
			worst = FAILED;
			continue;
		}
		err = npo_query_device(dev, &attr);
		npo_close_device(dev);
		if (err) {
			npoctl_err("%s: %s", list[i].name, npo_strerror(err));
			worst = FAILED;
			continue;
		}
		v = print_device(&attr, &h->dev[idx]);
		worst = v > worst ? v : worst;
	}
	print_close_array();
	if (only >= 0 && !matched) {
		print_close_object();
		npoctl_err("health: no device npo%ld", only);
		ret = NPOCTL_EXIT_ERROR;
		goto out;
	}
	print_string("health", "host: %s\n", verdict_names[worst]);
	print_close_object();
	ret = worst == OK ? NPOCTL_EXIT_OK : NPOCTL_EXIT_UNHEALTHY;
out:
	npo_nl_close(&nl);
	npo_free_device_list(list);
	free(h);
	return ret;
}
