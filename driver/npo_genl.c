// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO generic netlink family: port and lane diagnostics, link control and
 * link events.  The UAPI is uapi/linux/npo_netlink.h.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"

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
	[NPO_ATTR_PORT_TARGET_WIDTH] = NLA_POLICY_MAX(NLA_U32, 16),
	[NPO_ATTR_TEST_DURATION_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &npo_test_ms_range),
	[NPO_ATTR_CLOCK_PRIORITY] = NLA_POLICY_MAX(NLA_U32, 255),
};

static struct genl_family npo_genl_family;

static const struct genl_multicast_group npo_mcgrps[] = {
	{ .name = NPO_GENL_MCGRP_EVENTS },
};

/* Read a port's statistics block; the caller frees it with kfree(). */
static struct npo_hw_port_stats *npo_port_stats(struct npo_port *port)
{
	struct npo_dev *ndev = port->ndev;
	struct device *dev = &ndev->pdev->dev;
	size_t len = struct_size_t(struct npo_hw_port_stats, lane,
				   ndev->lanes_per_port);
	struct npo_hw_port_stats *st, *copy = NULL;
	dma_addr_t dma;
	u32 args[4];

	st = dma_alloc_coherent(dev, len, &dma, GFP_KERNEL);
	if (!st)
		return ERR_PTR(-ENOMEM);
	args[0] = port->index;
	args[1] = lower_32_bits(dma);
	args[2] = upper_32_bits(dma);
	args[3] = len;
	if (!npo_mbox_exec(ndev, NPO_MBOX_OP_PORT_STATS, args, 4, NULL, 0))
		copy = kmemdup(st, len, GFP_KERNEL);
	dma_free_coherent(dev, len, st, dma);
	if (!copy)
		return ERR_PTR(-EIO);
	if (le32_to_cpu(copy->num_lanes) != ndev->lanes_per_port) {
		kfree(copy);
		return ERR_PTR(-EIO);
	}
	return copy;
}

static int npo_put_counters(struct sk_buff *msg,
			    const struct npo_hw_port_stats *st)
{
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
	nla_nest_end(msg, nest);
	return 0;
cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

static int npo_put_lanes(struct sk_buff *msg, struct npo_dev *ndev,
			 const struct npo_hw_port_stats *st)
{
	bool symbols = le32_to_cpu(st->supported) & BIT(NPO_HW_CNT_SYMBOL_ERRORS);
	unsigned int i;

	for (i = 0; i < ndev->lanes_per_port; i++) {
		const struct npo_hw_lane_stats *l = &st->lane[i];
		struct nlattr *nest = nla_nest_start(msg, NPO_ATTR_LANE);
		u32 flags = 0;

		if (!nest)
			return -EMSGSIZE;
		if (l->flags & NPO_HW_LANE_LOS)
			flags |= NPO_LANE_FLAG_LOS;
		if (l->flags & NPO_HW_LANE_CDR_LOCK)
			flags |= NPO_LANE_FLAG_CDR_LOCK;
		if (l->flags & NPO_HW_LANE_ACTIVE)
			flags |= NPO_LANE_FLAG_ACTIVE;
		if (l->flags & NPO_HW_LANE_TX_FAULT)
			flags |= NPO_LANE_FLAG_TX_FAULT;
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
				      le64_to_cpu(l->prbs_errors), NPO_ATTR_PAD)) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(msg, nest);
	}
	return 0;
}

/*
 * Device and port identity plus the port's state: every message has it.
 * reason is the NPO_ATTR_PORT_REASON to report.
 */
static int npo_put_port(struct sk_buff *msg, struct npo_port *port, u32 reason)
{
	struct npo_dev *ndev = port->ndev;
	u32 st = port->status, flags = 0, max_rate;
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
	if (npo_hw_blames_lanes(ndev) &&
	    (nla_put_u32(msg, NPO_ATTR_PORT_FAULT_LANES, port->fault_lanes) ||
	     nla_put_u32(msg, NPO_ATTR_PORT_BER_LANES, port->ber_lanes)))
		return -EMSGSIZE;
	return 0;
}

/*
 * One port as a message: state, counters and, if asked, lanes.  Takes
 * link_lock; the caller holds the device's remove_lock for reading.
 */
static int npo_fill_port(struct sk_buff *msg, struct npo_port *port, u8 cmd,
			 u32 portid, u32 seq, int flags, bool lanes)
{
	struct npo_dev *ndev = port->ndev;
	struct npo_hw_port_stats *st;
	void *hdr;
	int err;

	st = npo_port_stats(port);
	if (IS_ERR(st))
		return PTR_ERR(st);
	hdr = genlmsg_put(msg, portid, seq, &npo_genl_family, flags, cmd);
	if (!hdr) {
		kfree(st);
		return -EMSGSIZE;
	}
	mutex_lock(&ndev->link_lock);
	if (ndev->link_running)
		npo_port_refresh(port);
	err = npo_put_port(msg, port, FIELD_GET(NPO_PST_FAIL, port->status));
	mutex_unlock(&ndev->link_lock);
	if (!err)
		err = npo_put_counters(msg, st);
	if (!err && lanes)
		err = npo_put_lanes(msg, ndev, st);
	kfree(st);
	if (err) {
		genlmsg_cancel(msg, hdr);
		return err;
	}
	genlmsg_end(msg, hdr);
	return 0;
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
	return &ndev->ports[index];
}

static void npo_put_target(struct npo_port *port)
{
	struct npo_dev *ndev = port->ndev;

	up_read(&ndev->remove_lock);
	put_device(&ndev->dev);
}

static int npo_reply_port(struct npo_port *port, struct genl_info *info,
			  u8 cmd, bool lanes)
{
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = npo_fill_port(msg, port, cmd, info->snd_portid, info->snd_seq,
			    0, lanes);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* Reply with the port the request names, with its lanes if asked. */
static int npo_nl_reply_target(struct genl_info *info, u8 cmd, bool lanes)
{
	struct npo_port *port = npo_get_target(info);
	int err;

	if (IS_ERR(port))
		return PTR_ERR(port);
	err = npo_reply_port(port, info, cmd, lanes);
	npo_put_target(port);
	return err;
}

static int npo_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return npo_nl_reply_target(info, NPO_CMD_PORT_GET, false);
}

static int npo_nl_lane_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return npo_nl_reply_target(info, NPO_CMD_LANE_GET, true);
}

/* A full skb ends this round; the dump continues where it stopped. */
static int npo_nl_dump_result(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

/* cb->args[0]: next device index, cb->args[1]: next port. */
static int npo_nl_port_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct nlattr *tb[NPO_ATTR_MAX + 1], *only;
	unsigned long index = cb->args[0];
	struct npo_dev *ndev;
	int err;

	/* The core validated the request; parse it again for the filter. */
	err = genlmsg_parse(cb->nlh, &npo_genl_family, tb, NPO_ATTR_MAX,
			    npo_nl_policy, cb->extack);
	if (err)
		return err;
	only = tb[NPO_ATTR_DEV_INDEX];

	if (only && index < nla_get_u32(only))
		index = nla_get_u32(only);
	for (; index < NPO_MAX_DEVICES; index++, cb->args[1] = 0) {
		if (only && index != nla_get_u32(only))
			break;
		ndev = npo_dev_get(index);
		if (!ndev)
			continue;
		down_read(&ndev->remove_lock);
		while (ndev->pdev && ndev->ports &&
		       cb->args[1] < ndev->num_ports) {
			err = npo_fill_port(skb, &ndev->ports[cb->args[1]],
					    NPO_CMD_PORT_GET,
					    NETLINK_CB(cb->skb).portid,
					    cb->nlh->nlmsg_seq, NLM_F_MULTI,
					    false);
			if (err)
				break;
			cb->args[1]++;
		}
		up_read(&ndev->remove_lock);
		put_device(&ndev->dev);
		if (err)
			break;
	}
	cb->args[0] = index;
	return npo_nl_dump_result(skb, err);
}

static int npo_rate_index(u32 mbps)
{
	int i;

	for (i = 0; i <= NPO_NUM_RATES; i++)
		if (npo_port_rate_mbps(i) == mbps)
			return i;
	return -1;
}

static int npo_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **a = info->attrs;
	struct npo_port *port = npo_get_target(info);
	struct npo_dev *ndev;
	int rate = -1, width = -1, err = 0;

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
	mutex_lock(&ndev->link_lock);
	if (a[NPO_ATTR_PORT_ADMIN_UP])
		port->admin_up = nla_get_u8(a[NPO_ATTR_PORT_ADMIN_UP]);
	if (rate >= 0)
		port->max_rate = rate;
	if (width >= 0)
		port->max_width = width;
	npo_port_apply(port, rate >= 0 || width >= 0);
	mutex_unlock(&ndev->link_lock);
out:
	npo_put_target(port);
	return err;
}

static int npo_nl_port_retrain_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	struct npo_port *port = npo_get_target(info);
	struct npo_dev *ndev;
	int err = 0;

	if (IS_ERR(port))
		return PTR_ERR(port);
	ndev = port->ndev;
	mutex_lock(&ndev->link_lock);
	if (!port->admin_up || !ndev->link_running) {
		NL_SET_ERR_MSG(info->extack, "port is administratively down");
		err = -ENETDOWN;
	} else {
		npo_port_apply(port, true);
	}
	mutex_unlock(&ndev->link_lock);
	npo_put_target(port);
	return err;
}

static int npo_nl_port_clear_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npo_port *port = npo_get_target(info);
	struct npo_dev *ndev;
	u32 arg;
	int err;

	if (IS_ERR(port))
		return PTR_ERR(port);
	ndev = port->ndev;
	arg = port->index;
	err = npo_mbox_exec(ndev, NPO_MBOX_OP_CLEAR_COUNTERS, &arg, 1, NULL, 0);
	if (!err) {
		mutex_lock(&ndev->link_lock);
		port->flaps = 0;
		port->recoveries_seen = 0;
		mutex_unlock(&ndev->link_lock);
	}
	npo_put_target(port);
	return err;
}

static int npo_nl_port_test_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npo_port *port;
	struct npo_dev *ndev;
	unsigned long timeout;
	long left;
	u32 ms;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NPO_ATTR_TEST_DURATION_MS))
		return -EINVAL;
	ms = nla_get_u32(info->attrs[NPO_ATTR_TEST_DURATION_MS]);
	port = npo_get_target(info);
	if (IS_ERR(port))
		return PTR_ERR(port);
	ndev = port->ndev;
	mutex_lock(&ndev->link_lock);
	if (!port->admin_up || !ndev->link_running) {
		mutex_unlock(&ndev->link_lock);
		NL_SET_ERR_MSG(info->extack, "port is administratively down");
		err = -ENETDOWN;
		goto out;
	}
	npo_port_refresh(port);
	if (!(port->status & NPO_PST_PEER_PRESENT)) {
		mutex_unlock(&ndev->link_lock);
		NL_SET_ERR_MSG(info->extack, "no peer attached: nothing to test against");
		err = -ENOLINK;
		goto out;
	}
	reinit_completion(&port->prbs_done);
	npo_wr32(ndev, NPO_PORT_REG(port->index, NPO_P_PRBS),
		 NPO_PRBS_START | FIELD_PREP(NPO_PRBS_DURATION_MS, ms));
	mutex_unlock(&ndev->link_lock);

	timeout = msecs_to_jiffies(ms) + 5 * HZ;
	left = wait_for_completion_interruptible_timeout(&port->prbs_done,
							 timeout);
	if (left < 0) {
		err = left;
		goto out;
	}
	if (!left) {
		NL_SET_ERR_MSG(info->extack, "PRBS test did not finish");
		err = -ETIMEDOUT;
		goto out;
	}
	err = npo_reply_port(port, info, NPO_CMD_PORT_TEST, true);
out:
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
 * Puts the device and the owner: index, name, pid, command, domain.
 *
 * Return: the message header for genlmsg_end(), or NULL if @skb is full.
 */
void *npo_genl_dump_begin(struct sk_buff *skb, struct netlink_callback *cb,
			  u8 cmd, struct npo_file *nfile)
{
	struct npo_dev *ndev = nfile->ndev;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &npo_genl_family, NLM_F_MULTI, cmd);
	if (!hdr)
		return NULL;
	if (nla_put_u32(skb, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	    nla_put_string(skb, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
	    nla_put_u32(skb, NPO_ATTR_OWNER_PID, pid_nr(nfile->owner)) ||
	    nla_put_string(skb, NPO_ATTR_OWNER_COMM, nfile->comm) ||
	    nla_put_u32(skb, NPO_ATTR_PD, nfile->pd)) {
		genlmsg_cancel(skb, hdr);
		return NULL;
	}
	return hdr;
}

/*
 * Every open file's queues or regions, device by device.
 * cb->args[0]: device index, [1]: files of it done, [2]: object index.
 */
static int npo_nl_owned_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			       int (*dump)(struct sk_buff *skb,
					   struct netlink_callback *cb,
					   struct npo_file *nfile,
					   unsigned long *index))
{
	struct nlattr *tb[NPO_ATTR_MAX + 1], *only;
	unsigned long index = cb->args[0];
	struct npo_file *nfile;
	struct npo_dev *ndev;
	int err = 0;

	err = genlmsg_parse(cb->nlh, &npo_genl_family, tb, NPO_ATTR_MAX,
			    npo_nl_policy, cb->extack);
	if (err)
		return err;
	only = tb[NPO_ATTR_DEV_INDEX];
	if (only && index < nla_get_u32(only))
		index = nla_get_u32(only);
	for (; index < NPO_MAX_DEVICES; index++, cb->args[1] = cb->args[2] = 0) {
		unsigned long n = 0;

		if (only && index != nla_get_u32(only))
			break;
		ndev = npo_dev_get(index);
		if (!ndev)
			continue;
		down_read(&ndev->remove_lock);
		mutex_lock(&ndev->files_lock);
		list_for_each_entry(nfile, &ndev->files, node) {
			unsigned long obj = cb->args[2];

			if (n++ < cb->args[1])
				continue;
			mutex_lock(&nfile->lock);
			err = dump(skb, cb, nfile, &obj);
			mutex_unlock(&nfile->lock);
			cb->args[2] = obj;
			if (err)
				break;
			cb->args[1]++;
			cb->args[2] = 0;
		}
		mutex_unlock(&ndev->files_lock);
		up_read(&ndev->remove_lock);
		put_device(&ndev->dev);
		if (err)
			break;
	}
	cb->args[0] = index;
	return npo_nl_dump_result(skb, err);
}

static int npo_nl_queue_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return npo_nl_owned_dumpit(skb, cb, npo_queue_dump);
}

static int npo_nl_mr_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return npo_nl_owned_dumpit(skb, cb, npo_mr_dump);
}

/* --- fabric clock --------------------------------------------------------- */

/* A device's identity and its clock's sync state. */
static int npo_put_clock(struct sk_buff *msg, struct npo_dev *ndev)
{
	struct npo_timesync_info ti;
	char name[16];
	int err;

	err = npo_timesync_get(ndev, &ti);
	if (err)
		return err;
	snprintf(name, sizeof(name), "npo%d", ndev->minor);
	if (nla_put_u32(msg, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	    nla_put_string(msg, NPO_ATTR_DEV_NAME, name) ||
	    nla_put_u32(msg, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_PHC_INDEX, npo_clock_index(ndev)) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_ROLE, ti.role) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_STATE, ti.state) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_PRIORITY, ti.prio) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_GM_NODE_ID, ti.gm_node) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_GM_PRIORITY, ti.gm_prio) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_STEPS, ti.steps) ||
	    (ti.parent >= 0 &&
	     nla_put_u32(msg, NPO_ATTR_CLOCK_PARENT_PORT, ti.parent)) ||
	    nla_put_s64(msg, NPO_ATTR_CLOCK_OFFSET, ti.offset, NPO_ATTR_PAD) ||
	    nla_put_s64(msg, NPO_ATTR_CLOCK_PATH_DELAY, ti.delay, NPO_ATTR_PAD) ||
	    nla_put_s64(msg, NPO_ATTR_CLOCK_FREQ, ti.freq_ppt, NPO_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, NPO_ATTR_CLOCK_STEPS_TAKEN, ti.steps_taken,
			      NPO_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

static int npo_fill_clock(struct sk_buff *msg, struct npo_dev *ndev,
			  u32 portid, u32 seq, int flags)
{
	void *hdr = genlmsg_put(msg, portid, seq, &npo_genl_family, flags,
				NPO_CMD_CLOCK_GET);
	int err;

	if (!hdr)
		return -EMSGSIZE;
	err = npo_put_clock(msg, ndev);
	if (err) {
		genlmsg_cancel(msg, hdr);
		return err;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/* The device a clock request names, referenced; NULL with extack set. */
static struct npo_dev *npo_get_clock_dev(struct genl_info *info)
{
	struct npo_dev *ndev;

	if (GENL_REQ_ATTR_CHECK(info, NPO_ATTR_DEV_INDEX))
		return NULL;
	ndev = npo_dev_get(nla_get_u32(info->attrs[NPO_ATTR_DEV_INDEX]));
	if (!ndev || !ndev->ptp) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NPO_ATTR_DEV_INDEX],
				    "no such NPO device with a clock");
		if (ndev)
			put_device(&ndev->dev);
		return NULL;
	}
	return ndev;
}

static int npo_nl_clock_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npo_dev *ndev = npo_get_clock_dev(info);
	struct sk_buff *msg;
	int err;

	if (!ndev)
		return -ENODEV;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	err = msg ? npo_fill_clock(msg, ndev, info->snd_portid, info->snd_seq,
				   0) : -ENOMEM;
	put_device(&ndev->dev);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: next device index. */
static int npo_nl_clock_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	unsigned long index;
	int err = 0;

	for (index = cb->args[0]; index < NPO_MAX_DEVICES; index++) {
		struct npo_dev *ndev = npo_dev_get(index);

		if (!ndev)
			continue;
		if (ndev->ptp)
			err = npo_fill_clock(skb, ndev,
					     NETLINK_CB(cb->skb).portid,
					     cb->nlh->nlmsg_seq, NLM_F_MULTI);
		put_device(&ndev->dev);
		if (err)
			break;
	}
	cb->args[0] = index;
	return npo_nl_dump_result(skb, err);
}

static int npo_nl_clock_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npo_dev *ndev;

	if (GENL_REQ_ATTR_CHECK(info, NPO_ATTR_CLOCK_PRIORITY))
		return -EINVAL;
	ndev = npo_get_clock_dev(info);
	if (!ndev)
		return -ENODEV;
	npo_timesync_set_priority(ndev,
				  nla_get_u32(info->attrs[NPO_ATTR_CLOCK_PRIORITY]));
	put_device(&ndev->dev);
	return 0;
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
		.doit = npo_nl_clock_get_doit,
		.dumpit = npo_nl_clock_get_dumpit,
	},
	{
		.cmd = NPO_CMD_CLOCK_SET,
		.doit = npo_nl_clock_set_doit,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family npo_genl_family __ro_after_init = {
	.name = NPO_GENL_NAME,
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
 * npo_genl_event() - tell listeners about a port event
 * @port: the port, its cached state fresh.
 * @event: &enum npo_event.
 *
 * Context: process context, under &npo_dev.link_lock.
 */
void npo_genl_event(struct npo_port *port, u32 event)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&npo_genl_family, &init_net, 0))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &npo_genl_family, 0, NPO_CMD_EVENT);
	if (!hdr || nla_put_u32(msg, NPO_ATTR_EVENT, event) ||
	    npo_put_port(msg, port, event == NPO_EVENT_LINK_DOWN ?
			 port->down_reason :
			 FIELD_GET(NPO_PST_FAIL, port->status))) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&npo_genl_family, msg, 0, 0, GFP_KERNEL);
}

/**
 * npo_genl_clock_event() - tell listeners a device's clock changed
 * @ndev: the device.
 *
 * Context: process context, without &npo_timesync.lock.
 */
void npo_genl_clock_event(struct npo_dev *ndev)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&npo_genl_family, &init_net, 0))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &npo_genl_family, 0, NPO_CMD_EVENT);
	if (!hdr || nla_put_u32(msg, NPO_ATTR_EVENT, NPO_EVENT_CLOCK) ||
	    npo_put_clock(msg, ndev)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&npo_genl_family, msg, 0, 0, GFP_KERNEL);
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
