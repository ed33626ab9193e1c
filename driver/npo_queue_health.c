// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO queue health: a queue the device puts in error stops, and its owner
 * sees that in its completions; the administrator sees it here.  The
 * device logs each queue's first error (interface 1.11); the driver reads
 * the log, names the queue's process, protection domain and job, the work
 * that failed and where it was going, and reports it: the kernel log and
 * a netlink event (rate-limited), and the devlink health reporter "queue",
 * which is in error while any queue of the device is.
 *
 * A queue in error is its owner's to destroy and re-create: nothing in the
 * device needs recovering, so the reporter has no recover operation and
 * turns healthy once the last queue in error is gone.
 */
#include <linux/slab.h>
#include <net/devlink.h>
#include <net/genetlink.h>

#include "npo.h"
#include "npo_genl.h"
#include "npo_health.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_queue.h"
#include "npo_trace.h"

/* Full logs read per run of the work before it yields. */
#define NPO_QUEUE_ERROR_BATCHES	8

/**
 * npo_op_str() - name a descriptor's operation
 * @opcode: NPO_OP_*.
 *
 * Return: a constant string.
 */
const char *npo_op_str(u8 opcode)
{
	static const char * const names[] = {
		[NPO_OP_NOP] = "nop", [NPO_OP_WRITE] = "write",
		[NPO_OP_READ] = "read", [NPO_OP_WRITE_IMM] = "write-imm",
		[NPO_OP_FETCH_ADD] = "fetch-add", [NPO_OP_CMP_SWAP] = "cmp-swap",
		[NPO_OP_SEND] = "send", [NPO_OP_RECV] = "recv",
		[NPO_OP_RECV_IMM] = "recv-imm",
	};

	if (opcode == NPO_QERR_OP_NONE)
		return "ring";
	return opcode < ARRAY_SIZE(names) && names[opcode] ? names[opcode] :
							      "request";
}

/**
 * npo_status_str() - name a completion status
 * @status: NPO_STATUS_*.
 *
 * Return: a constant string.
 */
const char *npo_status_str(u32 status)
{
	static const char * const names[] = {
		[NPO_STATUS_OK] = "ok",
		[NPO_STATUS_BAD_DESCRIPTOR] = "bad-descriptor",
		[NPO_STATUS_LOCAL_KEY] = "local-key",
		[NPO_STATUS_LOCAL_ACCESS] = "local-access",
		[NPO_STATUS_REMOTE_KEY] = "remote-key",
		[NPO_STATUS_REMOTE_ACCESS] = "remote-access",
		[NPO_STATUS_REMOTE_QUEUE] = "remote-queue",
		[NPO_STATUS_UNREACHABLE] = "unreachable",
		[NPO_STATUS_DMA_ERROR] = "dma-error",
		[NPO_STATUS_FLUSHED] = "flushed",
		[NPO_STATUS_LINK_DOWN] = "link-down",
		[NPO_STATUS_RNR] = "receiver-not-ready",
		[NPO_STATUS_REMOTE_LENGTH] = "remote-length",
		[NPO_STATUS_RESET] = "reset",
	};

	return status < ARRAY_SIZE(names) && names[status] ? names[status] :
							      "unknown";
}

static bool npo_queue_errors_logged(struct npo_dev *ndev)
{
	return (ndev->caps & NPO_CAPS_QUEUES) &&
	       FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
	       NPO_IF_MINOR_QUEUE_ERRORS;
}

static void npo_queue_error_fmsg(struct devlink_fmsg *fmsg,
				 const struct npo_queue_error *e)
{
	devlink_fmsg_string_pair_put(fmsg, "status",
				     npo_status_str(e->status));
	devlink_fmsg_string_pair_put(fmsg, "opcode", npo_op_str(e->opcode));
	devlink_fmsg_u64_pair_put(fmsg, "wr_id", e->wr_id);
	if (e->opcode != NPO_QERR_OP_NONE)
		devlink_fmsg_u32_pair_put(fmsg, "peer_node", e->peer_node);
	if (e->port != NPO_CQE_PORT_NONE)
		devlink_fmsg_u32_pair_put(fmsg, "port", e->port);
}

/* The report's context: the fault, with its owner. */
static int npo_queue_reporter_dump(struct devlink_health_reporter *reporter,
				   struct devlink_fmsg *fmsg, void *priv_ctx,
				   struct netlink_ext_ack *extack)
{
	const struct npo_queue_fault *f = priv_ctx;

	if (!f)
		return -EOPNOTSUPP;
	devlink_fmsg_u32_pair_put(fmsg, "queue", f->err.queue);
	npo_queue_error_fmsg(fmsg, &f->err);
	if (f->owned) {
		devlink_fmsg_u32_pair_put(fmsg, "pid", f->pid);
		devlink_fmsg_string_pair_put(fmsg, "comm", f->comm);
		devlink_fmsg_u32_pair_put(fmsg, "uid", f->uid);
		devlink_fmsg_u32_pair_put(fmsg, "pd", f->pd);
		devlink_fmsg_u32_pair_put(fmsg, "job", f->job);
	}
	return 0;
}

/*
 * Every queue in error now, by protection domain: the table is in queue
 * order, and each entry names its domain.  Copied out under the table's
 * lock, as fmsg allocates.
 */
static int npo_queue_reporter_diagnose(struct devlink_health_reporter *reporter,
				       struct devlink_fmsg *fmsg,
				       struct netlink_ext_ack *extack)
{
	struct npo_dev *ndev = devlink_health_reporter_priv(reporter);
	struct npo_queue_owner *owner, *failed;
	unsigned int n = 0, i, max;
	unsigned long id;

	spin_lock(&ndev->qh.lock);
	max = ndev->qh.failed;
	spin_unlock(&ndev->qh.lock);
	failed = kcalloc(max ?: 1, sizeof(*failed), GFP_KERNEL);
	if (!failed)
		return -ENOMEM;
	xa_lock(&ndev->queue_owners);
	xa_for_each(&ndev->queue_owners, id, owner) {
		if (owner->failed && n < max)
			failed[n++] = *owner;
	}
	xa_unlock(&ndev->queue_owners);

	devlink_fmsg_u32_pair_put(fmsg, "queues_in_error", n);
	devlink_fmsg_arr_pair_nest_start(fmsg, "queues");
	for (i = 0; i < n; i++) {
		devlink_fmsg_obj_nest_start(fmsg);
		devlink_fmsg_u32_pair_put(fmsg, "pd", failed[i].pd);
		devlink_fmsg_u32_pair_put(fmsg, "job", failed[i].job);
		devlink_fmsg_u32_pair_put(fmsg, "queue", failed[i].error.queue);
		devlink_fmsg_u32_pair_put(fmsg, "pid", failed[i].tgid);
		devlink_fmsg_string_pair_put(fmsg, "comm", failed[i].comm);
		npo_queue_error_fmsg(fmsg, &failed[i].error);
		devlink_fmsg_obj_nest_end(fmsg);
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);
	kfree(failed);
	return 0;
}

static const struct devlink_health_reporter_ops npo_queue_reporter_ops = {
	.name = "queue",
	.diagnose = npo_queue_reporter_diagnose,
	.dump = npo_queue_reporter_dump,
};

/* Hand the queued faults to devlink, then clear it if no queue is left. */
static void npo_queue_report_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(work, struct npo_dev,
					    qh.report_work);
	struct npo_queue_health *qh = &ndev->qh;
	struct npo_queue_fault f;
	bool clear = false;
	char msg[96];

	for (;;) {
		spin_lock(&qh->lock);
		if (!qh->count) {
			clear = qh->reported && !qh->failed && qh->live;
			if (clear)
				qh->reported = false;
			spin_unlock(&qh->lock);
			break;
		}
		f = qh->queue[qh->head];
		qh->head = (qh->head + 1) % NPO_QUEUE_REPORTS_QUEUED;
		qh->count--;
		qh->reported = true;
		spin_unlock(&qh->lock);

		snprintf(msg, sizeof(msg), "queue %u: %s %s", f.err.queue,
			 npo_op_str(f.err.opcode),
			 npo_status_str(f.err.status));
		devlink_health_report(qh->reporter, msg, &f);
	}
	if (clear)
		devlink_health_reporter_state_update(qh->reporter,
						     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
}

static int npo_queue_fault_put(struct sk_buff *msg, struct npo_dev *ndev,
			       const struct npo_queue_fault *f)
{
	const struct npo_queue_error *e = &f->err;

	if (nla_put_u32(msg, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	    nla_put_string(msg, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
	    nla_put_u32(msg, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
	    nla_put_u32(msg, NPO_ATTR_QUEUE_ID, e->queue))
		return -EMSGSIZE;
	if (f->owned &&
	    (nla_put_u32(msg, NPO_ATTR_OWNER_PID, f->pid) ||
	     nla_put_string(msg, NPO_ATTR_OWNER_COMM, f->comm) ||
	     nla_put_u32(msg, NPO_ATTR_OWNER_UID, f->uid) ||
	     nla_put_u32(msg, NPO_ATTR_PD, f->pd) ||
	     nla_put_u32(msg, NPO_ATTR_JOB, f->job)))
		return -EMSGSIZE;
	return 0;
}

/* The cause, as NPO_ATTR_QUEUE_ERR_* attributes. */
static int npo_queue_error_attrs_put(struct sk_buff *msg,
				     const struct npo_queue_error *e)
{
	if (nla_put_u32(msg, NPO_ATTR_QUEUE_ERR_STATUS, e->status) ||
	    nla_put_u32(msg, NPO_ATTR_QUEUE_ERR_OPCODE, e->opcode) ||
	    nla_put_u64_64bit(msg, NPO_ATTR_QUEUE_ERR_WR_ID, e->wr_id,
			      NPO_ATTR_PAD))
		return -EMSGSIZE;
	if (e->opcode != NPO_QERR_OP_NONE &&
	    nla_put_u32(msg, NPO_ATTR_QUEUE_ERR_PEER_NODE, e->peer_node))
		return -EMSGSIZE;
	if (e->port != NPO_CQE_PORT_NONE &&
	    nla_put_u32(msg, NPO_ATTR_QUEUE_ERR_PORT, e->port))
		return -EMSGSIZE;
	return 0;
}

/**
 * npo_queue_error_put() - the cause of a queue's error, for a netlink reply
 * @skb: the message.
 * @ndev: the device.
 * @id: the queue.
 *
 * Context: process context.
 * Return: 0 (nothing put if the queue is not in error) or -EMSGSIZE.
 */
int npo_queue_error_put(struct sk_buff *skb, struct npo_dev *ndev, u32 id)
{
	struct npo_queue_owner *owner;
	struct npo_queue_error e;
	bool failed = false;

	xa_lock(&ndev->queue_owners);
	owner = xa_load(&ndev->queue_owners, id);
	if (owner && owner->failed) {
		failed = true;
		e = owner->error;
	}
	xa_unlock(&ndev->queue_owners);
	return failed ? npo_queue_error_attrs_put(skb, &e) : 0;
}

/* Name the owner, mark the queue failed, log, send, queue for devlink. */
static void npo_queue_error_report(struct npo_dev *ndev,
				   const struct npo_queue_error *e)
{
	struct npo_queue_health *qh = &ndev->qh;
	struct npo_queue_fault f = { .err = *e };
	struct npo_queue_owner *owner;
	bool first = false;
	struct sk_buff *msg;
	char peer[48] = "";
	void *hdr;

	xa_lock(&ndev->queue_owners);
	owner = xa_load(&ndev->queue_owners, e->queue);
	if (owner) {
		f.owned = true;
		f.pid = owner->tgid;
		memcpy(f.comm, owner->comm, sizeof(f.comm));
		f.uid = from_kuid_munged(&init_user_ns, owner->uid);
		f.pd = owner->pd;
		f.job = owner->job;
		if (!owner->failed) {
			owner->failed = true;
			owner->error = *e;
			first = true;
		}
	}
	xa_unlock(&ndev->queue_owners);

	spin_lock(&qh->lock);
	if (first)
		qh->failed++;
	if (qh->live) {
		if (qh->count == NPO_QUEUE_REPORTS_QUEUED) {
			qh->head = (qh->head + 1) % NPO_QUEUE_REPORTS_QUEUED;
			qh->count--;
		}
		qh->queue[(qh->head + qh->count) % NPO_QUEUE_REPORTS_QUEUED] = f;
		qh->count++;
		queue_work(system_wq, &qh->report_work);
	}
	spin_unlock(&qh->lock);

	trace_npo_queue_error(ndev, e);
	if (!__ratelimit(&qh->rs))
		return;
	if (e->opcode != NPO_QERR_OP_NONE) {
		if (e->port != NPO_CQE_PORT_NONE)
			scnprintf(peer, sizeof(peer), " node %u via port %u",
				  e->peer_node, e->port);
		else
			scnprintf(peer, sizeof(peer), " node %u", e->peer_node);
	}
	npo_warn(ndev, "queue %u (pid %d %s, uid %u, pd %u, job 0x%x) in error: %s wr_id 0x%llx%s%s: %s\n",
		 e->queue, f.owned ? f.pid : 0, f.owned ? f.comm : "?",
		 f.uid, f.pd, f.job, npo_op_str(e->opcode), e->wr_id,
		 e->opcode == NPO_OP_RECV || e->opcode == NPO_OP_RECV_IMM ?
		 " from" : e->opcode != NPO_QERR_OP_NONE ? " to" : "", peer,
		 npo_status_str(e->status));
	msg = npo_genl_event_new(NPO_EVENT_QUEUE_ERROR, &hdr);
	if (msg)
		npo_genl_event_send(ndev, msg, hdr,
				    npo_queue_fault_put(msg, ndev, &f) ?:
				    npo_queue_error_attrs_put(msg, e));
}

static void npo_queue_error_read_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(work, struct npo_dev,
					    qh.read_work);
	unsigned int batches = NPO_QUEUE_ERROR_BATCHES;
	struct npo_hw_queue_error *log;
	unsigned int i, n;
	u32 lost;
	int err;

	log = kmalloc_array(NPO_QUEUE_ERROR_DEPTH, sizeof(*log), GFP_KERNEL);
	if (!log)
		return;
	do {
		WRITE_ONCE(ndev->qh.read_pending, false);
		err = npo_mbox_read_log(ndev, NPO_MBOX_OP_QUEUE_ERRORS, log,
					sizeof(*log), NPO_QUEUE_ERROR_DEPTH,
					&lost);
		n = max(err, 0);
		if (err >= 0 && lost)
			dev_warn_ratelimited(&ndev->pdev->dev,
					     "%u queue errors went unreported: the queue error log was full\n",
					     lost);
		for (i = 0; i < n; i++) {
			struct npo_queue_error e = {
				.wr_id = le64_to_cpu(log[i].wr_id),
				.status = le32_to_cpu(log[i].status),
				.peer_node = le32_to_cpu(log[i].peer_node),
				.queue = le16_to_cpu(log[i].queue),
				.opcode = log[i].opcode,
				.port = log[i].port,
			};

			npo_queue_error_report(ndev, &e);
		}
	} while (n == NPO_QUEUE_ERROR_DEPTH && --batches);
	kfree(log);
	if (n == NPO_QUEUE_ERROR_DEPTH) {
		WRITE_ONCE(ndev->qh.read_pending, true);
		schedule_work(&ndev->qh.read_work);
	}
}

/**
 * npo_queue_error_irq() - the device logged a queue error
 * @ndev: the device.
 *
 * Context: hard interrupt.
 */
void npo_queue_error_irq(struct npo_dev *ndev)
{
	WRITE_ONCE(ndev->qh.read_pending, true);
	schedule_work(&ndev->qh.read_work);
}

/**
 * npo_queue_error_flush() - read what the device logged about queues
 * @ndev: the device.
 *
 * Called once a queue is stopped and before its number goes to another
 * owner, so that its error names the right process even if its interrupt
 * has not been handled yet.
 *
 * Context: process context; sleeps.
 */
void npo_queue_error_flush(struct npo_dev *ndev)
{
	if (!npo_queue_errors_logged(ndev))
		return;
	if (READ_ONCE(ndev->qh.read_pending) ||
	    (npo_rd32(ndev, NPO_REG_IRQ_STATUS) & NPO_IRQ_QUEUE_ERROR)) {
		WRITE_ONCE(ndev->qh.read_pending, true);
		schedule_work(&ndev->qh.read_work);
	}
	flush_work(&ndev->qh.read_work);
}

/**
 * npo_queue_error_cancel() - stop reading the log while the device restarts
 * @ndev: the device, being reset: its log is lost, and queue numbers read
 *	from it could name queues the restart frees and reuses.
 *
 * Context: process context; sleeps.
 */
void npo_queue_error_cancel(struct npo_dev *ndev)
{
	cancel_work_sync(&ndev->qh.read_work);
	WRITE_ONCE(ndev->qh.read_pending, false);
}

/**
 * npo_queue_owner_forget() - a queue is gone: drop its owner and its error
 * @ndev: the device.
 * @id: the queue, stopped in the device.
 *
 * The "queue" reporter turns healthy once no queue in error is left.
 *
 * Context: process context.
 */
void npo_queue_owner_forget(struct npo_dev *ndev, u32 id)
{
	struct npo_queue_owner *owner;
	bool failed;

	xa_lock(&ndev->queue_owners);
	owner = __xa_erase(&ndev->queue_owners, id);
	failed = owner && owner->failed;
	xa_unlock(&ndev->queue_owners);
	if (!failed)
		return;
	spin_lock(&ndev->qh.lock);
	if (!WARN_ON_ONCE(!ndev->qh.failed))
		ndev->qh.failed--;
	if (!ndev->qh.failed && ndev->qh.live)
		queue_work(system_wq, &ndev->qh.report_work);
	spin_unlock(&ndev->qh.lock);
}

/**
 * npo_queue_health_init() - prepare a new device's queue health
 * @ndev: the device, being allocated.
 */
void npo_queue_health_init(struct npo_dev *ndev)
{
	struct npo_queue_health *qh = &ndev->qh;

	spin_lock_init(&qh->lock);
	INIT_WORK(&qh->read_work, npo_queue_error_read_work);
	INIT_WORK(&qh->report_work, npo_queue_report_work);
	/* A job whose every queue fails is worth a few lines, not a flood. */
	ratelimit_state_init(&qh->rs, 5 * HZ, 10);
}

/**
 * npo_queue_health_create() - create the "queue" health reporter
 * @ndev: the device, its devlink instance allocated.
 *
 * Return: 0 or a negative errno.
 */
int npo_queue_health_create(struct npo_dev *ndev)
{
	struct devlink_health_reporter *r;

	if (!npo_queue_errors_logged(ndev))
		return 0;
	/* Nothing to recover, so no grace period (devlink requires 0). */
	r = devlink_health_reporter_create(ndev->devlink,
					   &npo_queue_reporter_ops, 0, ndev);
	if (IS_ERR(r))
		return PTR_ERR(r);
	ndev->qh.reporter = r;
	return 0;
}

/**
 * npo_queue_health_start() - report queue errors to devlink from now on
 * @ndev: the device, registered with devlink.
 */
void npo_queue_health_start(struct npo_dev *ndev)
{
	spin_lock(&ndev->qh.lock);
	ndev->qh.live = !!ndev->qh.reporter;
	spin_unlock(&ndev->qh.lock);
}

/**
 * npo_queue_health_stop() - report nothing more to devlink
 * @ndev: the device, going away.
 *
 * Context: process context; no devlink operation of the device running
 * in this thread.
 */
void npo_queue_health_stop(struct npo_dev *ndev)
{
	spin_lock(&ndev->qh.lock);
	ndev->qh.live = false;
	ndev->qh.count = 0;
	spin_unlock(&ndev->qh.lock);
	cancel_work_sync(&ndev->qh.read_work);
	cancel_work_sync(&ndev->qh.report_work);
}

/**
 * npo_queue_health_destroy() - destroy the "queue" health reporter
 * @ndev: the device, its queue health stopped.
 */
void npo_queue_health_destroy(struct npo_dev *ndev)
{
	if (ndev->qh.reporter)
		devlink_health_reporter_destroy(ndev->qh.reporter);
	ndev->qh.reporter = NULL;
}
