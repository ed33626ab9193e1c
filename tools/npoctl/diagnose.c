// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which end of a link is at fault (diagnose.h).
 *
 * Into this port, lane by lane: a lane that receives no light while the
 * far end's laser on it is lit is that lane's fibre or connector; a far
 * transmitter below its module's warning is the far end's; light below
 * this receiver's warning from a transmitter that is normal is loss on the
 * way in (fibre, connectors, dirt); enough light with a BER above the
 * warning is this receiver.  Out of this port the same, with the roles of
 * the two ends swapped and the far end's received power and BER from its
 * report, judged by this end's thresholds (the link runs at one rate).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diagnose.h"
#include "print.h"

static const char *const kinds[] = {
	[DIAG_NO_REPORT] = "no-report",
	[DIAG_STALE] = "stale-report",
	[DIAG_NO_LIMITS] = "no-thresholds",
	[DIAG_CABLE] = "cable",
	[DIAG_LANE_IN] = "lane",
	[DIAG_LANE_OUT] = "lane-out",
	[DIAG_FAR_TX] = "far-end-transmitter",
	[DIAG_NEAR_TX] = "near-end-transmitter",
	[DIAG_PATH_IN] = "path-loss-in",
	[DIAG_PATH_OUT] = "path-loss-out",
	[DIAG_NEAR_RX] = "near-end-receiver",
	[DIAG_FAR_RX] = "far-end-receiver",
};

const char *diag_kind_str(enum diag_kind k)
{
	return (unsigned int)k < sizeof(kinds) / sizeof(kinds[0]) && kinds[k] ?
	       kinds[k] : "unknown";
}

static void add(struct diag_result *out, enum diag_kind kind, uint32_t lanes,
		int worst, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add(struct diag_result *out, enum diag_kind kind, uint32_t lanes,
		int worst, const char *fmt, ...)
{
	struct diag_finding *f;
	va_list ap;

	if (out->n == DIAG_MAX_FINDINGS)
		return;
	f = &out->f[out->n++];
	f->kind = kind;
	f->lanes = lanes;
	f->worst = worst;
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
}

/* " (module NPO Optics NPO-OSFP-8X200G serial N...)", or "" unknown. */
static const char *module_text(const struct diag_module *m, char *buf,
			       size_t len)
{
	if (!m->vendor[0] && !m->serial[0])
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, " (module %s %s serial %s)", m->vendor, m->part,
			 m->serial);
	return buf;
}

/* One direction: from the sending end's transmitters to the receiving end. */
struct direction {
	const struct diag_end *tx_end, *rx_end;
	bool rx_is_near;
	/* Thresholds to judge the receiver by: always this end's lanes'. */
	const struct diag_end *limits;
};

static void judge_direction(const struct diag_input *in,
			    const struct direction *d, struct diag_result *out)
{
	const struct diag_module *txm = &d->tx_end->module;
	uint32_t dark = 0, weak_tx = 0, lossy = 0, noisy = 0, all = 0;
	int worst_weak = -1, worst_loss = -1, worst_noisy = -1, worst_dark = -1;
	double loss_sum_ok = 0, worst_loss_db = 0;
	unsigned int i, n, nok = 0;
	char ls[64], when[48] = "", txmod[80], rxmod[80];

	n = d->tx_end->nlanes < d->rx_end->nlanes ? d->tx_end->nlanes :
	    d->rx_end->nlanes;
	module_text(txm, txmod, sizeof(txmod));
	module_text(&d->rx_end->module, rxmod, sizeof(rxmod));
	/* With the link down the far end's figures are from before. */
	if (!in->link_up)
		snprintf(when, sizeof(when), " (%.1f s ago, before the link went down)",
			 in->far_age_ms / 1000.0);
	for (i = 0; i < n && i < 32; i++) {
		const struct diag_lane *t = &d->tx_end->lane[i];
		const struct diag_lane *r = &d->rx_end->lane[i];
		const struct diag_lane *lim = i < d->limits->nlanes ?
					      &d->limits->lane[i] : NULL;
		bool tx_weak = txm->known && t->tx_dbm < txm->tx_low_warn_dbm;
		double loss = t->tx_dbm - r->rx_dbm;

		all |= 1u << i;
		if (r->los) {
			/* A laser that is lit and light that does not arrive. */
			if (!txm->known || t->tx_dbm >= txm->tx_low_alarm_dbm) {
				if (worst_dark < 0)
					worst_dark = i;
				dark |= 1u << i;
				continue;
			}
		}
		/* A lane the link does not use may be dark on purpose. */
		if (in->link_up && !r->active)
			continue;
		if (tx_weak) {
			if (worst_weak < 0 || t->tx_dbm < d->tx_end->lane[worst_weak].tx_dbm)
				worst_weak = i;
			weak_tx |= 1u << i;
			continue;
		}
		if (!lim || !lim->has_limits)
			continue;
		if (r->rx_dbm < lim->rx_warn_dbm) {
			if (worst_loss < 0 || loss > worst_loss_db) {
				worst_loss = i;
				worst_loss_db = loss;
			}
			lossy |= 1u << i;
			continue;
		}
		loss_sum_ok += loss;
		nok++;
		if (r->ber > lim->ber_warn) {
			if (worst_noisy < 0 || r->ber > d->rx_end->lane[worst_noisy].ber)
				worst_noisy = i;
			noisy |= 1u << i;
		}
	}
	if (dark && dark == all)
		add(out, DIAG_CABLE, dark, worst_dark,
		    "no light on any lane into node %u/%u: the cable (cut, pulled, a connector out) or the transmitters of node %u/%u, which sent up to %.2f dBm%s",
		    d->rx_end->node, d->rx_end->port, d->tx_end->node,
		    d->tx_end->port, d->tx_end->lane[worst_dark].tx_dbm, when);
	else if (dark)
		add(out, d->rx_is_near ? DIAG_LANE_IN : DIAG_LANE_OUT, dark, worst_dark,
		    "%s: no light arrives at node %u/%u%s although node %u/%u transmits %.2f dBm on it%s: that lane's fibre or connector",
		    print_lanes_text(ls, sizeof(ls), dark), d->rx_end->node,
		    d->rx_end->port, rxmod, d->tx_end->node, d->tx_end->port,
		    d->tx_end->lane[worst_dark].tx_dbm, when);
	if (weak_tx)
		add(out, d->rx_is_near ? DIAG_FAR_TX : DIAG_NEAR_TX, weak_tx, worst_weak,
		    "%s transmitter: node %u/%u %s transmit%s down to %.2f dBm (lane %d), below its module's warning %.2f dBm%s",
		    d->rx_is_near ? "far-end" : "near-end", d->tx_end->node,
		    d->tx_end->port, print_lanes_text(ls, sizeof(ls), weak_tx),
		    weak_tx & (weak_tx - 1) ? "" : "s",
		    d->tx_end->lane[worst_weak].tx_dbm, worst_weak,
		    txm->tx_low_warn_dbm, txmod);
	if (lossy) {
		char normal[80] = "";

		if (nok)
			snprintf(normal, sizeof(normal), " where the other lanes lose %.1f dB",
				 loss_sum_ok / nok);
		add(out, d->rx_is_near ? DIAG_PATH_IN : DIAG_PATH_OUT, lossy, worst_loss,
		    "path loss %s this port, %s transmit %s: %s lose up to %.1f dB (lane %d: node %u/%u transmits %.2f dBm, node %u/%u receives %.2f dBm)%s: the fibre, a connector or dirt on the way",
		    d->rx_is_near ? "into" : "out of",
		    d->rx_is_near ? "far-end" : "near-end",
		    txm->known ? "normal" : "limits unknown",
		    print_lanes_text(ls, sizeof(ls), lossy), worst_loss_db, worst_loss,
		    d->tx_end->node, d->tx_end->port,
		    d->tx_end->lane[worst_loss].tx_dbm, d->rx_end->node,
		    d->rx_end->port, d->rx_end->lane[worst_loss].rx_dbm, normal);
	}
	if (noisy)
		add(out, d->rx_is_near ? DIAG_NEAR_RX : DIAG_FAR_RX, noisy, worst_noisy,
		    "%s receiver: node %u/%u %s receive%s enough light yet see BER up to %.1e (lane %d)%s",
		    d->rx_is_near ? "near-end" : "far-end", d->rx_end->node,
		    d->rx_end->port, print_lanes_text(ls, sizeof(ls), noisy),
		    noisy & (noisy - 1) ? "" : "s",
		    d->rx_end->lane[worst_noisy].ber, worst_noisy, rxmod);
}

/* Lanes of this end whose thresholds are not published: not judged. */
static void judge_limits(const struct diag_input *in, struct diag_result *out)
{
	uint32_t none = 0;
	unsigned int i;
	char ls[64];

	for (i = 0; i < in->near.nlanes && i < 32; i++)
		if (!in->near.lane[i].has_limits && !in->near.lane[i].los)
			none |= 1u << i;
	if (none)
		add(out, DIAG_NO_LIMITS, none, -1,
		    "node %u/%u %s: no thresholds published, so their received power and BER cannot be judged",
		    in->near.node, in->near.port,
		    print_lanes_text(ls, sizeof(ls), none));
}

void diag_judge(const struct diag_input *in, struct diag_result *out)
{
	struct direction into = {
		.tx_end = &in->far, .rx_end = &in->near, .rx_is_near = true,
		.limits = &in->near,
	};
	struct direction out_of = {
		.tx_end = &in->near, .rx_end = &in->far, .rx_is_near = false,
		.limits = &in->near,
	};

	memset(out, 0, sizeof(*out));
	judge_limits(in, out);
	if (!in->far_reported || !in->far.nlanes) {
		add(out, DIAG_NO_REPORT, 0, -1,
		    "no report from the far end of node %u/%u: its driver does not send them, or the link never came up",
		    in->near.node, in->near.port);
		return;
	}
	/* A report is only evidence about the cable it came over. */
	if (in->peer_known && (in->far.node != in->peer_node ||
			       in->far.port != in->peer_port)) {
		add(out, DIAG_STALE, 0, -1,
		    "the far end's last report came from node %u/%u, and node %u/%u is cabled to node %u/%u now: nothing to judge the far end by",
		    in->far.node, in->far.port, in->near.node, in->near.port,
		    in->peer_node, in->peer_port);
		return;
	}
	if (in->link_up && in->far_age_ms > DIAG_STALE_MS) {
		add(out, DIAG_STALE, 0, -1,
		    "the far end's last report is %.1f s old while the link is up: node %u/%u stopped sending them",
		    in->far_age_ms / 1000.0, in->far.node, in->far.port);
		return;
	}
	judge_direction(in, &into, out);
	judge_direction(in, &out_of, out);
}
