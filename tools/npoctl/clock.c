// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl clock: fabric time sync of every device, the grandmaster
 * priority that steers its election, and who may be grandmaster at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl.h"
#include "npoctl.h"
#include "print.h"

static void clock_usage(FILE *to)
{
	fprintf(to,
		"Usage: npoctl clock [ show [ DEV ] ]\n"
		"       npoctl clock set DEV priority PRIO    (0..255, lower wins)\n"
		"       npoctl clock set DEV sync { on | off }  (off: user space owns it)\n"
		"       npoctl clock set DEV gm-allow { NODE[,NODE...] | any }\n");
}

/* Role through frequency: shared by the table and by monitor's events. */
void clock_print_state(const struct npo_nl_clock *c)
{
	print_string("role", "  %-11s", npo_clock_role_str(c->role));
	print_string("state", "  %-8s", npo_clock_state_str(c->state));
	print_uint("grandmaster", "  %5llu", c->gm_node);
	print_uint("gm_priority", "  %4llu", c->gm_priority);
	print_uint("steps", "  %5llu", c->steps);
	if (c->parent_port >= 0)
		print_uint("parent_port", "  %4llu", c->parent_port);
	else
		print_text("  %4s", "-");
	print_int("offset_ns", "  %9lld", c->offset_ns);
	print_int("path_delay_ns", "  %8lld", c->path_delay_ns);
	/* Parts per trillion on the wire; ppb reads better. */
	print_double("freq_ppb", "  %12.3f", c->freq_ppt / 1000.0);
}

/*
 * Who may lead, and what the clock refused: a line of its own under the
 * device's, only when there is something to say.
 */
static void clock_print_trust(const struct npo_nl_clock *c)
{
	unsigned int i;

	print_open_array("gm_allow");
	if (c->gm_allow_n)
		print_text("        grandmaster may be node");
	for (i = 0; i < c->gm_allow_n; i++)
		print_uint(NULL, i ? ",%llu" : " %llu", c->gm_allow[i]);
	if (c->gm_allow_n)
		print_text("\n");
	print_close_array();
	print_uint("refused_grandmasters", "", c->refused_gms);
	print_uint("refused_steps", "", c->refused_steps);
	if (c->refused_age_ms < 0)
		return;
	print_text("        refused %llu grandmaster offers and %llu steps; the last",
		   (unsigned long long)c->refused_gms,
		   (unsigned long long)c->refused_steps);
	print_uint("refused_node", " of node %llu", c->refused_node);
	print_uint("refused_port", " through port %llu", c->refused_port);
	print_uint("refused_age_ms", " %llu ms ago\n", c->refused_age_ms);
}

static int on_clock(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, void *arg)
{
	struct npo_nl_clock c;

	if (cmd != NPO_CMD_CLOCK_GET)
		return 0;
	npo_nl_clock_decode(tb, &c);
	(*(unsigned int *)arg)++;
	print_open_object(NULL);
	print_string("device", "%-6s", c.dev_name[0] ? c.dev_name : "?");
	print_uint("node_id", "  %5llu", c.node_id);
	if (print_is_json())
		print_uint("phc_index", "", c.phc_index >= 0 ? c.phc_index : 0);
	else
		print_text("  /dev/ptp%-3lld",
			   (long long)(c.phc_index >= 0 ? c.phc_index : 0));
	print_uint("priority", "  %4llu", c.priority);
	clock_print_state(&c);
	print_uint("steps_taken", "  %5llu", c.steps_taken);
	/* How far from the fabric's timescale it may be: "-" if unknown. */
	if (c.has_bound)
		print_uint("error_bound_ns", "  %10llu", c.error_bound_ns);
	else
		print_null("error_bound_ns", "  %10s");
	print_bool("reference", "", c.reference);
	print_text("\n");
	clock_print_trust(&c);
	print_close_object();
	return 0;
}

static int clock_show(struct npo_nl *nl, long dev)
{
	struct nl_msg *msg = npo_nl_msg(nl, NPO_CMD_CLOCK_GET,
					dev < 0 ? NLM_F_DUMP : 0);
	unsigned int count = 0;
	int err;

	if (!msg)
		return npo_nl_report(nl, -ENOMEM, "clock");
	if (dev >= 0)
		nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
	print_open_object(NULL);
	print_text("%-6s  %5s  %-12s  %4s  %-11s  %-8s  %5s  %4s  %5s  %4s  %9s  %8s  %12s  %5s  %10s\n",
		   "DEV", "NODE", "PHC", "PRIO", "ROLE", "STATE", "GM", "GMPR",
		   "STEPS", "PORT", "OFFSET", "DELAY", "FREQ[ppb]", "JUMPS",
		   "BOUND[ns]");
	print_open_array("clocks");
	err = npo_nl_request(nl, msg, on_clock, &count);
	print_close_array();
	print_close_object();
	return npo_nl_report(nl, err, "clock");
}

/* "1,5,9" or "any" into nodes: how many, or -1. */
static int clock_parse_nodes(const char *value, uint32_t *nodes, int max)
{
	const char *at = value;
	int n = 0;

	if (!strcmp(value, "any"))
		return 0;
	while (*at) {
		char *end;
		unsigned long v;

		if (n == max || *at < '0' || *at > '9')
			return -1;
		errno = 0;
		v = strtoul(at, &end, 10);
		if (errno || v > UINT32_MAX || (*end && *end != ','))
			return -1;
		nodes[n++] = v;
		at = *end ? end + 1 : end;
		if (*end && !*at)
			return -1;
	}
	return n ? n : -1;
}

static int clock_set_gm_allow(struct npo_nl *nl, long dev, const char *value)
{
	uint32_t nodes[16];
	struct nl_msg *msg;
	int n = clock_parse_nodes(value, nodes, 16);

	if (n < 0) {
		npoctl_err("clock set: gm-allow takes up to 16 node ids as N,N,... or \"any\", not \"%s\"",
			   value);
		return NPOCTL_EXIT_USAGE;
	}
	msg = npo_nl_msg(nl, NPO_CMD_CLOCK_SET, 0);
	if (!msg)
		return npo_nl_report(nl, -ENOMEM, "clock set");
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
	nla_put(msg, NPO_ATTR_CLOCK_GM_ALLOW, n * sizeof(nodes[0]), nodes);
	return npo_nl_report(nl, npo_nl_request(nl, msg, NULL, NULL), "clock set");
}

static int clock_set(struct npo_nl *nl, long dev, const char *what,
		     const char *value)
{
	bool prio = matches(what, "priority");
	struct nl_msg *msg;
	char *end;
	long v = strtol(value, &end, 10);

	if (!strcmp(what, "gm-allow"))
		return clock_set_gm_allow(nl, dev, value);
	if (prio && (*end || !*value || v < 0 || v > 255)) {
		npoctl_err("clock set: priority must be 0..255, not \"%s\"", value);
		return NPOCTL_EXIT_USAGE;
	}
	if (!prio) {
		if (!strcmp(value, "on") || !strcmp(value, "off")) {
			v = !strcmp(value, "on");
		} else {
			npoctl_err("clock set: sync is on or off, not \"%s\"", value);
			return NPOCTL_EXIT_USAGE;
		}
	}
	msg = npo_nl_msg(nl, NPO_CMD_CLOCK_SET, 0);
	if (!msg)
		return npo_nl_report(nl, -ENOMEM, "clock set");
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
	if (prio)
		nla_put_u32(msg, NPO_ATTR_CLOCK_PRIORITY, v);
	else
		nla_put_u8(msg, NPO_ATTR_CLOCK_SYNC, v);
	return npo_nl_report(nl, npo_nl_request(nl, msg, NULL, NULL), "clock set");
}

int cmd_clock(int argc, char **argv)
{
	long dev = -1;
	struct npo_nl nl;
	int ret;

	if (argc && matches(argv[0], "help")) {
		clock_usage(stdout);
		return NPOCTL_EXIT_OK;
	}
	if (argc >= 2)
		dev = npo_parse_dev(argv[1]);
	if ((argc && !matches(argv[0], "show") && !matches(argv[0], "set")) ||
	    (argc && matches(argv[0], "show") && argc > 2) ||
	    (argc && matches(argv[0], "set") &&
	     (argc != 4 || (!matches(argv[2], "priority") &&
			     !matches(argv[2], "sync") &&
			     strcmp(argv[2], "gm-allow")))) ||
	    (argc >= 2 && dev < 0)) {
		npoctl_err("clock: bad arguments");
		clock_usage(stderr);
		return NPOCTL_EXIT_USAGE;
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	if (argc && matches(argv[0], "set"))
		ret = clock_set(&nl, dev, argv[2], argv[3]);
	else
		ret = clock_show(&nl, dev);
	npo_nl_close(&nl);
	return ret;
}
