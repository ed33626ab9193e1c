// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO firmware health: the driver watches the firmware's heartbeat, reads
 * its crash record when it asserts, and reports both, and the device's own
 * fatal errors, through the devlink health reporter "fw".  Recovery is a
 * device restart: reset, firmware reloaded, links trained again.
 *
 * The fault is contained first (the device stopped and every file's
 * queues revoked, npo_health.c), then reported; devlink recovers it at
 * once unless it recovered the last one less than a grace period ago, as
 * a device that keeps failing needs an operator, not a loop.  A device
 * stopped for an unanswered command is always left to the operator.
 */
#include <linux/ctype.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/devlink.h>
#include <uapi/linux/npo_names.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_link.h"

/* How often the heartbeat is read, and how long it may stand still. */
#define NPO_HEARTBEAT_WATCH_MS		250
#define NPO_HEARTBEAT_LOST_MS		(10 * NPO_HEARTBEAT_PERIOD_MS)
/* No automatic recovery within this long of the last one. */
#define NPO_FW_GRACE_MS			10000

static const char * const npo_dev_fault_names[] = NPO_DEV_FAULT_NAMES;

/**
 * npo_dev_fault_str() - describe why a device was stopped
 * @fault: &enum npo_dev_fault.
 *
 * Return: a constant string.
 */
const char *npo_dev_fault_str(enum npo_dev_fault fault)
{
	if (fault >= ARRAY_SIZE(npo_dev_fault_names))
		return "unknown";
	return npo_dev_fault_names[fault];
}

static bool npo_fw_health_watched(struct npo_dev *ndev)
{
	return FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
	       NPO_IF_MINOR_FW_HEALTH;
}

/**
 * npo_fw_health_read_crash() - keep the firmware's crash record
 * @ndev: the device, its firmware just asserted.
 *
 * Context: any, hard interrupt included.
 */
void npo_fw_health_read_crash(struct npo_dev *ndev)
{
	struct npo_fw_crash *c = &ndev->fwh.crash;
	unsigned long flags;
	__le32 word;
	u32 len, i;

	if (!npo_fw_health_watched(ndev))
		return;
	spin_lock_irqsave(&ndev->fwh.lock, flags);
	c->reason = npo_rd32(ndev, NPO_REG_CRASH_REASON);
	c->pc = npo_rd32(ndev, NPO_REG_CRASH_PC);
	c->time_ns = (u64)npo_rd32(ndev, NPO_REG_CRASH_TIME_HI) << 32 |
		     npo_rd32(ndev, NPO_REG_CRASH_TIME_LO);
	len = min_t(u32, npo_rd32(ndev, NPO_REG_CRASH_LOG_LEN),
		    NPO_CRASH_LOG_SIZE);
	for (i = 0; i < len; i += 4) {
		word = cpu_to_le32(npo_rd32(ndev, NPO_REG_CRASH_LOG + i));
		memcpy(c->log + i, &word, min_t(u32, 4, len - i));
	}
	c->log[len] = '\0';
	/* Text from a device: nothing past the first NUL, nothing unprintable. */
	for (i = 0; i < len && c->log[i]; i++)
		if ((!isascii(c->log[i]) || !isprint(c->log[i])) &&
		    c->log[i] != '\n')
			c->log[i] = '?';
	c->log[i] = '\0';
	ndev->fwh.crash_valid = true;
	spin_unlock_irqrestore(&ndev->fwh.lock, flags);
}

/**
 * npo_fw_health_report() - report the fault the device was stopped for
 * @ndev: the device, stopped and its files' queues revoked.
 *
 * devlink recovers it from here (npo_health_restart()) unless the last
 * recovery was within the grace period, or the fault was an unanswered
 * command (left to the operator).
 *
 * Context: process context, no device lock held.
 */
void npo_fw_health_report(struct npo_dev *ndev)
{
	struct npo_fw_health *fwh = &ndev->fwh;
	enum npo_dev_fault fault;
	char msg[96];

	spin_lock_irq(&fwh->lock);
	/* Before devlink shows the device, the fault waits for it. */
	if (!fwh->live) {
		spin_unlock_irq(&fwh->lock);
		return;
	}
	fault = fwh->stopped ? NPO_DEV_FAULT_NONE : fwh->pending;
	fwh->pending = NPO_DEV_FAULT_NONE;
	if (fault != NPO_DEV_FAULT_NONE) {
		fwh->last = fault;
		fwh->last_at = jiffies;
	}
	spin_unlock_irq(&fwh->lock);
	if (fault == NPO_DEV_FAULT_NONE)
		return;
	if (fault == NPO_DEV_FAULT_FW_ASSERT)
		snprintf(msg, sizeof(msg), "%s: node %u: reason 0x%x at pc 0x%x",
			 npo_dev_fault_str(fault), ndev->node_id,
			 fwh->crash.reason, fwh->crash.pc);
	else
		snprintf(msg, sizeof(msg), "%s: node %u",
			 npo_dev_fault_str(fault), ndev->node_id);
	npo_health_dev_event(ndev, fault);
	/* The dump devlink takes now is of this fault. */
	devlink_health_report(fwh->reporter, msg, &fault);
}

/* The heartbeat stands still while the firmware should be running. */
static void npo_fw_health_watch(struct work_struct *work)
{
	struct npo_fw_health *fwh = container_of(to_delayed_work(work),
						 struct npo_fw_health, watch);
	struct npo_dev *ndev = container_of(fwh, struct npo_dev, fwh);
	u32 beat = npo_rd32(ndev, NPO_REG_FW_HEARTBEAT);

	/*
	 * The one register read every quarter second, whatever the device
	 * does: it finds a card that left the bus.  Nothing to watch after.
	 */
	if (beat == U32_MAX && npo_health_gone(ndev))
		return;
	if (npo_state(ndev) != NPO_DEV_STATE_READY || beat != fwh->beat) {
		fwh->beat = beat;
		fwh->beat_seen = jiffies;
	} else if (time_after(jiffies, fwh->beat_seen +
			      msecs_to_jiffies(NPO_HEARTBEAT_LOST_MS))) {
		npo_err(ndev, "firmware heartbeat stopped at %u, %u ms ago\n",
			beat, jiffies_to_msecs(jiffies - fwh->beat_seen));
		npo_health_fail(ndev, NPO_DEV_FAULT_HEARTBEAT);
		fwh->beat_seen = jiffies;
	}
	schedule_delayed_work(&fwh->watch,
			      msecs_to_jiffies(NPO_HEARTBEAT_WATCH_MS));
}

/**
 * npo_fw_health_recovered() - the device came back without devlink
 * @ndev: the device, restarted by a PCIe error recovery.
 *
 * A fault devlink did not recover (an unanswered command, or one within
 * the grace period) left the reporter in error, where devlink would
 * neither dump nor recover the next one: the device works again, so say
 * so.
 *
 * Context: process context.
 */
void npo_fw_health_recovered(struct npo_dev *ndev)
{
	struct npo_fw_health *fwh = &ndev->fwh;
	bool live;

	spin_lock_irq(&fwh->lock);
	live = fwh->live && !fwh->stopped;
	spin_unlock_irq(&fwh->lock);
	if (live)
		devlink_health_reporter_state_update(fwh->reporter,
						     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
}

static int npo_fw_reporter_recover(struct devlink_health_reporter *reporter,
				   void *priv_ctx,
				   struct netlink_ext_ack *extack)
{
	struct npo_dev *ndev = devlink_health_reporter_priv(reporter);
	const enum npo_dev_fault *fault = priv_ctx;
	int err;

	/*
	 * A device that left a command unanswered may do so again after a
	 * reset, and each time takes every process's queues with it: an
	 * operator decides (devlink health recover), not the grace period.
	 */
	if (fault && *fault == NPO_DEV_FAULT_UNANSWERED) {
		NL_SET_ERR_MSG_MOD(extack, "a command went unanswered: left for the operator");
		return -ECANCELED;
	}
	/*
	 * Nothing brings back a card that left the bus, or whose PCIe link
	 * the platform gave up on, but a new probe.
	 */
	if (READ_ONCE(ndev->gone)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the device left the bus or its PCIe link failed for good");
		return -ENODEV;
	}
	err = npo_health_restart(ndev);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "device did not come back from reset");
	return err;
}

static int npo_fw_reporter_diagnose(struct devlink_health_reporter *reporter,
				    struct devlink_fmsg *fmsg,
				    struct netlink_ext_ack *extack)
{
	struct npo_dev *ndev = devlink_health_reporter_priv(reporter);
	struct npo_fw_health *fwh = &ndev->fwh;
	enum npo_dev_fault last;
	unsigned long last_at;
	u32 reason = 0;
	bool crashed;

	spin_lock_irq(&fwh->lock);
	last = fwh->last;
	last_at = fwh->last_at;
	crashed = fwh->crash_valid;
	if (crashed)
		reason = fwh->crash.reason;
	spin_unlock_irq(&fwh->lock);

	devlink_fmsg_string_pair_put(fmsg, "state",
				     npo_state_str(npo_state(ndev)));
	devlink_fmsg_u32_pair_put(fmsg, "fw_version", ndev->fw_version);
	if (npo_fw_health_watched(ndev)) {
		devlink_fmsg_u32_pair_put(fmsg, "heartbeat", fwh->beat);
		devlink_fmsg_u64_pair_put(fmsg, "heartbeat_age_ms",
					  jiffies_to_msecs(jiffies -
							   fwh->beat_seen));
	}
	devlink_fmsg_string_pair_put(fmsg, "last_fault",
				     npo_dev_fault_str(last));
	if (last != NPO_DEV_FAULT_NONE)
		devlink_fmsg_u64_pair_put(fmsg, "last_fault_age_ms",
					  jiffies_to_msecs(jiffies - last_at));
	if (crashed)
		devlink_fmsg_u32_pair_put(fmsg, "last_assert_reason", reason);
	return 0;
}

/*
 * The dump devlink takes when a fault is reported (@priv_ctx the fault)
 * holds the crash record if the firmware asserted; one asked for later
 * holds the last crash record.
 */
static int npo_fw_reporter_dump(struct devlink_health_reporter *reporter,
				struct devlink_fmsg *fmsg, void *priv_ctx,
				struct netlink_ext_ack *extack)
{
	struct npo_dev *ndev = devlink_health_reporter_priv(reporter);
	enum npo_dev_fault fault = priv_ctx ? *(enum npo_dev_fault *)priv_ctx :
					      NPO_DEV_FAULT_FW_ASSERT;
	struct npo_fw_crash *crash;
	bool valid;

	if (priv_ctx)
		devlink_fmsg_string_pair_put(fmsg, "fault",
					     npo_dev_fault_str(fault));
	if (fault != NPO_DEV_FAULT_FW_ASSERT) {
		devlink_fmsg_u32_pair_put(fmsg, "heartbeat", ndev->fwh.beat);
		return 0;
	}
	crash = kmalloc(sizeof(*crash), GFP_KERNEL);
	if (!crash)
		return -ENOMEM;
	spin_lock_irq(&ndev->fwh.lock);
	valid = ndev->fwh.crash_valid;
	if (valid)
		*crash = ndev->fwh.crash;
	spin_unlock_irq(&ndev->fwh.lock);
	if (!valid) {
		kfree(crash);
		NL_SET_ERR_MSG_MOD(extack, "the firmware has not crashed");
		return -ENODATA;
	}

	devlink_fmsg_u32_pair_put(fmsg, "reason", crash->reason);
	devlink_fmsg_u32_pair_put(fmsg, "pc", crash->pc);
	devlink_fmsg_u64_pair_put(fmsg, "time_ns", crash->time_ns);
	devlink_fmsg_string_pair_put(fmsg, "log", crash->log);
	kfree(crash);
	return 0;
}

static const struct devlink_health_reporter_ops npo_fw_reporter_ops = {
	.name = "fw",
	.recover = npo_fw_reporter_recover,
	.diagnose = npo_fw_reporter_diagnose,
	.dump = npo_fw_reporter_dump,
};

/**
 * npo_fw_health_init() - prepare the firmware's health state
 * @ndev: the device, being allocated.
 */
void npo_fw_health_init(struct npo_dev *ndev)
{
	spin_lock_init(&ndev->fwh.lock);
	INIT_DELAYED_WORK(&ndev->fwh.watch, npo_fw_health_watch);
}

/**
 * npo_fw_health_create() - create the "fw" health reporter
 * @ndev: the device, its devlink instance allocated.
 *
 * Return: 0 or a negative errno.
 */
int npo_fw_health_create(struct npo_dev *ndev)
{
	struct devlink_health_reporter *r;

	r = devlink_health_reporter_create(ndev->devlink, &npo_fw_reporter_ops,
					   NPO_FW_GRACE_MS, ndev);
	if (IS_ERR(r))
		return PTR_ERR(r);
	ndev->fwh.reporter = r;
	return 0;
}

/**
 * npo_fw_health_start() - start reporting, and watching the heartbeat
 * @ndev: the device, started and registered with devlink.
 */
void npo_fw_health_start(struct npo_dev *ndev)
{
	bool pending;

	spin_lock_irq(&ndev->fwh.lock);
	ndev->fwh.live = true;
	pending = ndev->fwh.pending != NPO_DEV_FAULT_NONE;
	spin_unlock_irq(&ndev->fwh.lock);
	/* A fault during probe is reported now. */
	if (pending) {
		get_device(&ndev->dev);
		if (!schedule_work(&ndev->dead_work))
			put_device(&ndev->dev);
	}
	if (!npo_fw_health_watched(ndev))
		return;
	ndev->fwh.beat_seen = jiffies;
	schedule_delayed_work(&ndev->fwh.watch,
			      msecs_to_jiffies(NPO_HEARTBEAT_WATCH_MS));
}

/**
 * npo_fw_health_stop() - stop watching and reporting
 * @ndev: the device, going away.
 *
 * Context: process context; no devlink operation of the device running
 * in this thread.
 */
void npo_fw_health_stop(struct npo_dev *ndev)
{
	spin_lock_irq(&ndev->fwh.lock);
	ndev->fwh.stopped = true;
	spin_unlock_irq(&ndev->fwh.lock);
	cancel_delayed_work_sync(&ndev->fwh.watch);
	flush_work(&ndev->dead_work);
}

/**
 * npo_fw_health_destroy() - destroy the "fw" health reporter
 * @ndev: the device, its health stopped.
 */
void npo_fw_health_destroy(struct npo_dev *ndev)
{
	if (ndev->fwh.reporter)
		devlink_health_reporter_destroy(ndev->fwh.reporter);
	ndev->fwh.reporter = NULL;
}
