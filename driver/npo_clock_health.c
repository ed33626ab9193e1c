// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO clock health through devlink: the device's "clock" reporter says
 * when its time can no longer be trusted to time_error_limit_ns: the
 * bound on its error from the fabric's timescale (npo_timesync.c) grew
 * past the limit (holdover, a grandmaster elected from holdover, an
 * isolated node leading itself) or there is none (unlocked).  A clock
 * still coming up after probe is not reported until it had its chance
 * (NPO_CLOCK_LOCK_GRACE_MS).  Time sync recovers by itself when a
 * timescale is heard again, and the reporter then turns healthy; there
 * is nothing for devlink to recover.  It also says when the clock refused
 * a peer's grandmaster or time (npo_timesync.c): the time holds, but a
 * peer is broken or hostile.
 *
 * The judgement runs once per sync interval from the time-sync work;
 * devlink hears of it from a work of its own, with no driver lock held.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <net/devlink.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_timesync.h"

static unsigned int time_error_limit_ns = 1000;
module_param(time_error_limit_ns, uint, 0644);
MODULE_PARM_DESC(time_error_limit_ns,
		 "Fabric time: error bound beyond which the devlink clock reporter reports a clock, ns");

/* A refusal keeps a clock reported for this long after the last one. */
#define NPO_CLOCK_REFUSED_RECENT_MS	60000

/* A clock gets this long after probe to lock before it is reported. */
#define NPO_CLOCK_LOCK_GRACE_MS		60000

static void npo_clock_fmsg(struct devlink_fmsg *fmsg,
			   const struct npo_timesync_info *ti)
{
	devlink_fmsg_string_pair_put(fmsg, "role",
				     npo_clock_role_str(ti->role));
	devlink_fmsg_string_pair_put(fmsg, "state",
				     npo_clock_state_str(ti->state));
	devlink_fmsg_bool_pair_put(fmsg, "reference", ti->reference);
	devlink_fmsg_u32_pair_put(fmsg, "grandmaster", ti->gm_node);
	devlink_fmsg_u32_pair_put(fmsg, "steps", ti->steps);
	if (ti->parent >= 0)
		devlink_fmsg_u32_pair_put(fmsg, "parent_port", ti->parent);
	if (ti->bound_ns != NPO_TS_BOUND_UNKNOWN)
		devlink_fmsg_u64_pair_put(fmsg, "error_bound_ns", ti->bound_ns);
	else
		devlink_fmsg_string_pair_put(fmsg, "error_bound_ns", "none");
	devlink_fmsg_u32_pair_put(fmsg, "limit_ns", npo_clock_error_limit_ns());
	devlink_fmsg_u64_pair_put(fmsg, "offset_ns", ti->offset);
	devlink_fmsg_u64_pair_put(fmsg, "refused_grandmasters", ti->refused_gms);
	devlink_fmsg_u64_pair_put(fmsg, "refused_steps", ti->refused_steps);
	if (ti->refused_age_ms != U64_MAX) {
		devlink_fmsg_u32_pair_put(fmsg, "refused_node", ti->refused_node);
		devlink_fmsg_u32_pair_put(fmsg, "refused_port", ti->refused_port);
		devlink_fmsg_u64_pair_put(fmsg, "refused_age_ms",
					  ti->refused_age_ms);
	}
}

static int npo_clock_reporter_dump(struct devlink_health_reporter *reporter,
				   struct devlink_fmsg *fmsg, void *priv_ctx,
				   struct netlink_ext_ack *extack)
{
	if (!priv_ctx)
		return -EOPNOTSUPP;
	npo_clock_fmsg(fmsg, priv_ctx);
	return 0;
}

static int npo_clock_reporter_diagnose(struct devlink_health_reporter *reporter,
				       struct devlink_fmsg *fmsg,
				       struct netlink_ext_ack *extack)
{
	struct npo_dev *ndev = devlink_health_reporter_priv(reporter);
	struct npo_timesync_info ti;
	int err;

	err = npo_timesync_get(ndev, &ti);
	if (err)
		return err;
	npo_clock_fmsg(fmsg, &ti);
	return 0;
}

static const struct devlink_health_reporter_ops npo_clock_reporter_ops = {
	.name = "clock",
	.diagnose = npo_clock_reporter_diagnose,
	.dump = npo_clock_reporter_dump,
};

static void npo_clock_report_work(struct work_struct *work)
{
	struct npo_clock_health *ch = container_of(work, struct npo_clock_health,
						   work);
	struct npo_timesync_info ti;
	bool report, clear;
	char msg[128];

	spin_lock(&ch->lock);
	report = ch->report;
	clear = ch->clear;
	ti = ch->snap;
	ch->report = false;
	ch->clear = false;
	spin_unlock(&ch->lock);

	if (report) {
		if (ti.refused_age_ms < NPO_CLOCK_REFUSED_RECENT_MS &&
		    ti.bound_ns != NPO_TS_BOUND_UNKNOWN &&
		    ti.bound_ns <= npo_clock_error_limit_ns())
			snprintf(msg, sizeof(msg),
				 "clock %s: refused node %u through port %u (%llu grandmaster offers, %llu steps)",
				 npo_clock_state_str(ti.state), ti.refused_node,
				 ti.refused_port, ti.refused_gms,
				 ti.refused_steps);
		else if (ti.bound_ns == NPO_TS_BOUND_UNKNOWN)
			snprintf(msg, sizeof(msg), "clock %s: no error bound",
				 npo_clock_state_str(ti.state));
		else
			snprintf(msg, sizeof(msg),
				 "clock %s: error bound %llu ns beyond %u ns",
				 npo_clock_state_str(ti.state), ti.bound_ns,
				 npo_clock_error_limit_ns());
		devlink_health_report(ch->reporter, msg, &ti);
	}
	if (clear)
		devlink_health_reporter_state_update(ch->reporter,
						     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
}

/**
 * npo_clock_error_limit_ns() - the error bound beyond which a clock's time
 *	is not to be trusted
 *
 * Return: the limit, ns (module parameter time_error_limit_ns).
 */
u32 npo_clock_error_limit_ns(void)
{
	return READ_ONCE(time_error_limit_ns);
}

/**
 * npo_clock_health() - the driver's verdict on a clock
 * @ti: the clock, as time sync reads it.
 * @why: set to &enum npo_health_reason.
 *
 * The one judge of a clock: netlink reports its verdict (and npoctl
 * health shows it), and the device's "clock" reporter reports a clock
 * whose time is not to be trusted: one with no error bound, or a bound
 * beyond the limit, whatever its state says.
 *
 * Return: &enum npo_health.
 */
u32 npo_clock_health(const struct npo_timesync_info *ti, u32 *why)
{
	u32 health;

	/* A clock user space owns is not the fabric's to judge. */
	if (ti->role == NPO_CLOCK_ROLE_USER) {
		*why = NPO_HEALTH_REASON_USER;
		return NPO_HEALTH_OK;
	}
	switch (ti->state) {
	case NPO_CLOCK_LOCKED:
		health = NPO_HEALTH_OK;
		break;
	case NPO_CLOCK_LOCKING:
		health = NPO_HEALTH_DEGRADED;
		break;
	case NPO_CLOCK_HOLDOVER:
		health = NPO_HEALTH_AT_RISK;
		break;
	default:
		health = NPO_HEALTH_FAILED;
		break;
	}
	*why = health == NPO_HEALTH_OK ? NPO_HEALTH_REASON_NONE :
	       NPO_HEALTH_REASON_CLOCK_STATE;
	/*
	 * Locked to a grandmaster that lost the fabric's timescale (an
	 * isolated node leading itself, say) is not time to trust either.
	 */
	if (ti->bound_ns == NPO_TS_BOUND_UNKNOWN)
		*why = NPO_HEALTH_REASON_NO_BOUND;
	else if (ti->bound_ns > npo_clock_error_limit_ns())
		*why = NPO_HEALTH_REASON_BOUND;
	else if (ti->refused_age_ms < NPO_CLOCK_REFUSED_RECENT_MS)
		*why = NPO_HEALTH_REASON_CLOCK_REFUSED;
	else
		return health;
	/* Refusing, its time holds; but a peer tried, and someone must look. */
	return max_t(u32, health, *why == NPO_HEALTH_REASON_CLOCK_REFUSED ?
			  NPO_HEALTH_DEGRADED : NPO_HEALTH_AT_RISK);
}

/**
 * npo_clock_health_judge() - report a clock whose time is not to be trusted
 * @ndev: the device.
 *
 * Context: process context, no time-sync lock held; once per interval.
 */
void npo_clock_health_judge(struct npo_dev *ndev)
{
	struct npo_clock_health *ch = &ndev->ch;
	struct npo_timesync_info ti;
	bool ok, queue = false;
	u32 why;

	/* Not live before the reporter (and its lock) exists. */
	if (!READ_ONCE(ch->live) || npo_timesync_get(ndev, &ti))
		return;
	npo_clock_health(&ti, &why);
	ok = why != NPO_HEALTH_REASON_NO_BOUND && why != NPO_HEALTH_REASON_BOUND &&
	     why != NPO_HEALTH_REASON_CLOCK_REFUSED;
	spin_lock(&ch->lock);
	if (!ch->live) {
		/* Stopping: the work must not be queued after it is cancelled. */
	} else if (ok) {
		ch->armed = true;
		if (ch->reported) {
			ch->reported = false;
			ch->clear = true;
			ch->report = false;
			queue = true;
		}
	} else if (!ch->reported &&
		   (ch->armed || time_after(jiffies, ch->since +
				msecs_to_jiffies(NPO_CLOCK_LOCK_GRACE_MS)))) {
		ch->reported = true;
		ch->report = true;
		ch->clear = false;
		ch->snap = ti;
		queue = true;
	}
	if (queue)
		queue_work(system_wq, &ch->work);
	spin_unlock(&ch->lock);
}

/**
 * npo_clock_health_create() - create the "clock" health reporter
 * @ndev: the device, its devlink instance allocated.
 *
 * Return: 0 (no reporter for a device without a clock) or a negative errno.
 */
int npo_clock_health_create(struct npo_dev *ndev)
{
	struct npo_clock_health *ch = &ndev->ch;
	struct devlink_health_reporter *r;

	spin_lock_init(&ch->lock);
	INIT_WORK(&ch->work, npo_clock_report_work);
	if (!ndev->ptp)
		return 0;
	/* Nothing to recover, so no grace period (devlink requires 0). */
	r = devlink_health_reporter_create(ndev->devlink,
					   &npo_clock_reporter_ops, 0, ndev);
	if (IS_ERR(r))
		return PTR_ERR(r);
	ch->reporter = r;
	return 0;
}

/**
 * npo_clock_health_start() - judge the clock from now on
 * @ndev: the device, registered with devlink.
 */
void npo_clock_health_start(struct npo_dev *ndev)
{
	struct npo_clock_health *ch = &ndev->ch;

	spin_lock(&ch->lock);
	ch->since = jiffies;
	WRITE_ONCE(ch->live, !!ch->reporter);
	spin_unlock(&ch->lock);
}

/**
 * npo_clock_health_stop() - report nothing more
 * @ndev: the device, going away.
 *
 * Context: process context; no devlink operation of the device running
 * in this thread.
 */
void npo_clock_health_stop(struct npo_dev *ndev)
{
	struct npo_clock_health *ch = &ndev->ch;

	if (!ch->reporter)
		return;
	spin_lock(&ch->lock);
	WRITE_ONCE(ch->live, false);
	spin_unlock(&ch->lock);
	cancel_work_sync(&ch->work);
}

/**
 * npo_clock_health_destroy() - destroy the "clock" health reporter
 * @ndev: the device, its clock health stopped.
 */
void npo_clock_health_destroy(struct npo_dev *ndev)
{
	if (ndev->ch.reporter)
		devlink_health_reporter_destroy(ndev->ch.reporter);
	ndev->ch.reporter = NULL;
}
