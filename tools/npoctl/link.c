// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl link and lane: link diagnostics and control over the npo generic
 * netlink family.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nl.h"
#include "npoctl.h"
#include "print.h"

static void link_usage(FILE *to)
{
	fprintf(to,
		"Usage: npoctl link [ show [ DEV/PORT ] ]\n"
		"       npoctl link set DEV/PORT [ up | down ] [ rate { 53G | 106G | 212G | any } ]\n"
		"                                [ width { 1 | 2 | 4 | 8 | 16 | any } ]\n"
		"                                [ plan { NODE/PORT | none } ]\n"
		"       npoctl link retrain DEV/PORT\n"
		"       npoctl link clear DEV/PORT\n"
		"       npoctl link test DEV/PORT [ time MS ]\n"
		"       npoctl link history DEV/PORT\n"
		"       npoctl link diagnose DEV/PORT\n"
		"       npoctl lane DEV/PORT\n"
		"       npoctl monitor\n"
		"where  DEV/PORT := npoN/P\n");
}

void link_print_speed(const char *key, uint32_t rate, uint32_t width)
{
	char buf[32];

	if (print_is_json()) {
		print_open_object(key);
		print_uint("rate_mbps", "", rate);
		print_uint("width", "", width);
		print_close_object();
		return;
	}
	if (rate)
		snprintf(buf, sizeof(buf), "%s x%u", npo_lane_rate_str(rate), width);
	else
		snprintf(buf, sizeof(buf), "-");
	print_string(NULL, "%-9s", buf);
}

/* Flags worth an operator's eye, shown without being asked for. */
void link_print_flags(uint32_t flags, bool admin_up)
{
	print_open_array("flags");
	if (flags & NPO_PORT_FLAG_DEGRADED)
		print_string(NULL, " %s", "DEGRADED");
	if (flags & NPO_PORT_FLAG_HIGH_BER)
		print_string(NULL, " %s", "HIGH-BER");
	if (flags & NPO_PORT_FLAG_AT_RISK)
		print_string(NULL, " %s", "AT-RISK");
	if (flags & NPO_PORT_FLAG_SELF_TEST_FAILED)
		print_string(NULL, " %s", "SELF-TEST-FAILED");
	if (flags & NPO_PORT_FLAG_MISWIRED)
		print_string(NULL, " %s", "MISWIRED");
	if (!admin_up)
		print_string(NULL, " %s", "ADMIN-DOWN");
	print_close_array();
}

/* A lane mask as "0-3,7" in text, as an array of lane numbers in JSON. */
void link_print_lanes(const char *key, const char *fmt, uint32_t mask)
{
	char text[64];
	unsigned int i;

	if (print_is_json()) {
		print_open_array(key);
		for (i = 0; i < 32; i++)
			if (mask & (1u << i))
				print_uint(NULL, "", i);
		print_close_array();
		return;
	}
	print_lanes_str(text, sizeof(text), mask);
	print_text(fmt, text);
}

/*
 * What the link watch says: in JSON whenever the driver watches the port,
 * in text only when the link is at risk (one line in the detail view).
 */
static void print_risk(struct nlattr **tb, bool detail)
{
	uint32_t lanes = get_u32(tb, NPO_ATTR_PORT_RISK_LANES, 0);

	if (!tb[NPO_ATTR_PORT_RISK_LANES] || (!lanes && !print_is_json()))
		return;
	print_open_object("risk");
	link_print_lanes("lanes", detail ? "  at risk              lanes %s" : "", lanes);
	print_string("reason", detail ? ": %s" : "",
		     npo_risk_str(get_u32(tb, NPO_ATTR_PORT_RISK_REASON, 0)));
	if (tb[NPO_ATTR_PORT_RISK_LANE])
		print_uint("worst_lane", detail ? " (worst lane %llu" : "",
			   get_u32(tb, NPO_ATTR_PORT_RISK_LANE, 0));
	if (tb[NPO_ATTR_PORT_RISK_ETA_S])
		print_uint("fails_in_s", detail ? ", failing in about %llu s" : "",
			   get_u32(tb, NPO_ATTR_PORT_RISK_ETA_S, 0));
	if (tb[NPO_ATTR_PORT_RISK_LANE])
		print_text(detail ? ")" : "");
	print_text(detail ? "\n" : "");
	print_close_object();
}

static void print_counters(struct nlattr *nest, bool detail)
{
	static const struct { int attr; const char *key; const char *label; } c[] = {
		{ NPO_ATTR_CNT_CRC_ERRORS, "crc_errors", "CRC errors" },
		{ NPO_ATTR_CNT_REPLAYS, "replays", "replays" },
		{ NPO_ATTR_CNT_RECOVERIES, "recoveries", "recoveries" },
		{ NPO_ATTR_CNT_LINK_DOWNS, "link_downs", "link downs" },
		{ NPO_ATTR_CNT_TRAIN_FAILURES, "train_failures", "training failures" },
		{ NPO_ATTR_CNT_FEC_CORRECTED, "fec_corrected", "FEC corrected" },
		{ NPO_ATTR_CNT_FEC_UNCORRECTABLE, "fec_uncorrectable", "FEC uncorrectable" },
		{ NPO_ATTR_CNT_SYMBOL_ERRORS, "symbol_errors", "symbol errors" },
		{ NPO_ATTR_CNT_TX_BYTES, "tx_bytes", "bytes sent" },
		{ NPO_ATTR_CNT_TX_FRAMES, "tx_frames", "frames sent" },
		{ NPO_ATTR_CNT_RX_BYTES, "rx_bytes", "bytes received" },
		{ NPO_ATTR_CNT_RX_FRAMES, "rx_frames", "frames received" },
	};
	struct nlattr *tb[NPO_ATTR_MAX + 1];
	unsigned int i;
	char fmt[64];

	if (!nest || nla_parse_nested(tb, NPO_ATTR_MAX, nest, NULL))
		return;
	print_open_object("counters");
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(fmt, sizeof(fmt), "  %-20s %%s\n", c[i].label);
		if (!detail)
			continue;
		if (tb[c[i].attr]) {
			snprintf(fmt, sizeof(fmt), "  %-20s %%llu\n", c[i].label);
			print_uint(c[i].key, fmt, nla_get_u64(tb[c[i].attr]));
		} else {
			/* Not counted by this device: never pretend it is 0. */
			snprintf(fmt, sizeof(fmt), "  %-20s %%s\n", c[i].label);
			print_string(c[i].key, fmt, "unsupported");
		}
	}
	print_close_object();
}

struct link_ctx {
	bool detail;
	int count;
};

static int on_port(struct nlattr **tb, UNUSED struct nlattr *attrs,
		   UNUSED int len, UNUSED uint8_t cmd, void *arg)
{
	struct link_ctx *ctx = arg;
	uint32_t flags = get_u32(tb, NPO_ATTR_PORT_FLAGS, 0);
	uint32_t state = get_u32(tb, NPO_ATTR_PORT_STATE, 0);
	bool admin_up = tb[NPO_ATTR_PORT_ADMIN_UP] ?
			nla_get_u8(tb[NPO_ATTR_PORT_ADMIN_UP]) : true;
	const char *dev = tb[NPO_ATTR_DEV_NAME] ?
			  nla_get_string(tb[NPO_ATTR_DEV_NAME]) : "?";
	char name[48], peer[32];

	ctx->count++;
	snprintf(name, sizeof(name), "%s/%u", dev,
		 get_u32(tb, NPO_ATTR_PORT_INDEX, 0));
	print_open_object(NULL);
	print_string("port", ctx->detail ? "%s:\n" : "%-8s", name);
	print_uint("node_id", ctx->detail ? "  node id              %llu\n" : "",
		   get_u32(tb, NPO_ATTR_DEV_NODE_ID, 0));
	print_string("state", ctx->detail ? "  state                %s\n" : "  %-9s",
		     npo_port_state_str(state));
	if (ctx->detail)
		print_text("  speed                ");
	else
		print_text("  ");
	link_print_speed("speed", get_u32(tb, NPO_ATTR_PORT_RATE, 0),
		    get_u32(tb, NPO_ATTR_PORT_WIDTH, 0));
	print_text(ctx->detail ? "\n  capable of           " : " / ");
	link_print_speed("max_speed", get_u32(tb, NPO_ATTR_PORT_MAX_RATE, 0),
		    get_u32(tb, NPO_ATTR_PORT_MAX_WIDTH, 0));
	if (tb[NPO_ATTR_PORT_PEER_NODE_ID]) {
		snprintf(peer, sizeof(peer), "node %u/%u",
			 nla_get_u32(tb[NPO_ATTR_PORT_PEER_NODE_ID]),
			 get_u32(tb, NPO_ATTR_PORT_PEER_PORT, 0));
		if (print_is_json()) {
			print_open_object("peer");
			print_uint("node_id", "", nla_get_u32(tb[NPO_ATTR_PORT_PEER_NODE_ID]));
			print_uint("port", "", get_u32(tb, NPO_ATTR_PORT_PEER_PORT, 0));
			print_close_object();
		} else {
			print_text(ctx->detail ? "\n  peer                 %s" : "  %-12s", peer);
		}
	} else {
		print_null("peer", ctx->detail ? "\n  peer                 %s" : "  %-12s");
	}
	/* The cabling plan's peer, when the driver was given one. */
	if (tb[NPO_ATTR_PORT_PLANNED_PEER_NODE]) {
		uint32_t pn = nla_get_u32(tb[NPO_ATTR_PORT_PLANNED_PEER_NODE]);
		uint32_t pp = get_u32(tb, NPO_ATTR_PORT_PLANNED_PEER_PORT, 0);

		if (print_is_json()) {
			print_open_object("planned_peer");
			print_uint("node_id", "", pn);
			print_uint("port", "", pp);
			print_close_object();
		} else if (ctx->detail) {
			print_text("\n  planned peer         node %u/%u", pn, pp);
		}
	} else {
		print_null("planned_peer", "");
	}
	print_uint("flaps", ctx->detail ? "\n  flaps                %llu\n" : "  %5llu",
		   get_u64(tb, NPO_ATTR_PORT_FLAPS));
	print_uint("time_in_state_ms",
		   ctx->detail ? "  in state for         %llu ms\n" : "",
		   get_u64(tb, NPO_ATTR_PORT_TIME_IN_STATE_MS));
	if (get_u32(tb, NPO_ATTR_PORT_REASON, 0) || print_is_json())
		print_string("last_failure",
			     ctx->detail ? "  last failure         %s\n" : "",
			     npo_link_reason_str(get_u32(tb, NPO_ATTR_PORT_REASON, 0)));
	print_bool("admin_up", ctx->detail ? "  admin up             %s\n" : "",
		   admin_up);
	if (get_u32(tb, NPO_ATTR_PORT_FAULT_LANES, 0) ||
	    (print_is_json() && tb[NPO_ATTR_PORT_FAULT_LANES]))
		link_print_lanes("failing_lanes",
			    ctx->detail ? "  failing lanes        %s\n" : "",
			    get_u32(tb, NPO_ATTR_PORT_FAULT_LANES, 0));
	if (get_u32(tb, NPO_ATTR_PORT_BER_LANES, 0) ||
	    (print_is_json() && tb[NPO_ATTR_PORT_BER_LANES]))
		link_print_lanes("high_ber_lanes",
			    ctx->detail ? "  high-BER lanes       %s\n" : "",
			    get_u32(tb, NPO_ATTR_PORT_BER_LANES, 0));
	print_risk(tb, ctx->detail);
	if (ctx->detail)
		print_text("  flags               ");
	link_print_flags(flags, admin_up);
	print_text("\n");
	print_counters(tb[NPO_ATTR_PORT_COUNTERS], ctx->detail || print_is_json());
	print_close_object();
	return 0;
}

static int port_target(struct nl_msg *msg, const char *arg)
{
	uint32_t dev, port;

	if (npo_parse_port(arg, &dev, &port)) {
		npoctl_err("'%s' is not DEV/PORT (npoN/P)", arg);
		return NPOCTL_EXIT_USAGE;
	}
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
	nla_put_u32(msg, NPO_ATTR_PORT_INDEX, port);
	return 0;
}


static int link_show(struct npo_nl *nl, const char *which)
{
	struct link_ctx ctx = { .detail = which != NULL };
	struct nl_msg *msg;
	int err;

	msg = npo_nl_msg(nl, NPO_CMD_PORT_GET, which ? 0 : NLM_F_DUMP);
	if (!msg)
		return NPOCTL_EXIT_ERROR;
	if (which && (err = port_target(msg, which))) {
		nlmsg_free(msg);
		return err;
	}
	if (!which)
		print_text("%-8s  %-9s  %-9s / %-9s  %-12s  %5s  %s\n", "PORT",
			   "STATE", "SPEED", "MAX", "PEER", "FLAPS", "FLAGS");
	print_open_array(NULL);
	err = npo_nl_request(nl, msg, on_port, &ctx);
	print_close_array();
	if (!err && !which && !ctx.count) {
		npoctl_err("no NPO link ports found");
		return NPOCTL_EXIT_ERROR;
	}
	return npo_nl_report(nl, err, which ? which : "link");
}

static int parse_rate(const char *s, uint32_t *mbps)
{
	if (!strcmp(s, "any"))
		*mbps = 0;
	else if (!strcasecmp(s, "53G"))
		*mbps = 53125;
	else if (!strcasecmp(s, "106G"))
		*mbps = 106250;
	else if (!strcasecmp(s, "212G"))
		*mbps = 212500;
	else
		return -1;
	return 0;
}

static int link_set(struct npo_nl *nl, int argc, char **argv)
{
	struct nl_msg *msg = npo_nl_msg(nl, NPO_CMD_PORT_SET, 0);
	int i, err;

	if (!msg)
		return NPOCTL_EXIT_ERROR;
	err = port_target(msg, argv[0]);
	for (i = 1; !err && i < argc; i++) {
		uint32_t v;
		char *end;

		if (!strcmp(argv[i], "up") || !strcmp(argv[i], "down")) {
			nla_put_u8(msg, NPO_ATTR_PORT_ADMIN_UP, argv[i][0] == 'u');
		} else if (!strcmp(argv[i], "rate") && i + 1 < argc &&
			   !parse_rate(argv[i + 1], &v)) {
			nla_put_u32(msg, NPO_ATTR_PORT_TARGET_RATE, v);
			i++;
		} else if (!strcmp(argv[i], "width") && i + 1 < argc) {
			i++;
			v = strcmp(argv[i], "any") ? strtoul(argv[i], &end, 10) : 0;
			if (strcmp(argv[i], "any") && (*end || end == argv[i])) {
				npoctl_err("bad width '%s'", argv[i]);
				err = NPOCTL_EXIT_USAGE;
			}
			nla_put_u32(msg, NPO_ATTR_PORT_TARGET_WIDTH, v);
		} else if (!strcmp(argv[i], "plan") && i + 1 < argc) {
			uint32_t node, port;

			i++;
			if (!strcmp(argv[i], "none")) {
				nla_put_flag(msg, NPO_ATTR_PORT_PLAN_CLEAR);
			} else if (npo_parse_node_port(argv[i], &node, &port)) {
				npoctl_err("bad planned peer '%s': NODE/PORT or none", argv[i]);
				err = NPOCTL_EXIT_USAGE;
			} else {
				nla_put_u32(msg, NPO_ATTR_PORT_PLANNED_PEER_NODE, node);
				nla_put_u32(msg, NPO_ATTR_PORT_PLANNED_PEER_PORT, port);
			}
		} else {
			npoctl_err("link set: bad argument '%s'", argv[i]);
			err = NPOCTL_EXIT_USAGE;
		}
	}
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return npo_nl_report(nl, npo_nl_request(nl, msg, NULL, NULL), argv[0]);
}

/* A message for cmd naming port which; NULL after saying why not. */
static struct nl_msg *port_msg(struct npo_nl *nl, uint8_t cmd,
			       const char *which, int *err)
{
	struct nl_msg *msg = npo_nl_msg(nl, cmd, 0);

	*err = NPOCTL_EXIT_ERROR;
	if (!msg)
		return NULL;
	*err = port_target(msg, which);
	if (*err) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* A request naming one port, its replies fed to fn (NULL: none expected). */
static int port_request(struct npo_nl *nl, uint8_t cmd, const char *which,
			npo_nl_handler fn)
{
	int err;
	struct nl_msg *msg = port_msg(nl, cmd, which, &err);

	if (!msg)
		return err;
	return npo_nl_report(nl, npo_nl_request(nl, msg, fn, NULL), which);
}

/*
 * A lane's thresholds and trends, in JSON only (the table stays narrow);
 * the text table flags a lane below its power warning instead.
 */
static void print_lane_limits(struct nlattr **lt)
{
	if (lt[NPO_ATTR_LANE_RX_LOW_WARN]) {
		print_double("rx_power_warn_dbm", "",
			     (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_LOW_WARN, 0) / 100.0);
		print_double("rx_power_alarm_dbm", "",
			     (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_LOW_ALARM, 0) / 100.0);
		print_double("ber_warn", "",
			     get_ber(lt, NPO_ATTR_LANE_BER_WARN));
		print_double("ber_alarm", "",
			     get_ber(lt, NPO_ATTR_LANE_BER_ALARM));
	}
	if (lt[NPO_ATTR_LANE_BER_TREND]) {
		/* Decades of BER per minute: positive is worsening. */
		print_double("ber_trend_decades_per_min", "",
			     -(int32_t)get_u32(lt, NPO_ATTR_LANE_BER_TREND, 0) / 100.0);
		print_double("rx_trend_db_per_min", "",
			     (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_TREND, 0) / 100.0);
	}
}

static bool lane_rx_low(struct nlattr **lt)
{
	return lt[NPO_ATTR_LANE_RX_LOW_WARN] &&
	       (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_POWER, 0) <
	       (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_LOW_WARN, 0);
}

static int on_lanes(UNUSED struct nlattr **tb, struct nlattr *attrs, int len,
		    uint8_t cmd, void *arg)
{
	bool test = cmd == NPO_CMD_PORT_TEST;
	const struct npo_prbs_counts *before = arg;
	struct npo_prbs_counts after = { 0 };
	struct nlattr *lane;
	int rem;

	if (test)
		npo_nl_on_prbs(NULL, attrs, len, cmd, &after);

	if (test)
		print_text("%-4s  %14s  %10s  %9s\n", "LANE", "BITS", "ERRORS", "BER");
	else
		print_text("%-4s  %8s  %8s  %7s  %6s  %8s  %9s  %6s  %12s  %10s  %10s  %s\n",
			   "LANE", "RX(dBm)", "TX(dBm)", "BIAS(mA)", "TEMP(C)",
			   "BER", "EYE(mV)", "PRESET", "FEC-CORR", "FEC-UNCORR",
			   "SYMBOL", "FLAGS");
	print_open_array(NULL);
	nla_for_each_attr(lane, attrs, len, rem) {
		struct nlattr *lt[NPO_ATTR_MAX + 1];
		uint32_t flags;

		if (nla_type(lane) != NPO_ATTR_LANE ||
		    nla_parse_nested(lt, NPO_ATTR_MAX, lane, NULL))
			continue;
		flags = get_u32(lt, NPO_ATTR_LANE_FLAGS, 0);
		print_open_object(NULL);
		print_uint("lane", "%-4llu", get_u32(lt, NPO_ATTR_LANE_INDEX, 0));
		if (test) {
			uint64_t bits, errs;

			npo_prbs_delta(before, &after,
				       get_u32(lt, NPO_ATTR_LANE_INDEX, 0), &bits, &errs);

			print_uint("prbs_bits", "  %14llu", bits);
			print_uint("prbs_errors", "  %10llu", errs);
			print_double("prbs_ber", "  %9.2e\n",
				     bits ? (double)errs / bits : 0);
			print_close_object();
			continue;
		}
		print_double("rx_power_dbm", "  %8.2f",
			     (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_POWER, 0) / 100.0);
		print_double("tx_power_dbm", "  %8.2f",
			     (int32_t)get_u32(lt, NPO_ATTR_LANE_TX_POWER, 0) / 100.0);
		print_double("bias_ma", "  %7.2f",
			     get_u32(lt, NPO_ATTR_LANE_BIAS, 0) / 100.0);
		print_double("temp_c", "  %6.1f",
			     (int32_t)get_u32(lt, NPO_ATTR_LANE_TEMP, 0) / 100.0);
		print_double("ber", "  %8.1e",
			     get_ber(lt, NPO_ATTR_LANE_BER));
		print_uint("eye_height_mv", "  %9llu",
			   get_u32(lt, NPO_ATTR_LANE_EYE_HEIGHT, 0));
		print_uint("preset", "  %6llu", get_u32(lt, NPO_ATTR_LANE_PRESET, 0));
		print_uint("fec_corrected", "  %12llu",
			   get_u64(lt, NPO_ATTR_LANE_FEC_CORRECTED));
		print_uint("fec_uncorrectable", "  %10llu",
			   get_u64(lt, NPO_ATTR_LANE_FEC_UNCORRECTABLE));
		if (lt[NPO_ATTR_LANE_SYMBOL_ERRORS])
			print_uint("symbol_errors", "  %10llu",
				   get_u64(lt, NPO_ATTR_LANE_SYMBOL_ERRORS));
		else
			print_string("symbol_errors", "  %10s", "unsupported");
		print_lane_limits(lt);
		print_open_array("flags");
		print_text(" ");
		if (flags & NPO_LANE_FLAG_ACTIVE)
			print_string(NULL, " %s", "active");
		if (flags & NPO_LANE_FLAG_LOS)
			print_string(NULL, " %s", "LOS");
		if (flags & NPO_LANE_FLAG_CDR_LOCK)
			print_string(NULL, " %s", "locked");
		if (lane_rx_low(lt))
			print_string(NULL, " %s", "RX-LOW");
		print_close_array();
		print_text("\n");
		print_close_object();
	}
	print_close_array();
	return 0;
}

/* The test's reply comes when it ends; show progress until then. */
static int link_test(struct npo_nl *nl, const char *which, uint32_t ms)
{
	struct npo_prbs_counts before = { 0 };
	struct timespec t0, t;
	struct nl_msg *msg;
	int err;

	msg = port_msg(nl, NPO_CMD_LANE_GET, which, &err);
	if (!msg)
		return err;
	err = npo_nl_request(nl, msg, npo_nl_on_prbs, &before);
	if (err)
		return npo_nl_report(nl, err, which);
	msg = port_msg(nl, NPO_CMD_PORT_TEST, which, &err);
	if (!msg)
		return err;
	nla_put_u32(msg, NPO_ATTR_TEST_DURATION_MS, ms);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!print_is_json() && isatty(STDERR_FILENO))
		fprintf(stderr, "%s: PRBS test for %u ms, link out of service\n",
			which, ms);
	if (npo_nl_send(nl, msg))
		return NPOCTL_EXIT_ERROR;
	for (;;) {
		struct pollfd pfd = { .fd = nl_socket_get_fd(nl->sk),
				      .events = POLLIN };
		double done;

		if (poll(&pfd, 1, 250) > 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		done = ((t.tv_sec - t0.tv_sec) * 1e3 +
			(t.tv_nsec - t0.tv_nsec) / 1e6) / ms;
		if (!print_is_json())
			fprintf(stderr, "\r%s: testing %3.0f%%", which,
				done > 1 ? 100 : done * 100);
	}
	if (!print_is_json())
		fprintf(stderr, "\r%s: done          \n", which);
	return npo_nl_report(nl, npo_nl_receive(nl, on_lanes, &before), which);
}

int cmd_link(int argc, char **argv)
{
	struct npo_nl nl;
	int ret;

	if (argc && matches(argv[0], "help")) {
		link_usage(stdout);
		return NPOCTL_EXIT_OK;
	}
	if (argc && matches(argv[0], "history"))
		return cmd_link_history(argc - 1, argv + 1);
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	if (argc == 0 || (matches(argv[0], "show") && argc <= 2))
		ret = link_show(&nl, argc == 2 ? argv[1] : NULL);
	else if (matches(argv[0], "set") && argc >= 3)
		ret = link_set(&nl, argc - 1, argv + 1);
	else if (matches(argv[0], "retrain") && argc == 2)
		ret = port_request(&nl, NPO_CMD_PORT_RETRAIN, argv[1], NULL);
	else if (matches(argv[0], "diagnose") && argc == 2)
		ret = link_diagnose(&nl, argv[1]);
	else if (matches(argv[0], "clear") && argc == 2)
		ret = port_request(&nl, NPO_CMD_PORT_CLEAR, argv[1], NULL);
	else if (matches(argv[0], "test") && (argc == 2 ||
		 (argc == 4 && !strcmp(argv[2], "time"))))
		ret = link_test(&nl, argv[1], argc == 4 ? strtoul(argv[3], NULL, 10) : 1000);
	else {
		npoctl_err("link: bad arguments");
		link_usage(stderr);
		ret = NPOCTL_EXIT_USAGE;
	}
	npo_nl_close(&nl);
	return ret;
}

int cmd_lane(int argc, char **argv)
{
	struct npo_nl nl;
	int ret;

	if (argc != 1 || matches(argv[0], "help")) {
		link_usage(argc == 1 ? stdout : stderr);
		return argc == 1 ? NPOCTL_EXIT_OK : NPOCTL_EXIT_USAGE;
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	ret = port_request(&nl, NPO_CMD_LANE_GET, argv[0], on_lanes);
	npo_nl_close(&nl);
	return ret;
}
