// SPDX-License-Identifier: GPL-2.0-only
/*
 * The npo generic netlink family from user space: requests, dumps and
 * events with the kernel's error messages, and the decoders of ports and
 * clocks (npo_nl.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "npo_nl.h"

#define UNUSED	__attribute__((unused))

static struct nla_policy attr_policy[NPO_ATTR_MAX + 1] = {
	[NPO_ATTR_DEV_NAME] = { .type = NLA_STRING },
	[NPO_ATTR_PORT_COUNTERS] = { .type = NLA_NESTED },
	[NPO_ATTR_LANE] = { .type = NLA_NESTED },
	[NPO_ATTR_OWNER_COMM] = { .type = NLA_STRING },
	[NPO_ATTR_ROUTE] = { .type = NLA_NESTED },
};

int npo_nl_open(struct npo_nl *nl)
{
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return -ENOMEM;
	if (genl_connect(nl->sk)) {
		err = -EIO;
		goto fail;
	}
	/* Ask for the kernel's error messages (extended ACKs). */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, NPO_GENL_NAME);
	if (nl->family < 0) {
		err = -ENOENT;
		goto fail;
	}
	return 0;
fail:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return err;
}

void npo_nl_close(struct npo_nl *nl)
{
	nl_socket_free(nl->sk);
	nl->sk = NULL;
}

struct nl_msg *npo_nl_msg(const struct npo_nl *nl, uint8_t cmd, int flags)
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
	bool listening;		/* events: a handler's < 0 ends it at once */
};

/* Parse a message and hand it to the request's handler. */
static int deliver(struct nl_msg *msg, struct request *req)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[NPO_ATTR_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, NPO_ATTR_MAX, attr_policy))
		return NL_SKIP;
	if (req->fn && req->fn(tb, genlmsg_attrdata(gh, 0),
				genlmsg_attrlen(gh, 0), gh->cmd, req->arg) < 0) {
		if (req->listening) {
			req->done = true;
			return NL_STOP;
		}
		/*
		 * A reply is read to its end (the ACK or the dump's DONE),
		 * so that the socket is ready for the next request; the
		 * handler hears no more of it.
		 */
		req->fn = NULL;
	}
	return NL_OK;
}

static int on_valid(struct nl_msg *msg, void *data)
{
	return deliver(msg, data);
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

static int on_done(UNUSED struct nl_msg *msg, void *data)
{
	struct request *req = data;

	req->done = true;
	return NL_STOP;
}

int npo_nl_send(struct npo_nl *nl, struct nl_msg *msg)
{
	int ret;

	nl->errmsg[0] = '\0';
	if (!msg)
		return -ENOMEM;
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
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_done, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_done, &req);
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

int npo_nl_join_events(struct npo_nl *nl)
{
	/* Whole events where allowed (CAP_NET_ADMIN), else what all may see. */
	int grp = genl_ctrl_resolve_grp(nl->sk, NPO_GENL_NAME,
					NPO_GENL_MCGRP_EVENTS_ADMIN);

	if (grp < 0 || nl_socket_add_membership(nl->sk, grp)) {
		grp = genl_ctrl_resolve_grp(nl->sk, NPO_GENL_NAME,
					    NPO_GENL_MCGRP_EVENTS);
		if (grp < 0 || nl_socket_add_membership(nl->sk, grp))
			return -ENOENT;
	}
	nl_socket_disable_seq_check(nl->sk);
	return 0;
}

static int on_event(struct nl_msg *msg, void *data)
{
	return deliver(msg, data);
}

int npo_nl_listen(struct npo_nl *nl, npo_nl_handler fn, void *arg)
{
	struct request req = { .nl = nl, .fn = fn, .arg = arg,
			       .listening = true };
	int err = npo_nl_join_events(nl);

	if (err)
		return err;
	nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, &req);
	while (!req.done)
		if (nl_recvmsgs_default(nl->sk) < 0 && !req.done)
			return -EIO;
	return 0;
}

int npo_nl_receive_now(struct npo_nl *nl, npo_nl_handler fn, void *arg)
{
	struct request req = { .nl = nl, .fn = fn, .arg = arg,
			       .listening = true };
	struct nl_cb *own = nl_socket_get_cb(nl->sk);
	/* The socket's own settings: events carry no sequence numbers. */
	struct nl_cb *cb = own ? nl_cb_clone(own) : NULL;
	int ret;

	nl_cb_put(own);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_event, &req);
	ret = nl_recvmsgs(nl->sk, cb);
	nl_cb_put(cb);
	return ret < 0 && ret != -NLE_AGAIN ? -EIO : 0;
}

static uint32_t u32_or(struct nlattr **tb, int attr, uint32_t dflt)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : dflt;
}

static int64_t u32_or_none(struct nlattr **tb, int attr)
{
	return tb[attr] ? (int64_t)nla_get_u32(tb[attr]) : -1;
}

static void copy_name(struct nlattr **tb, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 tb[NPO_ATTR_DEV_NAME] ? nla_get_string(tb[NPO_ATTR_DEV_NAME]) : "");
}

void npo_nl_port_decode(struct nlattr **tb, struct npo_nl_port *p)
{
	struct nlattr *cnt[NPO_ATTR_MAX + 1];
	int i;

	memset(p, 0, sizeof(*p));
	p->event = u32_or(tb, NPO_ATTR_EVENT, 0);
	p->dev = u32_or(tb, NPO_ATTR_DEV_INDEX, 0);
	copy_name(tb, p->dev_name, sizeof(p->dev_name));
	p->node_id = u32_or(tb, NPO_ATTR_DEV_NODE_ID, 0);
	p->port = u32_or(tb, NPO_ATTR_PORT_INDEX, 0);
	p->state = u32_or(tb, NPO_ATTR_PORT_STATE, 0);
	p->rate_mbps = u32_or(tb, NPO_ATTR_PORT_RATE, 0);
	p->width = u32_or(tb, NPO_ATTR_PORT_WIDTH, 0);
	p->max_rate_mbps = u32_or(tb, NPO_ATTR_PORT_MAX_RATE, 0);
	p->max_width = u32_or(tb, NPO_ATTR_PORT_MAX_WIDTH, 0);
	p->target_rate_mbps = u32_or(tb, NPO_ATTR_PORT_TARGET_RATE, 0);
	p->target_width = u32_or(tb, NPO_ATTR_PORT_TARGET_WIDTH, 0);
	p->admin_up = tb[NPO_ATTR_PORT_ADMIN_UP] &&
		      nla_get_u8(tb[NPO_ATTR_PORT_ADMIN_UP]);
	p->flags = u32_or(tb, NPO_ATTR_PORT_FLAGS, 0);
	p->reason = u32_or(tb, NPO_ATTR_PORT_REASON, 0);
	p->time_in_state_ms = get_u64(tb, NPO_ATTR_PORT_TIME_IN_STATE_MS);
	p->peer_node = p->peer_port = -1;
	if (tb[NPO_ATTR_PORT_PEER_NODE_ID]) {
		p->peer_node = u32_or(tb, NPO_ATTR_PORT_PEER_NODE_ID, 0);
		p->peer_port = u32_or(tb, NPO_ATTR_PORT_PEER_PORT, 0);
	}
	p->planned_node = u32_or_none(tb, NPO_ATTR_PORT_PLANNED_PEER_NODE);
	p->planned_port = u32_or_none(tb, NPO_ATTR_PORT_PLANNED_PEER_PORT);
	p->has_lanes = tb[NPO_ATTR_PORT_FAULT_LANES] && tb[NPO_ATTR_PORT_BER_LANES];
	p->fault_lanes = u32_or(tb, NPO_ATTR_PORT_FAULT_LANES, 0);
	p->ber_lanes = u32_or(tb, NPO_ATTR_PORT_BER_LANES, 0);
	p->self_test_lanes = u32_or(tb, NPO_ATTR_PORT_SELF_TEST_LANES, 0);
	p->flaps = get_u64(tb, NPO_ATTR_PORT_FLAPS);
	p->has_risk = tb[NPO_ATTR_PORT_RISK_LANES];
	p->risk_lanes = u32_or(tb, NPO_ATTR_PORT_RISK_LANES, 0);
	p->risk_reason = u32_or(tb, NPO_ATTR_PORT_RISK_REASON, 0);
	p->risk_lane = u32_or_none(tb, NPO_ATTR_PORT_RISK_LANE);
	p->risk_eta_s = u32_or_none(tb, NPO_ATTR_PORT_RISK_ETA_S);
	p->health = u32_or_none(tb, NPO_ATTR_PORT_HEALTH);
	p->health_reason = u32_or(tb, NPO_ATTR_PORT_HEALTH_REASON, 0);
	p->refusal.side = u32_or(tb, NPO_ATTR_REFUSAL_SIDE, 0);
	p->refusal.job = u32_or(tb, NPO_ATTR_JOB, 0);
	p->refusal.peer_node = u32_or(tb, NPO_ATTR_REFUSAL_PEER_NODE, 0);
	p->refusal.queue = u32_or(tb, NPO_ATTR_QUEUE_ID, 0);
	p->refusal.status = u32_or(tb, NPO_ATTR_REFUSAL_STATUS, 0);
	p->refusal.count = u32_or(tb, NPO_ATTR_REFUSAL_COUNT, 0);
	p->refusal.owned = tb[NPO_ATTR_OWNER_PID] != NULL;
	p->refusal.pid = u32_or(tb, NPO_ATTR_OWNER_PID, 0);
	p->refusal.uid = u32_or(tb, NPO_ATTR_OWNER_UID, 0);
	p->refusal.throttle_ms = u32_or(tb, NPO_ATTR_THROTTLE_MS, 0);
	if (!tb[NPO_ATTR_PORT_COUNTERS] ||
	    nla_parse_nested(cnt, NPO_ATTR_MAX, tb[NPO_ATTR_PORT_COUNTERS], NULL))
		return;
	for (i = NPO_ATTR_CNT_CRC_ERRORS; i <= NPO_ATTR_CNT_SYMBOL_ERRORS; i++) {
		if (!cnt[i])
			continue;
		p->counter[i] = nla_get_u64(cnt[i]);
		p->counters_present |= 1u << (i - NPO_ATTR_CNT_CRC_ERRORS);
	}
	p->has_traffic = cnt[NPO_ATTR_CNT_TX_BYTES];
	p->tx_bytes = get_u64(cnt, NPO_ATTR_CNT_TX_BYTES);
	p->tx_frames = get_u64(cnt, NPO_ATTR_CNT_TX_FRAMES);
	p->rx_bytes = get_u64(cnt, NPO_ATTR_CNT_RX_BYTES);
	p->rx_frames = get_u64(cnt, NPO_ATTR_CNT_RX_FRAMES);
}

void npo_nl_clock_decode(struct nlattr **tb, struct npo_nl_clock *c)
{
	memset(c, 0, sizeof(*c));
	c->dev = u32_or(tb, NPO_ATTR_DEV_INDEX, 0);
	copy_name(tb, c->dev_name, sizeof(c->dev_name));
	c->node_id = u32_or(tb, NPO_ATTR_DEV_NODE_ID, 0);
	c->phc_index = u32_or_none(tb, NPO_ATTR_CLOCK_PHC_INDEX);
	c->role = u32_or(tb, NPO_ATTR_CLOCK_ROLE, NPO_CLOCK_ROLE_FOLLOWER);
	c->state = u32_or(tb, NPO_ATTR_CLOCK_STATE, 0);
	c->sync = tb[NPO_ATTR_CLOCK_SYNC] && nla_get_u8(tb[NPO_ATTR_CLOCK_SYNC]);
	c->priority = u32_or(tb, NPO_ATTR_CLOCK_PRIORITY, 0);
	c->gm_node = u32_or(tb, NPO_ATTR_CLOCK_GM_NODE_ID, 0);
	c->gm_priority = u32_or(tb, NPO_ATTR_CLOCK_GM_PRIORITY, 0);
	c->steps = u32_or(tb, NPO_ATTR_CLOCK_STEPS, 0);
	c->parent_port = u32_or_none(tb, NPO_ATTR_CLOCK_PARENT_PORT);
	c->offset_ns = (int64_t)get_u64(tb, NPO_ATTR_CLOCK_OFFSET);
	c->path_delay_ns = (int64_t)get_u64(tb, NPO_ATTR_CLOCK_PATH_DELAY);
	c->freq_ppt = (int64_t)get_u64(tb, NPO_ATTR_CLOCK_FREQ);
	c->steps_taken = get_u64(tb, NPO_ATTR_CLOCK_STEPS_TAKEN);
	c->has_bound = tb[NPO_ATTR_CLOCK_ERROR_BOUND];
	c->error_bound_ns = get_u64(tb, NPO_ATTR_CLOCK_ERROR_BOUND);
	c->has_reference = tb[NPO_ATTR_CLOCK_REFERENCE];
	c->reference = tb[NPO_ATTR_CLOCK_REFERENCE] &&
		       nla_get_u8(tb[NPO_ATTR_CLOCK_REFERENCE]);
	c->health = u32_or_none(tb, NPO_ATTR_CLOCK_HEALTH);
	c->health_reason = u32_or(tb, NPO_ATTR_CLOCK_HEALTH_REASON, 0);
	c->error_limit_ns = get_u64(tb, NPO_ATTR_CLOCK_ERROR_LIMIT);
	if (tb[NPO_ATTR_CLOCK_GM_ALLOW]) {
		size_t len = nla_len(tb[NPO_ATTR_CLOCK_GM_ALLOW]);

		if (len > sizeof(c->gm_allow))
			len = sizeof(c->gm_allow);
		c->gm_allow_n = len / sizeof(c->gm_allow[0]);
		memcpy(c->gm_allow, nla_data(tb[NPO_ATTR_CLOCK_GM_ALLOW]),
		       c->gm_allow_n * sizeof(c->gm_allow[0]));
	}
	c->refused_gms = get_u64(tb, NPO_ATTR_CLOCK_REFUSED_GM);
	c->refused_steps = get_u64(tb, NPO_ATTR_CLOCK_REFUSED_STEPS);
	c->refused_age_ms = tb[NPO_ATTR_CLOCK_REFUSED_AGE_MS] ?
			    (int64_t)get_u64(tb, NPO_ATTR_CLOCK_REFUSED_AGE_MS) : -1;
	c->refused_node = u32_or(tb, NPO_ATTR_CLOCK_REFUSED_NODE, 0);
	c->refused_port = u32_or(tb, NPO_ATTR_CLOCK_REFUSED_PORT, 0);
}
