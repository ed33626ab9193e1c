// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO link watch: the early warning before a link fails.
 *
 * Every second the watch reads the lanes of each active link: received
 * power, pre-FEC BER and the thresholds the device publishes for them
 * (interface 1.9).  It keeps the last few readings and fits a line
 * through them.  A lane is at risk when its received power is below the
 * warning threshold, its BER is above the warning threshold, or its BER
 * trend will take it across the training threshold within
 * NPO_RISK_HORIZON_S.  A change in which lanes are at risk is reported as
 * NPO_EVENT_AT_RISK (log, netlink, devlink), naming the worst lane, why
 * and, where a trend says, when it is expected to fail.
 *
 * The readings are forgotten whenever the link goes down or retrains:
 * a trend spans one configuration of the link.  A reading taken while
 * that happened is dropped, and the port's status is read again
 * before each judgement, so that the watch never judges a link by a state
 * it has left.
 *
 * A lane's risk is sticky: high BER and low power clear only a margin
 * past their warning thresholds, and a trend must say so twice in a row
 * to raise a risk and stay clear of the horizon twice over to drop it, so
 * a noisy reading near a threshold does not make the port flap.
 */
#include <linux/math64.h>
#include <uapi/linux/npo_netlink.h>
#include <uapi/linux/npo_names.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_link.h"

#define NPO_WATCH_PERIOD_MS	1000
#define NPO_WATCH_SAMPLES	8
#define NPO_WATCH_MIN_SAMPLES	4
#define NPO_RISK_HORIZON_S	600
/* Slopes below this, per minute, are noise: 0.1 decade of BER, 0.1 dB. */
#define NPO_TREND_NOISE		10
/* A lane at risk for its power is clear 0.5 dB above the warning. */
#define NPO_RX_CLEAR_CDB	50
/* A lane at risk for its BER is clear 0.3 decade below the warning. */
#define NPO_BER_CLEAR		30
/* Readings in a row a trend must show before it raises a risk. */
#define NPO_TREND_PERSIST	2

/**
 * struct npo_port_watch - the last readings of one port's lanes
 * @count: readings kept, up to NPO_WATCH_SAMPLES.
 * @next: where the next one goes.
 * @at_ms: when each was taken, ms of the monotonic clock.
 * @ber: per reading and lane, -log10(BER) x 100.
 * @rx: per reading and lane, received power, 1/100 dBm.
 * @eye: per lane, the eye height of the last reading, mV.
 * @reason: per lane, the &enum npo_risk it was last judged at.
 * @trend_seen: per lane, readings in a row whose trend said "at risk".
 * @usable: per lane, how many of the last readings its trend is fitted
 *	through: a lane that recovers from a step (a BER or power fault that
 *	passed) starts a new trend rather than fit a line through the step.
 * @trends: the lanes' trends through the readings.
 * @gen: counts npo_link_watch_forget(); a reading taken across a change
 *	is not kept.
 * @judges_ber: the last reading had BER thresholds for an active lane, so
 *	the watch judges the BER (with its margins), not the device's
 *	HIGH_BER flag; a firmware that publishes none leaves it to the flag.
 *
 * Protected by &npo_dev.link_lock.
 */
struct npo_port_watch {
	unsigned int gen;
	bool judges_ber;
	unsigned int count;
	unsigned int next;
	s64 at_ms[NPO_WATCH_SAMPLES];
	s16 ber[NPO_WATCH_SAMPLES][NPO_MAX_LANES];
	s16 rx[NPO_WATCH_SAMPLES][NPO_MAX_LANES];
	u16 eye[NPO_MAX_LANES];
	u8 reason[NPO_MAX_LANES];
	u8 trend_seen[NPO_MAX_LANES];
	u8 usable[NPO_MAX_LANES];
	struct npo_lane_trends trends;
};

static const char * const npo_risk_names[] = NPO_RISK_NAMES;

/**
 * npo_risk_str() - what a &enum npo_risk means, for logs and devlink
 * @risk: the reason.
 *
 * Return: a constant string.
 */
const char *npo_risk_str(unsigned int risk)
{
	return risk < ARRAY_SIZE(npo_risk_names) ? npo_risk_names[risk] : "?";
}

/* Least-squares slope of a lane's last readings (@usable), per minute. */
static s32 npo_watch_slope(const struct npo_port_watch *w,
			   const s16 (*series)[NPO_MAX_LANES], unsigned int lane)
{
	s64 n = w->usable[lane], st = 0, sy = 0, stt = 0, sty = 0, den;
	s64 t0 = w->at_ms[(w->next + NPO_WATCH_SAMPLES - n) %
			  NPO_WATCH_SAMPLES];
	unsigned int k;

	for (k = 0; k < n; k++) {
		unsigned int j = (w->next + NPO_WATCH_SAMPLES - 1 - k) %
				 NPO_WATCH_SAMPLES;
		s64 t = w->at_ms[j] - t0, y = series[j][lane];

		st += t;
		sy += y;
		stt += t * t;
		sty += t * y;
	}
	den = n * stt - st * st;
	if (den <= 0)
		return 0;
	return (s32)div64_s64((n * sty - st * sy) * 60000, den);
}

/* Seconds until value, moving by slope per minute, falls to limit. */
static u32 npo_watch_eta(s32 value, s32 limit, s32 slope)
{
	if (slope > -NPO_TREND_NOISE)
		return U32_MAX;
	if (value <= limit)
		return 1;
	return max_t(u32, 1, (u32)div_s64((s64)(value - limit) * 60, -slope));
}

/* How telling a reason is, for the worst lane when their times tie. */
static unsigned int npo_risk_rank(u8 reason)
{
	switch (reason) {
	case NPO_RISK_RX_POWER:
		return 3;
	case NPO_RISK_HIGH_BER:
		return 2;
	case NPO_RISK_BER_TREND:
		return 1;
	}
	return 0;
}

/* Judge the port's lanes by the reading just taken and the trend. */
static void npo_watch_judge(struct npo_port *port,
			    const struct npo_hw_port_stats *st)
{
	struct npo_port_watch *w = port->watch;
	struct npo_dev *ndev = port->ndev;
	u32 lanes = 0, worst_eta = U32_MAX;
	u8 worst = 0, worst_reason = NPO_RISK_NONE;
	unsigned int i;

	w->trends.known = w->count >= NPO_WATCH_MIN_SAMPLES;
	w->judges_ber = false;
	for (i = 0; i < ndev->lanes_per_port; i++) {
		const struct npo_hw_lane_stats *l = &st->lane[i];
		s32 rx = (s16)le16_to_cpu(l->rx_power_cdbm);
		s32 ber = le16_to_cpu(l->ber_nlog_c);
		s32 rx_warn = (s16)le16_to_cpu(l->rx_low_warn_cdbm);
		s32 rx_alarm = (s16)le16_to_cpu(l->rx_low_alarm_cdbm);
		s32 ber_warn = le16_to_cpu(l->ber_warn_nlog_c);
		s32 ber_alarm = le16_to_cpu(l->ber_alarm_nlog_c);
		bool trends = w->usable[i] >= NPO_WATCH_MIN_SAMPLES;
		u8 reason = NPO_RISK_NONE, was;
		u32 eta = U32_MAX, ber_eta;

		w->trends.ber[i] = trends ? npo_watch_slope(w, w->ber, i) : 0;
		w->trends.rx[i] = trends ? npo_watch_slope(w, w->rx, i) : 0;
		was = w->reason[i];
		w->reason[i] = NPO_RISK_NONE;
		/* No thresholds (no firmware) or not carrying the link. */
		if (!ber_alarm || !(l->flags & NPO_HW_LANE_ACTIVE))
			continue;
		w->judges_ber = true;
		if (ber < ber_warn ||
		    (was == NPO_RISK_HIGH_BER && ber < ber_warn + NPO_BER_CLEAR))
			reason = NPO_RISK_HIGH_BER;
		/* Low power names the cause where a high BER is the symptom. */
		if (rx < rx_warn ||
		    (was == NPO_RISK_RX_POWER &&
		     rx < rx_warn + NPO_RX_CLEAR_CDB)) {
			reason = NPO_RISK_RX_POWER;
			if (trends)
				eta = npo_watch_eta(rx, rx_alarm,
						    w->trends.rx[i]);
		}
		/* Past a step: the readings before it are of another regime. */
		if (reason == NPO_RISK_NONE && (was == NPO_RISK_HIGH_BER ||
						was == NPO_RISK_RX_POWER)) {
			w->usable[i] = 1;
			w->trend_seen[i] = 0;
			w->trends.ber[i] = 0;
			w->trends.rx[i] = 0;
			trends = false;
		}
		ber_eta = trends ? npo_watch_eta(ber, ber_alarm,
						 w->trends.ber[i]) : U32_MAX;
		/* Raised after a few readings, dropped well past the horizon. */
		if (ber_eta <= NPO_RISK_HORIZON_S ||
		    (was == NPO_RISK_BER_TREND &&
		     ber_eta <= 2 * NPO_RISK_HORIZON_S)) {
			if (w->trend_seen[i] < NPO_TREND_PERSIST)
				w->trend_seen[i]++;
		} else {
			w->trend_seen[i] = 0;
		}
		if (w->trend_seen[i] >= NPO_TREND_PERSIST ||
		    (was == NPO_RISK_BER_TREND && w->trend_seen[i])) {
			if (reason == NPO_RISK_NONE)
				reason = NPO_RISK_BER_TREND;
			eta = min(eta, ber_eta);
		}
		if (reason == NPO_RISK_NONE)
			continue;
		w->reason[i] = reason;
		lanes |= BIT(i);
		if (worst_reason == NPO_RISK_NONE || eta < worst_eta ||
		    (eta == worst_eta &&
		     npo_risk_rank(reason) > npo_risk_rank(worst_reason))) {
			worst = i;
			worst_reason = reason;
			worst_eta = eta;
		}
	}
	port->risk.eta_s = worst_eta == U32_MAX ? 0 : worst_eta;
	if (lanes == port->risk.lanes && worst_reason == port->risk.reason &&
	    (!lanes || worst == port->risk.lane))
		return;
	port->risk.lanes = lanes;
	port->risk.reason = worst_reason;
	port->risk.lane = worst;
	npo_health_port_event(port, NPO_EVENT_AT_RISK);
}

/* Keep a reading of an active link's lanes, then judge them. */
static void npo_watch_take(struct npo_port *port,
			   const struct npo_hw_port_stats *st)
{
	struct npo_port_watch *w = port->watch;
	unsigned int i;

	w->at_ms[w->next] = ktime_to_ms(ktime_get());
	for (i = 0; i < port->ndev->lanes_per_port; i++) {
		w->ber[w->next][i] = le16_to_cpu(st->lane[i].ber_nlog_c);
		w->rx[w->next][i] = (s16)le16_to_cpu(st->lane[i].rx_power_cdbm);
		w->eye[i] = le16_to_cpu(st->lane[i].eye_height_mv);
		if (w->usable[i] < NPO_WATCH_SAMPLES)
			w->usable[i]++;
	}
	w->next = (w->next + 1) % NPO_WATCH_SAMPLES;
	w->count = min(w->count + 1, (unsigned int)NPO_WATCH_SAMPLES);
	npo_watch_judge(port, st);
}

static bool npo_port_active(const struct npo_port *port)
{
	return FIELD_GET(NPO_PST_STATE, READ_ONCE(port->status)) ==
	       NPO_HW_PORT_ACTIVE;
}

static void npo_link_watch_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(to_delayed_work(work),
					    struct npo_dev, link_watch_work);
	unsigned int i;

	for (i = 0; i < ndev->num_ports; i++) {
		struct npo_port *port = &ndev->ports[i];
		struct npo_hw_port_stats *st;
		unsigned int gen;
		bool running, taken;

		mutex_lock(&ndev->link_lock);
		gen = port->watch->gen;
		running = ndev->link_running;
		mutex_unlock(&ndev->link_lock);
		/*
		 * A device being stopped or restarted answers no command
		 * (bus mastering is off): each would wait out the mailbox
		 * timeout, and the restart waits for this work.
		 */
		if (!running || npo_state(ndev) != NPO_DEV_STATE_READY)
			break;
		if (!npo_port_active(port))
			continue;
		/* Not under the link lock: the mailbox may take seconds. */
		st = npo_port_read_stats(port, false);
		if (IS_ERR(st))
			continue;
		mutex_lock(&ndev->link_lock);
		/*
		 * The status the interrupt work last read may be older than
		 * the reading: the device clears HIGH_BER without an event.
		 */
		if (ndev->link_running)
			npo_port_refresh(port);
		taken = ndev->link_running && npo_port_active(port) &&
			port->watch->gen == gen;
		if (taken)
			npo_watch_take(port, st);
		mutex_unlock(&ndev->link_lock);
		/* The far end hears what this end sees: npo_link_diag.c. */
		if (taken)
			npo_link_diag_send(port, st);
		kfree(st);
	}
	mutex_lock(&ndev->link_lock);
	if (ndev->link_running)
		queue_delayed_work(system_wq, &ndev->link_watch_work,
				   msecs_to_jiffies(NPO_WATCH_PERIOD_MS));
	mutex_unlock(&ndev->link_lock);
}

static bool npo_link_watched(const struct npo_dev *ndev)
{
	return FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
	       NPO_IF_MINOR_LANE_LIMITS;
}

/**
 * npo_link_watch_early_init() - initialise what npo_link_watch_fini() uses
 * @ndev: the device, just allocated.
 */
void npo_link_watch_early_init(struct npo_dev *ndev)
{
	INIT_DELAYED_WORK(&ndev->link_watch_work, npo_link_watch_work);
}

/**
 * npo_link_watch_init() - prepare the watch of the device's links
 * @ndev: the device, its ports allocated.
 *
 * Return: 0 or -ENOMEM.
 */
int npo_link_watch_init(struct npo_dev *ndev)
{
	unsigned int i;

	if (!npo_link_watched(ndev))
		return 0;
	for (i = 0; i < ndev->num_ports; i++) {
		ndev->ports[i].watch = kzalloc(sizeof(*ndev->ports[i].watch),
					       GFP_KERNEL);
		if (!ndev->ports[i].watch)
			return -ENOMEM;
	}
	return 0;
}

/**
 * npo_link_watch_start() - start watching
 * @ndev: the device, its links just started.
 *
 * Context: under &npo_dev.link_lock.
 */
void npo_link_watch_start(struct npo_dev *ndev)
{
	lockdep_assert_held(&ndev->link_lock);
	/* Watched if npo_link_watch_init() gave the ports their readings. */
	if (ndev->num_ports && ndev->ports[0].watch)
		queue_delayed_work(system_wq, &ndev->link_watch_work,
				   msecs_to_jiffies(NPO_WATCH_PERIOD_MS));
}

/**
 * npo_link_watch_forget() - forget a port's readings and risk
 * @port: the port, whose link went down or retrains.
 *
 * Context: under &npo_dev.link_lock.
 */
void npo_link_watch_forget(struct npo_port *port)
{
	unsigned int gen;

	lockdep_assert_held(&port->ndev->link_lock);
	npo_link_diag_forget(port);
	if (!port->watch)
		return;
	gen = port->watch->gen;
	memset(port->watch, 0, sizeof(*port->watch));
	port->watch->gen = gen + 1;
	port->risk.lanes = 0;
	port->risk.reason = NPO_RISK_NONE;
	port->risk.eta_s = 0;
}

/**
 * npo_link_watch_judges_ber() - whether the watch, not HIGH_BER, judges BER
 * @port: the port.
 *
 * Context: under &npo_dev.link_lock.
 * Return: true if the port's last reading had BER thresholds to judge by.
 */
bool npo_link_watch_judges_ber(const struct npo_port *port)
{
	lockdep_assert_held(&port->ndev->link_lock);
	return port->watch && port->watch->judges_ber;
}

/**
 * npo_link_watch_trends() - copy what the watch says of a port's lanes
 * @port: the port.
 * @out: the trends; not known if the port is not watched.
 *
 * Context: under &npo_dev.link_lock.
 */
void npo_link_watch_trends(struct npo_port *port, struct npo_lane_trends *out)
{
	lockdep_assert_held(&port->ndev->link_lock);
	if (port->watch)
		*out = port->watch->trends;
	else
		out->known = false;
}

/**
 * npo_link_watch_last() - the watch's last reading of a port's lanes
 * @port: the port, whose link just went down (before its readings are
 *	forgotten).
 * @down: its flight record: the lanes, if the watch has read them.
 *
 * Context: under &npo_dev.link_lock.
 */
void npo_link_watch_last(struct npo_port *port, struct npo_port_down *down)
{
	struct npo_port_watch *w = port->watch;
	unsigned int last, i;

	lockdep_assert_held(&port->ndev->link_lock);
	down->lanes_known = w && w->count;
	if (!down->lanes_known)
		return;
	last = (w->next + NPO_WATCH_SAMPLES - 1) % NPO_WATCH_SAMPLES;
	down->lanes_age_ms = ktime_to_ms(ktime_get()) - w->at_ms[last];
	for (i = 0; i < port->ndev->lanes_per_port; i++) {
		down->ber[i] = w->ber[last][i];
		down->rx[i] = w->rx[last][i];
		down->eye[i] = w->eye[i];
	}
}

/**
 * npo_link_watch_fini() - free what npo_link_watch_init() allocated
 * @ndev: the device, its links stopped.
 */
void npo_link_watch_fini(struct npo_dev *ndev)
{
	unsigned int i;

	cancel_delayed_work_sync(&ndev->link_watch_work);
	for (i = 0; ndev->ports && i < ndev->num_ports; i++) {
		kfree(ndev->ports[i].watch);
		ndev->ports[i].watch = NULL;
	}
}
