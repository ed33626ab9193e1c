// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic netlink helpers for the NPO selftests, on libnl-genl-3.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/msg.h>

#include "npo_nl_lib.h"

#define MAX_QUEUED	512

struct npo_nl_events {
	struct nl_sock *sk;
	struct npo_nl_port queue[MAX_QUEUED];
	unsigned int len;
	char text[4096];
};

struct nl_sock *npo_nl_connect(void)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (sk && genl_connect(sk)) {
		nl_socket_free(sk);
		return NULL;
	}
	return sk;
}

int npo_nl_family(struct nl_sock *sk)
{
	return genl_ctrl_resolve(sk, NPO_GENL_NAME);
}

struct nl_msg *npo_nl_request(int family, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg)
		genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags,
			    cmd, NPO_GENL_VERSION);
	return msg;
}

struct nl_msg *npo_nl_port_request(int family, uint8_t cmd, int dev, int port)
{
	struct nl_msg *msg = npo_nl_request(family, cmd, 0);

	if (msg) {
		nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
		nla_put_u32(msg, NPO_ATTR_PORT_INDEX, port);
	}
	return msg;
}

static uint32_t attr_u32(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : 0;
}

static void parse_port(struct nlmsghdr *nlh, struct npo_nl_port *p)
{
	struct nlattr *tb[NPO_ATTR_MAX + 1], *cnt[NPO_ATTR_MAX + 1];
	int i;

	memset(p, 0, sizeof(*p));
	p->peer_node = p->peer_port = -1;
	if (genlmsg_parse(nlh, 0, tb, NPO_ATTR_MAX, NULL))
		return;
	p->event = attr_u32(tb, NPO_ATTR_EVENT);
	p->dev = attr_u32(tb, NPO_ATTR_DEV_INDEX);
	p->port = attr_u32(tb, NPO_ATTR_PORT_INDEX);
	p->state = attr_u32(tb, NPO_ATTR_PORT_STATE);
	p->rate_mbps = attr_u32(tb, NPO_ATTR_PORT_RATE);
	p->width = attr_u32(tb, NPO_ATTR_PORT_WIDTH);
	p->max_width = attr_u32(tb, NPO_ATTR_PORT_MAX_WIDTH);
	p->flags = attr_u32(tb, NPO_ATTR_PORT_FLAGS);
	p->reason = attr_u32(tb, NPO_ATTR_PORT_REASON);
	if (tb[NPO_ATTR_PORT_PEER_NODE_ID]) {
		p->peer_node = attr_u32(tb, NPO_ATTR_PORT_PEER_NODE_ID);
		p->peer_port = attr_u32(tb, NPO_ATTR_PORT_PEER_PORT);
	}
	p->has_lanes = tb[NPO_ATTR_PORT_FAULT_LANES] && tb[NPO_ATTR_PORT_BER_LANES];
	p->fault_lanes = attr_u32(tb, NPO_ATTR_PORT_FAULT_LANES);
	p->ber_lanes = attr_u32(tb, NPO_ATTR_PORT_BER_LANES);
	p->has_risk = tb[NPO_ATTR_PORT_RISK_LANES];
	p->risk_lanes = attr_u32(tb, NPO_ATTR_PORT_RISK_LANES);
	p->risk_reason = attr_u32(tb, NPO_ATTR_PORT_RISK_REASON);
	p->risk_lane = tb[NPO_ATTR_PORT_RISK_LANE] ?
		       attr_u32(tb, NPO_ATTR_PORT_RISK_LANE) : -1;
	p->risk_eta_s = tb[NPO_ATTR_PORT_RISK_ETA_S] ?
			attr_u32(tb, NPO_ATTR_PORT_RISK_ETA_S) : -1;
	if (tb[NPO_ATTR_PORT_FLAPS])
		p->flaps = nla_get_u64(tb[NPO_ATTR_PORT_FLAPS]);
	p->node_id = attr_u32(tb, NPO_ATTR_DEV_NODE_ID);
	p->health = tb[NPO_ATTR_PORT_HEALTH] ?
		    attr_u32(tb, NPO_ATTR_PORT_HEALTH) : -1;
	p->health_reason = attr_u32(tb, NPO_ATTR_PORT_HEALTH_REASON);
	p->refusal.side = attr_u32(tb, NPO_ATTR_REFUSAL_SIDE);
	p->refusal.job = attr_u32(tb, NPO_ATTR_JOB);
	p->refusal.peer_node = attr_u32(tb, NPO_ATTR_REFUSAL_PEER_NODE);
	p->refusal.queue = attr_u32(tb, NPO_ATTR_QUEUE_ID);
	p->refusal.status = attr_u32(tb, NPO_ATTR_REFUSAL_STATUS);
	p->refusal.count = attr_u32(tb, NPO_ATTR_REFUSAL_COUNT);
	p->refusal.owned = tb[NPO_ATTR_OWNER_PID] != NULL;
	p->refusal.pid = attr_u32(tb, NPO_ATTR_OWNER_PID);
	p->refusal.uid = attr_u32(tb, NPO_ATTR_OWNER_UID);
	p->refusal.throttle_ms = attr_u32(tb, NPO_ATTR_THROTTLE_MS);
	if (!tb[NPO_ATTR_PORT_COUNTERS] ||
	    nla_parse_nested(cnt, NPO_ATTR_MAX, tb[NPO_ATTR_PORT_COUNTERS], NULL))
		return;
	for (i = NPO_ATTR_CNT_CRC_ERRORS; i <= NPO_ATTR_CNT_SYMBOL_ERRORS; i++) {
		if (!cnt[i])
			continue;
		p->counter[i] = nla_get_u64(cnt[i]);
		p->counters_present |= 1u << (i - NPO_ATTR_CNT_CRC_ERRORS);
	}
}

static int on_err(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	*(int *)arg = e->error;
	return NL_STOP;
}

static int on_ack(struct nl_msg *m, void *arg)
{
	*(int *)arg = 0;
	return NL_STOP;
}

static int on_port_reply(struct nl_msg *m, void *arg)
{
	if (arg)
		parse_port(nlmsg_hdr(m), arg);
	return NL_OK;
}

static int transact_into(struct nl_sock *sk, struct nl_msg *msg,
			 struct npo_nl_port *out)
{
	struct nl_cb *cb;
	int err = 1;

	if (!msg)
		return -ENOMEM;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_err, &err);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &err);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_port_reply, out);
	nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	if (nl_send_auto(sk, msg) < 0)
		err = -EIO;
	nlmsg_free(msg);
	while (err == 1)
		if (nl_recvmsgs(sk, cb) < 0 && err == 1)
			err = -EIO;
	nl_cb_put(cb);
	return err;
}

int npo_nl_transact(struct nl_sock *sk, struct nl_msg *msg)
{
	return transact_into(sk, msg, NULL);
}

int npo_nl_get_port(struct nl_sock *sk, int family, int dev, int port,
		    struct npo_nl_port *out)
{
	return transact_into(sk, npo_nl_port_request(family, NPO_CMD_PORT_GET,
						     dev, port), out);
}

static int on_event(struct nl_msg *m, void *arg)
{
	struct npo_nl_events *ev = arg;

	if (genlmsg_hdr(nlmsg_hdr(m))->cmd != NPO_CMD_EVENT)
		return NL_OK;
	/* A full queue keeps the oldest: tests wait for early events. */
	if (ev->len < MAX_QUEUED)
		parse_port(nlmsg_hdr(m), &ev->queue[ev->len++]);
	return NL_OK;
}

struct npo_nl_events *npo_nl_events_open(void)
{
	struct npo_nl_events *ev = calloc(1, sizeof(*ev));
	int grp;

	if (!ev)
		return NULL;
	ev->sk = npo_nl_connect();
	if (!ev->sk)
		goto fail;
	grp = genl_ctrl_resolve_grp(ev->sk, NPO_GENL_NAME,
				    NPO_GENL_MCGRP_EVENTS);
	if (grp < 0 || nl_socket_add_membership(ev->sk, grp))
		goto fail;
	nl_socket_disable_seq_check(ev->sk);
	nl_socket_set_buffer_size(ev->sk, 1 << 20, 0);
	nl_socket_modify_cb(ev->sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, ev);
	nl_socket_set_nonblocking(ev->sk);
	return ev;
fail:
	npo_nl_events_close(ev);
	return NULL;
}

void npo_nl_events_close(struct npo_nl_events *ev)
{
	if (!ev)
		return;
	nl_socket_free(ev->sk);
	free(ev);
}

static bool take(struct npo_nl_events *ev, uint32_t kind, int dev, int port,
		 struct npo_nl_port *out)
{
	unsigned int i;

	for (i = 0; i < ev->len; i++) {
		struct npo_nl_port *p = &ev->queue[i];

		if (p->event != kind || p->dev != (uint32_t)dev ||
		    p->port != (uint32_t)port)
			continue;
		if (out)
			*out = *p;
		memmove(p, p + 1, (ev->len - i - 1) * sizeof(*p));
		ev->len--;
		return true;
	}
	return false;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

bool npo_nl_wait_event(struct npo_nl_events *ev, uint32_t kind, int dev,
		       int port, int timeout_ms, struct npo_nl_port *out)
{
	int64_t end = now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = nl_socket_get_fd(ev->sk), .events = POLLIN };

	for (;;) {
		int64_t left;

		if (take(ev, kind, dev, port, out))
			return true;
		left = end - now_ms();
		if (left <= 0)
			return false;
		if (poll(&pfd, 1, left) > 0)
			nl_recvmsgs_default(ev->sk);
	}
}

const char *npo_nl_events_dump(struct npo_nl_events *ev)
{
	size_t len = 0;
	unsigned int i;

	ev->text[0] = '\0';
	for (i = 0; i < ev->len && len < sizeof(ev->text); i++)
		len += snprintf(ev->text + len, sizeof(ev->text) - len,
				"npo%u/%u:%u ", ev->queue[i].dev,
				ev->queue[i].port, ev->queue[i].event);
	return ev->text;
}
