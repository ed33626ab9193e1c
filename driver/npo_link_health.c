// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO link health through devlink: each link port's devlink port carries
 * a health reporter "link".  A link that goes down for a fault (not by an
 * operator or a test), that stays untrained, that comes up degraded or
 * that is at risk (npo_link_watch.c) is reported, naming the port, the
 * peer, the reason and the lanes.
 *
 * Port events happen under the link lock, and devlink takes its instance
 * lock to dump and recover a report, while devlink calls the reporter's
 * recover (which retrains) with that lock held: so an event only queues
 * a snapshot of the port, and the port's report work hands it to devlink
 * with no driver lock held.
 *
 * The link supervisor (npo_link.c) already retrains with backoff, so an
 * automatic recovery leaves it to that and the reporter turns healthy
 * when the link is up clean at full width again; an operator's `devlink
 * health recover` retrains at once.
 */
#include <linux/spinlock.h>
#include <net/devlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_link.h"

/* Reports not yet handed to devlink, per port; the oldest go first. */
#define NPO_LINK_REPORTS_QUEUED	8

/* What a report was about: the dump devlink takes with it. */
struct npo_link_snapshot {
	u32 event;
	bool clean;
	u32 status;
	u8 down_reason;
	u32 fault_lanes;
	u32 ber_lanes;
	u32 risk_lanes;
	u8 risk_reason;
	u8 risk_lane;
	u32 risk_eta_s;
	bool peer_valid;
	u32 peer_node;
	u8 peer_port;
	u64 flaps;
	u32 selftest_lanes;
	bool miswired;
	u32 plan_node;
	u8 plan_port;
};

/**
 * struct npo_link_health - a port's link reporter and its queued reports
 * @reporter: the devlink reporter, or NULL.
 * @live: reports go to devlink (it is registered); under link_lock.
 * @reported: a fault was reported and the link is not yet back clean.
 * @lock: protects @reported, @queue, @head and @count.
 * @queue: snapshots waiting for the work.
 * @head: the oldest of them.
 * @count: how many.
 * @work: hands the snapshots to devlink.
 */
struct npo_link_health {
	struct devlink_health_reporter *reporter;
	bool live;
	bool reported;
	spinlock_t lock; /* reported, queue, head, count */
	struct npo_link_snapshot queue[NPO_LINK_REPORTS_QUEUED];
	unsigned int head;
	unsigned int count;
	struct work_struct work;
};

static const char *npo_link_event_str(u32 event)
{
	switch (event) {
	case NPO_EVENT_LINK_DOWN:
		return "down";
	case NPO_EVENT_TRAIN_FAILED:
		return "not trained";
	case NPO_EVENT_DEGRADED:
		return "degraded";
	case NPO_EVENT_ERR_THRESHOLD:
		return "high BER";
	case NPO_EVENT_AT_RISK:
		return "at risk";
	case NPO_EVENT_SELF_TEST:
		return "self-test failed";
	case NPO_EVENT_MISWIRED:
		return "miswired";
	}
	return "none";
}

/* Under the link lock: the port as it is. */
static void npo_link_snapshot(struct npo_port *port, u32 event,
			      struct npo_link_snapshot *snap)
{
	*snap = (struct npo_link_snapshot) {
		.event = event,
		.status = port->status,
		.down_reason = port->down_reason,
		.fault_lanes = port->fault_lanes,
		.ber_lanes = port->ber_lanes,
		.risk_lanes = port->risk.lanes,
		.risk_reason = port->risk.reason,
		.risk_lane = port->risk.lane,
		.risk_eta_s = port->risk.eta_s,
		.peer_valid = port->peer_valid,
		.peer_node = port->peer_node,
		.peer_port = port->peer_port,
		.flaps = port->flaps,
		.selftest_lanes = port->selftest.state == NPO_SELFTEST_FAILED ?
				  port->selftest.lanes : 0,
		.miswired = port->plan.miswired,
		.plan_node = port->plan.node,
		.plan_port = port->plan.port,
	};
}

static void npo_link_fmsg_put(struct devlink_fmsg *fmsg,
			      const struct npo_link_snapshot *snap)
{
	u32 st = snap->status;

	devlink_fmsg_string_pair_put(fmsg, "state",
				     npo_port_state_str(FIELD_GET(NPO_PST_STATE, st)));
	if (snap->event != NPO_EVENT_UNSPEC)
		devlink_fmsg_string_pair_put(fmsg, "event",
					     npo_link_event_str(snap->event));
	devlink_fmsg_string_pair_put(fmsg, "down_reason",
				     npo_port_fail_str(snap->down_reason));
	devlink_fmsg_string_pair_put(fmsg, "rate",
				     npo_port_rate_str(FIELD_GET(NPO_PST_RATE, st)));
	devlink_fmsg_u32_pair_put(fmsg, "width", FIELD_GET(NPO_PST_WIDTH, st));
	devlink_fmsg_bool_pair_put(fmsg, "degraded", st & NPO_PST_DEGRADED);
	if (snap->peer_valid) {
		devlink_fmsg_u32_pair_put(fmsg, "peer_node", snap->peer_node);
		devlink_fmsg_u32_pair_put(fmsg, "peer_port", snap->peer_port);
	}
	devlink_fmsg_u32_pair_put(fmsg, "fault_lanes", snap->fault_lanes);
	devlink_fmsg_u32_pair_put(fmsg, "high_ber_lanes", snap->ber_lanes);
	devlink_fmsg_u32_pair_put(fmsg, "at_risk_lanes", snap->risk_lanes);
	devlink_fmsg_u32_pair_put(fmsg, "self_test_failed_lanes",
				  snap->selftest_lanes);
	devlink_fmsg_bool_pair_put(fmsg, "miswired", snap->miswired);
	if (snap->miswired) {
		devlink_fmsg_u32_pair_put(fmsg, "planned_peer_node",
					  snap->plan_node);
		devlink_fmsg_u32_pair_put(fmsg, "planned_peer_port",
					  snap->plan_port);
	}
	if (snap->risk_lanes) {
		devlink_fmsg_u32_pair_put(fmsg, "at_risk_lane", snap->risk_lane);
		devlink_fmsg_string_pair_put(fmsg, "at_risk_reason",
					     npo_risk_str(snap->risk_reason));
		if (snap->risk_eta_s)
			devlink_fmsg_u32_pair_put(fmsg, "fails_in_s",
						  snap->risk_eta_s);
	}
	devlink_fmsg_u64_pair_put(fmsg, "flaps", snap->flaps);
}

/*
 * A figure in hundredths, signed, as text ("-3.25"): devlink's formatted
 * messages carry no signed integers.
 */
static void npo_fmsg_centi_put(struct devlink_fmsg *fmsg, const char *name,
			       s32 value)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%s%u.%02u", value < 0 ? "-" : "",
		 abs(value) / 100, abs(value) % 100);
	devlink_fmsg_string_pair_put(fmsg, name, buf);
}

static struct npo_port *npo_link_reporter_port(struct devlink_health_reporter *r)
{
	return devlink_health_reporter_priv(r);
}

static int npo_link_reporter_recover(struct devlink_health_reporter *reporter,
				     void *priv_ctx,
				     struct netlink_ext_ack *extack)
{
	struct npo_port *port = npo_link_reporter_port(reporter);
	struct npo_link_health *lh;
	int err;

	/*
	 * Reported from the link supervisor, which retrains with backoff and
	 * says when the link is back: nothing to do here, and not healthy yet.
	 */
	if (priv_ctx)
		return -EINPROGRESS;
	err = npo_port_retrain(port);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "the port cannot retrain now");
		return err;
	}
	/* devlink counts this recovery: the link coming back is not another. */
	mutex_lock(&port->ndev->link_lock);
	lh = port->health;
	if (lh) {
		spin_lock(&lh->lock);
		lh->reported = false;
		spin_unlock(&lh->lock);
	}
	mutex_unlock(&port->ndev->link_lock);
	return 0;
}

/* Each lane: power and BER against the device's thresholds, and trends. */
static void npo_link_fmsg_lanes(struct devlink_fmsg *fmsg,
				struct npo_port *port,
				const struct npo_hw_port_stats *st,
				const struct npo_lane_trends *trends)
{
	unsigned int i;

	devlink_fmsg_arr_pair_nest_start(fmsg, "lanes");
	for (i = 0; i < port->ndev->lanes_per_port; i++) {
		const struct npo_hw_lane_stats *l = &st->lane[i];

		devlink_fmsg_obj_nest_start(fmsg);
		devlink_fmsg_u32_pair_put(fmsg, "lane", i);
		devlink_fmsg_bool_pair_put(fmsg, "active",
					   l->flags & NPO_HW_LANE_ACTIVE);
		devlink_fmsg_bool_pair_put(fmsg, "loss_of_signal",
					   l->flags & NPO_HW_LANE_LOS);
		npo_fmsg_centi_put(fmsg, "rx_power_dbm",
				   (s16)le16_to_cpu(l->rx_power_cdbm));
		if (l->ber_alarm_nlog_c) {
			npo_fmsg_centi_put(fmsg, "rx_power_warn_dbm",
					   (s16)le16_to_cpu(l->rx_low_warn_cdbm));
			npo_fmsg_centi_put(fmsg, "rx_power_alarm_dbm",
					   (s16)le16_to_cpu(l->rx_low_alarm_cdbm));
		}
		devlink_fmsg_u32_pair_put(fmsg, "ber_nlog_x100",
					  le16_to_cpu(l->ber_nlog_c));
		if (l->ber_alarm_nlog_c) {
			devlink_fmsg_u32_pair_put(fmsg, "ber_warn_nlog_x100",
						  le16_to_cpu(l->ber_warn_nlog_c));
			devlink_fmsg_u32_pair_put(fmsg, "ber_alarm_nlog_x100",
						  le16_to_cpu(l->ber_alarm_nlog_c));
		}
		if (trends->known) {
			npo_fmsg_centi_put(fmsg, "ber_trend_per_min",
					   trends->ber[i]);
			npo_fmsg_centi_put(fmsg, "rx_trend_db_per_min",
					   trends->rx[i]);
		}
		devlink_fmsg_u64_pair_put(fmsg, "fec_corrected",
					  le64_to_cpu(l->fec_corrected));
		devlink_fmsg_u64_pair_put(fmsg, "fec_uncorrectable",
					  le64_to_cpu(l->fec_uncorrectable));
		devlink_fmsg_obj_nest_end(fmsg);
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);
}

static int npo_link_reporter_diagnose(struct devlink_health_reporter *reporter,
				      struct devlink_fmsg *fmsg,
				      struct netlink_ext_ack *extack)
{
	struct npo_port *port = npo_link_reporter_port(reporter);
	struct npo_lane_trends trends;
	struct npo_link_snapshot snap;
	struct npo_hw_port_stats *st;

	st = npo_port_read_stats(port, false);
	npo_port_lock_fresh(port);
	npo_link_snapshot(port, NPO_EVENT_UNSPEC, &snap);
	npo_link_watch_trends(port, &trends);
	npo_port_unlock(port);
	npo_link_fmsg_put(fmsg, &snap);
	/* The port's state is worth having without its lanes. */
	if (IS_ERR(st)) {
		devlink_fmsg_string_pair_put(fmsg, "lanes_unreadable",
					     "device not answering");
		return 0;
	}
	npo_link_fmsg_lanes(fmsg, port, st, &trends);
	kfree(st);
	return 0;
}

static int npo_link_reporter_dump(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg, void *priv_ctx,
				  struct netlink_ext_ack *extack)
{
	struct npo_port *port = npo_link_reporter_port(reporter);
	struct npo_link_snapshot snap;

	/* Taken with a report: the port as it was at the event. */
	if (priv_ctx) {
		npo_link_fmsg_put(fmsg, priv_ctx);
		return 0;
	}
	npo_port_lock_fresh(port);
	npo_link_snapshot(port, NPO_EVENT_UNSPEC, &snap);
	npo_port_unlock(port);
	npo_link_fmsg_put(fmsg, &snap);
	return 0;
}

static const struct devlink_health_reporter_ops npo_link_reporter_ops = {
	.name = "link",
	.recover = npo_link_reporter_recover,
	.diagnose = npo_link_reporter_diagnose,
	.dump = npo_link_reporter_dump,
};

/* Faults only: an operator's or a test's doing is no error of the link. */
static bool npo_link_down_is_fault(u8 reason)
{
	switch (reason) {
	case NPO_HW_FAIL_ADMIN_DISABLED:
	case NPO_HW_FAIL_PEER_DISABLED:
	case NPO_HW_FAIL_TEST:
	case NPO_HW_FAIL_PEER_TEST:
	case NPO_HW_FAIL_NO_FIRMWARE:
		return false;
	}
	return true;
}

/**
 * npo_port_health() - the driver's verdict on a port
 * @port: the port, its cached state fresh.
 * @why: set to &enum npo_health_reason.
 *
 * The one judge of a port: netlink reports its verdict (and npoctl
 * health shows it), and the port's devlink reporter turns healthy when it
 * is ok and up.  A watched link's BER is the link watch's to judge, with
 * its margin, as a risk: the device's HIGH_BER flag clears at the
 * threshold itself.
 *
 * Context: under &npo_dev.link_lock.
 * Return: &enum npo_health.
 */
u32 npo_port_health(const struct npo_port *port, u32 *why)
{
	u32 st = port->status;

	/* Up or not, a cable out of plan carries nothing: quarantined. */
	if (port->plan.miswired) {
		*why = NPO_HEALTH_REASON_MISWIRED;
		return NPO_HEALTH_FAILED;
	}
	if (FIELD_GET(NPO_PST_STATE, st) == NPO_HW_PORT_ACTIVE) {
		if (port->risk.lanes) {
			*why = NPO_HEALTH_REASON_AT_RISK;
			return NPO_HEALTH_AT_RISK;
		}
		if ((st & NPO_PST_HIGH_BER) && !npo_link_watch_judges_ber(port)) {
			*why = NPO_HEALTH_REASON_HIGH_BER;
			return NPO_HEALTH_AT_RISK;
		}
		if (st & NPO_PST_DEGRADED) {
			*why = NPO_HEALTH_REASON_DEGRADED;
			return NPO_HEALTH_DEGRADED;
		}
		*why = NPO_HEALTH_REASON_NONE;
		return NPO_HEALTH_OK;
	}
	/* Down: disabled on purpose, never cabled, or failed. */
	if (!port->admin_up) {
		*why = NPO_HEALTH_REASON_ADMIN_DOWN;
		return NPO_HEALTH_OK;
	}
	if (!(st & NPO_PST_PEER_PRESENT) && !port->flaps) {
		*why = NPO_HEALTH_REASON_NO_PEER;
		return NPO_HEALTH_OK;
	}
	*why = port->selftest.state == NPO_SELFTEST_FAILED ?
	       NPO_HEALTH_REASON_SELF_TEST : NPO_HEALTH_REASON_DOWN;
	return NPO_HEALTH_FAILED;
}

/* Up, and nothing wrong with it: the reporter turns healthy. */
static bool npo_link_clean(const struct npo_port *port)
{
	u32 why;

	return FIELD_GET(NPO_PST_STATE, port->status) == NPO_HW_PORT_ACTIVE &&
	       npo_port_health(port, &why) == NPO_HEALTH_OK;
}

static void npo_link_report_msg(const struct npo_port *port,
				const struct npo_link_snapshot *snap,
				char *msg, size_t len)
{
	unsigned long lanes;

	switch (snap->event) {
	case NPO_EVENT_LINK_DOWN:
		snprintf(msg, len, "port %u: link down: %s", port->index,
			 npo_port_fail_str(snap->down_reason));
		break;
	case NPO_EVENT_TRAIN_FAILED:
		snprintf(msg, len, "port %u: not trained: %s", port->index,
			 npo_port_fail_str(FIELD_GET(NPO_PST_FAIL,
						     snap->status)));
		break;
	case NPO_EVENT_DEGRADED:
		lanes = snap->fault_lanes;
		snprintf(msg, len, "port %u: degraded to %s x%lu, lanes %*pbl failing",
			 port->index,
			 npo_port_rate_str(FIELD_GET(NPO_PST_RATE, snap->status)),
			 FIELD_GET(NPO_PST_WIDTH, snap->status),
			 NPO_MAX_LANES, &lanes);
		break;
	case NPO_EVENT_ERR_THRESHOLD:
		lanes = snap->ber_lanes;
		snprintf(msg, len, "port %u: high BER on lanes %*pbl",
			 port->index, NPO_MAX_LANES, &lanes);
		break;
	case NPO_EVENT_AT_RISK:
		snprintf(msg, len, "port %u: at risk: lane %u %s", port->index,
			 snap->risk_lane, npo_risk_str(snap->risk_reason));
		break;
	case NPO_EVENT_SELF_TEST:
		lanes = snap->selftest_lanes;
		snprintf(msg, len, "port %u: failed its self-test after a reset: lanes %*pbl; held",
			 port->index, NPO_MAX_LANES, &lanes);
		break;
	case NPO_EVENT_MISWIRED:
		snprintf(msg, len, "port %u: cabled to node %u port %u, planned node %u port %u",
			 port->index, snap->peer_node, snap->peer_port,
			 snap->plan_node, snap->plan_port);
		break;
	}
}

/* Hand the queued snapshots to devlink, oldest first, with no lock held. */
static void npo_link_health_work(struct work_struct *work)
{
	struct npo_link_health *lh = container_of(work, struct npo_link_health,
						  work);
	struct devlink_health_reporter *r = lh->reporter;
	struct npo_port *port = npo_link_reporter_port(r);
	struct npo_link_snapshot snap;
	char msg[96];

	bool was_reported;

	for (;;) {
		spin_lock(&lh->lock);
		if (!lh->count) {
			spin_unlock(&lh->lock);
			return;
		}
		snap = lh->queue[lh->head];
		lh->head = (lh->head + 1) % NPO_LINK_REPORTS_QUEUED;
		lh->count--;
		was_reported = lh->reported;
		lh->reported = !snap.clean;
		spin_unlock(&lh->lock);

		if (snap.clean) {
			if (!was_reported)
				continue;
			devlink_health_reporter_recovery_done(r);
			devlink_health_reporter_state_update(r,
							     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
			continue;
		}
		npo_link_report_msg(port, &snap, msg, sizeof(msg));
		devlink_health_report(r, msg, &snap);
	}
}

/* Under the link lock: what, if anything, the event tells devlink. */
static bool npo_link_health_judge(struct npo_port *port, u32 event,
				  bool *clean)
{
	*clean = false;
	switch (event) {
	case NPO_EVENT_LINK_DOWN:
		return npo_link_down_is_fault(port->down_reason);
	case NPO_EVENT_TRAIN_FAILED:
		/* A peer probed after us fails the first try: only if it lasts. */
		return port->backoff_ms == NPO_BACKOFF_WARN_MS;
	case NPO_EVENT_DEGRADED:
		/* An administrative limit is no fault. */
		return port->fault_lanes;
	case NPO_EVENT_ERR_THRESHOLD:
		/* The link watch reports it as a risk, with the lane. */
		return !npo_link_watch_judges_ber(port);
	case NPO_EVENT_SELF_TEST:
		/* A pass is followed by the link coming up, which clears it. */
		return port->selftest.state == NPO_SELFTEST_FAILED;
	case NPO_EVENT_MISWIRED:
	case NPO_EVENT_AT_RISK:
		if (event == NPO_EVENT_MISWIRED ? port->plan.miswired : port->risk.lanes)
			return true;
		fallthrough;
	case NPO_EVENT_LINK_UP:
	case NPO_EVENT_RECOVERED:
		*clean = npo_link_clean(port);
		return *clean;
	}
	return false;
}

/**
 * npo_link_health_event() - tell the port's link reporter what happened
 * @port: the port, its cached state fresh.
 * @event: &enum npo_event.
 *
 * Queues a snapshot of the port for the report work; devlink hears of it
 * from there.
 *
 * Context: process context, under &npo_dev.link_lock.
 */
void npo_link_health_event(struct npo_port *port, u32 event)
{
	struct npo_link_health *lh = port->health;
	struct npo_link_snapshot *snap;
	bool clean;

	lockdep_assert_held(&port->ndev->link_lock);
	if (!lh || !lh->live || !npo_link_health_judge(port, event, &clean))
		return;
	spin_lock(&lh->lock);
	if (lh->count == NPO_LINK_REPORTS_QUEUED) {
		/* The oldest goes: the latest state matters most. */
		lh->head = (lh->head + 1) % NPO_LINK_REPORTS_QUEUED;
		lh->count--;
	}
	snap = &lh->queue[(lh->head + lh->count) % NPO_LINK_REPORTS_QUEUED];
	npo_link_snapshot(port, event, snap);
	snap->clean = clean;
	lh->count++;
	spin_unlock(&lh->lock);
	queue_work(system_wq, &lh->work);
}

static void npo_link_reporter_destroy(struct devlink_health_reporter *r)
{
#ifdef NPO_HAVE_DEVLINK_PORT_REPORTER_DESTROY
	devlink_port_health_reporter_destroy(r);
#else
	devlink_health_reporter_destroy(r);
#endif
}

/**
 * npo_link_health_create() - create the link reporters of the device's ports
 * @ndev: the device, its devlink ports registered, devlink not yet.
 *
 * Return: 0 or a negative errno, with none left created.
 */
int npo_link_health_create(struct npo_dev *ndev)
{
	struct devlink_health_reporter *r;
	struct npo_link_health *lh;
	unsigned int i;
	int err = -ENOMEM;

	for (i = 0; ndev->ports && i < ndev->num_ports; i++) {
		lh = kzalloc(sizeof(*lh), GFP_KERNEL);
		if (!lh)
			goto err;
		spin_lock_init(&lh->lock);
		INIT_WORK(&lh->work, npo_link_health_work);
		r = devlink_port_health_reporter_create(&ndev->dl_ports[i],
							&npo_link_reporter_ops,
							0, &ndev->ports[i]);
		if (IS_ERR(r)) {
			err = PTR_ERR(r);
			kfree(lh);
			goto err;
		}
		lh->reporter = r;
		ndev->ports[i].health = lh;
	}
	return 0;

err:
	npo_link_health_destroy(ndev);
	return err;
}

/**
 * npo_link_health_start() - start reporting
 * @ndev: the device, registered with devlink.
 */
void npo_link_health_start(struct npo_dev *ndev)
{
	unsigned int i;

	mutex_lock(&ndev->link_lock);
	for (i = 0; ndev->ports && i < ndev->num_ports; i++)
		if (ndev->ports[i].health)
			ndev->ports[i].health->live = true;
	mutex_unlock(&ndev->link_lock);
}

/**
 * npo_link_health_stop() - stop reporting, and wait for reports under way
 * @ndev: the device, still registered with devlink.
 *
 * Context: process context, not under the devlink instance lock (the
 * report work takes it).
 */
void npo_link_health_stop(struct npo_dev *ndev)
{
	unsigned int i;

	mutex_lock(&ndev->link_lock);
	for (i = 0; ndev->ports && i < ndev->num_ports; i++)
		if (ndev->ports[i].health)
			ndev->ports[i].health->live = false;
	mutex_unlock(&ndev->link_lock);
	for (i = 0; ndev->ports && i < ndev->num_ports; i++)
		if (ndev->ports[i].health)
			cancel_work_sync(&ndev->ports[i].health->work);
}

/**
 * npo_link_health_destroy() - destroy the link reporters
 * @ndev: the device, its link reporting stopped.
 */
void npo_link_health_destroy(struct npo_dev *ndev)
{
	struct npo_link_health *lh;
	unsigned int i;

	for (i = 0; ndev->ports && i < ndev->num_ports; i++) {
		mutex_lock(&ndev->link_lock);
		lh = ndev->ports[i].health;
		ndev->ports[i].health = NULL;
		mutex_unlock(&ndev->link_lock);
		if (!lh)
			continue;
		npo_link_reporter_destroy(lh->reporter);
		kfree(lh);
	}
}
