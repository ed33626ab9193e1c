/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO tracepoints: what happened to links and devices, for ftrace and
 * perf, where a kernel log line would be too late or too much.  Each
 * names its device and, where it applies, port, lane and peer.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM npo

#if !defined(_NPO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NPO_TRACE_H

#include <linux/tracepoint.h>

#include "npo.h"
#include "npo_link.h"

/*
 * From 6.10 __assign_str() takes its source from __string(); src is then
 * only type-checked, never evaluated twice.
 */
#ifdef NPO_ASSIGN_STR_ONE_ARG
#define npo_assign_str(dst, src)	\
	do { (void)sizeof(src); __assign_str(dst); } while (0)
#else
#define npo_assign_str(dst, src)	__assign_str(dst, src)
#endif

/* A port event (enum npo_event), with the port's state after it. */
TRACE_EVENT(npo_port_event,
	    TP_PROTO(const struct npo_port *port, u32 event),
	    TP_ARGS(port, event),
	    TP_STRUCT__entry(__string(dev, dev_name(&port->ndev->dev))
			     __field(u32, node)
			     __field(u32, port)
			     __field(u32, event)
			     __field(u32, status)
			     __field(u8, down_reason)
			     __field(s64, peer_node)
			     __field(u32, peer_port)
			     __field(u32, fault_lanes)
			     __field(u32, risk_lanes)),
	    TP_fast_assign(npo_assign_str(dev, dev_name(&port->ndev->dev));
			   __entry->node = port->ndev->node_id;
			   __entry->port = port->index;
			   __entry->event = event;
			   __entry->status = port->status;
			   __entry->down_reason = port->down_reason;
			   __entry->peer_node = port->peer_valid ? port->peer_node : -1;
			   __entry->peer_port = port->peer_port;
			   __entry->fault_lanes = port->fault_lanes;
			   __entry->risk_lanes = port->risk.lanes;),
	    TP_printk("%s node %u port %u event %u status 0x%x down_reason %u peer %lld/%u fault_lanes 0x%x risk_lanes 0x%x",
		      __get_str(dev), __entry->node, __entry->port, __entry->event,
		      __entry->status, __entry->down_reason, __entry->peer_node,
		      __entry->peer_port, __entry->fault_lanes, __entry->risk_lanes));

/* A device stopped for a fault, or recovered (fault 0): enum npo_dev_fault. */
TRACE_EVENT(npo_dev_event,
	    TP_PROTO(const struct npo_dev *ndev, u32 fault, u32 state),
	    TP_ARGS(ndev, fault, state),
	    TP_STRUCT__entry(__string(dev, dev_name(&ndev->dev))
			     __field(u32, node)
			     __field(u32, fault)
			     __field(u32, state)),
	    TP_fast_assign(npo_assign_str(dev, dev_name(&ndev->dev));
			   __entry->node = ndev->node_id;
			   __entry->fault = fault;
			   __entry->state = state;),
	    TP_printk("%s node %u fault %u state %u", __get_str(dev),
		      __entry->node, __entry->fault, __entry->state));

/*
 * A mailbox command the device was given, and how it ended: what a
 * command costs and who issues how many (a flood of readings, say).
 */
TRACE_EVENT(npo_mbox_cmd,
	    TP_PROTO(const struct npo_dev *ndev, u8 opcode, int err),
	    TP_ARGS(ndev, opcode, err),
	    TP_STRUCT__entry(__string(dev, dev_name(&ndev->dev))
			     __field(u8, opcode)
			     __field(int, err)),
	    TP_fast_assign(npo_assign_str(dev, dev_name(&ndev->dev));
			   __entry->opcode = opcode;
			   __entry->err = err;),
	    TP_printk("%s opcode 0x%02x err %d", __get_str(dev),
		      __entry->opcode, __entry->err));

/* A step of a device restart (devlink or PCIe recovery), and its result. */
TRACE_EVENT(npo_recovery_step,
	    TP_PROTO(const struct npo_dev *ndev, const char *step, int err),
	    TP_ARGS(ndev, step, err),
	    TP_STRUCT__entry(__string(dev, dev_name(&ndev->dev))
			     __string(step, step)
			     __field(int, err)),
	    TP_fast_assign(npo_assign_str(dev, dev_name(&ndev->dev));
			   npo_assign_str(step, step);
			   __entry->err = err;),
	    TP_printk("%s %s err %d", __get_str(dev), __get_str(step),
		      __entry->err));

/* A process's queue revoked: the device was stopped or removed under it. */
TRACE_EVENT(npo_queue_revoked,
	    TP_PROTO(const struct npo_dev *ndev, u32 queue, pid_t pid),
	    TP_ARGS(ndev, queue, pid),
	    TP_STRUCT__entry(__string(dev, dev_name(&ndev->dev))
			     __field(u32, queue)
			     __field(pid_t, pid)),
	    TP_fast_assign(npo_assign_str(dev, dev_name(&ndev->dev));
			   __entry->queue = queue;
			   __entry->pid = pid;),
	    TP_printk("%s queue %u pid %d", __get_str(dev), __entry->queue,
		      __entry->pid));

/* The device put a queue in error: the work that failed, where it went. */
TRACE_EVENT(npo_queue_error,
	    TP_PROTO(const struct npo_dev *ndev, const struct npo_queue_error *e),
	    TP_ARGS(ndev, e),
	    TP_STRUCT__entry(__string(dev, dev_name(&ndev->dev))
			     __field(u32, node)
			     __field(u32, queue)
			     __field(u32, status)
			     __field(u8, opcode)
			     __field(u8, port)
			     __field(u32, peer_node)
			     __field(u64, wr_id)),
	    TP_fast_assign(npo_assign_str(dev, dev_name(&ndev->dev));
			   __entry->node = ndev->node_id;
			   __entry->queue = e->queue;
			   __entry->status = e->status;
			   __entry->opcode = e->opcode;
			   __entry->port = e->port;
			   __entry->peer_node = e->peer_node;
			   __entry->wr_id = e->wr_id;),
	    TP_printk("%s node %u queue %u status %u opcode %u port %u peer %u wr_id 0x%llx",
		      __get_str(dev), __entry->node, __entry->queue,
		      __entry->status, __entry->opcode, __entry->port,
		      __entry->peer_node, __entry->wr_id));

#endif /* _NPO_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE npo_trace
#include <trace/define_trace.h>
