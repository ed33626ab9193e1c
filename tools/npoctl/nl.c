// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl on the npo netlink family: opening it and reporting failures
 * (tools/lib/npo_nl.c is the client), parsing device and port names, and
 * the lanes' PRBS counters.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "nl.h"
#include "npoctl.h"

int npoctl_nl_open(struct npo_nl *nl)
{
	int err = npo_nl_open(nl);

	if (err == -ENOENT)
		npoctl_err("the npo driver is not loaded (try 'modprobe npo')");
	else if (err == -ENOMEM)
		npoctl_err("out of memory");
	else if (err)
		npoctl_err("cannot open a generic netlink socket");
	return err ? NPOCTL_EXIT_ERROR : NPOCTL_EXIT_OK;
}

long npo_parse_dev(const char *s)
{
	char *end;
	long v;

	if (!strncmp(s, "npo", 3))
		s += 3;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	return *end || v > 255 ? -1 : v;
}

int npo_parse_port(const char *s, uint32_t *dev, uint32_t *port)
{
	unsigned int d, p;
	int n = 0;

	if (!strncmp(s, "npo", 3))
		s += 3;
	if (sscanf(s, "%u/%u%n", &d, &p, &n) != 2 || s[n])
		return -1;
	*dev = d;
	*port = p;
	return 0;
}

int npo_parse_node_port(const char *s, uint32_t *node, uint32_t *port)
{
	unsigned int nd, p;
	int n = 0;

	if (sscanf(s, "%u/%u%n", &nd, &p, &n) != 2 || s[n] || p > 255 ||
	    !isdigit((unsigned char)s[0]))
		return -1;
	*node = nd;
	*port = p;
	return 0;
}

int npo_nl_report(struct npo_nl *nl, int err, const char *what)
{
	if (!err)
		return NPOCTL_EXIT_OK;
	if (err == -EPERM)
		npoctl_err("%s: permission denied (needs CAP_NET_ADMIN)", what);
	else if (nl->errmsg[0])
		npoctl_err("%s: %s", what, nl->errmsg);
	else
		npoctl_err("%s: %s", what, strerror(-err));
	return NPOCTL_EXIT_ERROR;
}

int npo_nl_on_prbs(UNUSED struct nlattr **tb, struct nlattr *attrs, int len,
		   UNUSED uint8_t cmd, void *arg)
{
	struct npo_prbs_counts *c = arg;
	struct nlattr *lane;
	int rem;

	nla_for_each_attr(lane, attrs, len, rem) {
		struct nlattr *lt[NPO_ATTR_MAX + 1];
		uint32_t i;

		if (nla_type(lane) != NPO_ATTR_LANE ||
		    nla_parse_nested(lt, NPO_ATTR_MAX, lane, NULL) ||
		    !lt[NPO_ATTR_LANE_INDEX])
			continue;
		i = nla_get_u32(lt[NPO_ATTR_LANE_INDEX]);
		if (i >= NPO_NL_PRBS_LANES)
			continue;
		c->bits[i] = get_u64(lt, NPO_ATTR_LANE_PRBS_BITS);
		c->errors[i] = get_u64(lt, NPO_ATTR_LANE_PRBS_ERRORS);
		c->seen |= 1ull << i;
	}
	return 0;
}

void npo_prbs_delta(const struct npo_prbs_counts *before,
		    const struct npo_prbs_counts *after, uint32_t i,
		    uint64_t *bits, uint64_t *errors)
{
	*bits = *errors = 0;
	if (i >= NPO_NL_PRBS_LANES || !(after->seen & (1ull << i)))
		return;
	*bits = after->bits[i];
	*errors = after->errors[i];
	/* Counters below what they were have been reset since: all new. */
	if (before && before->seen & (1ull << i) &&
	    *bits >= before->bits[i] && *errors >= before->errors[i]) {
		*bits -= before->bits[i];
		*errors -= before->errors[i];
	}
}
