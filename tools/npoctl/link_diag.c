// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl link diagnose DEV/PORT: this end's lanes (NPO_CMD_LANE_GET) and
 * the far end's last report (NPO_CMD_PORT_DIAG_GET) side by side, and
 * which end is at fault (diagnose.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diagnose.h"
#include "nl.h"
#include "npoctl.h"
#include "print.h"

struct diag_ctx {
	struct diag_input in;
	bool port_seen;
};

static double cdbm(struct nlattr **tb, int attr)
{
	return (int32_t)get_u32(tb, attr, 0) / 100.0;
}

static void parse_module(struct nlattr *nest, struct diag_module *m)
{
	struct nlattr *tb[NPO_ATTR_MAX + 1];

	if (!nest || nla_parse_nested(tb, NPO_ATTR_MAX, nest, NULL))
		return;
	m->known = tb[NPO_ATTR_MODULE_TX_LOW_WARN] && tb[NPO_ATTR_MODULE_TX_LOW_ALARM];
	snprintf(m->vendor, sizeof(m->vendor), "%s", tb[NPO_ATTR_MODULE_VENDOR] ?
		 nla_get_string(tb[NPO_ATTR_MODULE_VENDOR]) : "");
	snprintf(m->part, sizeof(m->part), "%s", tb[NPO_ATTR_MODULE_PART] ?
		 nla_get_string(tb[NPO_ATTR_MODULE_PART]) : "");
	snprintf(m->serial, sizeof(m->serial), "%s", tb[NPO_ATTR_MODULE_SERIAL] ?
		 nla_get_string(tb[NPO_ATTR_MODULE_SERIAL]) : "");
	m->tx_low_warn_dbm = cdbm(tb, NPO_ATTR_MODULE_TX_LOW_WARN);
	m->tx_low_alarm_dbm = cdbm(tb, NPO_ATTR_MODULE_TX_LOW_ALARM);
	m->tx_high_warn_dbm = cdbm(tb, NPO_ATTR_MODULE_TX_HIGH_WARN);
	m->tx_high_alarm_dbm = cdbm(tb, NPO_ATTR_MODULE_TX_HIGH_ALARM);
	m->has_own_limits = tb[NPO_ATTR_MODULE_TEMP_HIGH_ALARM] &&
			    tb[NPO_ATTR_MODULE_BIAS_HIGH_ALARM];
	/* 1/100 degC and 1/100 mA, as the powers' 1/100 dBm. */
	m->temp_high_warn_c = cdbm(tb, NPO_ATTR_MODULE_TEMP_HIGH_WARN);
	m->temp_high_alarm_c = cdbm(tb, NPO_ATTR_MODULE_TEMP_HIGH_ALARM);
	m->bias_high_warn_ma = get_u32(tb, NPO_ATTR_MODULE_BIAS_HIGH_WARN, 0) / 100.0;
	m->bias_high_alarm_ma = get_u32(tb, NPO_ATTR_MODULE_BIAS_HIGH_ALARM, 0) / 100.0;
}

/* NPO_ATTR_LANE nests into end's lanes, by index. */
static void parse_lanes(struct nlattr *attrs, int len, struct diag_end *e,
			bool own)
{
	struct nlattr *lane;
	int rem;

	nla_for_each_attr(lane, attrs, len, rem) {
		struct nlattr *lt[NPO_ATTR_MAX + 1];
		struct diag_lane *l;
		uint32_t i;

		if (nla_type(lane) != NPO_ATTR_LANE ||
		    nla_parse_nested(lt, NPO_ATTR_MAX, lane, NULL))
			continue;
		i = get_u32(lt, NPO_ATTR_LANE_INDEX, DIAG_MAX_LANES);
		if (i >= DIAG_MAX_LANES)
			continue;
		l = &e->lane[i];
		if (i >= e->nlanes)
			e->nlanes = i + 1;
		l->los = get_u32(lt, NPO_ATTR_LANE_FLAGS, 0) & NPO_LANE_FLAG_LOS;
		l->active = get_u32(lt, NPO_ATTR_LANE_FLAGS, 0) & NPO_LANE_FLAG_ACTIVE;
		l->tx_dbm = cdbm(lt, NPO_ATTR_LANE_TX_POWER);
		l->rx_dbm = cdbm(lt, NPO_ATTR_LANE_RX_POWER);
		l->ber = get_ber(lt, NPO_ATTR_LANE_BER);
		if (!own || !lt[NPO_ATTR_LANE_RX_LOW_WARN] ||
		    !get_u32(lt, NPO_ATTR_LANE_BER_WARN, 0))
			continue;
		l->has_limits = true;
		l->rx_warn_dbm = cdbm(lt, NPO_ATTR_LANE_RX_LOW_WARN);
		l->rx_alarm_dbm = cdbm(lt, NPO_ATTR_LANE_RX_LOW_ALARM);
		l->ber_warn = get_ber(lt, NPO_ATTR_LANE_BER_WARN);
	}
}

static int on_reply(struct nlattr **tb, struct nlattr *attrs, int len,
		    uint8_t cmd, void *arg)
{
	struct diag_ctx *c = arg;
	struct diag_input *in = &c->in;

	switch (cmd) {
	case NPO_CMD_PORT_GET:
		c->port_seen = true;
		in->near.node = get_u32(tb, NPO_ATTR_DEV_NODE_ID, 0);
		in->near.port = get_u32(tb, NPO_ATTR_PORT_INDEX, 0);
		in->link_up = get_u32(tb, NPO_ATTR_PORT_STATE, 0) == NPO_PORT_ACTIVE;
		in->peer_known = tb[NPO_ATTR_PORT_PEER_NODE_ID];
		in->peer_node = get_u32(tb, NPO_ATTR_PORT_PEER_NODE_ID, 0);
		in->peer_port = get_u32(tb, NPO_ATTR_PORT_PEER_PORT, 0);
		break;
	case NPO_CMD_LANE_GET:
		parse_lanes(attrs, len, &in->near, true);
		break;
	case NPO_CMD_PORT_DIAG_GET:
		parse_module(tb[NPO_ATTR_MODULE], &in->near.module);
		if (tb[NPO_ATTR_PEER_DIAG]) {
			struct nlattr *pt[NPO_ATTR_MAX + 1];
			struct nlattr *peer = tb[NPO_ATTR_PEER_DIAG];

			if (nla_parse_nested(pt, NPO_ATTR_MAX, peer, NULL))
				break;
			in->far_reported = true;
			in->far_age_ms = get_u32(pt, NPO_ATTR_PEER_DIAG_AGE_MS, 0);
			in->far.node = get_u32(pt, NPO_ATTR_PORT_PEER_NODE_ID, 0);
			in->far.port = get_u32(pt, NPO_ATTR_PORT_PEER_PORT, 0);
			parse_module(pt[NPO_ATTR_MODULE], &in->far.module);
			parse_lanes(nla_data(peer), nla_len(peer), &in->far, false);
		}
		break;
	}
	return 0;
}

static int request(struct npo_nl *nl, uint8_t cmd, uint32_t dev, uint32_t port,
		   struct diag_ctx *c)
{
	struct nl_msg *msg = npo_nl_msg(nl, cmd, 0);

	if (!msg)
		return -ENOMEM;
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
	nla_put_u32(msg, NPO_ATTR_PORT_INDEX, port);
	return npo_nl_request(nl, msg, on_reply, c);
}

static void print_diag_end(const char *key, const struct diag_end *e)
{
	const struct diag_module *m = &e->module;

	print_open_object(key);
	print_uint("node_id", "node %llu", e->node);
	print_uint("port", "/%llu", e->port);
	if (m->vendor[0]) {
		print_open_object("module");
		print_string("vendor", " (%s", m->vendor);
		print_string("part", " %s", m->part);
		print_string("serial", " serial %s)", m->serial);
		if (m->known) {
			print_double("tx_low_warn_dbm", "", m->tx_low_warn_dbm);
			print_double("tx_low_alarm_dbm", "", m->tx_low_alarm_dbm);
			print_double("tx_high_warn_dbm", "", m->tx_high_warn_dbm);
			print_double("tx_high_alarm_dbm", "", m->tx_high_alarm_dbm);
		}
		if (m->has_own_limits) {
			print_double("temp_high_warn_c", "", m->temp_high_warn_c);
			print_double("temp_high_alarm_c", "", m->temp_high_alarm_c);
			print_double("bias_high_warn_ma", "", m->bias_high_warn_ma);
			print_double("bias_high_alarm_ma", "", m->bias_high_alarm_ma);
		}
		print_close_object();
	}
	print_close_object();
}

static void print_lanes(const struct diag_input *in)
{
	unsigned int i, n = in->near.nlanes;

	print_text("%-4s  %12s  %12s  %8s  %12s  %12s  %8s  %9s  %9s\n", "LANE",
		   "FAR-TX(dBm)", "NEAR-RX(dBm)", "LOSS(dB)", "NEAR-TX(dBm)",
		   "FAR-RX(dBm)", "LOSS(dB)", "NEAR-BER", "FAR-BER");
	print_open_array("lanes");
	for (i = 0; i < n; i++) {
		const struct diag_lane *nl = &in->near.lane[i];
		const struct diag_lane *fl = i < in->far.nlanes ? &in->far.lane[i] : NULL;

		print_open_object(NULL);
		print_uint("lane", "%-4llu", i);
		if (fl) {
			print_double("far_tx_dbm", "  %12.2f", fl->tx_dbm);
			print_double("near_rx_dbm", "  %12.2f", nl->rx_dbm);
			print_double("loss_in_db", "  %8.2f", fl->tx_dbm - nl->rx_dbm);
			print_double("near_tx_dbm", "  %12.2f", nl->tx_dbm);
			print_double("far_rx_dbm", "  %12.2f", fl->rx_dbm);
			print_double("loss_out_db", "  %8.2f", nl->tx_dbm - fl->rx_dbm);
		} else {
			print_null("far_tx_dbm", "  %12s");
			print_double("near_rx_dbm", "  %12.2f", nl->rx_dbm);
			print_null("loss_in_db", "  %8s");
			print_double("near_tx_dbm", "  %12.2f", nl->tx_dbm);
			print_null("far_rx_dbm", "  %12s");
			print_null("loss_out_db", "  %8s");
		}
		print_double("near_ber", "  %9.1e", nl->ber);
		if (fl)
			print_double("far_ber", "  %9.1e", fl->ber);
		else
			print_null("far_ber", "  %9s");
		print_bool("near_los", nl->los ? "  LOS" : "", nl->los);
		print_text("\n");
		print_close_object();
	}
	print_close_array();
}

int link_diagnose(struct npo_nl *nl, const char *which)
{
	struct diag_ctx c = { 0 };
	struct diag_result res;
	uint32_t dev, port;
	unsigned int i;
	int err;

	if (npo_parse_port(which, &dev, &port)) {
		npoctl_err("'%s' is not DEV/PORT (npoN/P)", which);
		return NPOCTL_EXIT_USAGE;
	}
	err = request(nl, NPO_CMD_PORT_GET, dev, port, &c);
	if (!err)
		err = request(nl, NPO_CMD_LANE_GET, dev, port, &c);
	if (!err)
		err = request(nl, NPO_CMD_PORT_DIAG_GET, dev, port, &c);
	if (err)
		return npo_nl_report(nl, err, which);
	diag_judge(&c.in, &res);

	print_open_object(NULL);
	print_string("port", "%s: ", which);
	print_diag_end("near", &c.in.near);
	print_text(" -- ");
	if (c.in.far_reported) {
		print_diag_end("far", &c.in.far);
		print_uint("report_age_ms", ", its report %llu ms old", c.in.far_age_ms);
	} else {
		print_null("far", "%s");
	}
	print_bool("link_up", c.in.link_up ? "\n" : ", link down\n", c.in.link_up);
	print_open_array("findings");
	for (i = 0; i < res.n; i++) {
		print_open_object(NULL);
		print_string("kind", NULL, diag_kind_str(res.f[i].kind));
		if (res.f[i].worst >= 0)
			print_uint("lane", "", res.f[i].worst);
		print_string("text", "%s\n", res.f[i].text);
		print_close_object();
	}
	print_close_array();
	if (!res.n)
		print_text("both directions healthy\n");
	print_lanes(&c.in);
	print_close_object();
	return res.n ? NPOCTL_EXIT_UNHEALTHY : NPOCTL_EXIT_OK;
}
