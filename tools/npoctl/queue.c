// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl queue: the DMA queues and memory regions of every process using
 * NPO devices, for administrators.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/npo_queue.h>

#include "nl.h"
#include "npoctl.h"
#include "print.h"

static void queue_usage(FILE *to)
{
	fprintf(to, "Usage: npoctl queue [ show [ DEV ] ]\n"
		    "       npoctl queue stuck [ --older MS ] [ DEV ]\n");
}

/* Device, owner, protection domain and job: the start of every line. */
void queue_print_owner(struct nlattr **tb)
{
	print_string("device", "%-6s", tb[NPO_ATTR_DEV_NAME] ?
		     nla_get_string(tb[NPO_ATTR_DEV_NAME]) : "?");
	print_uint("pid", "  %7llu", get_u32(tb, NPO_ATTR_OWNER_PID, 0));
	print_string("comm", "  %-15s", tb[NPO_ATTR_OWNER_COMM] ?
		     nla_get_string(tb[NPO_ATTR_OWNER_COMM]) : "?");
	print_uint("uid", "  %6llu", get_u32(tb, NPO_ATTR_OWNER_UID, 0));
	print_uint("pd", "  %4llu", get_u32(tb, NPO_ATTR_PD, 0));
	if (print_is_json())
		print_uint("job", "", get_u32(tb, NPO_ATTR_JOB, 0));
	else
		print_text("  0x%08x", get_u32(tb, NPO_ATTR_JOB, 0));
}

static const char *op_name(uint32_t opcode)
{
	static const char *const names[] = {
		[NPO_OP_NOP] = "nop", [NPO_OP_WRITE] = "write",
		[NPO_OP_READ] = "read", [NPO_OP_WRITE_IMM] = "write-imm",
		[NPO_OP_FETCH_ADD] = "fetch-add", [NPO_OP_CMP_SWAP] = "cmp-swap",
		[NPO_OP_SEND] = "send", [NPO_OP_RECV] = "recv",
		[NPO_OP_RECV_IMM] = "recv-imm",
	};

	if (opcode == 255)
		return "ring";
	return opcode < sizeof(names) / sizeof(names[0]) && names[opcode] ?
	       names[opcode] : "request";
}

/*
 * The work that put a queue in error, from a queue listing or an event:
 * status, operation, wr_id, and the node and port it went to or came from.
 */
void queue_print_error(struct nlattr **tb)
{
	uint32_t op = get_u32(tb, NPO_ATTR_QUEUE_ERR_OPCODE, 0);
	bool in = op == NPO_OP_RECV || op == NPO_OP_RECV_IMM;

	if (!tb[NPO_ATTR_QUEUE_ERR_STATUS])
		return;
	print_open_object("error");
	print_string("status", " %s", npo_status_str(
		     get_u32(tb, NPO_ATTR_QUEUE_ERR_STATUS, 0)));
	print_string("opcode", ": %s", op_name(op));
	/* Only CAP_NET_ADMIN sees another process's wr_id (uapi.rst). */
	if (tb[NPO_ATTR_QUEUE_ERR_WR_ID] && print_is_json())
		print_uint("wr_id", "", get_u64(tb, NPO_ATTR_QUEUE_ERR_WR_ID));
	else if (tb[NPO_ATTR_QUEUE_ERR_WR_ID])
		print_text(" wr_id 0x%llx", (unsigned long long)
			   get_u64(tb, NPO_ATTR_QUEUE_ERR_WR_ID));
	if (tb[NPO_ATTR_QUEUE_ERR_PEER_NODE])
		print_uint("peer_node", in ? " from node %llu" : " to node %llu",
			   get_u32(tb, NPO_ATTR_QUEUE_ERR_PEER_NODE, 0));
	if (tb[NPO_ATTR_QUEUE_ERR_PORT])
		print_uint("port", " via port %llu",
			   get_u32(tb, NPO_ATTR_QUEUE_ERR_PORT, 0));
	print_close_object();
}

static int on_queue(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, void *arg)
{
	uint32_t st = get_u32(tb, NPO_ATTR_QUEUE_STATUS, 0);
	uint32_t tail = get_u32(tb, NPO_ATTR_QUEUE_CQ_TAIL, 0);
	uint32_t head = get_u32(tb, NPO_ATTR_QUEUE_CQ_HEAD, 0);
	char sizes[48];

	if (cmd != NPO_CMD_QUEUE_GET)
		return 0;
	(*(unsigned int *)arg)++;
	print_open_object(NULL);
	queue_print_owner(tb);
	print_uint("queue", "  %5llu", get_u32(tb, NPO_ATTR_QUEUE_ID, 0));
	snprintf(sizes, sizeof(sizes), "%u/%u/%u",
		 get_u32(tb, NPO_ATTR_QUEUE_SQ_ENTRIES, 0),
		 get_u32(tb, NPO_ATTR_QUEUE_CQ_ENTRIES, 0),
		 get_u32(tb, NPO_ATTR_QUEUE_RQ_ENTRIES, 0));
	if (print_is_json()) {
		print_uint("sq_entries", "", get_u32(tb, NPO_ATTR_QUEUE_SQ_ENTRIES, 0));
		print_uint("cq_entries", "", get_u32(tb, NPO_ATTR_QUEUE_CQ_ENTRIES, 0));
		print_uint("rq_entries", "", get_u32(tb, NPO_ATTR_QUEUE_RQ_ENTRIES, 0));
	} else {
		print_text("  %-17s", sizes);
	}
	print_uint("sq_head", "  %10llu", get_u32(tb, NPO_ATTR_QUEUE_SQ_HEAD, 0));
	print_uint("cq_tail", "  %10llu", tail);
	/* Completions the process has not reaped yet: is it keeping up? */
	print_uint("cq_pending", "  %7llu", (uint32_t)(tail - head));
	print_string("mode", "  %-9s",
		     get_u32(tb, NPO_ATTR_QUEUE_INTERRUPT, 0) ? "interrupt" : "polling");
	print_open_array("flags");
	if (st & NPO_QSTAT_ERROR)
		print_string(NULL, "  %s", "ERROR");
	if (st & NPO_QSTAT_CQ_FULL)
		print_string(NULL, "  %s", "CQ-FULL");
	print_close_array();
	queue_print_error(tb);
	print_text("\n");
	print_close_object();
	return 0;
}

static void print_access(uint32_t access)
{
	static const struct { uint32_t bit; const char *name; } bits[] = {
		{ NPO_ACCESS_LOCAL_WRITE, "local-write" },
		{ NPO_ACCESS_REMOTE_READ, "remote-read" },
		{ NPO_ACCESS_REMOTE_WRITE, "remote-write" },
		{ NPO_ACCESS_REMOTE_ATOMIC, "remote-atomic" },
	};
	unsigned int i;
	bool any = false;

	print_open_array("access");
	print_text("  ");
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (!(access & bits[i].bit))
			continue;
		print_string(NULL, any ? ",%s" : "%s", bits[i].name);
		any = true;
	}
	if (!any)
		print_text("local-read");
	print_close_array();
}

static int on_region(struct nlattr **tb, UNUSED struct nlattr *attrs,
		     UNUSED int len, uint8_t cmd, void *arg)
{
	if (cmd != NPO_CMD_MR_GET)
		return 0;
	(*(unsigned int *)arg)++;
	print_open_object(NULL);
	queue_print_owner(tb);
	if (print_is_json())
		print_uint("lkey", "", get_u32(tb, NPO_ATTR_MR_KEY, 0));
	else
		print_text("  0x%08x", get_u32(tb, NPO_ATTR_MR_KEY, 0));
	if (print_is_json())
		print_uint("addr", "", get_u64(tb, NPO_ATTR_MR_ADDR));
	else
		print_text("  0x%012llx",
			   (unsigned long long)get_u64(tb, NPO_ATTR_MR_ADDR));
	print_uint("length", "  %12llu", get_u64(tb, NPO_ATTR_MR_LENGTH));
	print_access(get_u32(tb, NPO_ATTR_MR_ACCESS, 0));
	print_text("\n");
	print_close_object();
	return 0;
}

static int queue_show(struct npo_nl *nl, long dev)
{
	unsigned int queues = 0, regions = 0;
	int err;

	print_open_object(NULL);
	print_text("%-6s  %7s  %-15s  %6s  %4s  %-10s  %5s  %-17s  %10s  %10s  %7s  %s\n",
		   "DEV", "PID", "COMMAND", "UID", "PD", "JOB", "QUEUE",
		   "SQ/CQ/RQ", "SQ-HEAD", "CQ-TAIL", "PENDING", "MODE");
	print_open_array("queues");
	err = npo_nl_dump(nl, NPO_CMD_QUEUE_GET, dev, on_queue, &queues);
	print_close_array();
	if (!err) {
		print_text("\n%-6s  %7s  %-15s  %6s  %4s  %-10s  %-10s  %-14s  %12s  %s\n",
			   "DEV", "PID", "COMMAND", "UID", "PD", "JOB", "LKEY",
			   "ADDRESS", "LENGTH", "ACCESS");
		print_open_array("regions");
		err = npo_nl_dump(nl, NPO_CMD_MR_GET, dev, on_region, &regions);
		print_close_array();
	}
	print_close_object();
	return npo_nl_report(nl, err, "queue");
}

/* What the oldest outstanding descriptor waits for, in words. */
static const char *wait_str(uint32_t wait)
{
	static const char *const names[] = {
		[NPO_QUEUE_WAIT_NONE] = "nothing (running)",
		[NPO_QUEUE_WAIT_CQ_FULL] = "completion room: the process does not reap",
		[NPO_QUEUE_WAIT_LINK] = "its link to retrain",
		[NPO_QUEUE_WAIT_REMOTE] = "the destination's answer",
		[NPO_QUEUE_WAIT_RNR] = "a receive buffer at the destination",
		[NPO_QUEUE_WAIT_TX] = "room on its port",
	};

	return wait < sizeof(names) / sizeof(names[0]) ? names[wait] : "?";
}

struct stuck_filter {
	unsigned long long older_ms;
	unsigned int found;
};

/*
 * A queue whose oldest descriptor has been outstanding for at least the
 * filter's time: whose it is, where the descriptor goes, through which
 * port in what state, and what it waits for.
 */
static int on_stuck(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, void *arg)
{
	struct stuck_filter *f = arg;
	uint32_t age = get_u32(tb, NPO_ATTR_QUEUE_OLDEST_AGE_MS, 0);

	if (cmd != NPO_CMD_QUEUE_GET ||
	    !get_u32(tb, NPO_ATTR_QUEUE_OUTSTANDING, 0) || age < f->older_ms)
		return 0;
	f->found++;
	print_open_object(NULL);
	queue_print_owner(tb);
	print_uint("queue", "  queue %llu", get_u32(tb, NPO_ATTR_QUEUE_ID, 0));
	print_uint("outstanding", ": %llu outstanding",
		   get_u32(tb, NPO_ATTR_QUEUE_OUTSTANDING, 0));
	print_uint("oldest_ms", ", the oldest for %llu ms", age);
	print_string("opcode", ": %s", op_name(
		     get_u32(tb, NPO_ATTR_QUEUE_OLDEST_OPCODE, 0)));
	print_uint("dest_node", " to node %llu",
		   get_u32(tb, NPO_ATTR_QUEUE_OLDEST_NODE, 0));
	if (tb[NPO_ATTR_QUEUE_OLDEST_PORT]) {
		print_uint("port", " via port %llu",
			   get_u32(tb, NPO_ATTR_QUEUE_OLDEST_PORT, 0));
		print_string("port_state", " (%s", npo_port_state_str(
			     get_u32(tb, NPO_ATTR_PORT_STATE, 0)));
		if (tb[NPO_ATTR_PORT_REASON])
			print_string("port_reason", ": %s", npo_link_reason_str(
				     get_u32(tb, NPO_ATTR_PORT_REASON, 0)));
		print_text(")");
	}
	print_string("waits_for", "; waits for %s",
		     wait_str(get_u32(tb, NPO_ATTR_QUEUE_WAIT, 0)));
	print_text("\n");
	print_close_object();
	return 0;
}

/* npoctl queue stuck: exit 3 if any queue is. */
static int queue_stuck(struct npo_nl *nl, long dev, unsigned long long older)
{
	struct stuck_filter f = { .older_ms = older };
	int err;

	print_open_object(NULL);
	print_open_array("queues");
	err = npo_nl_dump(nl, NPO_CMD_QUEUE_GET, dev, on_stuck, &f);
	print_close_array();
	print_close_object();
	if (!err && !f.found)
		print_text("no queue has waited %llu ms or more\n", older);
	err = npo_nl_report(nl, err, "queue");
	return err ? err : f.found ? NPOCTL_EXIT_UNHEALTHY : NPOCTL_EXIT_OK;
}

static int cmd_queue_stuck(int argc, char **argv)
{
	unsigned long long older = 1000;
	struct npo_nl nl;
	long dev = -1;
	char *end;
	int ret;

	if (argc >= 2 && matches(argv[0], "--older")) {
		errno = 0;
		older = strtoull(argv[1], &end, 10);
		if (errno || *end || !*argv[1] || argv[1][0] == '-' ||
		    older > UINT32_MAX) {
			npoctl_err("queue stuck: bad time '%s' (ms)", argv[1]);
			return NPOCTL_EXIT_USAGE;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc > 1 || (argc == 1 && (dev = npo_parse_dev(argv[0])) < 0)) {
		npoctl_err("queue stuck: bad arguments");
		queue_usage(stderr);
		return NPOCTL_EXIT_USAGE;
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	ret = queue_stuck(&nl, dev, older);
	npo_nl_close(&nl);
	return ret;
}

int cmd_queue(int argc, char **argv)
{
	struct npo_nl nl;
	int ret;

	if (argc && matches(argv[0], "help")) {
		queue_usage(stdout);
		return NPOCTL_EXIT_OK;
	}
	if (argc && !strcmp(argv[0], "stuck"))
		return cmd_queue_stuck(argc - 1, argv + 1);
	if (argc > 2 || (argc && !matches(argv[0], "show")) ||
	    (argc == 2 && npo_parse_dev(argv[1]) < 0)) {
		npoctl_err("queue: bad arguments");
		queue_usage(stderr);
		return NPOCTL_EXIT_USAGE;
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	ret = queue_show(&nl, argc == 2 ? npo_parse_dev(argv[1]) : -1);
	npo_nl_close(&nl);
	return ret;
}
