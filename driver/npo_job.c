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
 * The device logs each refused remote request at both ends: a region
 * check that failed, or a receiving queue that is not there (probing for
 * queue numbers).  A refused request puts its queue in error, so a process
 * guessing destroys and re-creates queues: the refusals of a job's queues
 * are counted, and past refusal_limit in refusal_window_ms the job's new
 * queues are let through one per penalty, the penalty doubling with each
 * further burst and halving with each quiet window.  What is guilty pays:
 * the job (a process's own by default), not every process of its user.
 * So that a user cannot escape by starting job after job, or container
 * after container, refusals also count against the user that owns them
 * (npo_job_charge()), with a limit NPO_OWNER_LIMIT_FACTOR times as
 * high.  Every refusal is reported, rate-limited, to the kernel log and
 * the netlink events group, naming the node, device, queue, process, user
 * and job.
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
/* A user's refusals over all its jobs may reach this many times the limit. */
#define NPO_OWNER_LIMIT_FACTOR	4
/* Turns of a penalised job or user queued ahead at most. */
#define NPO_TURNS_AHEAD		64

/**
 * struct npo_offender - refusals counted against one job or user
 * @window_start: jiffies when the current counting window began.
 * @last: jiffies of the latest refusal.
 * @refusals: refusals in the window since the penalty last grew.
 * @penalty_ms: the gap between two new queues, 0 if none; doubles with
 *	each further burst of refusals, halves with each quiet window.
 * @until: jiffies of the next new queue's turn: each takes one and moves
 *	it a penalty on, so that queues created at once are spread out.
 *
 * Under the xarray's lock, which pruning also holds to erase an entry
 * before it frees it.
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
 * npo_job_charge() - whom the calling task's refusals count against,
 *	besides its job
 *
 * Return: in the initial user namespace, the task's uid; in another, the
 * user that created the outermost one (a rootless container's subordinate
 * uids are all that user's), or, when root made it (LXD, rootful podman,
 * a pod), that namespace itself, so that one tenant's container does not
 * share an allowance with every other and with the host's root.
 */
struct npo_charge npo_job_charge(void)
{
	const struct user_namespace *ns = current_user_ns();

	if (ns == &init_user_ns)
		return (struct npo_charge) { .id = __kuid_val(current_uid()) };
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	if (uid_eq(ns->owner, GLOBAL_ROOT_UID))
		return (struct npo_charge) { .userns = true, .id = ns->ns.inum };
	return (struct npo_charge) { .id = __kuid_val(ns->owner) };
}

static struct xarray *npo_charge_table(struct npo_dev *ndev,
				       struct npo_charge c)
{
	return c.userns ? &ndev->userns_offenders : &ndev->owner_offenders;
}

/* The penalty in force at @now: halved for each quiet window since. */
static u32 npo_offender_penalty(const struct npo_offender *off,
				unsigned long now, unsigned long window)
{
	unsigned long quiet = time_after(now, off->last) && window ?
			      (now - off->last) / window : 0;
	u32 ms = quiet >= 32 ? 0 : off->penalty_ms >> quiet;

	return ms < NPO_THROTTLE_MIN_MS ? 0 : ms;
}

/*
 * Take the next turn of @id in @xa, if it is penalised: how long to wait
 * for it, in jiffies, in *wait; false if it is not penalised.
 */
static bool npo_offender_turn(struct xarray *xa, unsigned long id,
			      unsigned long now, unsigned long window,
			      unsigned long *wait)
{
	struct npo_offender *off;
	unsigned long slot;
	u32 ms;

	xa_lock(xa);
	off = xa_load(xa, id);
	ms = off ? npo_offender_penalty(off, now, window) : 0;
	if (ms) {
		slot = time_after(off->until, now) ? off->until : now;
		/*
		 * Turns taken by callers that then gave up (a signal) are not
		 * handed back: bound how far ahead they can push the next.
		 */
		if (time_after(slot, now + NPO_TURNS_AHEAD * msecs_to_jiffies(ms)))
			slot = now + NPO_TURNS_AHEAD * msecs_to_jiffies(ms);
		off->until = slot + msecs_to_jiffies(ms);
		*wait = slot - now;
	}
	xa_unlock(xa);
	return ms;
}

/**
 * npo_job_throttle() - wait for the calling file's turn to create a queue
 * @nfile: the file about to create a queue.
 *
 * While its job is penalised, every new queue of the job takes a turn, one
 * penalty after the last: queues created at once by many threads are
 * spread out, not let through together.  A job that is not takes a turn
 * of the user its refusals count against, if that is penalised: a user
 * starting job after job pays there, and a user's other jobs are not
 * held up by one that is penalised on its own.
 *
 * Context: process context, no locks held (not the device's remove_lock:
 * removal must not wait for a penalty); sleeps.
 * Return: 0, or -EINTR if a signal came first.
 */
int npo_job_throttle(struct npo_file *nfile)
{
	struct npo_dev *ndev = nfile->ndev;
	unsigned long window = msecs_to_jiffies(READ_ONCE(refusal_window_ms));
	unsigned long now = jiffies, wait = 0;
	struct npo_charge c = npo_job_charge();
	long left;

	if (!npo_offender_turn(&ndev->offenders, READ_ONCE(nfile->job), now,
			       window, &wait))
		npo_offender_turn(npo_charge_table(ndev, c), c.id, now, window,
				  &wait);
	left = wait;
	if (left <= 0)
		return 0;
	left = schedule_timeout_interruptible(left);
	return left && signal_pending(current) ? -EINTR : 0;
}

/*
 * Forget offenders with nothing held against them: no penalty left and
 * no refusal for a window, so the tables hold only current offenders
 * however many jobs or users ever failed.
 */
static void npo_offenders_prune(struct xarray *xa, unsigned long now,
				unsigned long window)
{
	struct npo_offender *off;
	unsigned long id;

	xa_for_each(xa, id, off) {
		bool idle;

		xa_lock(xa);
		idle = time_after(now, off->last + window) &&
		       !npo_offender_penalty(off, now, window) &&
		       !time_before(now, off->until);
		if (idle)
			__xa_erase(xa, id);
		xa_unlock(xa);
		if (idle)
			kfree(off);
	}
}

static void npo_offenders_show_one(struct xarray *xa, struct seq_file *m,
				   const char *fmt, unsigned long now,
				   unsigned long window)
{
	struct npo_offender *off;
	unsigned long id;
	long left;

	xa_lock(xa);
	xa_for_each(xa, id, off) {
		left = (long)(off->until - now);
		seq_printf(m, fmt, id);
		seq_printf(m, " refusals %u penalty_ms %u wait_ms %u\n",
			   off->refusals, npo_offender_penalty(off, now, window),
			   left > 0 ? jiffies_to_msecs(left) : 0);
	}
	xa_unlock(xa);
}

/**
 * npo_job_offenders_show() - list the jobs and users whose refusals count
 * @ndev: the device.
 * @m: where to print, a line per job ("job 0x...") and per user ("owner
 *	uid N"): refusals counted towards the next penalty, the penalty in
 *	force and how long until the next new queue's turn, in ms.
 *
 * Context: any; takes the tables' spinlocks.
 */
void npo_job_offenders_show(struct npo_dev *ndev, struct seq_file *m)
{
	unsigned long window = msecs_to_jiffies(READ_ONCE(refusal_window_ms));
	unsigned long now = jiffies;

	npo_offenders_show_one(&ndev->offenders, m, "job 0x%lx", now, window);
	npo_offenders_show_one(&ndev->owner_offenders, m, "owner uid %lu", now,
			       window);
	npo_offenders_show_one(&ndev->userns_offenders, m, "owner userns %lu",
			       now, window);
}

/*
 * Count refusals against one job or user, under a limit; the penalty now
 * in force, in ms, or 0.  Once penalised, every refusal pushes the next
 * turn a penalty further, so that each guess costs at least that.
 */
static u32 npo_offender_add(struct xarray *xa, unsigned long id, u32 count,
			    unsigned int limit, unsigned long now,
			    unsigned long window)
{
	struct npo_offender *off;
	u32 ms;

	npo_offenders_prune(xa, now, window);
	/*
	 * Only the refusal work adds and frees entries: what it loads stays,
	 * and a new one needs no lock to go in.
	 */
	off = xa_load(xa, id);
	if (!off) {
		off = kzalloc(sizeof(*off), GFP_KERNEL);
		if (!off)
			return 0;
		off->window_start = now;
		off->last = now;
		if (xa_err(xa_store(xa, id, off, GFP_KERNEL))) {
			kfree(off);
			return 0;
		}
	}
	xa_lock(xa);
	off->penalty_ms = npo_offender_penalty(off, now, window);
	if (time_after(now, off->window_start + window)) {
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
	if (off->penalty_ms) {
		unsigned long turn = now + msecs_to_jiffies(off->penalty_ms);

		if (time_after(turn, off->until))
			off->until = turn;
	}
	ms = off->penalty_ms;
	xa_unlock(xa);
	return ms;
}

/* Count refusals against a queue's job and its owner; the job's penalty. */
static u32 npo_offender_count(struct npo_dev *ndev,
			      const struct npo_queue_owner *owner, u32 count)
{
	unsigned long window = msecs_to_jiffies(READ_ONCE(refusal_window_ms));
	unsigned int limit = READ_ONCE(refusal_limit);
	unsigned long now = jiffies;

	npo_offender_add(npo_charge_table(ndev, owner->charge), owner->charge.id,
			 count, limit * NPO_OWNER_LIMIT_FACTOR, now, window);
	return npo_offender_add(&ndev->offenders, owner->job, count, limit, now,
				window);
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
	struct npo_queue_owner *owner, copy;

	xa_lock(&ndev->queue_owners);
	owner = xa_load(&ndev->queue_owners, r->rec.queue);
	if (owner) {
		copy = *owner;
		r->owned = true;
		r->pid = owner->tgid;
		memcpy(r->comm, owner->comm, sizeof(r->comm));
		r->uid = from_kuid_munged(&init_user_ns, owner->uid);
	}
	xa_unlock(&ndev->queue_owners);
	if (owner)
		r->throttle_ms = npo_offender_count(ndev, &copy, r->rec.count);
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
	xa_init(&ndev->owner_offenders);
	xa_init(&ndev->userns_offenders);
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
	unsigned long id;

	xa_for_each(&ndev->offenders, id, off)
		kfree(off);
	xa_for_each(&ndev->owner_offenders, id, off)
		kfree(off);
	xa_for_each(&ndev->userns_offenders, id, off)
		kfree(off);
	xa_destroy(&ndev->offenders);
	xa_destroy(&ndev->owner_offenders);
	xa_destroy(&ndev->userns_offenders);
	xa_destroy(&ndev->queue_owners);
}
