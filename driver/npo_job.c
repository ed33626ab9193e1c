// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO jobs and refusals: who may reach whose memory, and what happens to
 * a process that keeps trying anyway.
 *
 * Every open file is a protection domain in a job; the device serves a
 * remote request only from regions and queues of the requester's job
 * (Documentation/uapi.rst, "Jobs").  A file starts in its process' default
 * job, derived from the process so that nobody can pick another's; a
 * launcher with CAP_NET_ADMIN assigns a shared job to the files of a
 * job's processes.
 *
 * The device logs each refused remote request at both ends.  A refused
 * request puts its queue in error, so a process guessing keys destroys and
 * re-creates queues: the refusals of a user's queues are counted, and past
 * refusal_limit in refusal_window_ms the user's next queue waits, longer
 * for each further burst.  Every refusal is reported, rate-limited, to the
 * kernel log and the netlink events group, naming the node, device,
 * queue, process, user and job.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/ratelimit.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "npo.h"
#include "npo_genl.h"
#include "npo_health.h"
#include "npo_job.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_queue.h"

static unsigned int refusal_limit = 16;
module_param(refusal_limit, uint, 0644);
MODULE_PARM_DESC(refusal_limit,
		 "refused remote requests of one user's queues, per window, before the user's new queues are delayed (0: never)");

static unsigned int refusal_window_ms = 10000;
module_param(refusal_window_ms, uint, 0644);
MODULE_PARM_DESC(refusal_window_ms, "window refusal_limit counts in, ms");

/* Full refusal logs read per run of the work before it yields. */
#define NPO_REFUSAL_BATCHES	8
#define NPO_THROTTLE_MIN_MS	100
#define NPO_THROTTLE_MAX_MS	10000

/**
 * struct npo_offender - refusals counted against one user on one device
 * @window_start: jiffies when the current counting window began.
 * @last: jiffies of the latest refusal.
 * @refusals: refusals in the window since the penalty last grew.
 * @penalty_ms: what each new queue of the user waits, 0 if nothing;
 *	doubles with each further refusal_limit refusals.
 * @until: jiffies until which the user's new queues wait.
 *
 * Written by the refusal work only; @until is read with READ_ONCE under
 * the xarray's lock, which the work holds to erase an entry before it
 * frees it.
 */
struct npo_offender {
	unsigned long window_start;
	unsigned long last;
	u32 refusals;
	u32 penalty_ms;
	unsigned long until;
};

static siphash_key_t npo_job_key;

/**
 * npo_job_default() - the default job of the calling process
 *
 * Return: a job with %NPO_JOB_DEFAULT set, the rest a keyed hash of the
 * process (thread group id and start time): the same for every file the
 * process opens, different for another process, and not something a
 * process can choose, or predict for another host, whose key differs.
 */
u32 npo_job_default(void)
{
	struct task_struct *leader = current->group_leader;

	net_get_random_once(&npo_job_key, sizeof(npo_job_key));
	return NPO_JOB_DEFAULT |
	       (u32)siphash_2u64(task_tgid_nr(current), leader->start_boottime,
				 &npo_job_key);
}

/**
 * npo_job_set() - put a file in a job a launcher assigns
 * @nfile: the file, with no queue or region yet.
 * @job: %NPO_JOB_MIN..%NPO_JOB_MAX.
 *
 * Context: process context; takes @nfile->lock.
 * Return: 0; -EPERM without CAP_NET_ADMIN; -EINVAL for a job out of
 * range; -EBUSY if the file already has queues or regions.
 */
int npo_job_set(struct npo_file *nfile, u32 job)
{
	int err = 0;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (job < NPO_JOB_MIN || job > NPO_JOB_MAX)
		return -EINVAL;
	mutex_lock(&nfile->lock);
	if (!xa_empty(&nfile->queues) || !xa_empty(&nfile->mrs))
		err = -EBUSY;
	else
		WRITE_ONCE(nfile->job, job);
	mutex_unlock(&nfile->lock);
	if (!err)
		npo_dbg(nfile->ndev, IOCTL, "pd %u joins job %u\n", nfile->pd,
			job);
	return err;
}

/**
 * npo_pd_load_job() - tell the device the job of a file's protection domain
 * @ndev: the device.
 * @nfile: the file, about to create a queue or region.
 *
 * The device gives queues and regions the job their domain has when they
 * are created; the driver says it before each, so that a reset device
 * never uses a stale one.
 *
 * Context: process context, under @nfile->lock.
 * Return: 0 or a negative errno from the mailbox.
 */
int npo_pd_load_job(struct npo_dev *ndev, struct npo_file *nfile)
{
	u32 args[2] = { FIELD_PREP(NPO_PD_JOB_PD, nfile->pd), nfile->job };

	return npo_mbox_exec(ndev, NPO_MBOX_OP_PD_JOB, args, ARRAY_SIZE(args),
			     NULL, 0);
}

/**
 * npo_job_throttle() - wait out the penalty of the calling user, if any
 * @nfile: the file about to create a queue.
 *
 * Context: process context, no locks held (not the device's remove_lock:
 * removal must not wait for a penalty); sleeps.
 * Return: 0, or -EINTR if a signal came first.
 */
int npo_job_throttle(struct npo_file *nfile)
{
	struct npo_dev *ndev = nfile->ndev;
	struct npo_offender *off;
	unsigned long until = 0;
	long left;

	xa_lock(&ndev->offenders);
	off = xa_load(&ndev->offenders, __kuid_val(current_uid()));
	if (off)
		until = READ_ONCE(off->until);
	xa_unlock(&ndev->offenders);
	left = off ? (long)(until - jiffies) : 0;
	if (left <= 0)
		return 0;
	left = schedule_timeout_interruptible(left);
	return left && signal_pending(current) ? -EINTR : 0;
}

/*
 * Forget users with nothing held against them: no refusal for a window
 * and no penalty left, so the table holds only current offenders however
 * many users (or user namespaces) ever failed.
 */
static void npo_offenders_prune(struct npo_dev *ndev, unsigned long now,
				unsigned long window)
{
	struct npo_offender *off;
	unsigned long uid;

	xa_for_each(&ndev->offenders, uid, off) {
		if (time_after(now, off->last + window) &&
		    !time_before(now, READ_ONCE(off->until))) {
			xa_erase(&ndev->offenders, uid);
			kfree(off);
		}
	}
}

/**
 * npo_job_offenders_show() - list the users whose refusals are counted
 * @ndev: the device.
 * @m: where to print, a line per user: its uid, refusals counted towards
 *	the next penalty, the penalty and what is left of it, in ms.
 *
 * Context: any; takes the table's spinlock, which the refusal work holds
 * to erase an entry before it frees it.
 */
void npo_job_offenders_show(struct npo_dev *ndev, struct seq_file *m)
{
	unsigned long uid, now = jiffies;
	struct npo_offender *off;
	long left;

	xa_lock(&ndev->offenders);
	xa_for_each(&ndev->offenders, uid, off) {
		left = (long)(READ_ONCE(off->until) - now);
		seq_printf(m, "uid %lu refusals %u penalty_ms %u wait_ms %u\n",
			   uid, READ_ONCE(off->refusals),
			   READ_ONCE(off->penalty_ms),
			   left > 0 ? jiffies_to_msecs(left) : 0);
	}
	xa_unlock(&ndev->offenders);
}

/*
 * Count refusals against a user; the penalty now in force, in ms, or 0.
 * Once throttled, every refusal pushes the gate a penalty further, so
 * each guess costs at least that; a window without refusals forgives.
 */
static u32 npo_offender_count(struct npo_dev *ndev, kuid_t uid, u32 count)
{
	unsigned long window = msecs_to_jiffies(READ_ONCE(refusal_window_ms));
	unsigned int limit = READ_ONCE(refusal_limit);
	unsigned long now = jiffies;
	struct npo_offender *off;

	npo_offenders_prune(ndev, now, window);
	off = xa_load(&ndev->offenders, __kuid_val(uid));
	if (!off) {
		off = kzalloc(sizeof(*off), GFP_KERNEL);
		if (!off)
			return 0;
		off->window_start = now;
		off->last = now;
		if (xa_err(xa_store(&ndev->offenders, __kuid_val(uid), off,
				    GFP_KERNEL))) {
			kfree(off);
			return 0;
		}
	}
	if (time_after(now, off->last + window)) {
		off->penalty_ms = 0;
		off->refusals = 0;
		off->window_start = now;
	} else if (time_after(now, off->window_start + window)) {
		off->refusals = 0;
		off->window_start = now;
	}
	off->last = now;
	off->refusals += count;
	if (limit && off->refusals >= limit) {
		off->penalty_ms = off->penalty_ms ?
				  min(off->penalty_ms * 2, NPO_THROTTLE_MAX_MS) :
				  NPO_THROTTLE_MIN_MS;
		off->refusals = 0;
	}
	if (off->penalty_ms)
		WRITE_ONCE(off->until, now + msecs_to_jiffies(off->penalty_ms));
	return off->penalty_ms;
}

/**
 * struct npo_refusal - one refusal record, with who owns the queue
 * @rec: what the device logged, in CPU order.
 * @rec.job: the requester's job.
 * @rec.peer_node: the other end's node.
 * @rec.queue: the requesting queue.
 * @rec.side: &enum npo_refusal_side.
 * @rec.opcode: NPO_OP_* of the request.
 * @rec.status: NPO_STATUS_* the requester saw.
 * @rec.count: refusals merged.
 * @owned: for the requester side, the queue's creator is known:
 * @pid: its process,
 * @comm: command name,
 * @uid: and user.
 * @throttle_ms: the penalty the user's new queues wait, 0 if none.
 */
struct npo_refusal {
	struct {
		u32 job;
		u32 peer_node;
		u16 queue;
		u8 side;
		u8 opcode;
		u32 status;
		u32 count;
	} rec;
	bool owned;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	uid_t uid;
	u32 throttle_ms;
};

/* The queue's creator, from the table queue creation fills in. */
static void npo_refusal_owner(struct npo_dev *ndev, struct npo_refusal *r)
{
	struct npo_queue_owner *owner;
	kuid_t uid = INVALID_UID;

	xa_lock(&ndev->queue_owners);
	owner = xa_load(&ndev->queue_owners, r->rec.queue);
	if (owner) {
		r->owned = true;
		r->pid = owner->tgid;
		memcpy(r->comm, owner->comm, sizeof(r->comm));
		uid = owner->uid;
		r->uid = from_kuid_munged(&init_user_ns, uid);
	}
	xa_unlock(&ndev->queue_owners);
	if (owner)
		r->throttle_ms = npo_offender_count(ndev, uid, r->rec.count);
}

static int npo_refusal_put(struct sk_buff *msg, struct npo_dev *ndev,
			   const struct npo_refusal *r)
{
	if (nla_put_u32(msg, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	    nla_put_string(msg, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
	    nla_put_u32(msg, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
	    nla_put_u32(msg, NPO_ATTR_REFUSAL_SIDE, r->rec.side) ||
	    nla_put_u32(msg, NPO_ATTR_JOB, r->rec.job) ||
	    nla_put_u32(msg, NPO_ATTR_REFUSAL_PEER_NODE, r->rec.peer_node) ||
	    nla_put_u32(msg, NPO_ATTR_QUEUE_ID, r->rec.queue) ||
	    nla_put_u32(msg, NPO_ATTR_REFUSAL_OPCODE, r->rec.opcode) ||
	    nla_put_u32(msg, NPO_ATTR_REFUSAL_STATUS, r->rec.status) ||
	    nla_put_u32(msg, NPO_ATTR_REFUSAL_COUNT, r->rec.count))
		return -EMSGSIZE;
	if (!r->owned)
		return 0;
	if (nla_put_u32(msg, NPO_ATTR_OWNER_PID, r->pid) ||
	    nla_put_string(msg, NPO_ATTR_OWNER_COMM, r->comm) ||
	    nla_put_u32(msg, NPO_ATTR_OWNER_UID, r->uid) ||
	    nla_put_u32(msg, NPO_ATTR_THROTTLE_MS, r->throttle_ms))
		return -EMSGSIZE;
	return 0;
}

/* Count, then tell the administrator, rate-limited. */
static void npo_refusal_report(struct npo_dev *ndev, struct npo_refusal *r,
			       struct ratelimit_state *rs)
{
	struct sk_buff *msg;
	char throttle[32] = "";
	void *hdr;

	if (r->rec.side == NPO_REFUSAL_SIDE_REQUESTER)
		npo_refusal_owner(ndev, r);
	if (!__ratelimit(rs))
		return;
	if (r->rec.side != NPO_REFUSAL_SIDE_REQUESTER) {
		npo_warn(ndev, "refused %u %s from node %u queue %u (job 0x%x): no such %s in that job\n",
			 r->rec.count, npo_op_str(r->rec.opcode),
			 r->rec.peer_node, r->rec.queue, r->rec.job,
			 r->rec.status == NPO_STATUS_REMOTE_QUEUE ?
			 "receiving queue" : "region");
	} else {
		if (r->throttle_ms)
			scnprintf(throttle, sizeof(throttle),
				  "; new queues delayed %u ms", r->throttle_ms);
		npo_warn(ndev, "queue %u (pid %d %s, uid %u, job 0x%x): %u %s to node %u refused%s\n",
			 r->rec.queue, r->owned ? r->pid : 0,
			 r->owned ? r->comm : "?", r->owned ? r->uid : 0,
			 r->rec.job, r->rec.count, npo_op_str(r->rec.opcode),
			 r->rec.peer_node, throttle);
	}
	msg = npo_genl_event_new(NPO_EVENT_REFUSED, &hdr);
	if (msg)
		npo_genl_event_send(ndev, msg, hdr,
				    npo_refusal_put(msg, ndev, r));
}

static void npo_refusal_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(work, struct npo_dev,
					    refusal_work);
	static const size_t size = NPO_REFUSAL_DEPTH *
				   sizeof(struct npo_hw_refusal);
	unsigned int batches = NPO_REFUSAL_BATCHES;
	struct npo_hw_refusal *log;
	unsigned int i, n;
	u32 lost;
	int err;

	log = kmalloc(size, GFP_KERNEL);
	if (!log)
		return;
	do {
		WRITE_ONCE(ndev->refusal_pending, false);
		err = npo_mbox_read_log(ndev, NPO_MBOX_OP_REFUSALS, log,
					sizeof(*log), NPO_REFUSAL_DEPTH, &lost);
		n = max(err, 0);
		if (err >= 0 && lost)
			dev_warn_ratelimited(&ndev->pdev->dev,
					     "%u refused requests went unreported: the refusal log was full\n",
					     lost);
		for (i = 0; i < n; i++) {
			struct npo_refusal r = {
				.rec.job = le32_to_cpu(log[i].job),
				.rec.peer_node = le32_to_cpu(log[i].peer_node),
				.rec.queue = le16_to_cpu(log[i].queue),
				.rec.side = log[i].side,
				.rec.opcode = log[i].opcode,
				.rec.status = le32_to_cpu(log[i].status),
				.rec.count = le32_to_cpu(log[i].count),
			};

			npo_refusal_report(ndev, &r, &ndev->refusal_rs);
		}
	} while (n == NPO_REFUSAL_DEPTH && --batches);
	kfree(log);
	/* A flood from the fabric shares the worker: come back for the rest. */
	if (n == NPO_REFUSAL_DEPTH) {
		WRITE_ONCE(ndev->refusal_pending, true);
		schedule_work(&ndev->refusal_work);
	}
}

/**
 * npo_refusal_irq() - the device logged a refusal
 * @ndev: the device.
 *
 * Context: hard interrupt.
 */
void npo_refusal_irq(struct npo_dev *ndev)
{
	WRITE_ONCE(ndev->refusal_pending, true);
	schedule_work(&ndev->refusal_work);
}

/**
 * npo_refusal_flush() - report what the device logged about a queue
 * @ndev: the device.
 *
 * Called once a queue is stopped and before its number goes to another
 * owner, so that its refusals are counted against the right process even
 * if its interrupt has not been handled yet.
 *
 * Context: process context; sleeps.
 */
void npo_refusal_flush(struct npo_dev *ndev)
{
	if (READ_ONCE(ndev->refusal_pending) ||
	    (npo_rd32(ndev, NPO_REG_IRQ_STATUS) & NPO_IRQ_REFUSED)) {
		WRITE_ONCE(ndev->refusal_pending, true);
		schedule_work(&ndev->refusal_work);
	}
	flush_work(&ndev->refusal_work);
}

/**
 * npo_job_init() - set up a new device's refusal accounting
 * @ndev: the device.
 */
void npo_job_init(struct npo_dev *ndev)
{
	INIT_WORK(&ndev->refusal_work, npo_refusal_work);
	xa_init(&ndev->offenders);
	xa_init(&ndev->queue_owners);
	/* A burst from one attacker is worth a few lines, not a flood. */
	ratelimit_state_init(&ndev->refusal_rs, 5 * HZ, 10);
}

/**
 * npo_job_fini() - free a released device's refusal accounting
 * @ndev: the device; its refusal work no longer runs.
 */
void npo_job_fini(struct npo_dev *ndev)
{
	struct npo_offender *off;
	unsigned long uid;

	xa_for_each(&ndev->offenders, uid, off)
		kfree(off);
	xa_destroy(&ndev->offenders);
	xa_destroy(&ndev->queue_owners);
}
