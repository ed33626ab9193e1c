// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl route: how each device reaches the nodes beyond its own links,
 * as the driver computed it from the fabric's link-state adverts.
 */
#include <errno.h>
#include <stdio.h>

#include "nl.h"
#include "npoctl.h"
#include "print.h"

static void route_usage(FILE *to)
{
	fprintf(to, "Usage: npoctl route [ show ] [ DEV ]\n");
}

static int on_route(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, void *arg)
{
	if (cmd != NPO_CMD_ROUTE_GET)
		return 0;
	(*(unsigned int *)arg)++;
	print_open_object(NULL);
	print_string("device", "%-6s", tb[NPO_ATTR_DEV_NAME] ?
		     nla_get_string(tb[NPO_ATTR_DEV_NAME]) : "?");
	print_uint("node_id", "  %5llu", get_u32(tb, NPO_ATTR_DEV_NODE_ID, 0));
	print_uint("dest_node", "  %5llu", get_u32(tb, NPO_ATTR_ROUTE_DEST_NODE, 0));
	print_uint("port", "  %4llu", get_u32(tb, NPO_ATTR_ROUTE_PORT, 0));
	if (tb[NPO_ATTR_ROUTE_NEXT_NODE])
		print_uint("next_node", "  %5llu",
			   nla_get_u32(tb[NPO_ATTR_ROUTE_NEXT_NODE]));
	else
		print_null("next_node", "  %5s");
	print_uint("hops", "  %4llu", get_u32(tb, NPO_ATTR_ROUTE_HOPS, 0));
	print_text("\n");
	print_close_object();
	return 0;
}

int cmd_route(int argc, char **argv)
{
	unsigned int count = 0;
	struct npo_nl nl;
	long dev = -1;
	int ret, err;

	if (argc && matches(argv[0], "help")) {
		route_usage(stdout);
		return NPOCTL_EXIT_OK;
	}
	/* "show" may be left out: npoctl route npo0. */
	if (argc && matches(argv[0], "show")) {
		argc--;
		argv++;
	}
	if (argc == 1)
		dev = npo_parse_dev(argv[0]);
	if (argc > 1 || (argc == 1 && dev < 0)) {
		npoctl_err("route: bad arguments");
		route_usage(stderr);
		return NPOCTL_EXIT_USAGE;
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	print_open_object(NULL);
	print_text("%-6s  %5s  %5s  %4s  %5s  %4s\n", "DEV", "NODE", "DEST",
		   "PORT", "NEXT", "HOPS");
	print_open_array("routes");
	err = npo_nl_dump(&nl, NPO_CMD_ROUTE_GET, dev, on_route, &count);
	print_close_array();
	print_close_object();
	ret = npo_nl_report(&nl, err, "route");
	npo_nl_close(&nl);
	return ret;
}
