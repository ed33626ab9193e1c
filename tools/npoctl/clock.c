// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl clock: fabric time sync of every device, and the grandmaster
 * priority that steers its election.
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
		"       npoctl clock set DEV sync { on | off }  (off: user space owns it)\n");
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

static int clock_set(struct npo_nl *nl, long dev, const char *what,
		     const char *value)
{
	bool prio = matches(what, "priority");
	struct nl_msg *msg;
	char *end;
	long v = strtol(value, &end, 10);

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
	return npo_nl_report(nl, npo_nl_send(nl, msg), "clock set");
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
			     !matches(argv[2], "sync")))) ||
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
