// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO link diagnostics: each end of a link tells the other what it sees.
 *
 * Low received power at one end may be a weak transmitter at the far end,
 * loss in the fibre or a connector, or a poor receiver here: one end's
 * readings cannot tell these apart.  Each second, with the link watch's
 * reading of an active port, the driver sends the far end a link message
 * (NPO_LMSG_TYPE_DIAG, Documentation/hardware.rst "Link messages") with
 * its optical module's identity and transmit limits and each lane's
 * transmit and received power, BER and flags.  It keeps the last report
 * that came in on each port, also after the link went down, so that the
 * two ends can be set side by side (NPO_CMD_PORT_DIAG_GET, npoctl link
 * diagnose).
 */
#include <linux/jiffies.h>
#include <linux/string.h>
#include <net/netlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_genl.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_route.h"

#define NPO_DIAG_VERSION	1

/**
 * struct npo_diag_lane_msg - one lane in a report, little endian
 * @tx: transmit power, 1/100 dBm.
 * @rx: received power, 1/100 dBm.
 * @ber: pre-FEC BER, -log10 x 100.
 * @flags: NPO_HW_LANE_*.
 * @rsvd: 0.
 */
struct npo_diag_lane_msg {
	__le16 tx;
	__le16 rx;
	__le16 ber;
	u8 flags;
	u8 rsvd;
} __packed;

/**
 * struct npo_diag_msg - the report one end sends the other
 * @type: %NPO_LMSG_TYPE_DIAG.
 * @version: %NPO_DIAG_VERSION.
 * @nlanes: lanes that follow.
 * @port: the sender's port.
 * @node: the sender's node.
 * @vendor: its module's vendor, NUL padded.
 * @part: its part number.
 * @serial: its serial number.
 * @tx_high_alarm: its transmit limits, 1/100 dBm.
 * @tx_high_warn: likewise.
 * @tx_low_warn: likewise.
 * @tx_low_alarm: likewise.
 * @lane: the lanes.
 */
struct npo_diag_msg {
	u8 type;
	u8 version;
	u8 nlanes;
	u8 port;
	__le32 node;
	char vendor[NPO_HW_MODULE_ID_LEN];
	char part[NPO_HW_MODULE_ID_LEN];
	char serial[NPO_HW_MODULE_ID_LEN];
	__le16 tx_high_alarm;
	__le16 tx_high_warn;
	__le16 tx_low_warn;
	__le16 tx_low_alarm;
	struct npo_diag_lane_msg lane[];
} __packed;

static_assert(sizeof(struct npo_diag_msg) +
	      NPO_MAX_LANES * sizeof(struct npo_diag_lane_msg) <= NPO_LMSG_BODY_MAX);

/*
 * A fixed-size, NUL-padded field as a string; what is not printable ASCII
 * (a peer's report is not to be trusted with a terminal) becomes '?'.
 */
static void npo_diag_id(char *dst, const char *src)
{
	unsigned int i;

	memcpy(dst, src, NPO_HW_MODULE_ID_LEN);
	dst[NPO_HW_MODULE_ID_LEN] = '\0';
	for (i = 0; i < NPO_HW_MODULE_ID_LEN && dst[i]; i++)
		if (dst[i] < 0x20 || dst[i] > 0x7e)
			dst[i] = '?';
}

/* The port's module, from the device; nothing from one before 1.15. */
static int npo_module_read(struct npo_port *port, struct npo_module *m)
{
	struct npo_dev *ndev = port->ndev;
	const struct npo_hw_module_info *hw;
	u32 args[4];
	int err;

	memset(m, 0, sizeof(*m));
	if (!(ndev->caps & NPO_CAPS_MODULE))
		return -EOPNOTSUPP;
	mutex_lock(&ndev->cmd_lock);
	args[0] = port->index;
	args[1] = lower_32_bits(ndev->cmd_dma);
	args[2] = upper_32_bits(ndev->cmd_dma);
	args[3] = sizeof(*hw);
	err = npo_mbox_read(ndev, NPO_MBOX_OP_MODULE_INFO, args,
			    ARRAY_SIZE(args), NULL, 0);
	if (!err) {
		hw = ndev->cmd_buf;
		npo_diag_id(m->vendor, hw->vendor);
		npo_diag_id(m->part, hw->part);
		npo_diag_id(m->serial, hw->serial);
		m->tx_high_alarm = (s16)le16_to_cpu(hw->tx_high_alarm_cdbm);
		m->tx_high_warn = (s16)le16_to_cpu(hw->tx_high_warn_cdbm);
		m->tx_low_warn = (s16)le16_to_cpu(hw->tx_low_warn_cdbm);
		m->tx_low_alarm = (s16)le16_to_cpu(hw->tx_low_alarm_cdbm);
		m->temp_high_alarm = (s16)le16_to_cpu(hw->temp_high_alarm_cdeg);
		m->temp_high_warn = (s16)le16_to_cpu(hw->temp_high_warn_cdeg);
		m->bias_high_alarm = le16_to_cpu(hw->bias_high_alarm_cma);
		m->bias_high_warn = le16_to_cpu(hw->bias_high_warn_cma);
		m->valid = true;
	}
	mutex_unlock(&ndev->cmd_lock);
	return err;
}

/* A string into a fixed-size field, NUL padded, not necessarily ended. */
static void npo_diag_put_id(char *dst, const char *src)
{
	memcpy_and_pad(dst, NPO_HW_MODULE_ID_LEN, src,
		       strnlen(src, NPO_HW_MODULE_ID_LEN), 0);
}

/*
 * The module of a port whose link is not active: read afresh, since it
 * may be swapped meanwhile, but shared by unprivileged readers for
 * %NPO_STATS_SHARED_MS, as the port's counters are, so that a flood of
 * them costs the device (an I2C EEPROM read on silicon) one read.
 */
static int npo_diag_probe_module(struct npo_port *port, struct npo_module *m,
				 bool shared)
{
	int err = 0;

	mutex_lock(&port->stats.lock);
	if (shared && port->stats.module_at &&
	    time_before(jiffies, port->stats.module_at +
				 msecs_to_jiffies(NPO_STATS_SHARED_MS))) {
		*m = port->stats.module;
	} else {
		err = npo_module_read(port, m);
		port->stats.module = *m;
		port->stats.module_at = jiffies ?: 1;
	}
	mutex_unlock(&port->stats.lock);
	return err ?: (m->valid ? 0 : -ENODATA);
}

/*
 * This port's module, read once per link-up: a module may be swapped
 * while the link is down, so one read then, or across a link-down
 * (npo_link_diag_forget()), is not kept.  @shared: a reading of an
 * inactive port's a little old will do (npo_diag_probe_module()).
 */
static void npo_diag_own_module(struct npo_port *port, struct npo_module *m,
				bool shared)
{
	struct npo_dev *ndev = port->ndev;
	unsigned int gen;
	bool active;

	mutex_lock(&ndev->link_lock);
	*m = port->diag.module;
	gen = port->diag.module_gen;
	active = FIELD_GET(NPO_PST_STATE, port->status) == NPO_HW_PORT_ACTIVE;
	mutex_unlock(&ndev->link_lock);
	/* An active link's module is kept: read it afresh, not shared. */
	if (m->valid || npo_diag_probe_module(port, m, shared && !active))
		return;
	mutex_lock(&ndev->link_lock);
	if (port->diag.module_gen == gen &&
	    FIELD_GET(NPO_PST_STATE, port->status) == NPO_HW_PORT_ACTIVE)
		port->diag.module = *m;
	mutex_unlock(&ndev->link_lock);
}

/**
 * npo_link_diag_send() - tell the far end what this end sees
 * @port: an active port.
 * @st: its statistics, just read.
 *
 * Context: process context, not under &npo_dev.link_lock (the link watch).
 */
void npo_link_diag_send(struct npo_port *port,
			const struct npo_hw_port_stats *st)
{
	struct npo_dev *ndev = port->ndev;
	unsigned int i, nlanes = min_t(unsigned int, ndev->lanes_per_port,
				       NPO_MAX_LANES);
	struct npo_diag_msg *msg;
	struct npo_module m;

	if (!npo_lmsg_supported(ndev))
		return;
	npo_diag_own_module(port, &m, false);
	msg = kzalloc(struct_size(msg, lane, nlanes), GFP_KERNEL);
	if (!msg)
		return;
	msg->type = NPO_LMSG_TYPE_DIAG;
	msg->version = NPO_DIAG_VERSION;
	msg->nlanes = nlanes;
	msg->port = port->index;
	msg->node = cpu_to_le32(ndev->node_id);
	/* Fixed-size fields, NUL padded, as the module gives them. */
	npo_diag_put_id(msg->vendor, m.vendor);
	npo_diag_put_id(msg->part, m.part);
	npo_diag_put_id(msg->serial, m.serial);
	msg->tx_high_alarm = cpu_to_le16(m.tx_high_alarm);
	msg->tx_high_warn = cpu_to_le16(m.tx_high_warn);
	msg->tx_low_warn = cpu_to_le16(m.tx_low_warn);
	msg->tx_low_alarm = cpu_to_le16(m.tx_low_alarm);
	for (i = 0; i < nlanes; i++) {
		msg->lane[i].tx = st->lane[i].tx_power_cdbm;
		msg->lane[i].rx = st->lane[i].rx_power_cdbm;
		msg->lane[i].ber = st->lane[i].ber_nlog_c;
		msg->lane[i].flags = st->lane[i].flags;
	}
	npo_lmsg_send(ndev, port->index, msg, struct_size(msg, lane, nlanes));
	kfree(msg);
}

/**
 * npo_link_diag_rx() - keep the report the far end of a port sent
 * @ndev: the device.
 * @index: the port it came in through.
 * @data: the link message.
 * @len: its length.
 *
 * A message of another version, too short for its lanes, or from another
 * node or port than the one the port trained with, is dropped.
 *
 * Context: process context (the link message work), under
 * &npo_routing.lock; takes &npo_dev.link_lock.
 */
void npo_link_diag_rx(struct npo_dev *ndev, unsigned int index,
		      const void *data, size_t len)
{
	const struct npo_diag_msg *msg = data;
	struct npo_link_diag *d;
	struct npo_port *port;
	unsigned int i;

	if (index >= ndev->num_ports || len < sizeof(*msg) ||
	    msg->version != NPO_DIAG_VERSION || !msg->nlanes ||
	    msg->nlanes > NPO_MAX_LANES ||
	    len < struct_size(msg, lane, msg->nlanes))
		return;
	port = &ndev->ports[index];
	d = &port->diag;
	mutex_lock(&ndev->link_lock);
	/* Only from the peer the port trained with: it names itself. */
	if (!port->peer_valid || port->peer_node != le32_to_cpu(msg->node) ||
	    port->peer_port != msg->port) {
		mutex_unlock(&ndev->link_lock);
		return;
	}
	d->peer_valid = true;
	d->peer_at = jiffies;
	d->peer_node = le32_to_cpu(msg->node);
	d->peer_port = msg->port;
	npo_diag_id(d->peer_module.vendor, msg->vendor);
	npo_diag_id(d->peer_module.part, msg->part);
	npo_diag_id(d->peer_module.serial, msg->serial);
	d->peer_module.tx_high_alarm = (s16)le16_to_cpu(msg->tx_high_alarm);
	d->peer_module.tx_high_warn = (s16)le16_to_cpu(msg->tx_high_warn);
	d->peer_module.tx_low_warn = (s16)le16_to_cpu(msg->tx_low_warn);
	d->peer_module.tx_low_alarm = (s16)le16_to_cpu(msg->tx_low_alarm);
	d->peer_module.valid = msg->vendor[0] != '\0';
	d->peer_lanes = msg->nlanes;
	for (i = 0; i < msg->nlanes; i++) {
		d->peer_lane[i].tx = (s16)le16_to_cpu(msg->lane[i].tx);
		d->peer_lane[i].rx = (s16)le16_to_cpu(msg->lane[i].rx);
		d->peer_lane[i].ber = le16_to_cpu(msg->lane[i].ber);
		d->peer_lane[i].flags = msg->lane[i].flags;
	}
	mutex_unlock(&ndev->link_lock);
}

/**
 * npo_link_diag_forget() - the link went down: its module may be swapped
 * @port: the port.
 *
 * The far end's last report is kept: it tells what that end saw last.
 *
 * Context: under &npo_dev.link_lock.
 */
void npo_link_diag_forget(struct npo_port *port)
{
	lockdep_assert_held(&port->ndev->link_lock);
	port->diag.module.valid = false;
	port->diag.module_gen++;
}

/* --- netlink -------------------------------------------------------------- */

static int npo_diag_put_module(struct sk_buff *skb, const struct npo_module *m,
			       bool own)
{
	struct nlattr *nest = nla_nest_start(skb, NPO_ATTR_MODULE);

	if (!nest ||
	    nla_put_string(skb, NPO_ATTR_MODULE_VENDOR, m->vendor) ||
	    nla_put_string(skb, NPO_ATTR_MODULE_PART, m->part) ||
	    nla_put_string(skb, NPO_ATTR_MODULE_SERIAL, m->serial) ||
	    nla_put_s32(skb, NPO_ATTR_MODULE_TX_HIGH_ALARM, m->tx_high_alarm) ||
	    nla_put_s32(skb, NPO_ATTR_MODULE_TX_HIGH_WARN, m->tx_high_warn) ||
	    nla_put_s32(skb, NPO_ATTR_MODULE_TX_LOW_WARN, m->tx_low_warn) ||
	    nla_put_s32(skb, NPO_ATTR_MODULE_TX_LOW_ALARM, m->tx_low_alarm))
		return -EMSGSIZE;
	if (own &&
	    (nla_put_s32(skb, NPO_ATTR_MODULE_TEMP_HIGH_ALARM, m->temp_high_alarm) ||
	     nla_put_s32(skb, NPO_ATTR_MODULE_TEMP_HIGH_WARN, m->temp_high_warn) ||
	     nla_put_u32(skb, NPO_ATTR_MODULE_BIAS_HIGH_ALARM, m->bias_high_alarm) ||
	     nla_put_u32(skb, NPO_ATTR_MODULE_BIAS_HIGH_WARN, m->bias_high_warn)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int npo_diag_put_peer(struct sk_buff *skb, const struct npo_link_diag *d)
{
	struct nlattr *nest, *lane;
	unsigned int i;

	if (!d->peer_valid)
		return 0;
	nest = nla_nest_start(skb, NPO_ATTR_PEER_DIAG);
	if (!nest ||
	    nla_put_u32(skb, NPO_ATTR_PEER_DIAG_AGE_MS,
			jiffies_to_msecs(jiffies - d->peer_at)) ||
	    nla_put_u32(skb, NPO_ATTR_PORT_PEER_NODE_ID, d->peer_node) ||
	    nla_put_u32(skb, NPO_ATTR_PORT_PEER_PORT, d->peer_port))
		return -EMSGSIZE;
	if (d->peer_module.valid && npo_diag_put_module(skb, &d->peer_module, false))
		return -EMSGSIZE;
	for (i = 0; i < d->peer_lanes; i++) {
		const struct npo_peer_lane *l = &d->peer_lane[i];

		lane = nla_nest_start(skb, NPO_ATTR_LANE);
		if (!lane ||
		    nla_put_u32(skb, NPO_ATTR_LANE_INDEX, i) ||
		    nla_put_u32(skb, NPO_ATTR_LANE_FLAGS, npo_lane_flags(l->flags)) ||
		    nla_put_s32(skb, NPO_ATTR_LANE_TX_POWER, l->tx) ||
		    nla_put_s32(skb, NPO_ATTR_LANE_RX_POWER, l->rx) ||
		    nla_put_u32(skb, NPO_ATTR_LANE_BER, l->ber))
			return -EMSGSIZE;
		nla_nest_end(skb, lane);
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * npo_link_diag_fill() - this port's module and the far end's last report
 * @skb: an NPO_CMD_PORT_DIAG_GET reply, its header put.
 * @port: the port.
 * @shared: the requester is unprivileged: a module reading of a port
 *	that is not active may be up to %NPO_STATS_SHARED_MS old.
 *
 * Context: process context; reads the module from the device if it has
 * not been read since the link came up (a link that is down still has a
 * module).
 * Return: 0, -ENOMEM or -EMSGSIZE.
 */
int npo_link_diag_fill(struct sk_buff *skb, struct npo_port *port, bool shared)
{
	struct npo_dev *ndev = port->ndev;
	struct npo_module own;
	struct npo_link_diag *d;
	int err;

	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	npo_diag_own_module(port, &own, shared);
	mutex_lock(&ndev->link_lock);
	*d = port->diag;
	mutex_unlock(&ndev->link_lock);
	err = -EMSGSIZE;
	if ((!own.valid || !npo_diag_put_module(skb, &own, true)) &&
	    !npo_diag_put_peer(skb, d))
		err = 0;
	kfree(d);
	return err;
}
