// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO generic netlink family: the family, its policy and events group, and
 * the port, lane, queue and region commands.  Handlers parse and check a
 * request, call the part of the driver that owns the object (npo_link.c
 * for ports, which does all hardware access) and reply; the clock's
 * commands live with the clock (npo_clock.c).  The UAPI is
 * uapi/linux/npo_netlink.h.
 */
#include <linux/nospec.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_fabric_key.h"
#include "npo_health.h"
#include "npo_genl.h"
#include "npo_link.h"
#include "npo_queue.h"
#include "npo_route.h"
#include "npo_timesync.h"

#define NPO_TEST_MAX_MS		60000

/* Beyond the 16-bit bounds NLA_POLICY_RANGE can hold (6.1 wants non-const). */
static struct netlink_range_validation npo_test_ms_range = {
	.min = 1,
	.max = NPO_TEST_MAX_MS,
};

static const struct nla_policy npo_nl_policy[NPO_ATTR_MAX + 1] = {
	[NPO_ATTR_DEV_INDEX] = NLA_POLICY_MAX(NLA_U32, NPO_MAX_DEVICES - 1),
	[NPO_ATTR_PORT_INDEX] = NLA_POLICY_MAX(NLA_U32, 255),
	[NPO_ATTR_PORT_ADMIN_UP] = NLA_POLICY_MAX(NLA_U8, 1),
	[NPO_ATTR_PORT_TARGET_RATE] = { .type = NLA_U32 },
	[NPO_ATTR_PORT_TARGET_WIDTH] = NLA_POLICY_MAX(NLA_U32, NPO_MAX_LANES),
	[NPO_ATTR_TEST_DURATION_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &npo_test_ms_range),
	[NPO_ATTR_CLOCK_PRIORITY] = NLA_POLICY_MAX(NLA_U32, 255),
	[NPO_ATTR_CLOCK_SYNC] = NLA_POLICY_MAX(NLA_U8, 1),
	[NPO_ATTR_EVENT_SEQ] = { .type = NLA_U64 },
	[NPO_ATTR_PORT_PLANNED_PEER_NODE] = { .type = NLA_U32 },
	[NPO_ATTR_PORT_PLANNED_PEER_PORT] = NLA_POLICY_MAX(NLA_U32, 255),
	[NPO_ATTR_PORT_PLAN_CLEAR] = { .type = NLA_FLAG },
	[NPO_ATTR_FKEY_ID] = NLA_POLICY_MIN(NLA_U8, 1),
	[NPO_ATTR_FKEY_SECRET] = NLA_POLICY_RANGE(NLA_BINARY, NPO_FKEY_MIN_LEN,
						  NPO_FKEY_MAX_LEN),
	[NPO_ATTR_FKEY_SEND] = { .type = NLA_FLAG },
	[NPO_ATTR_CLOCK_GM_ALLOW] = {
		.type = NLA_BINARY, .len = NPO_TS_GM_ALLOW_MAX * sizeof(u32)
	},
};

static struct genl_family npo_genl_family;

/*
 * Every local user may listen to "events"; what an event says about other
 * users' processes goes to "events-admin" only, which the genetlink core
 * lets only CAP_NET_ADMIN join.  A kernel without that check has no such
 * group: administrators read owners from NPO_CMD_EVENT_GET there.
 */
enum {
	NPO_MCGRP_EVENTS,
	NPO_MCGRP_EVENTS_ADMIN,
};

static const struct genl_multicast_group npo_mcgrps[] = {
	[NPO_MCGRP_EVENTS] = { .name = NPO_GENL_MCGRP_EVENTS },
#ifdef GENL_MCAST_CAP_NET_ADMIN
	[NPO_MCGRP_EVENTS_ADMIN] = { .name = NPO_GENL_MCGRP_EVENTS_ADMIN,
				     .flags = GENL_MCAST_CAP_NET_ADMIN },
#endif
};

/*
 * Who a process is, and what points into its memory (a wr_id is often a
 * heap pointer): not for users without CAP_NET_ADMIN.  Events carry these
 * at the top level only.
 */
static bool npo_genl_attr_private(int type)
{
	switch (type) {
	case NPO_ATTR_OWNER_PID:
	case NPO_ATTR_OWNER_COMM:
	case NPO_ATTR_OWNER_UID:
	case NPO_ATTR_PD:
	case NPO_ATTR_JOB:
	case NPO_ATTR_THROTTLE_MS:
	case NPO_ATTR_QUEUE_ERR_WR_ID:
		return true;
	}
	return false;
}

/**
 * npo_genl_put_attrs() - copy an event's attributes into a message
 * @msg: the message, its header put.
 * @attrs: the attributes.
 * @len: their length.
 * @all: with those only CAP_NET_ADMIN may see; else without.
 *
 * Return: 0 or -EMSGSIZE.
 */
int npo_genl_put_attrs(struct sk_buff *msg, const void *attrs, int len,
		       bool all)
{
	const struct nlattr *a;
	int rem;

	if (all) {
		if (skb_tailroom(msg) < len)
			return -EMSGSIZE;
		skb_put_data(msg, attrs, len);
		return 0;
	}
	nla_for_each_attr(a, attrs, len, rem) {
		int size = nla_total_size(nla_len(a));

		if (npo_genl_attr_private(nla_type(a)))
			continue;
		if (skb_tailroom(msg) < size)
			return -EMSGSIZE;
		/* With its padding, as it was put. */
		skb_put_data(msg, a, min(size, rem));
	}
	return 0;
}

/**
 * npo_genl_put() - start a message of the NPO family
 * @msg: the buffer.
 * @portid: the requester's port id, 0 for events.
 * @seq: the request's sequence number, 0 for events.
 * @flags: netlink message flags, such as NLM_F_MULTI in a dump.
 * @cmd: &enum npo_cmd.
 *
 * Return: the header, for npo_genl_end(), or NULL if @msg is full.
 */
void *npo_genl_put(struct sk_buff *msg, u32 portid, u32 seq, int flags,
		   u8 cmd)
{
	return genlmsg_put(msg, portid, seq, &npo_genl_family, flags, cmd);
}

/**
 * npo_genl_end() - finish a message, or take it back out of its buffer
 * @msg: the buffer.
 * @hdr: from npo_genl_put().
 * @err: 0 if the message is whole; else it is cancelled.
 *
 * Return: @err.
 */
int npo_genl_end(struct sk_buff *msg, void *hdr, int err)
{
	if (err)
		genlmsg_cancel(msg, hdr);
	else
		genlmsg_end(msg, hdr);
	return err;
}

static int npo_put_counters(struct sk_buff *msg,
			    const struct npo_hw_port_stats *st,
			    unsigned int lanes)
{
	static const u16 traffic_attr[NPO_HW_NUM_TRAFFIC] = {
		[NPO_HW_TRAFFIC_TX_BYTES] = NPO_ATTR_CNT_TX_BYTES,
		[NPO_HW_TRAFFIC_TX_FRAMES] = NPO_ATTR_CNT_TX_FRAMES,
		[NPO_HW_TRAFFIC_RX_BYTES] = NPO_ATTR_CNT_RX_BYTES,
		[NPO_HW_TRAFFIC_RX_FRAMES] = NPO_ATTR_CNT_RX_FRAMES,
	};
	const __le64 *traffic = npo_hw_port_traffic(st, lanes);
	static const u16 attr[NPO_HW_NUM_COUNTERS] = {
		[NPO_HW_CNT_CRC_ERRORS] = NPO_ATTR_CNT_CRC_ERRORS,
		[NPO_HW_CNT_REPLAYS] = NPO_ATTR_CNT_REPLAYS,
		[NPO_HW_CNT_RECOVERIES] = NPO_ATTR_CNT_RECOVERIES,
		[NPO_HW_CNT_LINK_DOWNS] = NPO_ATTR_CNT_LINK_DOWNS,
		[NPO_HW_CNT_TRAIN_FAILURES] = NPO_ATTR_CNT_TRAIN_FAILURES,
		[NPO_HW_CNT_FEC_CORRECTED] = NPO_ATTR_CNT_FEC_CORRECTED,
		[NPO_HW_CNT_FEC_UNCORRECTABLE] = NPO_ATTR_CNT_FEC_UNCORRECTABLE,
		[NPO_HW_CNT_SYMBOL_ERRORS] = NPO_ATTR_CNT_SYMBOL_ERRORS,
	};
	u32 supported = le32_to_cpu(st->supported);
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(msg, NPO_ATTR_PORT_COUNTERS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < NPO_HW_NUM_COUNTERS; i++) {
		/* A counter the device cannot count is absent, not 0. */
		if (!(supported & BIT(i)))
			continue;
		if (nla_put_u64_64bit(msg, attr[i], le64_to_cpu(st->counter[i]),
				      NPO_ATTR_PAD))
			goto cancel;
	}
	for (i = 0; i < NPO_HW_NUM_TRAFFIC; i++) {
		if (!(supported & NPO_HW_TRAFFIC_SUPPORTED(i)))
			continue;
		if (nla_put_u64_64bit(msg, traffic_attr[i],
				      le64_to_cpu(traffic[i]), NPO_ATTR_PAD))
			goto cancel;
	}
	nla_nest_end(msg, nest);
	return 0;
cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* What the device publishes of a lane's thresholds (interface 1.9). */
static int npo_put_lane_limits(struct sk_buff *msg,
			       const struct npo_hw_lane_stats *l)
{
	if (!l->ber_alarm_nlog_c)
		return 0;
	if (nla_put_s32(msg, NPO_ATTR_LANE_RX_LOW_ALARM,
			(s16)le16_to_cpu(l->rx_low_alarm_cdbm)) ||
	    nla_put_s32(msg, NPO_ATTR_LANE_RX_LOW_WARN,
			(s16)le16_to_cpu(l->rx_low_warn_cdbm)) ||
	    nla_put_u32(msg, NPO_ATTR_LANE_BER_ALARM,
			le16_to_cpu(l->ber_alarm_nlog_c)) ||
	    nla_put_u32(msg, NPO_ATTR_LANE_BER_WARN,
			le16_to_cpu(l->ber_warn_nlog_c)))
		return -EMSGSIZE;
	return 0;
}

/**
 * npo_lane_flags() - a lane's NPO_HW_LANE_* flags as NPO_LANE_FLAG_*
 * @hw: the device's flags, or those a peer reported.
 *
 * Return: the netlink flags; bits the interface does not define dropped.
 */
u32 npo_lane_flags(u8 hw)
{
	u32 flags = 0;

	if (hw & NPO_HW_LANE_LOS)
		flags |= NPO_LANE_FLAG_LOS;
	if (hw & NPO_HW_LANE_CDR_LOCK)
		flags |= NPO_LANE_FLAG_CDR_LOCK;
	if (hw & NPO_HW_LANE_ACTIVE)
		flags |= NPO_LANE_FLAG_ACTIVE;
	if (hw & NPO_HW_LANE_TX_FAULT)
		flags |= NPO_LANE_FLAG_TX_FAULT;
	return flags;
}

static int npo_put_lanes(struct sk_buff *msg, struct npo_dev *ndev,
			 const struct npo_hw_port_stats *st,
			 const struct npo_lane_trends *trends)
{
	bool symbols = le32_to_cpu(st->supported) & BIT(NPO_HW_CNT_SYMBOL_ERRORS);
	unsigned int i;

	for (i = 0; i < ndev->lanes_per_port; i++) {
		const struct npo_hw_lane_stats *l = &st->lane[i];
		struct nlattr *nest = nla_nest_start(msg, NPO_ATTR_LANE);
		u32 flags = npo_lane_flags(l->flags);

		if (!nest)
			return -EMSGSIZE;
		if (nla_put_u32(msg, NPO_ATTR_LANE_INDEX, i) ||
		    nla_put_u32(msg, NPO_ATTR_LANE_FLAGS, flags) ||
		    nla_put_s32(msg, NPO_ATTR_LANE_RX_POWER,
				(s16)le16_to_cpu(l->rx_power_cdbm)) ||
		    nla_put_s32(msg, NPO_ATTR_LANE_TX_POWER,
				(s16)le16_to_cpu(l->tx_power_cdbm)) ||
		    nla_put_u32(msg, NPO_ATTR_LANE_BIAS,
				le16_to_cpu(l->bias_cma)) ||
		    nla_put_s32(msg, NPO_ATTR_LANE_TEMP,
				(s16)le16_to_cpu(l->temp_cdeg)) ||
		    nla_put_u32(msg, NPO_ATTR_LANE_BER,
				le16_to_cpu(l->ber_nlog_c)) ||
		    nla_put_u32(msg, NPO_ATTR_LANE_EYE_HEIGHT,
				le16_to_cpu(l->eye_height_mv)) ||
		    nla_put_u32(msg, NPO_ATTR_LANE_EYE_WIDTH,
				le16_to_cpu(l->eye_width_mui)) ||
		    nla_put_u32(msg, NPO_ATTR_LANE_PRESET, l->preset) ||
		    nla_put_u64_64bit(msg, NPO_ATTR_LANE_FEC_CORRECTED,
				      le64_to_cpu(l->fec_corrected), NPO_ATTR_PAD) ||
		    nla_put_u64_64bit(msg, NPO_ATTR_LANE_FEC_UNCORRECTABLE,
				      le64_to_cpu(l->fec_uncorrectable),
				      NPO_ATTR_PAD) ||
		    (symbols &&
		     nla_put_u64_64bit(msg, NPO_ATTR_LANE_SYMBOL_ERRORS,
				       le64_to_cpu(l->symbol_errors),
				       NPO_ATTR_PAD)) ||
		    nla_put_u64_64bit(msg, NPO_ATTR_LANE_PRBS_BITS,
				      le64_to_cpu(l->prbs_bits), NPO_ATTR_PAD) ||
		    nla_put_u64_64bit(msg, NPO_ATTR_LANE_PRBS_ERRORS,
				      le64_to_cpu(l->prbs_errors), NPO_ATTR_PAD) ||
		    npo_put_lane_limits(msg, l) ||
		    (trends->known &&
		     (nla_put_s32(msg, NPO_ATTR_LANE_BER_TREND, trends->ber[i]) ||
		      nla_put_s32(msg, NPO_ATTR_LANE_RX_TREND, trends->rx[i])))) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* What the link watch says of the port, if it watches it. */
static int npo_put_port_risk(struct sk_buff *msg, struct npo_port *port)
{
	if (!port->watch)
		return 0;
	if (nla_put_u32(msg, NPO_ATTR_PORT_RISK_LANES, port->risk.lanes) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_RISK_REASON, port->risk.reason))
		return -EMSGSIZE;
	if (port->risk.lanes &&
	    nla_put_u32(msg, NPO_ATTR_PORT_RISK_LANE, port->risk.lane))
		return -EMSGSIZE;
	if (port->risk.lanes && port->risk.eta_s &&
	    nla_put_u32(msg, NPO_ATTR_PORT_RISK_ETA_S, port->risk.eta_s))
		return -EMSGSIZE;
	return 0;
}

/*
 * Device and port identity plus the port's state: every message has it.
 * reason is the NPO_ATTR_PORT_REASON to report.
 */
static int npo_put_port(struct sk_buff *msg, struct npo_port *port, u32 reason)
{
	struct npo_dev *ndev = port->ndev;
	u32 st = port->status, flags = 0, max_rate, health, why;
	u8 rates = ndev->port_rates;
	unsigned int max_width = ndev->lanes_per_port;

	if (port->peer_valid) {
		rates &= port->peer_rates;
		max_width = min_t(unsigned int, max_width, port->peer_lanes);
	}
	max_rate = npo_port_rate_mbps(rates ? fls(rates) : 0);
	if (st & NPO_PST_DEGRADED)
		flags |= NPO_PORT_FLAG_DEGRADED;
	if (st & NPO_PST_HIGH_BER)
		flags |= NPO_PORT_FLAG_HIGH_BER;
	if (st & NPO_PST_PEER_PRESENT)
		flags |= NPO_PORT_FLAG_PEER_PRESENT;
	if (!port->admin_up)
		flags |= NPO_PORT_FLAG_ADMIN_DOWN;
	if (st & NPO_PST_LISTEN)
		flags |= NPO_PORT_FLAG_LISTEN;
	if (port->risk.lanes)
		flags |= NPO_PORT_FLAG_AT_RISK;
	if (port->selftest.state == NPO_SELFTEST_FAILED)
		flags |= NPO_PORT_FLAG_SELF_TEST_FAILED;
	if (port->plan.miswired)
		flags |= NPO_PORT_FLAG_MISWIRED;
	health = npo_port_health(port, &why);

	if (nla_put_u32(msg, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	    nla_put_string(msg, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
	    nla_put_u32(msg, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_INDEX, port->index) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_STATE, FIELD_GET(NPO_PST_STATE, st)) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_RATE,
			npo_port_rate_mbps(FIELD_GET(NPO_PST_RATE, st))) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_WIDTH, FIELD_GET(NPO_PST_WIDTH, st)) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_MAX_RATE, max_rate) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_MAX_WIDTH, max_width) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_FLAGS, flags) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_REASON, reason) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_HEALTH, health) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_HEALTH_REASON, why) ||
	    nla_put_u64_64bit(msg, NPO_ATTR_PORT_TIME_IN_STATE_MS,
			      ktime_ms_delta(ktime_get(), port->state_since),
			      NPO_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, NPO_ATTR_PORT_FLAPS, port->flaps,
			      NPO_ATTR_PAD) ||
	    nla_put_u8(msg, NPO_ATTR_PORT_ADMIN_UP, port->admin_up) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_TARGET_RATE,
			npo_port_rate_mbps(port->max_rate)) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_TARGET_WIDTH, port->max_width))
		return -EMSGSIZE;
	if (port->peer_valid &&
	    (nla_put_u32(msg, NPO_ATTR_PORT_PEER_NODE_ID, port->peer_node) ||
	     nla_put_u32(msg, NPO_ATTR_PORT_PEER_PORT, port->peer_port)))
		return -EMSGSIZE;
	if (port->plan.set &&
	    (nla_put_u32(msg, NPO_ATTR_PORT_PLANNED_PEER_NODE, port->plan.node) ||
	     nla_put_u32(msg, NPO_ATTR_PORT_PLANNED_PEER_PORT, port->plan.port)))
		return -EMSGSIZE;
	if (npo_hw_blames_lanes(ndev) &&
	    (nla_put_u32(msg, NPO_ATTR_PORT_FAULT_LANES, port->fault_lanes) ||
	     nla_put_u32(msg, NPO_ATTR_PORT_BER_LANES, port->ber_lanes)))
		return -EMSGSIZE;
	if (port->selftest.state == NPO_SELFTEST_FAILED &&
	    nla_put_u32(msg, NPO_ATTR_PORT_SELF_TEST_LANES, port->selftest.lanes))
		return -EMSGSIZE;
	return npo_put_port_risk(msg, port);
}

/*
 * One port as a message: state, counters and, if asked, lanes.  The caller
 * holds the device's remove_lock for reading.
 */
static int npo_fill_port(struct sk_buff *msg, struct npo_port *port, u8 cmd,
			 u32 portid, u32 seq, int flags, bool lanes,
			 bool shared)
{
	struct npo_lane_trends trends;
	struct npo_hw_port_stats *st;
	void *hdr;
	int err;

	st = npo_port_read_stats(port, shared);
	if (IS_ERR(st))
		return PTR_ERR(st);
	hdr = npo_genl_put(msg, portid, seq, flags, cmd);
	if (!hdr) {
		kfree(st);
		return -EMSGSIZE;
	}
	npo_port_lock_fresh(port);
	err = npo_put_port(msg, port, FIELD_GET(NPO_PST_FAIL, port->status));
	npo_link_watch_trends(port, &trends);
	npo_port_unlock(port);
	if (!err)
		err = npo_put_counters(msg, st, port->ndev->lanes_per_port);
	if (!err && lanes)
		err = npo_put_lanes(msg, port->ndev, st, &trends);
	kfree(st);
	return npo_genl_end(msg, hdr, err);
}

/*
 * Find the device and port a request names, with a reference on the
 * device and its remove_lock held for reading; npo_put_target() undoes.
 */
static struct npo_port *npo_get_target(struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct npo_dev *ndev;
	u32 index;

	if (GENL_REQ_ATTR_CHECK(info, NPO_ATTR_DEV_INDEX) ||
	    GENL_REQ_ATTR_CHECK(info, NPO_ATTR_PORT_INDEX))
		return ERR_PTR(-EINVAL);
	ndev = npo_dev_get(nla_get_u32(info->attrs[NPO_ATTR_DEV_INDEX]));
	if (!ndev) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[NPO_ATTR_DEV_INDEX],
				    "no such NPO device");
		return ERR_PTR(-ENODEV);
	}
	down_read(&ndev->remove_lock);
	index = nla_get_u32(info->attrs[NPO_ATTR_PORT_INDEX]);
	if (!ndev->pdev || !ndev->ports || index >= ndev->num_ports) {
		up_read(&ndev->remove_lock);
		put_device(&ndev->dev);
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[NPO_ATTR_PORT_INDEX],
				    "no such port");
		return ERR_PTR(-ENODEV);
	}
	/* A user's index: no speculation past the check either. */
	return &ndev->ports[array_index_nospec(index, ndev->num_ports)];
}

static void npo_put_target(struct npo_port *port)
{
	struct npo_dev *ndev = port->ndev;

	up_read(&ndev->remove_lock);
	put_device(&ndev->dev);
}

static int npo_reply_port(struct npo_port *port, struct genl_info *info,
			  u8 cmd, bool lanes, bool shared)
{
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = npo_fill_port(msg, port, cmd, info->snd_portid, info->snd_seq,
			    0, lanes, shared);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Reply with the port the request names, with its lanes if asked; a
 * requester without CAP_NET_ADMIN shares a recent reading.
 */
static int npo_nl_reply_target(struct sk_buff *skb, struct genl_info *info,
			       u8 cmd, bool lanes)
{
	struct npo_port *port = npo_get_target(info);
	int err;

	if (IS_ERR(port))
		return PTR_ERR(port);
	err = npo_reply_port(port, info, cmd, lanes,
			     !netlink_capable(skb, CAP_NET_ADMIN));
	npo_put_target(port);
	return err;
}

static int npo_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return npo_nl_reply_target(skb, info, NPO_CMD_PORT_GET, false);
}

static int npo_nl_lane_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return npo_nl_reply_target(skb, info, NPO_CMD_LANE_GET, true);
}

/* A full skb ends this round; the dump continues where it stopped. */
static int npo_nl_dump_result(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

/**
 * npo_genl_dump_devices() - run a dump over the devices a request covers
 * @skb: the dump's buffer.
 * @cb: the dump; cb->args[0] is the next device index.
 * @fill: puts one device's messages; it keeps its place within the device
 *	in cb->args[1] and on, which are 0 when it starts on a device.  It
 *	returns 0 once the device is done, -EMSGSIZE when @skb is full.
 *
 * The request's NPO_ATTR_DEV_INDEX, if present, limits the dump to that
 * device.  Devices are visited in index order through the registry.
 *
 * Return: what a dumpit returns.
 */
int npo_genl_dump_devices(struct sk_buff *skb, struct netlink_callback *cb,
			  int (*fill)(struct sk_buff *skb,
				      struct netlink_callback *cb,
				      struct npo_dev *ndev))
{
	unsigned long index = cb->args[0], last = NPO_MAX_DEVICES - 1;
	const struct nlattr *only;
	unsigned long resume;
	struct npo_dev *ndev;
	int err = 0;

	/*
	 * The core validated the request against the policy: find the filter
	 * without a table of every attribute on the stack.
	 */
	only = nlmsg_find_attr(cb->nlh, GENL_HDRLEN, NPO_ATTR_DEV_INDEX);
	if (only) {
		last = nla_get_u32(only);
		index = max(index, last);
	}
	resume = index;
	for (; (ndev = npo_dev_get_next(&index, last)); index++) {
		/*
		 * Only the device the last round stopped in goes on from the
		 * place kept in args[1..]; if it went away meanwhile, that
		 * place means nothing in the next one.
		 */
		if (index != resume)
			memset(&cb->args[1], 0,
			       sizeof(cb->args) - sizeof(cb->args[0]));
		err = fill(skb, cb, ndev);
		put_device(&ndev->dev);
		if (err)
			break;
	}
	cb->args[0] = index;
	return npo_nl_dump_result(skb, err);
}

/* cb->args[1]: the next port of the device. */
static int npo_nl_port_dump_dev(struct sk_buff *skb,
				struct netlink_callback *cb,
				struct npo_dev *ndev)
{
	int err = 0;

	down_read(&ndev->remove_lock);
	while (ndev->pdev && ndev->ports && cb->args[1] < ndev->num_ports) {
		err = npo_fill_port(skb, &ndev->ports[cb->args[1]],
				    NPO_CMD_PORT_GET, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NLM_F_MULTI, false,
				    !netlink_capable(cb->skb, CAP_NET_ADMIN));
		if (err)
			break;
		cb->args[1]++;
	}
	up_read(&ndev->remove_lock);
	return err;
}

static int npo_nl_port_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	return npo_genl_dump_devices(skb, cb, npo_nl_port_dump_dev);
}

static int npo_rate_index(u32 mbps)
{
	int i;

	for (i = 0; i <= NPO_NUM_RATES; i++)
		if (npo_port_rate_mbps(i) == mbps)
			return i;
	return -1;
}

enum npo_nl_plan { NPO_NL_PLAN_NONE, NPO_NL_PLAN_SET, NPO_NL_PLAN_CLEAR };

/*
 * The plan's part of NPO_CMD_PORT_SET, checked: &enum npo_nl_plan, with
 * the planned peer in @node and @peer_port, or -EINVAL.
 */
static int npo_nl_port_plan(struct genl_info *info, u32 *node, u8 *peer_port)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **a = info->attrs;
	struct nlattr *pnode = a[NPO_ATTR_PORT_PLANNED_PEER_NODE];
	struct nlattr *pport = a[NPO_ATTR_PORT_PLANNED_PEER_PORT];

	if (a[NPO_ATTR_PORT_PLAN_CLEAR]) {
		if (pnode || pport) {
			NL_SET_ERR_MSG_ATTR(extack, a[NPO_ATTR_PORT_PLAN_CLEAR],
					    "a plan cannot be set and cleared at once");
			return -EINVAL;
		}
		return NPO_NL_PLAN_CLEAR;
	}
	if (!pnode && !pport)
		return NPO_NL_PLAN_NONE;
	if (!pnode || !pport) {
		NL_SET_ERR_MSG_ATTR(extack, pnode ? pnode : pport,
				    "the planned peer needs both its node and its port");
		return -EINVAL;
	}
	*node = nla_get_u32(pnode);
	*peer_port = nla_get_u32(pport);
	return NPO_NL_PLAN_SET;
}

static int npo_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **a = info->attrs;
	struct npo_port *port = npo_get_target(info);
	struct npo_dev *ndev;
	int rate = -1, width = -1, err = 0, plan;
	u32 plan_node = 0;
	u8 plan_port = 0;

	if (IS_ERR(port))
		return PTR_ERR(port);
	ndev = port->ndev;
	if (a[NPO_ATTR_PORT_TARGET_RATE]) {
		rate = npo_rate_index(nla_get_u32(a[NPO_ATTR_PORT_TARGET_RATE]));
		if (rate < 0 || (rate && !(ndev->port_rates & BIT(rate - 1)))) {
			NL_SET_ERR_MSG_ATTR(extack, a[NPO_ATTR_PORT_TARGET_RATE],
					    "lane rate not supported by this port");
			err = -EINVAL;
			goto out;
		}
	}
	if (a[NPO_ATTR_PORT_TARGET_WIDTH]) {
		width = nla_get_u32(a[NPO_ATTR_PORT_TARGET_WIDTH]);
		if (width && (!is_power_of_2(width) ||
			      width > ndev->lanes_per_port)) {
			NL_SET_ERR_MSG_ATTR(extack, a[NPO_ATTR_PORT_TARGET_WIDTH],
					    "width must be 0 or a power of two up to the port's lanes");
			err = -EINVAL;
			goto out;
		}
	}
	plan = npo_nl_port_plan(info, &plan_node, &plan_port);
	if (plan < 0) {
		err = plan;
		goto out;
	}
	/*
	 * A plan alone leaves the link as it is, also during a PRBS test;
	 * with settings it is taken only when they are.
	 */
	if (plan == NPO_NL_PLAN_NONE || a[NPO_ATTR_PORT_ADMIN_UP] ||
	    a[NPO_ATTR_PORT_TARGET_RATE] || a[NPO_ATTR_PORT_TARGET_WIDTH]) {
		err = npo_port_configure(port, a[NPO_ATTR_PORT_ADMIN_UP] ?
					 nla_get_u8(a[NPO_ATTR_PORT_ADMIN_UP]) : -1,
					 rate, width);
		if (err == -EBUSY)
			NL_SET_ERR_MSG(extack, "a PRBS test is running on the port");
		if (err)
			goto out;
	}
	if (plan != NPO_NL_PLAN_NONE)
		npo_link_plan_set(port, plan == NPO_NL_PLAN_SET, plan_node,
				  plan_port);
out:
	npo_put_target(port);
	return err;
}

static int npo_nl_port_retrain_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	struct npo_port *port = npo_get_target(info);
	int err;

	if (IS_ERR(port))
		return PTR_ERR(port);
	err = npo_port_retrain(port);
	if (err == -ENETDOWN)
		NL_SET_ERR_MSG(info->extack, "port is administratively down");
	else if (err == -EBUSY)
		NL_SET_ERR_MSG(info->extack, "a PRBS test is running on the port");
	npo_put_target(port);
	return err;
}

static int npo_nl_port_clear_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npo_port *port = npo_get_target(info);
	int err;

	if (IS_ERR(port))
		return PTR_ERR(port);
	err = npo_port_clear_counters(port);
	npo_put_target(port);
	return err;
}

static int npo_nl_port_diag_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npo_port *port = npo_get_target(info);
	struct npo_dev *ndev;
	struct sk_buff *msg;
	void *hdr;
	int err;

	if (IS_ERR(port))
		return PTR_ERR(port);
	ndev = port->ndev;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	err = -ENOMEM;
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &npo_genl_family, 0,
				NPO_CMD_PORT_DIAG_GET);
	err = -EMSGSIZE;
	if (!hdr ||
	    nla_put_u32(msg, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	    nla_put_string(msg, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
	    nla_put_u32(msg, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
	    nla_put_u32(msg, NPO_ATTR_PORT_INDEX, port->index))
		goto out;
	err = npo_link_diag_fill(msg, port,
				 !netlink_capable(skb, CAP_NET_ADMIN));
	if (err)
		goto out;
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
	msg = NULL;
out:
	nlmsg_free(msg);
	npo_put_target(port);
	return err;
}

static int npo_nl_port_test_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct npo_port *port;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NPO_ATTR_TEST_DURATION_MS))
		return -EINVAL;
	port = npo_get_target(info);
	if (IS_ERR(port))
		return PTR_ERR(port);
	err = npo_port_prbs_test(port,
				 nla_get_u32(info->attrs[NPO_ATTR_TEST_DURATION_MS]));
	switch (err) {
	case 0:
		err = npo_reply_port(port, info, NPO_CMD_PORT_TEST, true, false);
		break;
	case -ENETDOWN:
		NL_SET_ERR_MSG(extack, "port is administratively down");
		break;
	case -ENOLINK:
		NL_SET_ERR_MSG(extack, "no peer attached: nothing to test against");
		break;
	case -ETIMEDOUT:
		NL_SET_ERR_MSG(extack, "PRBS test did not finish");
		break;
	case -ECANCELED:
		NL_SET_ERR_MSG(extack, "the device was reset during the test");
		break;
	case -EBUSY:
		NL_SET_ERR_MSG(extack, "a test already runs on the port");
		break;
	}
	npo_put_target(port);
	return err;
}

/**
 * npo_genl_dump_begin() - start a dump message about something a file owns
 * @skb: the dump's buffer.
 * @cb: the dump.
 * @cmd: NPO_CMD_QUEUE_GET or NPO_CMD_MR_GET.
 * @nfile: the owning file.
 *
 * Puts the device and the owner: index, name, pid, command, user, domain,
 * job.
 *
 * Return: the message header for npo_genl_end(), or NULL if @skb is full.
 */
void *npo_genl_dump_begin(struct sk_buff *skb, struct netlink_callback *cb,
			  u8 cmd, struct npo_file *nfile)
{
	struct npo_dev *ndev = nfile->ndev;
	void *hdr;

	hdr = npo_genl_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   NLM_F_MULTI, cmd);
	if (!hdr)
		return NULL;
	if (nla_put_u32(skb, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	    nla_put_string(skb, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
	    nla_put_u32(skb, NPO_ATTR_OWNER_PID, pid_nr(nfile->owner)) ||
	    nla_put_string(skb, NPO_ATTR_OWNER_COMM, nfile->comm) ||
	    nla_put_u32(skb, NPO_ATTR_OWNER_UID,
			from_kuid_munged(&init_user_ns, nfile->uid)) ||
	    nla_put_u32(skb, NPO_ATTR_PD, nfile->pd) ||
	    nla_put_u32(skb, NPO_ATTR_JOB, READ_ONCE(nfile->job))) {
		genlmsg_cancel(skb, hdr);
		return NULL;
	}
	return hdr;
}

/*
 * Every open file's queues or regions on one device.  The files are in
 * the order they were opened, each with a number no other file of the
 * device had: cb->args[1] is the number of the file to go on in (files
 * with lower ones are done), [2] the object index within it.  A file
 * opened or closed between two rounds neither repeats nor skips another.
 */
static int npo_nl_owned_dump_dev(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 struct npo_dev *ndev,
				 int (*dump)(struct sk_buff *skb,
					     struct netlink_callback *cb,
					     struct npo_file *nfile,
					     unsigned long *index))
{
	struct npo_file *nfile;
	unsigned long obj;
	int err = 0;

	down_read(&ndev->remove_lock);
	mutex_lock(&ndev->files_lock);
	list_for_each_entry(nfile, &ndev->files, node) {
		if (nfile->serial < cb->args[1])
			continue;
		/* The file the last round stopped in may have closed. */
		if (nfile->serial != cb->args[1]) {
			cb->args[1] = nfile->serial;
			cb->args[2] = 0;
		}
		obj = cb->args[2];
		mutex_lock(&nfile->lock);
		err = dump(skb, cb, nfile, &obj);
		mutex_unlock(&nfile->lock);
		cb->args[2] = obj;
		if (err)
			break;
		cb->args[1] = nfile->serial + 1;
		cb->args[2] = 0;
	}
	mutex_unlock(&ndev->files_lock);
	up_read(&ndev->remove_lock);
	return err;
}

static int npo_nl_queue_dump_dev(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 struct npo_dev *ndev)
{
	return npo_nl_owned_dump_dev(skb, cb, ndev, npo_queue_dump);
}

static int npo_nl_mr_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			      struct npo_dev *ndev)
{
	return npo_nl_owned_dump_dev(skb, cb, ndev, npo_mr_dump);
}

static int npo_nl_queue_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return npo_genl_dump_devices(skb, cb, npo_nl_queue_dump_dev);
}

static int npo_nl_mr_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return npo_genl_dump_devices(skb, cb, npo_nl_mr_dump_dev);
}

/* The request's NPO_ATTR_EVENT_SEQ, if any: events after it. */
static int npo_nl_event_dump_dev(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 struct npo_dev *ndev)
{
	const struct nlattr *after;

	after = nlmsg_find_attr(cb->nlh, GENL_HDRLEN, NPO_ATTR_EVENT_SEQ);
	return npo_history_dump_dev(skb, cb, ndev,
				    after ? nla_get_u64(after) : 0,
				    netlink_capable(cb->skb, CAP_NET_ADMIN));
}

static int npo_nl_event_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return npo_genl_dump_devices(skb, cb, npo_nl_event_dump_dev);
}

static int npo_nl_fkey_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	return npo_genl_dump_devices(skb, cb, npo_fkey_dump_dev);
}

static int npo_nl_route_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return npo_genl_dump_devices(skb, cb, npo_route_dump_dev);
}

static const struct genl_small_ops npo_nl_ops[] = {
	{
		.cmd = NPO_CMD_PORT_GET,
		.doit = npo_nl_port_get_doit,
		.dumpit = npo_nl_port_get_dumpit,
	},
	{
		.cmd = NPO_CMD_LANE_GET,
		.doit = npo_nl_lane_get_doit,
	},
	{
		.cmd = NPO_CMD_PORT_SET,
		.doit = npo_nl_port_set_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPO_CMD_PORT_RETRAIN,
		.doit = npo_nl_port_retrain_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPO_CMD_PORT_CLEAR,
		.doit = npo_nl_port_clear_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPO_CMD_PORT_TEST,
		.doit = npo_nl_port_test_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPO_CMD_QUEUE_GET,
		.dumpit = npo_nl_queue_get_dumpit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPO_CMD_MR_GET,
		.dumpit = npo_nl_mr_get_dumpit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPO_CMD_CLOCK_GET,
		.doit = npo_clock_nl_get_doit,
		.dumpit = npo_clock_nl_get_dumpit,
	},
	{
		.cmd = NPO_CMD_CLOCK_SET,
		.doit = npo_clock_nl_set_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPO_CMD_EVENT_GET,
		.dumpit = npo_nl_event_get_dumpit,
	},
	{
		.cmd = NPO_CMD_ROUTE_GET,
		.dumpit = npo_nl_route_get_dumpit,
	},
	{
		.cmd = NPO_CMD_PORT_DIAG_GET,
		.doit = npo_nl_port_diag_doit,
	},
	{
		.cmd = NPO_CMD_FABRIC_KEY_SET,
		.doit = npo_fkey_nl_set_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPO_CMD_FABRIC_KEY_DEL,
		.doit = npo_fkey_nl_del_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPO_CMD_FABRIC_KEY_GET,
		.dumpit = npo_nl_fkey_get_dumpit,
		.flags = GENL_ADMIN_PERM,
	},
};

/*
 * parallel_ops: each request takes the locks of what it touches (the
 * device's remove_lock, link_lock, the mailbox), not the global genl
 * mutex, so a minute-long PRBS test blocks neither this family's other
 * requests nor any other family's.
 */
static struct genl_family npo_genl_family __ro_after_init = {
	.name = NPO_GENL_NAME,
	.parallel_ops = true,
	.version = NPO_GENL_VERSION,
	.maxattr = NPO_ATTR_MAX,
	.policy = npo_nl_policy,
	.module = THIS_MODULE,
	.small_ops = npo_nl_ops,
	.n_small_ops = ARRAY_SIZE(npo_nl_ops),
	.mcgrps = npo_mcgrps,
	.n_mcgrps = ARRAY_SIZE(npo_mcgrps),
};

/**
 * npo_genl_event_new() - start a message for the events group
 * @event: &enum npo_event.
 * @hdr: set to the message's header, for npo_genl_event_send().
 *
 * Made whether anyone listens or not: the device's history keeps it.
 *
 * Context: process context.
 * Return: the message with NPO_ATTR_EVENT in it, or NULL if memory is
 * short: the event is then dropped, as events may be.
 */
struct sk_buff *npo_genl_event_new(u32 event, void **hdr)
{
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = npo_genl_put(msg, 0, 0, 0, NPO_CMD_EVENT);
	if (!*hdr || nla_put_u32(msg, NPO_ATTR_EVENT, event)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/**
 * npo_genl_event_send() - keep an event and send it to its listeners
 * @ndev: the device it is about.
 * @msg: from npo_genl_event_new().
 * @hdr: its header.
 * @err: 0, or why the message could not be filled: it is dropped.
 *
 * The event is numbered and timed, kept in the device's history, then
 * multicast if anyone listens: whole to "events-admin", without what
 * only CAP_NET_ADMIN may see to "events".
 */
void npo_genl_event_send(struct npo_dev *ndev, struct sk_buff *msg,
			 void *hdr, int err)
{
	int len;
	u64 seq;

	if (!err)
		err = npo_history_stamp(ndev, msg, &seq);
	if (err) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	len = skb_tail_pointer(msg) - (u8 *)hdr;
	npo_history_add(ndev, seq, hdr, len);
	if (genl_has_listeners(&npo_genl_family, &init_net,
			       NPO_MCGRP_EVENTS)) {
		struct sk_buff *pub = genlmsg_new(len, GFP_KERNEL);
		void *phdr = pub ? npo_genl_put(pub, 0, 0, 0, NPO_CMD_EVENT) :
				   NULL;

		if (phdr && !npo_genl_put_attrs(pub, hdr, len, false)) {
			genlmsg_end(pub, phdr);
			genlmsg_multicast(&npo_genl_family, pub, 0,
					  NPO_MCGRP_EVENTS, GFP_KERNEL);
		} else {
			nlmsg_free(pub);
		}
	}
#ifdef GENL_MCAST_CAP_NET_ADMIN
	if (genl_has_listeners(&npo_genl_family, &init_net,
			       NPO_MCGRP_EVENTS_ADMIN)) {
		genlmsg_multicast(&npo_genl_family, msg, 0,
				  NPO_MCGRP_EVENTS_ADMIN, GFP_KERNEL);
		return;
	}
#endif
	nlmsg_free(msg);
}

/**
 * npo_genl_dev_event() - tell listeners a device failed or came back
 * @ndev: the device, its state the one after.
 * @fault: &enum npo_dev_fault it was stopped for, NPO_DEV_FAULT_NONE for a
 *	recovery.
 *
 * Context: process context, no device lock held.
 */
void npo_genl_dev_event(struct npo_dev *ndev, u32 fault)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = npo_genl_event_new(NPO_EVENT_DEVICE, &hdr);
	if (!msg)
		return;
	err = nla_put_u32(msg, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	      nla_put_string(msg, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
	      nla_put_u32(msg, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
	      nla_put_u32(msg, NPO_ATTR_DEV_STATE, npo_state(ndev)) ||
	      nla_put_u32(msg, NPO_ATTR_DEV_FAULT, fault) ? -EMSGSIZE : 0;
	npo_genl_event_send(ndev, msg, hdr, err);
}

/* A link-down's flight record: when the signal went, the lanes before. */
static int npo_put_port_down(struct sk_buff *msg, const struct npo_port *port)
{
	const struct npo_port_down *d = &port->last_down;
	struct nlattr *nest;
	unsigned int i;

	if (d->time_known &&
	    nla_put_u64_64bit(msg, NPO_ATTR_PORT_DOWN_TIME, d->time,
			      NPO_ATTR_PAD))
		return -EMSGSIZE;
	if (!d->lanes_known)
		return 0;
	if (nla_put_u32(msg, NPO_ATTR_PORT_DOWN_LANES_AGE_MS, d->lanes_age_ms))
		return -EMSGSIZE;
	for (i = 0; i < port->ndev->lanes_per_port; i++) {
		nest = nla_nest_start(msg, NPO_ATTR_LANE);
		if (!nest ||
		    nla_put_u32(msg, NPO_ATTR_LANE_INDEX, i) ||
		    nla_put_s32(msg, NPO_ATTR_LANE_RX_POWER, d->rx[i]) ||
		    nla_put_u32(msg, NPO_ATTR_LANE_BER, d->ber[i]) ||
		    nla_put_u32(msg, NPO_ATTR_LANE_EYE_HEIGHT, d->eye[i]))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/**
 * npo_genl_port_event() - tell listeners about a port event
 * @port: the port, its cached state fresh.
 * @event: &enum npo_event.
 *
 * Context: process context, under &npo_dev.link_lock.
 */
void npo_genl_port_event(struct npo_port *port, u32 event)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = npo_genl_event_new(event, &hdr);
	if (!msg)
		return;
	err = npo_put_port(msg, port, event == NPO_EVENT_LINK_DOWN ?
				      port->down_reason :
				      FIELD_GET(NPO_PST_FAIL, port->status));
	if (!err && event == NPO_EVENT_LINK_DOWN)
		err = npo_put_port_down(msg, port);
	/* A pass says so too: the lanes that failed, none. */
	if (!err && event == NPO_EVENT_SELF_TEST &&
	    port->selftest.state != NPO_SELFTEST_FAILED &&
	    nla_put_u32(msg, NPO_ATTR_PORT_SELF_TEST_LANES, 0))
		err = -EMSGSIZE;
	npo_genl_event_send(port->ndev, msg, hdr, err);
}

/**
 * npo_genl_init() - register the generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int npo_genl_init(void)
{
	return genl_register_family(&npo_genl_family);
}

/**
 * npo_genl_exit() - unregister the generic netlink family
 */
void npo_genl_exit(void)
{
	genl_unregister_family(&npo_genl_family);
}
