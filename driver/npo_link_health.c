// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO link health through devlink: each link port's devlink port carries
 * a health reporter "link".  A link that goes down for a fault (not by an
 * operator or a test), that stays untrained, that comes up degraded or
 * whose bit error rate crosses the warning threshold (at risk) is
 * reported, naming the port, the peer, the reason and the lanes.
 *
 * The link supervisor (npo_link.c) already retrains with backoff, so an
 * automatic recovery leaves it to that and the reporter turns healthy
 * when the link is up at full width again; an operator's `devlink health
 * recover` retrains at once.
 */
#include <net/devlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"

/* What a report was about, kept for the dump devlink takes with it. */
struct npo_link_snapshot {
	u32 event;
	u32 status;
	u8 down_reason;
	u32 fault_lanes;
	u32 ber_lanes;
	bool peer_valid;
	u32 peer_node;
	u8 peer_port;
	u64 flaps;
};

static const char *npo_link_event_name(u32 event)
{
	switch (event) {
	case NPO_EVENT_LINK_DOWN:
		return "down";
	case NPO_EVENT_TRAIN_FAILED:
		return "not trained";
	case NPO_EVENT_DEGRADED:
		return "degraded";
	case NPO_EVENT_ERR_THRESHOLD:
		return "at risk";
	}
	return "none";
}

static void npo_link_snapshot(struct npo_port *port, u32 event,
			      struct npo_link_snapshot *snap)
{
	snap->event = event;
	snap->status = port->status;
	snap->down_reason = port->down_reason;
	snap->fault_lanes = port->fault_lanes;
	snap->ber_lanes = port->ber_lanes;
	snap->peer_valid = port->peer_valid;
	snap->peer_node = port->peer_node;
	snap->peer_port = port->peer_port;
	snap->flaps = port->flaps;
}

static void npo_link_fmsg_put(struct devlink_fmsg *fmsg,
			      const struct npo_link_snapshot *snap)
{
	u32 st = snap->status;

	devlink_fmsg_string_pair_put(fmsg, "state",
				     npo_port_state_name(FIELD_GET(NPO_PST_STATE, st)));
	if (snap->event != NPO_EVENT_UNSPEC)
		devlink_fmsg_string_pair_put(fmsg, "event",
					     npo_link_event_name(snap->event));
	devlink_fmsg_string_pair_put(fmsg, "down_reason",
				     npo_port_fail_name(snap->down_reason));
	devlink_fmsg_string_pair_put(fmsg, "rate",
				     npo_port_rate_name(FIELD_GET(NPO_PST_RATE, st)));
	devlink_fmsg_u32_pair_put(fmsg, "width", FIELD_GET(NPO_PST_WIDTH, st));
	devlink_fmsg_bool_pair_put(fmsg, "degraded", st & NPO_PST_DEGRADED);
	if (snap->peer_valid) {
		devlink_fmsg_u32_pair_put(fmsg, "peer_node", snap->peer_node);
		devlink_fmsg_u32_pair_put(fmsg, "peer_port", snap->peer_port);
	}
	devlink_fmsg_u32_pair_put(fmsg, "fault_lanes", snap->fault_lanes);
	devlink_fmsg_u32_pair_put(fmsg, "high_ber_lanes", snap->ber_lanes);
	devlink_fmsg_u64_pair_put(fmsg, "flaps", snap->flaps);
}

/* The port a reporter is about. */
static struct npo_port *npo_link_reporter_port(struct devlink_health_reporter *r)
{
	return devlink_health_reporter_priv(r);
}

static int npo_link_reporter_recover(struct devlink_health_reporter *reporter,
				     void *priv_ctx,
				     struct netlink_ext_ack *extack)
{
	struct npo_port *port = npo_link_reporter_port(reporter);
	int err;

	/*
	 * Reported from the link supervisor, which retrains with backoff and
	 * says when the link is back: nothing to do here, and not healthy yet.
	 */
	if (priv_ctx)
		return -EINPROGRESS;
	err = npo_port_retrain(port);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "the port cannot retrain now");
	return err;
}

static int npo_link_reporter_diagnose(struct devlink_health_reporter *reporter,
				      struct devlink_fmsg *fmsg,
				      struct netlink_ext_ack *extack)
{
	struct npo_port *port = npo_link_reporter_port(reporter);
	struct npo_link_snapshot snap;

	mutex_lock(&port->ndev->link_lock);
	npo_link_snapshot(port, NPO_EVENT_UNSPEC, &snap);
	mutex_unlock(&port->ndev->link_lock);
	npo_link_fmsg_put(fmsg, &snap);
	return 0;
}

static int npo_link_reporter_dump(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg, void *priv_ctx,
				  struct netlink_ext_ack *extack)
{
	struct npo_port *port = npo_link_reporter_port(reporter);
	struct npo_link_snapshot snap;

	/* Taken with a report, under the link lock: the report's snapshot. */
	if (priv_ctx) {
		npo_link_fmsg_put(fmsg, priv_ctx);
		return 0;
	}
	mutex_lock(&port->ndev->link_lock);
	npo_link_snapshot(port, NPO_EVENT_UNSPEC, &snap);
	mutex_unlock(&port->ndev->link_lock);
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

/* Back at full width and clean: the supervisor recovered it. */
static void npo_link_health_clean(struct npo_port *port)
{
	struct devlink_health_reporter *r = port->reporter;

	if (!port->reported || (port->status & NPO_PST_DEGRADED) ||
	    (port->status & NPO_PST_HIGH_BER))
		return;
	port->reported = false;
	devlink_health_reporter_recovery_done(r);
	devlink_health_reporter_state_update(r, DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
}

/**
 * npo_link_health_event() - tell the port's link reporter what happened
 * @port: the port, its cached state fresh.
 * @event: &enum npo_event.
 *
 * Context: process context, under &npo_dev.link_lock.
 */
void npo_link_health_event(struct npo_port *port, u32 event)
{
	struct devlink_health_reporter *r = port->reporter;
	struct npo_link_snapshot snap;
	char msg[96];

	lockdep_assert_held(&port->ndev->link_lock);
	if (!r)
		return;
	switch (event) {
	case NPO_EVENT_LINK_DOWN:
		if (!npo_link_down_is_fault(port->down_reason))
			return;
		snprintf(msg, sizeof(msg), "port %u: link down: %s",
			 port->index, npo_port_fail_name(port->down_reason));
		break;
	case NPO_EVENT_TRAIN_FAILED:
		/* A peer probed after us fails the first try: only if it lasts. */
		if (port->backoff_ms != NPO_BACKOFF_WARN_MS)
			return;
		snprintf(msg, sizeof(msg), "port %u: not trained: %s",
			 port->index,
			 npo_port_fail_name(FIELD_GET(NPO_PST_FAIL, port->status)));
		break;
	case NPO_EVENT_DEGRADED:
		snprintf(msg, sizeof(msg), "port %u: degraded to %s x%lu",
			 port->index,
			 npo_port_rate_name(FIELD_GET(NPO_PST_RATE, port->status)),
			 FIELD_GET(NPO_PST_WIDTH, port->status));
		break;
	case NPO_EVENT_ERR_THRESHOLD:
		snprintf(msg, sizeof(msg), "port %u: at risk: high BER on lanes 0x%x",
			 port->index, port->ber_lanes);
		break;
	case NPO_EVENT_LINK_UP:
	case NPO_EVENT_RECOVERED:
		npo_link_health_clean(port);
		return;
	default:
		return;
	}
	port->reported = true;
	npo_link_snapshot(port, event, &snap);
	devlink_health_report(r, msg, &snap);
}

/**
 * npo_link_health_create() - create the link reporters of the device's ports
 * @ndev: the device, its devlink ports registered.
 *
 * Return: 0 or a negative errno, with none left created.
 */
int npo_link_health_create(struct npo_dev *ndev)
{
	struct devlink_health_reporter *r;
	unsigned int i;

	for (i = 0; i < ndev->num_ports; i++) {
		r = devlink_port_health_reporter_create(&ndev->dl_ports[i],
							&npo_link_reporter_ops,
							0, &ndev->ports[i]);
		if (IS_ERR(r)) {
			npo_link_health_destroy(ndev);
			return PTR_ERR(r);
		}
		mutex_lock(&ndev->link_lock);
		ndev->ports[i].reporter = r;
		mutex_unlock(&ndev->link_lock);
	}
	return 0;
}

/**
 * npo_link_health_destroy() - destroy the link reporters
 * @ndev: the device.
 *
 * Links may still run: a report from them finds no reporter from here on.
 */
void npo_link_health_destroy(struct npo_dev *ndev)
{
	struct devlink_health_reporter *r;
	unsigned int i;

	for (i = 0; ndev->ports && i < ndev->num_ports; i++) {
		mutex_lock(&ndev->link_lock);
		r = ndev->ports[i].reporter;
		ndev->ports[i].reporter = NULL;
		mutex_unlock(&ndev->link_lock);
		if (!r)
			continue;
#ifdef NPO_HAVE_DEVLINK_PORT_REPORTER_DESTROY
		devlink_port_health_reporter_destroy(r);
#else
		devlink_health_reporter_destroy(r);
#endif
	}
}
