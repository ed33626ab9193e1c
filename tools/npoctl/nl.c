// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl: generic netlink requests, replies, errors and events.
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

static struct nla_policy attr_policy[NPO_ATTR_MAX + 1] = {
	[NPO_ATTR_DEV_NAME] = { .type = NLA_STRING },
	[NPO_ATTR_PORT_COUNTERS] = { .type = NLA_NESTED },
	[NPO_ATTR_LANE] = { .type = NLA_NESTED },
	[NPO_ATTR_OWNER_COMM] = { .type = NLA_STRING },
	[NPO_ATTR_ROUTE] = { .type = NLA_NESTED },
};

int npo_nl_open(struct npo_nl *nl)
{
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		npoctl_err("out of memory");
		return NPOCTL_EXIT_ERROR;
	}
	if (genl_connect(nl->sk)) {
		npoctl_err("cannot open a generic netlink socket");
		goto fail;
	}
	/* Ask for the kernel's error messages (extended ACKs). */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, NPO_GENL_NAME);
	if (nl->family < 0) {
		npoctl_err("the npo driver is not loaded (try 'modprobe npo')");
		goto fail;
	}
	return 0;
fail:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return NPOCTL_EXIT_ERROR;
}

void npo_nl_close(struct npo_nl *nl)
{
	nl_socket_free(nl->sk);
	nl->sk = NULL;
}

struct nl_msg *npo_nl_msg(struct npo_nl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, NPO_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct request {
	struct npo_nl *nl;
	npo_nl_handler fn;
	void *arg;
	int err;
	bool done;
};

static int on_valid(struct nl_msg *msg, void *data)
{
	struct request *req = data;
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[NPO_ATTR_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, NPO_ATTR_MAX, attr_policy))
		return NL_SKIP;
	if (req->fn && req->fn(tb, genlmsg_attrdata(gh, 0),
				genlmsg_attrlen(gh, 0), gh->cmd, req->arg) < 0)
		return NL_STOP;
	return NL_OK;
}

/* The extack message follows the error, after the request unless capped. */
static void copy_extack(struct npo_nl *nl, struct nlmsghdr *nlh,
			struct nlmsgerr *e)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);
	struct nlattr *attrs;
	int len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len <= 0)
		return;
	attrs = (struct nlattr *)((char *)e + off);
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, attrs, len, NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(nl->errmsg, sizeof(nl->errmsg), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
}

static int on_error(UNUSED struct sockaddr_nl *who, struct nlmsgerr *e,
		    void *data)
{
	struct request *req = data;
	struct nlmsghdr *nlh = (struct nlmsghdr *)e - 1;

	req->err = e->error;
	req->done = true;
	copy_extack(req->nl, nlh, e);
	return NL_STOP;
}

static int on_finish(UNUSED struct nl_msg *msg, void *data)
{
	struct request *req = data;

	req->done = true;
	return NL_STOP;
}

static int on_ack(UNUSED struct nl_msg *msg, void *data)
{
	struct request *req = data;

	req->done = true;
	return NL_STOP;
}

int npo_nl_send(struct npo_nl *nl, struct nl_msg *msg)
{
	int ret;

	nl->errmsg[0] = '\0';
	nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	return ret < 0 ? -EIO : 0;
}

int npo_nl_receive(struct npo_nl *nl, npo_nl_handler fn, void *arg)
{
	struct request req = { .nl = nl, .fn = fn, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &req);
	while (!req.done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !req.done) {
			req.err = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	return req.err;
}

int npo_nl_request(struct npo_nl *nl, struct nl_msg *msg, npo_nl_handler fn,
		   void *arg)
{
	int err = npo_nl_send(nl, msg);

	return err ? err : npo_nl_receive(nl, fn, arg);
}

static int on_event(struct nl_msg *msg, void *data)
{
	struct request *req = data;
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[NPO_ATTR_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, NPO_ATTR_MAX, attr_policy))
		return NL_SKIP;
	if (req->fn(tb, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0),
		    gh->cmd, req->arg) < 0) {
		req->done = true;
		return NL_STOP;
	}
	return NL_OK;
}

int npo_nl_listen(struct npo_nl *nl, npo_nl_handler fn, void *arg)
{
	struct request req = { .nl = nl, .fn = fn, .arg = arg };
	int grp = genl_ctrl_resolve_grp(nl->sk, NPO_GENL_NAME,
					NPO_GENL_MCGRP_EVENTS);

	if (grp < 0 || nl_socket_add_membership(nl->sk, grp))
		return -ENOENT;
	nl_socket_disable_seq_check(nl->sk);
	nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, &req);
	while (!req.done)
		if (nl_recvmsgs_default(nl->sk) < 0 && !req.done)
			return -EIO;
	return 0;
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

int npo_nl_dump(struct npo_nl *nl, uint8_t cmd, long dev, npo_nl_handler fn,
		void *arg)
{
	struct nl_msg *msg = npo_nl_msg(nl, cmd, NLM_F_DUMP);

	if (!msg)
		return -ENOMEM;
	if (dev >= 0)
		nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
	return npo_nl_request(nl, msg, fn, arg);
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
