// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl monitor and events: what the devices report, as it happens
 * (the netlink events group) and after the fact (each device's history).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl.h"
#include "npoctl.h"
#include "print.h"

/*
 * A refused remote request: who asked, in which job, and, where this
 * device's queue asked, which process owns it and whether it is throttled.
 */
static void refusal_print(struct nlattr **tb, const char *dev)
{
	bool requester = get_u32(tb, NPO_ATTR_REFUSAL_SIDE, 0) ==
			 NPO_REFUSAL_SIDE_REQUESTER;
	uint32_t queue = get_u32(tb, NPO_ATTR_QUEUE_ID, 0);
	uint32_t peer = get_u32(tb, NPO_ATTR_REFUSAL_PEER_NODE, 0);

	print_string("device", "%s", dev);
	print_uint("node", " (node %llu): ", get_u32(tb, NPO_ATTR_DEV_NODE_ID, 0));
	print_string("event", "%s", npo_event_str(NPO_EVENT_REFUSED));
	print_string("side", "", requester ? "requester" : "target");
	print_uint("count", " %llu", get_u32(tb, NPO_ATTR_REFUSAL_COUNT, 0));
	if (requester) {
		print_uint("queue", " of queue %llu", queue);
		print_uint("peer_node", " to node %llu", peer);
	} else {
		print_uint("peer_node", " from node %llu", peer);
		print_uint("queue", " queue %llu", queue);
	}
	/* Only CAP_NET_ADMIN sees the job and owner (uapi.rst). */
	if (tb[NPO_ATTR_JOB] && print_is_json())
		print_uint("job", "", get_u32(tb, NPO_ATTR_JOB, 0));
	else if (tb[NPO_ATTR_JOB])
		print_text(", job 0x%08x", get_u32(tb, NPO_ATTR_JOB, 0));
	print_string("status", " (%s)", npo_status_str(
		     get_u32(tb, NPO_ATTR_REFUSAL_STATUS, 0)));
	if (tb[NPO_ATTR_OWNER_PID]) {
		print_uint("pid", ": pid %llu", get_u32(tb, NPO_ATTR_OWNER_PID, 0));
		print_string("comm", " %s", tb[NPO_ATTR_OWNER_COMM] ?
			     nla_get_string(tb[NPO_ATTR_OWNER_COMM]) : "?");
		print_uint("uid", " uid %llu", get_u32(tb, NPO_ATTR_OWNER_UID, 0));
		print_uint("throttle_ms", ", new queues delayed %llu ms",
			   get_u32(tb, NPO_ATTR_THROTTLE_MS, 0));
	}
}

/* An at-risk event names the worst lane, why and when; or that it is over. */
static void print_event_risk(struct nlattr **tb)
{
	uint32_t lanes = get_u32(tb, NPO_ATTR_PORT_RISK_LANES, 0);

	link_print_lanes("lanes", " lanes %s", lanes);
	if (!lanes) {
		print_string("reason", " (%s)", "over");
		return;
	}
	print_uint("lane", " (lane %llu", get_u32(tb, NPO_ATTR_PORT_RISK_LANE, 0));
	print_string("reason", ": %s",
		     npo_risk_str(get_u32(tb, NPO_ATTR_PORT_RISK_REASON, 0)));
	if (tb[NPO_ATTR_PORT_RISK_ETA_S])
		print_uint("fails_in_s", ", failing in about %llu s",
			   get_u32(tb, NPO_ATTR_PORT_RISK_ETA_S, 0));
	print_text(")");
}

/* The device put a queue in error: whose, and the work that failed. */
static void queue_error_print(struct nlattr **tb, const char *dev)
{
	print_string("device", "%s", dev);
	print_uint("node", " (node %llu): ", get_u32(tb, NPO_ATTR_DEV_NODE_ID, 0));
	print_string("event", "%s", npo_event_str(NPO_EVENT_QUEUE_ERROR));
	print_uint("queue", " queue %llu", get_u32(tb, NPO_ATTR_QUEUE_ID, 0));
	if (tb[NPO_ATTR_OWNER_PID]) {
		print_uint("pid", " (pid %llu", get_u32(tb, NPO_ATTR_OWNER_PID, 0));
		print_string("comm", " %s", tb[NPO_ATTR_OWNER_COMM] ?
			     nla_get_string(tb[NPO_ATTR_OWNER_COMM]) : "?");
		print_uint("uid", " uid %llu", get_u32(tb, NPO_ATTR_OWNER_UID, 0));
		print_uint("pd", " pd %llu", get_u32(tb, NPO_ATTR_PD, 0));
		if (print_is_json())
			print_uint("job", "", get_u32(tb, NPO_ATTR_JOB, 0));
		else
			print_text(" job 0x%08x)", get_u32(tb, NPO_ATTR_JOB, 0));
	}
	print_text(":");
	queue_print_error(tb);
}

/* A device failed or came back. */
static void device_print(struct nlattr **tb, const char *dev)
{
	uint32_t fault = get_u32(tb, NPO_ATTR_DEV_FAULT, 0);

	print_string("device", "%s", dev);
	print_uint("node", " (node %llu): ", get_u32(tb, NPO_ATTR_DEV_NODE_ID, 0));
	print_string("event", "%s", npo_event_str(NPO_EVENT_DEVICE));
	print_string("state", " state %s",
		     npo_state_str(get_u32(tb, NPO_ATTR_DEV_STATE, 0)));
	if (fault || print_is_json())
		print_string("fault", " (%s)", npo_dev_fault_str(fault));
}

/*
 * The device's routes moved: how many, then each listed destination with
 * its port and hops now ("unreachable" if none) and before.
 */
static void reroute_print(struct nlattr **tb, struct nlattr *attrs, int len,
			  const char *dev)
{
	struct nlattr *route;
	int rem;

	print_string("device", "%s", dev);
	print_uint("node", " (node %llu): ", get_u32(tb, NPO_ATTR_DEV_NODE_ID, 0));
	print_string("event", "%s", npo_event_str(NPO_EVENT_REROUTE));
	print_uint("moved", " %llu destinations moved:",
		   get_u32(tb, NPO_ATTR_ROUTE_MOVED, 0));
	print_open_array("routes");
	nla_for_each_attr(route, attrs, len, rem) {
		struct nlattr *rt[NPO_ATTR_MAX + 1];

		if (nla_type(route) != NPO_ATTR_ROUTE ||
		    nla_parse_nested(rt, NPO_ATTR_MAX, route, NULL))
			continue;
		print_open_object(NULL);
		print_uint("dest_node", " node %llu", get_u32(rt, NPO_ATTR_ROUTE_DEST_NODE, 0));
		if (rt[NPO_ATTR_ROUTE_PORT]) {
			print_uint("port", " port %llu", nla_get_u32(rt[NPO_ATTR_ROUTE_PORT]));
			print_uint("hops", " (%llu hops,", get_u32(rt, NPO_ATTR_ROUTE_HOPS, 0));
		} else {
			print_null("port", "");
			print_text(" unreachable (");
		}
		print_uint("old_port", tb[NPO_ATTR_ROUTE_PORT] ? " was port %llu" :
			   "was port %llu", get_u32(rt, NPO_ATTR_ROUTE_OLD_PORT, 0));
		print_uint("old_hops", ", %llu hops)", get_u32(rt, NPO_ATTR_ROUTE_OLD_HOPS, 0));
		print_close_object();
	}
	print_close_array();
}

/* A port's event: its state after, the peer, the reason, the lanes. */
static void port_event_print(struct nlattr **tb, const char *dev, uint32_t ev)
{
	char name[48];

	snprintf(name, sizeof(name), "%s/%u", dev,
		 get_u32(tb, NPO_ATTR_PORT_INDEX, 0));
	print_string("port", "%s: ", name);
	print_string("event", "%s", npo_event_str(ev));
	print_string("state", " state %s", npo_port_state_str(
		     get_u32(tb, NPO_ATTR_PORT_STATE, 0)));
	print_text(" ");
	link_print_speed("speed", get_u32(tb, NPO_ATTR_PORT_RATE, 0),
			 get_u32(tb, NPO_ATTR_PORT_WIDTH, 0));
	if (tb[NPO_ATTR_PORT_PEER_NODE_ID]) {
		print_uint("peer_node_id", " peer node %llu",
			   nla_get_u32(tb[NPO_ATTR_PORT_PEER_NODE_ID]));
		print_uint("peer_port", "/%llu", get_u32(tb, NPO_ATTR_PORT_PEER_PORT, 0));
	}
	if (ev == NPO_EVENT_LINK_DOWN || ev == NPO_EVENT_TRAIN_FAILED)
		print_string("reason", " (%s)",
			     npo_link_reason_str(get_u32(tb, NPO_ATTR_PORT_REASON, 0)));
	/* The lanes to blame, where the event has any. */
	if ((ev == NPO_EVENT_DEGRADED || ev == NPO_EVENT_TRAIN_FAILED) &&
	    get_u32(tb, NPO_ATTR_PORT_FAULT_LANES, 0))
		link_print_lanes("lanes", " lanes %s",
				 get_u32(tb, NPO_ATTR_PORT_FAULT_LANES, 0));
	if (ev == NPO_EVENT_ERR_THRESHOLD &&
	    get_u32(tb, NPO_ATTR_PORT_BER_LANES, 0))
		link_print_lanes("lanes", " lanes %s",
				 get_u32(tb, NPO_ATTR_PORT_BER_LANES, 0));
	if (ev == NPO_EVENT_AT_RISK)
		print_event_risk(tb);
	if (ev == NPO_EVENT_MISWIRED && tb[NPO_ATTR_PORT_PLANNED_PEER_NODE]) {
		print_open_object("planned_peer");
		print_uint("node_id", ", planned node %llu",
			   nla_get_u32(tb[NPO_ATTR_PORT_PLANNED_PEER_NODE]));
		print_uint("port", "/%llu",
			   get_u32(tb, NPO_ATTR_PORT_PLANNED_PEER_PORT, 0));
		print_close_object();
	}
	if (ev == NPO_EVENT_SELF_TEST) {
		uint32_t failed = get_u32(tb, NPO_ATTR_PORT_SELF_TEST_LANES, 0);

		if (failed || print_is_json())
			link_print_lanes("failed_lanes", " failed on lanes %s", failed);
		else
			print_text(" passed");
	}
	link_print_flags(get_u32(tb, NPO_ATTR_PORT_FLAGS, 0), true);
}

/* When a kept event happened: its number, wall-clock and fabric time. */
static void stamp_print(struct nlattr **tb)
{
	uint64_t ns = get_u64(tb, NPO_ATTR_EVENT_TIME);
	time_t secs = ns / 1000000000;
	char when[32] = "?";
	struct tm tm;

	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	print_uint("seq", "#%-5llu ", get_u64(tb, NPO_ATTR_EVENT_SEQ));
	if (print_is_json()) {
		print_uint("time_ns", "", ns);
	} else {
		print_text("%s.%06llu ", when,
			   (unsigned long long)(ns % 1000000000) / 1000);
	}
	if (tb[NPO_ATTR_EVENT_FABRIC_TIME])
		print_uint("fabric_time_ns", "", get_u64(tb, NPO_ATTR_EVENT_FABRIC_TIME));
}

/*
 * A link-down's flight record: when the device says the signal went, on
 * the fabric clock, and the lanes as last read before (a table under the
 * line with @table, else only in JSON).
 */
static void down_record_print(struct nlattr **tb, struct nlattr *attrs,
			      int len, bool table)
{
	struct nlattr *lane;
	int rem;

	if (tb[NPO_ATTR_PORT_DOWN_TIME]) {
		uint64_t t = get_u64(tb, NPO_ATTR_PORT_DOWN_TIME);

		print_uint("down_time_ns", "", t);
		if (table)
			print_text(" lost at fabric %llu.%09llu",
				   (unsigned long long)t / 1000000000,
				   (unsigned long long)t % 1000000000);
	}
	if (!tb[NPO_ATTR_PORT_DOWN_LANES_AGE_MS])
		return;
	print_uint("lanes_age_ms", "", get_u32(tb, NPO_ATTR_PORT_DOWN_LANES_AGE_MS, 0));
	if (table)
		print_text("\n    lanes %llu ms before:",
			   (unsigned long long)get_u32(tb, NPO_ATTR_PORT_DOWN_LANES_AGE_MS, 0));
	print_open_array("lanes_before");
	nla_for_each_attr(lane, attrs, len, rem) {
		struct nlattr *lt[NPO_ATTR_MAX + 1];

		if (nla_type(lane) != NPO_ATTR_LANE ||
		    nla_parse_nested(lt, NPO_ATTR_MAX, lane, NULL))
			continue;
		print_open_object(NULL);
		print_uint("lane", table ? "\n      lane %-2llu" : "",
			   get_u32(lt, NPO_ATTR_LANE_INDEX, 0));
		print_double("rx_power_dbm", table ? "  rx %7.2f dBm" : "",
			     (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_POWER, 0) / 100.0);
		print_double("ber", table ? "  BER %8.1e" : "",
			     get_ber(lt, NPO_ATTR_LANE_BER));
		print_uint("eye_height_mv", table ? "  eye %3llu mV" : "",
			   get_u32(lt, NPO_ATTR_LANE_EYE_HEIGHT, 0));
		print_close_object();
	}
	print_close_array();
}

/* One event as a line of text or a JSON object, its time first if kept. */
static void event_print(struct nlattr **tb, struct nlattr *attrs, int len,
			bool kept, bool detail)
{
	const char *dev = tb[NPO_ATTR_DEV_NAME] ?
			  nla_get_string(tb[NPO_ATTR_DEV_NAME]) : "?";
	uint32_t ev = get_u32(tb, NPO_ATTR_EVENT, 0);

	print_open_object(NULL);
	if (kept)
		stamp_print(tb);
	if (ev == NPO_EVENT_REFUSED) {
		refusal_print(tb, dev);
	} else if (ev == NPO_EVENT_CLOCK) {
		struct npo_nl_clock c;

		npo_nl_clock_decode(tb, &c);
		print_string("device", "%s: ", dev);
		print_string("event", "%s", npo_event_str(ev));
		clock_print_state(&c);
	} else if (ev == NPO_EVENT_DEVICE) {
		device_print(tb, dev);
	} else if (ev == NPO_EVENT_QUEUE_ERROR) {
		queue_error_print(tb, dev);
	} else if (ev == NPO_EVENT_REROUTE) {
		reroute_print(tb, attrs, len, dev);
	} else {
		port_event_print(tb, dev, ev);
		if (ev == NPO_EVENT_LINK_DOWN)
			down_record_print(tb, attrs, len, detail);
	}
	print_text("\n");
	print_close_object();
}

/* Live: one self-contained line or JSON object per event. */
static int on_event(struct nlattr **tb, struct nlattr *attrs, int len,
		    uint8_t cmd, UNUSED void *arg)
{
	if (cmd != NPO_CMD_EVENT)
		return 0;
	print_begin(print_is_json(), false);
	event_print(tb, attrs, len, false, false);
	print_end();
	return 0;
}

int cmd_monitor(int argc, char **argv)
{
	struct npo_nl nl;
	int ret;

	if (argc) {
		if (matches(argv[0], "help")) {
			printf("Usage: npoctl monitor\n");
			return NPOCTL_EXIT_OK;
		}
		npoctl_err("monitor takes no arguments");
		return NPOCTL_EXIT_USAGE;
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = npo_nl_listen(&nl, on_event, NULL);
	npo_nl_close(&nl);
	if (ret) {
		npoctl_err("monitor: cannot listen for events: %s", strerror(-ret));
		return NPOCTL_EXIT_ERROR;
	}
	return NPOCTL_EXIT_OK;
}

/*
 * Kept events from this far back, in ns of CLOCK_REALTIME (0: all), and
 * of one port only (port >= 0: npoctl link history).
 */
struct history_filter {
	uint64_t since_ns;
	long port;
};

/* Port events: every event but the device's own, its clock's, refusals. */
static bool is_port_event(uint32_t ev)
{
	return ev != NPO_EVENT_REFUSED && ev != NPO_EVENT_CLOCK &&
	       ev != NPO_EVENT_DEVICE && ev != NPO_EVENT_QUEUE_ERROR &&
	       ev != NPO_EVENT_REROUTE;
}

static int on_kept_event(struct nlattr **tb, struct nlattr *attrs, int len,
			 uint8_t cmd, void *arg)
{
	struct history_filter *f = arg;

	if (cmd != NPO_CMD_EVENT_GET ||
	    get_u64(tb, NPO_ATTR_EVENT_TIME) < f->since_ns)
		return 0;
	if (f->port >= 0 &&
	    (!is_port_event(get_u32(tb, NPO_ATTR_EVENT, 0)) ||
	     !tb[NPO_ATTR_PORT_INDEX] ||
	     get_u32(tb, NPO_ATTR_PORT_INDEX, 0) != (uint32_t)f->port))
		return 0;
	event_print(tb, attrs, len, true, f->port >= 0);
	return 0;
}

/* The kept events of a device (all, if dev < 0) that pass the filter. */
static int print_kept(long dev, struct history_filter *f, const char *what)
{
	struct npo_nl nl;
	int ret;

	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	print_open_array(NULL);
	ret = npo_nl_dump(&nl, NPO_CMD_EVENT_GET, dev, on_kept_event, f);
	print_close_array();
	ret = npo_nl_report(&nl, ret, what);
	npo_nl_close(&nl);
	return ret;
}

/* Seconds in N[s|m|h|d], up to a century; -1 if it is not one. */
static long long parse_duration(const char *s)
{
	const long long century = 100LL * 365 * 86400;
	long long unit;
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || v < 0 || errno)
		return -1;
	switch (*end) {
	case '\0':
	case 's':
		unit = 1;
		break;
	case 'm':
		unit = 60;
		break;
	case 'h':
		unit = 3600;
		break;
	case 'd':
		unit = 86400;
		break;
	default:
		return -1;
	}
	if ((end[0] && end[1]) || v > century / unit)
		return -1;
	return v * unit;
}

static void events_usage(FILE *to)
{
	fprintf(to, "Usage: npoctl events [ --since DURATION ] [ npoN ]\n"
		    "where  DURATION := N[s|m|h|d]\n");
}

int cmd_events(int argc, char **argv)
{
	struct history_filter f = { .port = -1 };
	struct timespec now;
	long dev = -1;
	long long since;
	int i;

	for (i = 0; i < argc; i++) {
		if (matches(argv[i], "help")) {
			events_usage(stdout);
			return NPOCTL_EXIT_OK;
		} else if (!strcmp(argv[i], "--since") && i + 1 < argc) {
			since = parse_duration(argv[++i]);
			if (since < 0) {
				npoctl_err("events: '%s' is not a duration", argv[i]);
				return NPOCTL_EXIT_USAGE;
			}
			clock_gettime(CLOCK_REALTIME, &now);
			/* Longer ago than the epoch: every event kept. */
			f.since_ns = since >= now.tv_sec ? 0 :
				     (uint64_t)(now.tv_sec - since) *
				     1000000000ull + now.tv_nsec;
		} else if (dev < 0 && !strncmp(argv[i], "npo", 3) &&
			   npo_parse_dev(argv[i]) >= 0) {
			dev = npo_parse_dev(argv[i]);
		} else {
			npoctl_err("events: bad argument '%s'", argv[i]);
			events_usage(stderr);
			return NPOCTL_EXIT_USAGE;
		}
	}
	return print_kept(dev, &f, "events");
}

/* npoctl link history DEV/PORT: one port's flight recorder. */
int cmd_link_history(int argc, char **argv)
{
	struct history_filter f = { 0 };
	uint32_t dev, port;

	if (argc != 1 || npo_parse_port(argv[0], &dev, &port)) {
		npoctl_err("link history: expected DEV/PORT");
		return NPOCTL_EXIT_USAGE;
	}
	f.port = port;
	return print_kept(dev, &f, "link history");
}
