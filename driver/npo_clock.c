// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO device clock as a PTP hardware clock.
 *
 * Each device's free-running clock becomes /dev/ptpN, so linuxptp and
 * everything else that speaks PHC uses it unchanged.  The fabric
 * time-sync service (npo_timesync.c) steers the same clock; changes from
 * user space need CAP_SYS_TIME whatever the device node's mode.  The
 * netlink family's clock commands (CLOCK_GET, CLOCK_SET, clock events)
 * are here too.
 */
#include <linux/capability.h>
#include <linux/ptp_clock_kernel.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_genl.h"
#include "npo_link.h"
#include "npo_timesync.h"

/* Read the clock; TIME_LO latches the whole value.  Caller holds clk_lock. */
static u64 npo_clock_read_locked(struct npo_dev *ndev,
				 struct ptp_system_timestamp *sts)
{
	u32 lo, hi;

	ptp_read_system_prets(sts);
	lo = npo_rd32(ndev, NPO_REG_CLK_TIME_LO);
	ptp_read_system_postts(sts);
	hi = npo_rd32(ndev, NPO_REG_CLK_TIME_HI);
	return (u64)hi << 32 | lo;
}

static void npo_clock_cmd(struct npo_dev *ndev, u32 cmd, u64 arg)
{
	spin_lock(&ndev->clk_lock);
	npo_wr32(ndev, NPO_REG_CLK_ARG_LO, lower_32_bits(arg));
	npo_wr32(ndev, NPO_REG_CLK_ARG_HI, upper_32_bits(arg));
	npo_wr32(ndev, NPO_REG_CLK_CMD, cmd);
	spin_unlock(&ndev->clk_lock);
}

/**
 * npo_clock_step() - move the device clock by a signed amount
 * @ndev: the device.
 * @delta: nanoseconds to add.
 */
void npo_clock_step(struct npo_dev *ndev, s64 delta)
{
	npo_clock_cmd(ndev, NPO_CLK_CMD_STEP, (u64)delta);
}

/**
 * npo_clock_set_freq() - set the device clock's frequency adjustment
 * @ndev: the device.
 * @scaled_ppm: parts per million with a 16-bit fraction, within the
 *	device's range (NPO_REG_CLK_MAX_ADJ).
 */
void npo_clock_set_freq(struct npo_dev *ndev, long scaled_ppm)
{
	spin_lock(&ndev->clk_lock);
	npo_wr32(ndev, NPO_REG_CLK_ADJ_FINE, (u32)(s32)scaled_ppm);
	spin_unlock(&ndev->clk_lock);
}

static struct npo_dev *npo_ptp_dev(struct ptp_clock_info *info)
{
	return container_of(info, struct npo_dev, ptp_info);
}

/* User space steers the clock only with the right to set time. */
static int npo_ptp_may_change(struct npo_dev *ndev)
{
	if (!capable(CAP_SYS_TIME))
		return -EPERM;
	return npo_state(ndev) == NPO_DEV_STATE_READY ? 0 : -EIO;
}

static int npo_ptp_adjfine(struct ptp_clock_info *info, long scaled_ppm)
{
	struct npo_dev *ndev = npo_ptp_dev(info);
	int err = npo_ptp_may_change(ndev);

	if (err)
		return err;
	npo_clock_set_freq(ndev, scaled_ppm);
	npo_timesync_user_changed(ndev, false);
	return 0;
}

static int npo_ptp_adjtime(struct ptp_clock_info *info, s64 delta)
{
	struct npo_dev *ndev = npo_ptp_dev(info);
	int err = npo_ptp_may_change(ndev);

	if (err)
		return err;
	npo_clock_step(ndev, delta);
	npo_timesync_user_changed(ndev, true);
	return 0;
}

static int npo_ptp_settime(struct ptp_clock_info *info,
			   const struct timespec64 *ts)
{
	struct npo_dev *ndev = npo_ptp_dev(info);
	int err = npo_ptp_may_change(ndev);

	if (err)
		return err;
	npo_clock_cmd(ndev, NPO_CLK_CMD_SET, timespec64_to_ns(ts));
	npo_timesync_user_changed(ndev, true);
	return 0;
}

static int npo_ptp_gettimex(struct ptp_clock_info *info,
			    struct timespec64 *ts,
			    struct ptp_system_timestamp *sts)
{
	struct npo_dev *ndev = npo_ptp_dev(info);
	u64 ns;

	spin_lock(&ndev->clk_lock);
	ns = npo_clock_read_locked(ndev, sts);
	spin_unlock(&ndev->clk_lock);
	*ts = ns_to_timespec64(ns);
	return 0;
}

#ifdef NPO_CROSSTSTAMP_CS_ID
/*
 * The latch samples the device clock and the CPU's TSC in one instant, as
 * PCIe PTM or Intel ART would.  The timekeeping core turns the TSC value
 * into system time when the TSC is the system clocksource; 6.1's core
 * wants the clocksource's struct instead, which a module cannot name, so
 * cross timestamps need a kernel with clocksource ids.
 */
static int npo_ptp_latch(ktime_t *device, struct system_counterval_t *sys,
			 void *ctx)
{
	struct npo_dev *ndev = ctx;
	u64 t, ref;

	spin_lock(&ndev->clk_lock);
	npo_wr32(ndev, NPO_REG_CLK_CMD, NPO_CLK_CMD_LATCH);
	t = (u64)npo_rd32(ndev, NPO_REG_CLK_LATCH_TIME_HI) << 32 |
	    npo_rd32(ndev, NPO_REG_CLK_LATCH_TIME_LO);
	ref = (u64)npo_rd32(ndev, NPO_REG_CLK_LATCH_REF_HI) << 32 |
	      npo_rd32(ndev, NPO_REG_CLK_LATCH_REF_LO);
	spin_unlock(&ndev->clk_lock);
	*device = ns_to_ktime(t);
	sys->cycles = ref;
	sys->cs_id = CSID_X86_TSC;
	sys->use_nsecs = false;
	return 0;
}

static int npo_ptp_getcrosststamp(struct ptp_clock_info *info,
				  struct system_device_crosststamp *xt)
{
	struct npo_dev *ndev = npo_ptp_dev(info);

	return get_device_system_crosststamp(npo_ptp_latch, ndev, NULL, xt);
}
#endif

static int npo_ptp_enable(struct ptp_clock_info *info,
			  struct ptp_clock_request *rq, int on)
{
	return -EOPNOTSUPP;
}

/**
 * npo_clock_register() - offer the device clock as a PHC
 * @ndev: the device, identified and mapped.
 *
 * A device without a clock, or a kernel without PTP support, leaves
 * @ndev->ptp NULL; that is not an error.
 *
 * Return: 0 or a negative errno.
 */
int npo_clock_register(struct npo_dev *ndev)
{
	struct ptp_clock_info *info = &ndev->ptp_info;
	struct ptp_clock *ptp;

	spin_lock_init(&ndev->clk_lock);
	if (!(ndev->caps & NPO_CAPS_CLOCK))
		return 0;
	*info = (struct ptp_clock_info) {
		.owner = THIS_MODULE,
		/* Checked at probe; a device that changed it since is clamped. */
		.max_adj = min_t(u32, npo_rd32(ndev, NPO_REG_CLK_MAX_ADJ), S32_MAX),
		.adjfine = npo_ptp_adjfine,
		.adjtime = npo_ptp_adjtime,
		.gettimex64 = npo_ptp_gettimex,
		.settime64 = npo_ptp_settime,
		.enable = npo_ptp_enable,
#ifdef NPO_CROSSTSTAMP_CS_ID
		.getcrosststamp = IS_ENABLED(CONFIG_X86_TSC) ?
				  npo_ptp_getcrosststamp : NULL,
#endif
	};
	snprintf(info->name, sizeof(info->name), "npo%d node %u",
		 ndev->minor, ndev->node_id);
	ptp = ptp_clock_register(info, &ndev->pdev->dev);
	if (IS_ERR(ptp))
		return PTR_ERR(ptp);
	ndev->ptp = ptp;
	return 0;
}

/**
 * npo_clock_unregister() - withdraw the PHC
 * @ndev: the device.
 */
void npo_clock_unregister(struct npo_dev *ndev)
{
	if (ndev->ptp)
		ptp_clock_unregister(ndev->ptp);
	ndev->ptp = NULL;
}

/**
 * npo_clock_index() - the PHC's index, N of /dev/ptpN
 * @ndev: the device.
 *
 * Return: the index, or -1 without a PHC.
 */
int npo_clock_index(struct npo_dev *ndev)
{
	return ndev->ptp ? ptp_clock_index(ndev->ptp) : -1;
}

/**
 * npo_clock_keeps_fabric() - whether the device's clock is fabric time now
 * @ndev: the device.
 *
 * Return: true if the device is ready and its clock locked to the
 * grandmaster or in holdover.
 */
bool npo_clock_keeps_fabric(struct npo_dev *ndev)
{
	u8 state = READ_ONCE(ndev->ts.state);

	return npo_state(ndev) == NPO_DEV_STATE_READY &&
	       (state == NPO_CLOCK_LOCKED || state == NPO_CLOCK_HOLDOVER);
}

/*
 * How long fabric time is carried on the host's clock once the device's
 * clock cannot be read: long enough to stamp the fault that stopped it.
 */
#define NPO_FABRIC_CARRY_NS	(10 * NSEC_PER_SEC)

/**
 * npo_clock_fabric_now() - fabric time now, if this device can say it
 * @ndev: the device.
 * @ns: set to the time, in ns.
 *
 * Only a ready device whose clock is locked to the grandmaster, or holds
 * its last frequency in holdover, keeps fabric time: a free-running,
 * stopped or resetting clock would stamp a time no other node agrees
 * with, and a read of a device that left the bus is all ones.  Each good
 * reading anchors fabric time to the host's monotonic clock; for a few
 * seconds after the device stops answering (a fault, a reset) fabric time
 * is carried on from that anchor, so the fault itself is stamped, to
 * within the host clock's drift over those seconds.  Time sync refreshes
 * the anchor every interval.
 *
 * Context: any but hard interrupt.
 * Return: 0, -ENODEV for a device without a PHC, or -EAGAIN when neither
 * its clock nor a recent anchor gives fabric time.
 */
int npo_clock_fabric_now(struct npo_dev *ndev, u64 *ns)
{
	int err = 0;
	u64 mono;

	if (!READ_ONCE(ndev->ptp))
		return -ENODEV;
	spin_lock(&ndev->clk_lock);
	mono = ktime_get_ns();
	if (npo_clock_keeps_fabric(ndev)) {
		*ns = npo_clock_read_locked(ndev, NULL);
		if (*ns != U64_MAX) {
			ndev->fabric_anchor_mono = mono;
			ndev->fabric_anchor = *ns;
			goto out;
		}
	}
	if (ndev->fabric_anchor_mono &&
	    mono - ndev->fabric_anchor_mono < NPO_FABRIC_CARRY_NS)
		*ns = ndev->fabric_anchor + (mono - ndev->fabric_anchor_mono);
	else
		err = -EAGAIN;
out:
	spin_unlock(&ndev->clk_lock);
	return err;
}

/**
 * npo_clock_get_time() - fabric time and the bound on its error
 * @ndev: the device.
 * @t: filled in but for @t->flags.
 *
 * Context: process context; sleeps.
 * Return: 0, -EOPNOTSUPP for a device without a clock, -EAGAIN while the
 * device is not ready, -ENODEV if it does not answer.
 */
int npo_clock_get_time(struct npo_dev *ndev, struct npo_fabric_time *t)
{
	struct npo_timesync_info ti;
	u64 ns, mono;
	int err;

	if (!READ_ONCE(ndev->ptp))
		return -EOPNOTSUPP;
	if (npo_state(ndev) != NPO_DEV_STATE_READY)
		return -EAGAIN;
	/* The bound first: it only grows, so it is not understated. */
	err = npo_timesync_get(ndev, &ti);
	if (err)
		return err == -ENODEV ? -EOPNOTSUPP : err;
	spin_lock(&ndev->clk_lock);
	mono = ktime_get_ns();
	ns = npo_clock_read_locked(ndev, NULL);
	spin_unlock(&ndev->clk_lock);
	if (ns == U64_MAX)
		return -ENODEV;
	t->time_ns = ns;
	t->monotonic_ns = mono;
	t->error_bound_ns = ti.bound_ns == NPO_TS_BOUND_UNKNOWN ?
			    NPO_TIME_BOUND_NONE : ti.bound_ns;
	t->state = ti.state;
	t->gm_node = ti.gm_node;
	t->status = ti.reference ? NPO_TIME_REFERENCE : 0;
	return 0;
}

/**
 * npo_clock_forget_fabric() - carry no fabric time across a jump
 * @ndev: the device, whose clock user space just stepped or set.
 *
 * A grandmaster's clock set by hand is a new fabric time: the anchor of
 * npo_clock_fabric_now() no longer holds.
 */
void npo_clock_forget_fabric(struct npo_dev *ndev)
{
	spin_lock(&ndev->clk_lock);
	ndev->fabric_anchor_mono = 0;
	spin_unlock(&ndev->clk_lock);
}

/* --- netlink: CLOCK_GET, CLOCK_SET and clock events ----------------------- */

/* A device's identity and its clock's sync state. */
static int npo_clock_put(struct sk_buff *msg, struct npo_dev *ndev)
{
	struct npo_timesync_info ti;
	u32 health, why;
	char name[16];
	int err;

	err = npo_timesync_get(ndev, &ti);
	if (err)
		return err;
	health = npo_clock_health(&ti, &why);
	/* Sync starts before /dev/npoN exists, and with it the device name. */
	snprintf(name, sizeof(name), "npo%d", ndev->minor);
	if (nla_put_u32(msg, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	    nla_put_string(msg, NPO_ATTR_DEV_NAME, name) ||
	    nla_put_u32(msg, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_PHC_INDEX, npo_clock_index(ndev)) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_ROLE, ti.role) ||
	    nla_put_u8(msg, NPO_ATTR_CLOCK_SYNC,
		       ti.role != NPO_CLOCK_ROLE_USER) ||
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
			      NPO_ATTR_PAD) ||
	    (ti.bound_ns != NPO_TS_BOUND_UNKNOWN &&
	     nla_put_u64_64bit(msg, NPO_ATTR_CLOCK_ERROR_BOUND, ti.bound_ns,
			       NPO_ATTR_PAD)) ||
	    nla_put_u8(msg, NPO_ATTR_CLOCK_REFERENCE, ti.reference) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_HEALTH, health) ||
	    nla_put_u32(msg, NPO_ATTR_CLOCK_HEALTH_REASON, why) ||
	    nla_put_u64_64bit(msg, NPO_ATTR_CLOCK_ERROR_LIMIT,
			      npo_clock_error_limit_ns(), NPO_ATTR_PAD) ||
	    (ti.gm_allow_n &&
	     nla_put(msg, NPO_ATTR_CLOCK_GM_ALLOW,
		     ti.gm_allow_n * sizeof(ti.gm_allow[0]), ti.gm_allow)) ||
	    nla_put_u64_64bit(msg, NPO_ATTR_CLOCK_REFUSED_GM, ti.refused_gms,
			      NPO_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, NPO_ATTR_CLOCK_REFUSED_STEPS,
			      ti.refused_steps, NPO_ATTR_PAD))
		return -EMSGSIZE;
	if (ti.refused_age_ms != U64_MAX &&
	    (nla_put_u64_64bit(msg, NPO_ATTR_CLOCK_REFUSED_AGE_MS,
			       ti.refused_age_ms, NPO_ATTR_PAD) ||
	     nla_put_u32(msg, NPO_ATTR_CLOCK_REFUSED_NODE, ti.refused_node) ||
	     nla_put_u32(msg, NPO_ATTR_CLOCK_REFUSED_PORT, ti.refused_port)))
		return -EMSGSIZE;
	return 0;
}

static int npo_clock_fill(struct sk_buff *msg, struct npo_dev *ndev,
			  u32 portid, u32 seq, int flags)
{
	void *hdr = npo_genl_put(msg, portid, seq, flags, NPO_CMD_CLOCK_GET);

	if (!hdr)
		return -EMSGSIZE;
	return npo_genl_end(msg, hdr, npo_clock_put(msg, ndev));
}

/*
 * The device a clock request names, referenced and held against removal
 * (which withdraws the clock); NULL with extack set.  npo_clock_untarget()
 * lets go.
 */
static struct npo_dev *npo_clock_target(struct genl_info *info)
{
	struct npo_dev *ndev;

	if (GENL_REQ_ATTR_CHECK(info, NPO_ATTR_DEV_INDEX))
		return NULL;
	ndev = npo_dev_get(nla_get_u32(info->attrs[NPO_ATTR_DEV_INDEX]));
	if (ndev) {
		down_read(&ndev->remove_lock);
		if (ndev->pdev && ndev->ptp)
			return ndev;
		up_read(&ndev->remove_lock);
		put_device(&ndev->dev);
	}
	NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NPO_ATTR_DEV_INDEX],
			    "no such NPO device with a clock");
	return NULL;
}

static void npo_clock_untarget(struct npo_dev *ndev)
{
	up_read(&ndev->remove_lock);
	put_device(&ndev->dev);
}

/**
 * npo_clock_nl_get_doit() - NPO_CMD_CLOCK_GET for one device
 * @skb: the request.
 * @info: its attributes: NPO_ATTR_DEV_INDEX.
 *
 * Return: 0 or a negative errno.
 */
int npo_clock_nl_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npo_dev *ndev = npo_clock_target(info);
	struct sk_buff *msg;
	int err;

	if (!ndev)
		return -ENODEV;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	err = msg ? npo_clock_fill(msg, ndev, info->snd_portid, info->snd_seq,
				   0) : -ENOMEM;
	npo_clock_untarget(ndev);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int npo_clock_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			      struct npo_dev *ndev)
{
	int err = 0;

	down_read(&ndev->remove_lock);
	if (ndev->pdev && ndev->ptp)
		err = npo_clock_fill(skb, ndev, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI);
	up_read(&ndev->remove_lock);
	return err;
}

/**
 * npo_clock_nl_get_dumpit() - NPO_CMD_CLOCK_GET for every device with a clock
 * @skb: the dump's buffer.
 * @cb: the dump.
 *
 * Return: what a dumpit returns.
 */
int npo_clock_nl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return npo_genl_dump_devices(skb, cb, npo_clock_dump_dev);
}

/*
 * NPO_ATTR_CLOCK_GM_ALLOW into @nodes: node ids, each once; the count, or
 * a negative errno with extack set.
 */
static int npo_clock_gm_allow_parse(struct genl_info *info,
				    const struct nlattr *attr, u32 *nodes)
{
	unsigned int n = nla_len(attr) / sizeof(u32), i, j;

	if (nla_len(attr) % sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "grandmaster allow-list: node ids are 32-bit");
		return -EINVAL;
	}
	memcpy(nodes, nla_data(attr), n * sizeof(u32));
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (nodes[i] == nodes[j]) {
				NL_SET_ERR_MSG_ATTR(info->extack, attr,
						    "grandmaster allow-list: a node is named twice");
				return -EINVAL;
			}
	return n;
}

/**
 * npo_clock_nl_set_doit() - NPO_CMD_CLOCK_SET: a device's grandmaster
 *	priority, whether its clock takes part in fabric time, and who may
 *	be grandmaster
 * @skb: the request.
 * @info: its attributes: NPO_ATTR_DEV_INDEX, then any of
 *	NPO_ATTR_CLOCK_PRIORITY, NPO_ATTR_CLOCK_SYNC and
 *	NPO_ATTR_CLOCK_GM_ALLOW.
 *
 * Return: 0 or a negative errno; nothing is set if any is invalid.
 */
int npo_clock_nl_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *prio = info->attrs[NPO_ATTR_CLOCK_PRIORITY];
	struct nlattr *sync = info->attrs[NPO_ATTR_CLOCK_SYNC];
	struct nlattr *allow = info->attrs[NPO_ATTR_CLOCK_GM_ALLOW];
	u32 nodes[NPO_TS_GM_ALLOW_MAX];
	struct npo_dev *ndev;
	int n = 0;

	if (!prio && !sync && !allow) {
		NL_SET_ERR_MSG(info->extack,
			       "nothing to set: give a priority, sync or a grandmaster allow-list");
		return -EINVAL;
	}
	if (allow) {
		n = npo_clock_gm_allow_parse(info, allow, nodes);
		if (n < 0)
			return n;
	}
	ndev = npo_clock_target(info);
	if (!ndev)
		return -ENODEV;
	if (allow)
		npo_timesync_set_gm_allow(ndev, nodes, n);
	if (prio)
		npo_timesync_set_priority(ndev, nla_get_u32(prio));
	if (sync)
		npo_timesync_set_sync(ndev, nla_get_u8(sync));
	npo_clock_untarget(ndev);
	return 0;
}

/**
 * npo_clock_event() - tell netlink listeners a device's clock changed
 * @ndev: the device.
 *
 * Context: process context, without &npo_timesync.lock.
 */
void npo_clock_event(struct npo_dev *ndev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = npo_genl_event_new(NPO_EVENT_CLOCK, &hdr);
	if (msg)
		npo_genl_event_send(ndev, msg, hdr, npo_clock_put(msg, ndev));
}
