// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO fabric time sync: one time for every device of the fabric.
 *
 * Every interval each device sends a SYNC on each active link and the
 * peer answers at once with a REPLY; both leave with a hardware stamp in
 * them (one-step) and are stamped on arrival, so the four instants of
 * two-way time transfer give the peer's offset and the path delay, free
 * of software latency.  Every message also announces the sender's
 * grandmaster: its priority, node id, how many links away it is, and
 * the grandmaster's own count of intervals, which only advances while
 * the grandmaster is alive and reachable.
 *
 * The best grandmaster (lowest priority, then lowest node id) whose count
 * still advances wins; each device follows it through the port that
 * announces it with the fewest steps, and a PI servo steps then slews its
 * clock to that port's peer.  When the count stops, devices hold over on
 * their last frequency, then elect again among what is still alive.
 *
 * A peer is not trusted for being one: messages are signed with the
 * fabric key (npo_fabric_key.c), only the nodes the operator allows may
 * be grandmaster, a locked clock refuses to jump unless its grandmaster
 * announces a new time, its error bound covers the jumps it saw, and the
 * device lets only a few messages a port through to software.
 * Documentation/timesync.rst describes the protocol and its bounds.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <uapi/linux/npo_names.h>

#include "npo.h"
#include "npo_fabric_key.h"
#include "npo_health.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_timesync.h"

static unsigned int sync_interval_ms = 100;
module_param(sync_interval_ms, uint, 0444);
MODULE_PARM_DESC(sync_interval_ms,
		 "Fabric time sync: ms between SYNCs on each link (10-1000)");

static unsigned int holdover_ppb = 1000;
module_param(holdover_ppb, uint, 0644);
MODULE_PARM_DESC(holdover_ppb,
		 "Fabric time: how fast a clock may drift when it follows no grandmaster, ppb; the error bound grows at this rate (default 1 ppm)");

static unsigned long locked_step_max_ns = NSEC_PER_MSEC;
module_param(locked_step_max_ns, ulong, 0644);
MODULE_PARM_DESC(locked_step_max_ns,
		 "Fabric time: a locked clock refuses to step further than this unless its grandmaster set a new time; it holds over instead, ns (default 1 ms)");

/* Intervals without a sign of life before a peer or grandmaster is gone. */
#define NPO_TS_ALIVE_INTERVALS		4
/* Intervals of holdover before electing another grandmaster. */
#define NPO_TS_HOLDOVER_INTERVALS	15
/* Intervals without a measurement before a peer is no parent to follow. */
#define NPO_TS_ANSWER_INTERVALS		20
/* A port's refused grandmasters are logged at most this often. */
#define NPO_TS_REFUSED_LOG_GAP		(60 * HZ)
/* Messages a port may deliver an interval (a SYNC and a REPLY are two). */
#define NPO_TS_RX_PER_INTERVAL		4
#define NPO_TS_STEP_NS			20000	/* step, not slew, beyond */
#define NPO_TS_MAX_DELAY_NS		100000	/* 20 km of fibre: beyond, junk */
/* The answer_delay_us test hook's limit: two intervals at 100 ms. */
#define NPO_TS_ANSWER_DELAY_MAX_US	200000
/* A peer takes at most this long to answer, on its clock. */
#define NPO_TS_MAX_TURNAROUND_NS	(10 * NSEC_PER_SEC)
/*
 * Two clocks within +-100 ppm, each steered up to +-500 ppm, differ by at
 * most 1200 ppm: a rate ratio beyond 2000 ppm spans a step.  Measured
 * over at most 10 s.
 */
#define NPO_TS_RATE_MAX_PPM		2000
#define NPO_TS_RATE_BASE_MAX_NS		(10 * NSEC_PER_SEC)
/*
 * Once the path delay is known, an exchange whose delay is further from it
 * spanned a step of one of the clocks (steps are over 20 us): drop it.
 * After this many in a row the path itself changed: learn it again.
 */
#define NPO_TS_DELAY_TOLERANCE_NS	1000
#define NPO_TS_DELAY_LEARN		4
#define NPO_TS_DELAY_RELEARN		8
#define NPO_TS_LOCK_NS			20
#define NPO_TS_UNLOCK_NS		1000
#define NPO_TS_LOCK_SAMPLES		16
/* PI gains per sample, in 1/1024: kp from fast to gentle as lock holds. */
#define NPO_TS_KP_FAST			717	/* 0.7 */
#define NPO_TS_KP_SLOW			102	/* 0.1 */
#define NPO_TS_SETTLE_MAX		64
#define NPO_TS_DEFAULT_PRIORITY		128
/*
 * A measured offset is off by stamp noise and the exchange's own error:
 * what the lock threshold allows.  Link asymmetry is not in it (see
 * Documentation/timesync.rst, "Error bound").
 */
#define NPO_TS_BOUND_MARGIN_NS		NPO_TS_LOCK_NS

enum {
	NPO_TS_MSG_SYNC = 1,
	NPO_TS_MSG_REPLY = 2,
};

/*
 * On the wire, little endian.  t_tx is at byte 8, where the device
 * writes the departure stamp of a one-step message.
 */
struct npo_ts_msg {
	u8 type;
	u8 state;		/* the sender's &enum npo_clock_state */
	u8 gm_prio;
	u8 steps;		/* the sender's links to its grandmaster */
	__le32 seq;		/* of the SYNC; a REPLY echoes it */
	__le64 t_tx;		/* departure, stamped by the device */
	__le64 t_rx;		/* REPLY: arrival of the SYNC it answers */
	__le32 gm_node;
	__le32 gm_seq;		/* the grandmaster's interval count */
	__le32 node;		/* the sender */
	u8 prio;		/* the sender's own priority */
	u8 epoch;		/* counts the sender's clock jumps */
	u8 gm_epoch;		/* counts the grandmaster's new times */
	u8 flags;		/* NPO_TS_FLAG_* */
	__le32 bound;		/* the sender's error bound, ns; ~0: none */
} __packed;

/* The sender offers no grandmaster: ignore gm_*. */
#define NPO_TS_FLAG_NO_GM	BIT(0)

/* What a sender without an error bound in its messages sends. */
#define NPO_TS_MSG_MIN_LEN	offsetof(struct npo_ts_msg, bound)

static_assert(offsetof(struct npo_ts_msg, t_tx) == NPO_TIME_ONE_STEP_OFFSET);
static_assert(sizeof(struct npo_ts_msg) + sizeof(struct npo_fkey_trailer) <=
	      NPO_TIME_MSG_MAX);

static const char * const npo_clock_state_names[] = NPO_CLOCK_STATE_NAMES;

/**
 * npo_clock_state_str() - name of a fabric clock state
 * @state: &enum npo_clock_state.
 *
 * Return: a static string, "?" if unknown.
 */
const char *npo_clock_state_str(unsigned int state)
{
	return state < ARRAY_SIZE(npo_clock_state_names) ?
	       npo_clock_state_names[state] : "?";
}

/**
 * npo_clock_role_str() - name of a device's part in fabric time
 * @role: &enum npo_clock_role.
 *
 * Return: a static string, "?" if unknown.
 */
const char *npo_clock_role_str(unsigned int role)
{
	static const char * const names[] = NPO_CLOCK_ROLE_NAMES;

	return role < ARRAY_SIZE(names) ? names[role] : "?";
}

/* The interval in use: the parameter, within what the servo is tuned for. */
static unsigned int npo_ts_interval_ms(void)
{
	return clamp(sync_interval_ms, 10u, 1000u);
}

static unsigned long npo_ts_interval(void)
{
	return msecs_to_jiffies(npo_ts_interval_ms());
}

static bool npo_ts_recent(unsigned long at, unsigned int intervals)
{
	return at && time_before(jiffies, at + intervals * npo_ts_interval());
}

/*
 * Interface 1.18 carries time messages long enough for the fabric key's
 * trailer, and polices them per port.
 */
static bool npo_ts_hw_auth(const struct npo_dev *ndev)
{
	return FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
	       NPO_IF_MINOR_TIME_AUTH;
}

/*
 * Device-level mailbox use of the command page, one message at a time.
 * The MAC leaves out the departure stamp, which the device writes as the
 * message leaves (as IEEE 1588's authentication leaves out the
 * correction a transparent clock writes).
 */
static int npo_ts_send(struct npo_dev *ndev, unsigned int port,
		       const struct npo_ts_msg *msg, u64 *stamp)
{
	u32 args[4], ret[2];
	int len = sizeof(*msg);
	int err;

	if (!npo_ts_hw_auth(ndev) && !ndev->ts.warned_unsigned &&
	    npo_fkey_enabled(ndev)) {
		ndev->ts.warned_unsigned = true;
		npo_warn(ndev, "fabric time: the device (interface before 1.18) cannot carry signed time messages: its keyed peers will not hear its time\n");
	}
	mutex_lock(&ndev->cmd_lock);
	memcpy(ndev->cmd_buf, msg, sizeof(*msg));
	if (npo_ts_hw_auth(ndev)) {
		len = npo_fkey_sign(ndev, NPO_FKEY_CTX_TIME, ndev->cmd_buf,
				    len, NPO_TIME_MSG_MAX,
				    NPO_TIME_ONE_STEP_OFFSET,
				    sizeof(msg->t_tx));
		if (len < 0) {
			mutex_unlock(&ndev->cmd_lock);
			return len;
		}
	}
	args[0] = FIELD_PREP(NPO_TIME_SEND_PORT, port) |
		  FIELD_PREP(NPO_TIME_SEND_FLAGS, NPO_TIME_SEND_ONE_STEP);
	args[1] = len;
	args[2] = lower_32_bits(ndev->cmd_dma);
	args[3] = upper_32_bits(ndev->cmd_dma);
	err = npo_mbox_read(ndev, NPO_MBOX_OP_TIME_SEND, args, ARRAY_SIZE(args),
			    ret, ARRAY_SIZE(ret));
	mutex_unlock(&ndev->cmd_lock);
	if (!err && stamp)
		*stamp = (u64)ret[1] << 32 | ret[0];
	return err;
}

static int npo_ts_recv(struct npo_dev *ndev, struct npo_hw_time_msg *m)
{
	u32 args[2];
	int err;

	mutex_lock(&ndev->cmd_lock);
	args[0] = lower_32_bits(ndev->cmd_dma);
	args[1] = upper_32_bits(ndev->cmd_dma);
	err = npo_mbox_read(ndev, NPO_MBOX_OP_TIME_RECV, args, ARRAY_SIZE(args),
			    NULL, 0);
	if (!err)
		memcpy(m, ndev->cmd_buf, sizeof(*m));
	mutex_unlock(&ndev->cmd_lock);
	return err;
}

/* Up, and not miswired: fabric time never goes over a cable out of plan. */
static bool npo_ts_port_active(struct npo_dev *ndev, unsigned int i)
{
	return ndev->ports &&
	       FIELD_GET(NPO_PST_STATE, READ_ONCE(ndev->ports[i].status)) ==
	       NPO_HW_PORT_ACTIVE && !npo_port_miswired(&ndev->ports[i]);
}

/* May @node lead the fabric's time?  Any may, until the operator says. */
static bool npo_ts_gm_allowed(const struct npo_timesync *ts, u32 node)
{
	unsigned int i;

	if (!ts->gm_allow_n)
		return true;
	for (i = 0; i < ts->gm_allow_n; i++)
		if (ts->gm_allow[i] == node)
			return true;
	return false;
}

/* Started and not stopped: what ts->lock's holders look at first. */
static bool npo_ts_running(const struct npo_timesync *ts)
{
	lockdep_assert_held(&ts->lock);
	return !!ts->ports;
}

/* --- error bound ----------------------------------------------------------- */

/* The bound on our clock's error at @now (CLOCK_MONOTONIC, ns). */
static u64 npo_ts_bound_at(const struct npo_timesync *ts, u64 now)
{
	u64 grown;

	if (ts->bound_ns == NPO_TS_BOUND_UNKNOWN)
		return NPO_TS_BOUND_UNKNOWN;
	if (now <= ts->bound_at)
		return ts->bound_ns;
	grown = mul_u64_u32_div(now - ts->bound_at, ts->bound_rate_ppb,
				NSEC_PER_SEC);
	return min(ts->bound_ns + grown, NPO_TS_BOUND_UNKNOWN - 1);
}

/* From now on: @bound ns, growing at @rate_ppb. */
static void npo_ts_set_bound(struct npo_timesync *ts, u64 bound, u32 rate_ppb)
{
	ts->bound_ns = bound;
	ts->bound_at = ktime_get_ns();
	ts->bound_rate_ppb = rate_ppb;
}

/*
 * A measurement of our offset from the parent: our error is at most the
 * parent's, plus what we measured, plus what a measurement can be off by.
 * The parent's bound may have grown since it announced it, as ours grows
 * until the next measurement: both as in holdover.
 */
static void npo_ts_bound_measured(struct npo_timesync *ts, s64 off)
{
	const struct npo_ts_port *tp = &ts->ports[ts->parent];
	u32 rate = READ_ONCE(holdover_ppb);
	u64 now = ktime_get_ns(), parent = tp->peer_bound, seen = 0;
	unsigned int i;

	for (i = 0; i < NPO_TS_BOUND_WINDOW; i++)
		seen = max(seen, ts->off_seen[i]);
	if (parent == NPO_TS_BOUND_UNKNOWN) {
		npo_ts_set_bound(ts, NPO_TS_BOUND_UNKNOWN, 0);
		return;
	}
	if (now > tp->peer_bound_at)
		parent += mul_u64_u32_div(now - tp->peer_bound_at, rate,
					  NSEC_PER_SEC);
	npo_ts_set_bound(ts, parent + seen + NPO_TS_BOUND_MARGIN_NS, rate);
}

/*
 * What the parent's time did, as we measured it: the bound covers the
 * largest offset of the last few measurements, so that a jump of the
 * parent's time counts for a while even after we followed it, and the
 * bound is never only what the parent announces.
 */
static void npo_ts_off_seen(struct npo_timesync *ts, s64 off)
{
	ts->off_seen[ts->off_next] = off == S64_MIN ? S64_MAX : abs(off);
	ts->off_next = (ts->off_next + 1) % NPO_TS_BOUND_WINDOW;
}

/* What a message carries: saturated, ~0 for none. */
static __le32 npo_ts_bound_wire(const struct npo_timesync *ts)
{
	u64 bound = npo_ts_bound_at(ts, ktime_get_ns());

	return cpu_to_le32(min_t(u64, bound, U32_MAX));
}

/* What this device announces: its grandmaster as it knows it. */
static void npo_ts_fill(struct npo_dev *ndev, struct npo_ts_msg *msg, u8 type,
			u32 seq)
{
	struct npo_timesync *ts = &ndev->ts;

	*msg = (struct npo_ts_msg) {
		.type = type,
		.state = ts->state,
		.gm_prio = ts->gm_prio,
		.steps = ts->steps,
		.seq = cpu_to_le32(seq),
		.gm_node = cpu_to_le32(ts->gm_node),
		.gm_seq = cpu_to_le32(ts->gm_seq),
		.node = cpu_to_le32(ndev->node_id),
		.prio = ts->prio,
		.epoch = ts->epoch,
		.gm_epoch = ts->gm_epoch,
		.flags = ts->role == NPO_CLOCK_ROLE_FREE ? NPO_TS_FLAG_NO_GM : 0,
		.bound = npo_ts_bound_wire(ts),
	};
}

/*
 * Our clock jumped or changed its rate under the service: SYNCs already
 * sent are stale, and every rate ratio must be measured again.
 */
static void npo_ts_new_epoch(struct npo_dev *ndev)
{
	struct npo_timesync *ts = &ndev->ts;
	unsigned int i;

	ts->epoch++;
	for (i = 0; i < ndev->num_ports; i++) {
		ts->ports[i].anchor_valid = false;
		ts->ports[i].rate_known = false;
	}
}

static void npo_ts_set_state(struct npo_dev *ndev, u8 state)
{
	struct npo_timesync *ts = &ndev->ts;

	if (ts->state == state)
		return;
	npo_dbg(ndev, CLOCK, "clock %s -> %s\n", npo_clock_state_str(ts->state),
		npo_clock_state_str(state));
	/* Event stamps read it without the lock (npo_clock_fabric_now()). */
	WRITE_ONCE(ts->state, state);
	ts->changed = true;
}

/* --- servo --------------------------------------------------------------- */

/* Frequency adjustments are kept as ppb << 16 and applied as scaled ppm. */
static void npo_ts_apply_freq(struct npo_dev *ndev, s64 ppb16)
{
	struct npo_timesync *ts = &ndev->ts;
	s64 max = (s64)ts->max_adj_ppb << 16;

	ts->freq_ppb16 = clamp(ppb16, -max, max);
	npo_clock_set_freq(ndev, div_s64(ts->freq_ppb16, 1000));
}

/*
 * Offset ns over dt ns as a frequency, in ppb << 16, times num / den.
 * |off| <= 100 us keeps off * 1e9 << 16 within s64.
 */
static s64 npo_ts_rate(s64 off, s64 dt, int num, int den)
{
	off = clamp_t(s64, off, -100000, 100000);
	return div64_s64(off * NSEC_PER_SEC * 65536 / den * num, dt);
}

/* Step the clock by -off; the last sample's time moves with it. */
static void npo_ts_step(struct npo_dev *ndev, s64 off)
{
	struct npo_timesync *ts = &ndev->ts;

	npo_clock_step(ndev, -off);
	ts->last_at -= off;
	ts->steps_taken++;
	ts->good = 0;
	npo_ts_new_epoch(ndev);
}

/*
 * PI gains for the current run of good samples: fast to pull in, then
 * halving the excess over the gentle gain every 16 good samples, so that
 * stamp noise averages out without a jolt when lock is declared.  ki is
 * kp^2 / 4 (in 1/2^20): critically damped, since an underdamped follower
 * amplifies its parent's wander and a chain of them compounds it.
 */
static void npo_ts_gains(const struct npo_timesync *ts, int *kp, int *ki)
{
	*kp = NPO_TS_KP_SLOW +
	      ((NPO_TS_KP_FAST - NPO_TS_KP_SLOW) >> (ts->good / 16));
	*ki = *kp * *kp / 4;
}

/* Beyond what a locked clock steps by. */
static bool npo_ts_far(s64 off)
{
	return off == S64_MIN || (u64)abs(off) > READ_ONCE(locked_step_max_ns);
}

/*
 * The parent's time is @off from ours, further than a locked clock steps:
 * hold over on our own and report it.  The port is not followed again
 * while its time stays that far and its grandmaster announces no new
 * time (npo_ts_port_alive()), so that the election holds over and then
 * goes elsewhere rather than back to it.
 */
static void npo_ts_refuse_step(struct npo_dev *ndev, s64 off)
{
	struct npo_timesync *ts = &ndev->ts;
	struct npo_ts_port *tp = &ts->ports[ts->parent];

	tp->jumped = true;
	tp->jumped_epoch = tp->gm_epoch;
	ts->refused_steps++;
	ts->refused_at = jiffies ?: 1;
	ts->refused_node = tp->node;
	ts->refused_port = ts->parent;
	ts->holdover_since = jiffies;
	/* A peer swinging in and out of reach: once a minute a port. */
	if (!tp->refused_log_at ||
	    !time_before(jiffies, tp->refused_log_at + NPO_TS_REFUSED_LOG_GAP)) {
		tp->refused_log_at = jiffies ?: 1;
		npo_warn(ndev, "fabric time: node %u's time through port %d is %lld ns from ours, beyond locked_step_max_ns, and grandmaster node %u set no new time: not stepping, holding over\n",
			 tp->node, ts->parent, -off, ts->gm_node);
	}
	npo_ts_set_bound(ts, npo_ts_bound_at(ts, ktime_get_ns()),
			 READ_ONCE(holdover_ppb));
	npo_ts_set_state(ndev, NPO_CLOCK_HOLDOVER);
	ts->changed = true;
}

/*
 * The parent is @off from us, far: did our own clock jump (a glitch of
 * our oscillator), rather than the parent's?  Then every other peer we
 * measured lately is as far, in the same direction: step with them.  With
 * no other peer to ask, it is taken for the parent's jump.
 */
static bool npo_ts_we_jumped(struct npo_dev *ndev, s64 off)
{
	struct npo_timesync *ts = &ndev->ts;
	s64 theirs = -off, max = READ_ONCE(locked_step_max_ns);
	unsigned int i, agree = 0;

	for (i = 0; i < ndev->num_ports; i++) {
		const struct npo_ts_port *tp = &ts->ports[i];

		if (i == ts->parent || !npo_ts_recent(tp->used_at, 2))
			continue;
		/* A peer as far as the parent, in the same direction. */
		if (abs(tp->offset - theirs) > max)
			return false;
		agree++;
	}
	return agree > 0;
}

/*
 * Whether to act on a measurement @off of the parent: a locked clock
 * takes no jump its grandmaster did not announce (linuxptp's
 * step_threshold).
 */
static bool npo_ts_believe(struct npo_dev *ndev, s64 off)
{
	struct npo_timesync *ts = &ndev->ts;
	struct npo_ts_port *tp = &ts->ports[ts->parent];

	if (tp->gm_epoch != ts->gm_epoch) {
		/* The grandmaster set a new time: the next step is allowed. */
		ts->gm_epoch = tp->gm_epoch;
		ts->locked_once = false;
	}
	if (ts->locked_once && npo_ts_far(off) && !npo_ts_we_jumped(ndev, off)) {
		npo_ts_refuse_step(ndev, off);
		return false;
	}
	/* A jump refused is the parent's error, not ours: only what we follow. */
	npo_ts_off_seen(ts, off);
	return true;
}

/*
 * One measurement of this clock against the parent's: off = self - parent
 * at local time at.  The first two estimate the rate and step; then PI.
 */
static void npo_ts_servo(struct npo_dev *ndev, s64 off, u64 at)
{
	struct npo_timesync *ts = &ndev->ts;
	s64 dt = at - ts->last_at;
	s64 nominal = (s64)npo_ts_interval_ms() * NSEC_PER_MSEC;
	int kp, ki;

	if (!npo_ts_believe(ndev, off))
		return;
	ts->offset = off;
	if (ts->samples == 0) {
		ts->samples = 1;
		ts->last_off = off;
		ts->last_at = at;
		npo_ts_set_state(ndev, NPO_CLOCK_LOCKING);
		npo_ts_set_bound(ts, NPO_TS_BOUND_UNKNOWN, 0);
		return;
	}
	if (dt <= 0 || dt > 100 * nominal) {
		/* Our own clock moved under the samples: start again. */
		ts->samples = 0;
		return;
	}
	if (dt < nominal / 2)
		return;
	ts->last_at = at;
	if (ts->samples == 1) {
		/* Drift over the two samples is the rate error: cancel it. */
		npo_ts_apply_freq(ndev, ts->freq_ppb16 -
				  npo_ts_rate(off - ts->last_off, dt, 1, 1));
		ts->integral = ts->freq_ppb16;
		npo_ts_step(ndev, off);
		ts->samples = 2;
		ts->syntonised = true;
		return;
	}
	dt = min(dt, 4 * nominal);
	if (abs(off) > NPO_TS_STEP_NS) {
		/*
		 * Far off: step, and measure the rate afresh from here, since
		 * a wrong rate is what usually takes a clock this far.
		 */
		npo_ts_step(ndev, off);
		ts->last_off = 0;
		ts->samples = 1;
		npo_ts_set_state(ndev, NPO_CLOCK_LOCKING);
		npo_ts_set_bound(ts, NPO_TS_BOUND_UNKNOWN, 0);
		return;
	}
	npo_ts_gains(ts, &kp, &ki);
	ts->integral -= npo_ts_rate(off, dt, ki, 1 << 20);
	ts->integral = clamp(ts->integral, -((s64)ts->max_adj_ppb << 16),
			     (s64)ts->max_adj_ppb << 16);
	npo_ts_apply_freq(ndev, ts->integral - npo_ts_rate(off, dt, kp, 1024));
	npo_ts_bound_measured(ts, off);

	if (abs(off) <= NPO_TS_LOCK_NS) {
		if (ts->good < NPO_TS_SETTLE_MAX)
			ts->good++;
		/* Locked to the grandmaster only once the parent is. */
		if (ts->good >= NPO_TS_LOCK_SAMPLES &&
		    ts->ports[ts->parent].peer_state == NPO_CLOCK_LOCKED) {
			npo_ts_set_state(ndev, NPO_CLOCK_LOCKED);
			ts->locked_once = true;
		}
	} else {
		ts->good = 0;
		if (abs(off) > NPO_TS_UNLOCK_NS)
			npo_ts_set_state(ndev, NPO_CLOCK_LOCKING);
	}
}

/* --- receiving ------------------------------------------------------------- */

/*
 * The peer offers a grandmaster the operator did not allow: nothing in
 * the message is believed or answered.  Counted each time; said (log and
 * event) at most once a minute per port, so that a peer alternating
 * grandmasters cannot fill the log; the counters keep the full record.
 */
static void npo_ts_refuse_gm(struct npo_dev *ndev, unsigned int i, u32 gm_node,
			     u8 gm_prio)
{
	struct npo_timesync *ts = &ndev->ts;
	struct npo_ts_port *tp = &ts->ports[i];

	tp->stats.refused_gm++;
	ts->refused_gms++;
	ts->refused_at = jiffies ?: 1;
	ts->refused_node = gm_node;
	ts->refused_port = i;
	if (tp->refused_log_at &&
	    time_before(jiffies, tp->refused_log_at + NPO_TS_REFUSED_LOG_GAP))
		return;
	tp->refused_log_at = jiffies ?: 1;
	ts->changed = true;
	/* Once a minute a port at most: not for the shared limiter. */
	npo_warn(ndev, "fabric time: port %u offers grandmaster node %u (priority %u), which is not allowed to be one: refused\n",
		 i, gm_node, gm_prio);
}

/* Note the peer's announce; its grandmaster lives while gm_seq advances. */
static void npo_ts_heard(struct npo_dev *ndev, unsigned int i,
			 const struct npo_ts_msg *msg)
{
	struct npo_ts_port *tp = &ndev->ts.ports[i];
	u32 gm_node = le32_to_cpu(msg->gm_node), gm_seq = le32_to_cpu(msg->gm_seq);

	tp->heard_at = jiffies;
	tp->node = le32_to_cpu(msg->node);
	tp->prio = msg->prio;
	tp->steps = msg->steps;
	tp->peer_state = msg->state;
	tp->peer_bound = le32_to_cpu(msg->bound) == U32_MAX ?
			 NPO_TS_BOUND_UNKNOWN : le32_to_cpu(msg->bound);
	tp->peer_bound_at = ktime_get_ns();
	tp->gm_epoch = msg->gm_epoch;
	tp->no_gm = msg->flags & NPO_TS_FLAG_NO_GM;
	if (gm_node != tp->gm_node || msg->gm_prio != tp->gm_prio) {
		/* A new grandmaster counts once its count moves. */
		tp->gm_node = gm_node;
		tp->gm_prio = msg->gm_prio;
		tp->gm_seq = gm_seq;
		tp->gm_seq_at = 0;
	} else if ((s32)(gm_seq - tp->gm_seq) > 0) {
		tp->gm_seq = gm_seq;
		tp->gm_seq_at = jiffies;
	}
}

static void npo_ts_rx_sync(struct npo_dev *ndev, unsigned int i,
			   const struct npo_ts_msg *msg, u64 rx_time)
{
	u32 late_us = min(READ_ONCE(ndev->ts.answer_delay_us),
			  NPO_TS_ANSWER_DELAY_MAX_US);
	struct npo_ts_msg reply;

	if (late_us)
		fsleep(get_random_u32() % late_us);
	npo_ts_fill(ndev, &reply, NPO_TS_MSG_REPLY, le32_to_cpu(msg->seq));
	reply.t_rx = cpu_to_le64(rx_time);
	if (npo_ts_send(ndev, i, &reply, NULL))
		ndev->ts.ports[i].stats.send_errors++;
}

/*
 * The peer's rate against ours, from the departures (our clock) and
 * arrivals (the peer's) of two SYNCs: stamps only, so free of software
 * latency, valid while neither clock stepped in between.  False until it
 * is known.
 */
static bool npo_ts_rate_update(struct npo_ts_port *tp, u8 peer_epoch,
			       u64 t1, u64 t2)
{
	s64 ours = t1 - tp->anchor_t1, theirs = t2 - tp->anchor_t2;

	if (peer_epoch != tp->peer_epoch) {
		/* The peer stepped: this exchange may straddle it. */
		tp->peer_epoch = peer_epoch;
		tp->anchor_valid = false;
		tp->rate_known = false;
		return false;
	}
	if (tp->anchor_valid && ours > 0 && ours <= NPO_TS_RATE_BASE_MAX_NS &&
	    abs(theirs - ours) <= div_s64(ours, 1000000 / NPO_TS_RATE_MAX_PPM)) {
		tp->rate_ppb = div64_s64((theirs - ours) * NSEC_PER_SEC, ours);
		tp->rate_known = true;
	} else {
		tp->rate_known = false;
	}
	tp->anchor_t1 = t1;
	tp->anchor_t2 = t2;
	tp->anchor_valid = true;
	return tp->rate_known;
}

/* The filtered path delay, ns. */
static s64 npo_ts_delay_avg(const struct npo_ts_port *tp)
{
	return div_s64(tp->delay_avg16, 16);
}

/*
 * The four instants of an exchange give the path delay and the peer's
 * offset.  The peer's turnaround (t3 - t2) is timed by its clock, which
 * runs at another rate until ours follows it: measured in ours it differs
 * by the rate ratio, which on a busy host answering late (tens of ms) is
 * worth microseconds.  So the turnaround is converted first, as
 * 802.1AS does, and the offset is taken at t1 from the forward path.
 */
static void npo_ts_rx_reply(struct npo_dev *ndev, unsigned int i,
			    const struct npo_ts_msg *msg, u64 t4)
{
	struct npo_timesync *ts = &ndev->ts;
	struct npo_ts_port *tp = &ts->ports[i];
	u32 seq = le32_to_cpu(msg->seq);
	struct npo_ts_sync *sync = &tp->sync[seq % NPO_TS_SYNCS_KEPT];
	s64 t1 = sync->tx, t2 = le64_to_cpu(msg->t_rx);
	s64 t3 = le64_to_cpu(msg->t_tx), turn, offset, delay;

	tp->stats.replies++;
	if (!sync->pending || sync->seq != seq || sync->epoch != ts->epoch) {
		tp->stats.stale++;
		return;
	}
	sync->pending = false;
	turn = t3 - t2;
	if (turn < 0 || turn > NPO_TS_MAX_TURNAROUND_NS) {
		/* the peer's clock stepped during the exchange */
		tp->stats.impossible++;
		return;
	}
	if (!npo_ts_rate_update(tp, msg->epoch, t1, t2)) {
		tp->stats.unrated++;
		return;
	}
	turn -= div_s64(turn * tp->rate_ppb, NSEC_PER_SEC);
	delay = ((s64)t4 - t1 - turn) / 2;
	offset = t2 - t1 - delay;
	if (delay < 0 || delay > NPO_TS_MAX_DELAY_NS) {
		tp->stats.impossible++;
		return;
	}
	if (tp->delay_samples >= NPO_TS_DELAY_LEARN &&
	    abs(delay - npo_ts_delay_avg(tp)) > NPO_TS_DELAY_TOLERANCE_NS) {
		tp->stats.outliers++;
		if (++tp->delay_rejects < NPO_TS_DELAY_RELEARN)
			return;
		tp->delay_samples = 0;
	}
	tp->delay_rejects = 0;
	tp->stats.used++;
	tp->offset = offset;
	tp->delay = delay;
	/* In 1/16 ns, so that the average settles on the last nanosecond. */
	tp->delay_avg16 = tp->delay_samples++ ?
			  tp->delay_avg16 - tp->delay_avg16 / 16 + delay :
			  delay * 16;
	tp->used_at = jiffies ?: 1;
	/* Its time is back within reach, or its grandmaster set a new one. */
	if (tp->jumped && (!npo_ts_far(offset) ||
			   tp->gm_epoch != tp->jumped_epoch))
		tp->jumped = false;
	if (ts->role == NPO_CLOCK_ROLE_FOLLOWER && ts->parent == i &&
	    ts->state != NPO_CLOCK_HOLDOVER) {
		ts->delay = npo_ts_delay_avg(tp);
		npo_ts_servo(ndev, -tp->offset, t1);
	}
}

static void npo_ts_rx_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(work, struct npo_dev, ts.rx_work);
	struct npo_timesync *ts = &ndev->ts;
	struct npo_hw_time_msg m;
	struct npo_ts_msg msg;
	int budget = NPO_TIME_RX_DEPTH;
	bool changed;

	if (npo_state(ndev) != NPO_DEV_STATE_READY)
		return;
	mutex_lock(&ts->lock);
	while (budget-- && !npo_ts_recv(ndev, &m)) {
		size_t len = m.len;

		if (m.port >= ndev->num_ports || len > NPO_TIME_MSG_MAX ||
		    ts->role == NPO_CLOCK_ROLE_USER ||
		    (ndev->ports && npo_port_miswired(&ndev->ports[m.port])))
			continue;
		if (npo_fkey_verify(ndev, NPO_FKEY_CTX_TIME, m.payload, &len,
				    NPO_TIME_ONE_STEP_OFFSET,
				    sizeof(msg.t_tx))) {
			ts->ports[m.port].stats.unauthentic++;
			continue;
		}
		if (len < NPO_TS_MSG_MIN_LEN)
			continue;
		/* An older sender announces no bound. */
		memset(&msg, 0xff, sizeof(msg));
		memcpy(&msg, m.payload, min(len, sizeof(msg)));
		if (!(msg.flags & NPO_TS_FLAG_NO_GM) &&
		    !npo_ts_gm_allowed(ts, le32_to_cpu(msg.gm_node))) {
			npo_ts_refuse_gm(ndev, m.port, le32_to_cpu(msg.gm_node),
					 msg.gm_prio);
			continue;
		}
		npo_ts_heard(ndev, m.port, &msg);
		if (msg.type == NPO_TS_MSG_SYNC)
			npo_ts_rx_sync(ndev, m.port, &msg,
				       le64_to_cpu(m.rx_time));
		else if (msg.type == NPO_TS_MSG_REPLY)
			npo_ts_rx_reply(ndev, m.port, &msg,
					le64_to_cpu(m.rx_time));
	}
	changed = ts->changed;
	ts->changed = false;
	mutex_unlock(&ts->lock);
	if (changed)
		npo_clock_event(ndev);
}

/**
 * npo_timesync_irq() - a time-sync message arrived
 * @ndev: the device.
 *
 * Context: hard interrupt.
 */
void npo_timesync_irq(struct npo_dev *ndev)
{
	if (READ_ONCE(ndev->ts.running))
		queue_work(ndev->ts.wq, &ndev->ts.rx_work);
}

/* --- electing ------------------------------------------------------------ */

/* Grandmaster (prio_a, node_a) is preferred to (prio_b, node_b). */
static bool npo_ts_better(u8 prio_a, u32 node_a, u8 prio_b, u32 node_b)
{
	return prio_a < prio_b || (prio_a == prio_b && node_a < node_b);
}

/*
 * The port's peer announces a grandmaster other than us that may be one,
 * it lives, and the peer answers: one that announces and never answers
 * would leave us nothing to measure.
 */
static bool npo_ts_port_alive(struct npo_dev *ndev, unsigned int i)
{
	struct npo_ts_port *tp = &ndev->ts.ports[i];

	return npo_ts_port_active(ndev, i) &&
	       npo_ts_recent(tp->heard_at, NPO_TS_ALIVE_INTERVALS) &&
	       npo_ts_recent(tp->gm_seq_at, NPO_TS_ALIVE_INTERVALS) &&
	       npo_ts_recent(tp->used_at, NPO_TS_ANSWER_INTERVALS) &&
	       !tp->no_gm && npo_ts_gm_allowed(&ndev->ts, tp->gm_node) &&
	       !tp->jumped &&
	       tp->gm_node != ndev->node_id;
}

/*
 * The port whose peer announces the best live grandmaster, or -1; *ours
 * says whether some live port still announces our present grandmaster.
 */
static int npo_ts_best_port(struct npo_dev *ndev, bool *ours)
{
	struct npo_timesync *ts = &ndev->ts;
	int best = -1;
	unsigned int i;

	*ours = false;
	for (i = 0; i < ndev->num_ports; i++) {
		struct npo_ts_port *tp = &ts->ports[i], *bp;

		if (!npo_ts_port_alive(ndev, i))
			continue;
		if (tp->gm_node == ts->gm_node && tp->gm_prio == ts->gm_prio)
			*ours = true;
		if (best < 0) {
			best = i;
			continue;
		}
		bp = &ts->ports[best];
		if (npo_ts_better(tp->gm_prio, tp->gm_node, bp->gm_prio,
				  bp->gm_node) ||
		    (tp->gm_node == bp->gm_node && tp->gm_prio == bp->gm_prio &&
		     tp->steps < bp->steps))
			best = i;
	}
	return best;
}

/* The device is its own grandmaster, at no distance from itself. */
static void npo_ts_lead_self(struct npo_dev *ndev)
{
	struct npo_timesync *ts = &ndev->ts;

	ts->parent = -1;
	ts->gm_node = ndev->node_id;
	ts->gm_prio = ts->prio;
	ts->steps = 0;
	ts->offset = 0;
	ts->delay = 0;
}

static void npo_ts_become_gm(struct npo_dev *ndev)
{
	struct npo_timesync *ts = &ndev->ts;

	if (ts->role != NPO_CLOCK_ROLE_GRANDMASTER || ts->gm_prio != ts->prio) {
		if (__ratelimit(&ts->log))
			npo_info(ndev, "fabric time: grandmaster (priority %u)\n",
				 ts->prio);
		ts->changed = true;
	}
	ts->role = NPO_CLOCK_ROLE_GRANDMASTER;
	npo_ts_lead_self(ndev);
	/*
	 * The grandmaster's time is the fabric's: it keeps its rate.  But
	 * one elected after losing its grandmaster free-runs from where
	 * that one's time was: its error from the timescale keeps growing
	 * (an isolated node leading a fabric of one, say).
	 */
	if (ts->reference)
		npo_ts_set_bound(ts, 0, 0);
	else if (ts->bound_rate_ppb != READ_ONCE(holdover_ppb))
		npo_ts_set_bound(ts, npo_ts_bound_at(ts, ktime_get_ns()),
				 READ_ONCE(holdover_ppb));
	npo_ts_set_state(ndev, NPO_CLOCK_LOCKED);
}

/*
 * Not allowed to lead and nothing to follow: the clock runs on its own,
 * with no bound, and offers its peers no grandmaster.
 */
static void npo_ts_free_run(struct npo_dev *ndev)
{
	struct npo_timesync *ts = &ndev->ts;

	if (ts->role != NPO_CLOCK_ROLE_FREE) {
		if (__ratelimit(&ts->log))
			npo_info(ndev, "fabric time: not allowed to be grandmaster and none allowed is heard: free-running\n");
		ts->changed = true;
	}
	ts->role = NPO_CLOCK_ROLE_FREE;
	npo_ts_lead_self(ndev);
	ts->reference = false;
	ts->locked_once = false;
	npo_ts_set_bound(ts, NPO_TS_BOUND_UNKNOWN, 0);
	npo_ts_set_state(ndev, NPO_CLOCK_UNLOCKED);
}

static void npo_ts_follow(struct npo_dev *ndev, int port)
{
	struct npo_timesync *ts = &ndev->ts;
	struct npo_ts_port *tp = &ts->ports[port];
	bool new_gm = ts->role != NPO_CLOCK_ROLE_FOLLOWER ||
		      ts->gm_node != tp->gm_node || ts->gm_prio != tp->gm_prio;

	if (new_gm) {
		if (__ratelimit(&ts->log))
			npo_info(ndev, "fabric time: following grandmaster node %u through port %d, %u steps\n",
				 tp->gm_node, port, tp->steps + 1);
		/*
		 * A clock already syntonised (held over, or a grandmaster
		 * elected from holdover) keeps its rate and slews; one that
		 * never followed measures its rate error and steps first.
		 */
		ts->samples = ts->syntonised ? 2 : 0;
		ts->integral = ts->freq_ppb16;
		ts->good = 0;
		ts->reference = false;
		/* Another grandmaster is another time: step to it once. */
		ts->locked_once = false;
		ts->gm_epoch = tp->gm_epoch;
		if (!ts->syntonised)
			npo_ts_set_bound(ts, NPO_TS_BOUND_UNKNOWN, 0);
		npo_ts_set_state(ndev, ts->syntonised ? NPO_CLOCK_LOCKING :
					NPO_CLOCK_UNLOCKED);
		ts->changed = true;
	}
	if (ts->parent != port)
		ts->changed = true;
	if (ts->state == NPO_CLOCK_HOLDOVER) {
		/* Our grandmaster is back: slew to it again. */
		ts->good = 0;
		npo_ts_set_state(ndev, NPO_CLOCK_LOCKING);
	}
	ts->role = NPO_CLOCK_ROLE_FOLLOWER;
	ts->parent = port;
	ts->gm_node = tp->gm_node;
	ts->gm_prio = tp->gm_prio;
	ts->gm_seq = tp->gm_seq;
	ts->steps = min_t(u8, tp->steps, U8_MAX - 1) + 1;
}

/*
 * Once an interval: follow the best live grandmaster, or hold over when
 * ours went quiet, or lead.
 */
static void npo_ts_elect(struct npo_dev *ndev)
{
	struct npo_timesync *ts = &ndev->ts;
	bool ours;
	int best = npo_ts_best_port(ndev, &ours);
	struct npo_ts_port *bp = best >= 0 ? &ts->ports[best] : NULL;

	/*
	 * A clock user space handed back holds whatever time it was left
	 * with: it follows the fabric until locked, and only then may lead,
	 * so the fabric never takes up that time.  Alone, it leads once
	 * nothing was heard for a while.
	 */
	if (ts->rejoining) {
		if (bp) {
			npo_ts_follow(ndev, best);
			if (ts->state == NPO_CLOCK_LOCKED)
				ts->rejoining = false;
			return;
		}
		if (npo_ts_recent(ts->rejoin_since, 2 * NPO_TS_ALIVE_INTERVALS))
			return;
		ts->rejoining = false;
	}

	/*
	 * Our grandmaster is unheard on every port, and nothing better than
	 * it is heard either: hold over before settling for less.
	 */
	if (ts->role == NPO_CLOCK_ROLE_FOLLOWER && !ours &&
	    !(bp && npo_ts_better(bp->gm_prio, bp->gm_node, ts->gm_prio,
				  ts->gm_node))) {
		if (ts->state != NPO_CLOCK_HOLDOVER &&
		    ts->state != NPO_CLOCK_UNLOCKED) {
			if (__ratelimit(&ts->log))
				npo_warn(ndev, "fabric time: grandmaster node %u lost, holding over\n",
					 ts->gm_node);
			ts->holdover_since = jiffies;
			npo_ts_set_state(ndev, NPO_CLOCK_HOLDOVER);
		}
		if (ts->state == NPO_CLOCK_HOLDOVER &&
		    npo_ts_recent(ts->holdover_since, NPO_TS_HOLDOVER_INTERVALS))
			return;
	}
	if (bp && (!npo_ts_gm_allowed(ts, ndev->node_id) ||
		   !npo_ts_better(ts->prio, ndev->node_id, bp->gm_prio,
				  bp->gm_node)))
		npo_ts_follow(ndev, best);
	else if (npo_ts_gm_allowed(ts, ndev->node_id))
		npo_ts_become_gm(ndev);
	else
		npo_ts_free_run(ndev);
}

static void npo_ts_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(to_delayed_work(work),
					    struct npo_dev, ts.work);
	struct npo_timesync *ts = &ndev->ts;
	bool changed, quiet;
	unsigned int i;

	if (npo_state(ndev) != NPO_DEV_STATE_READY) {
		ts->hw_lost = true;
		goto out;
	}
	mutex_lock(&ts->lock);
	if (ts->role == NPO_CLOCK_ROLE_USER) {
		/* User space's clock: a reset's lost adjustment is its own. */
		ts->hw_lost = false;
		goto unlock;
	}
	if (ts->hw_lost) {
		/* A reset cleared the adjustment: give it back, re-measure. */
		ts->hw_lost = false;
		npo_ts_apply_freq(ndev, ts->freq_ppb16);
		npo_ts_new_epoch(ndev);
		ts->samples = 0;
		if (ts->role == NPO_CLOCK_ROLE_FOLLOWER) {
			npo_ts_set_state(ndev, NPO_CLOCK_UNLOCKED);
			npo_ts_set_bound(ts, NPO_TS_BOUND_UNKNOWN, 0);
		}
	}
	/* Again each interval: a reset clears it. */
	if (npo_ts_hw_auth(ndev))
		npo_wr32(ndev, NPO_REG_CLK_RX_RATE, NPO_TS_RX_PER_INTERVAL *
			 MSEC_PER_SEC / npo_ts_interval_ms());
	ts->own_seq++;
	npo_ts_elect(ndev);
	if (ts->role == NPO_CLOCK_ROLE_GRANDMASTER)
		ts->gm_seq = ts->own_seq;
	/* Handed back, a clock announces nothing until it follows. */
	quiet = ts->rejoining && ts->role != NPO_CLOCK_ROLE_FOLLOWER;
	for (i = 0; i < ndev->num_ports && !quiet; i++) {
		struct npo_ts_port *tp = &ts->ports[i];
		struct npo_ts_sync *sync;
		struct npo_ts_msg msg;

		if (!npo_ts_port_active(ndev, i))
			continue;
		tp->sync_seq++;
		sync = &tp->sync[tp->sync_seq % NPO_TS_SYNCS_KEPT];
		npo_ts_fill(ndev, &msg, NPO_TS_MSG_SYNC, tp->sync_seq);
		sync->seq = tp->sync_seq;
		sync->epoch = ts->epoch;
		sync->pending = !npo_ts_send(ndev, i, &msg, &sync->tx);
		tp->stats.syncs++;
		if (!sync->pending)
			tp->stats.send_errors++;
	}
unlock:
	changed = ts->changed;
	ts->changed = false;
	mutex_unlock(&ts->lock);
	/* Every interval: fabric time at hand for the stamp of a fault. */
	npo_clock_fabric_now(ndev, &(u64){ 0 });
	if (changed)
		npo_clock_event(ndev);
	npo_clock_health_judge(ndev);
out:
	queue_delayed_work(ts->wq, &ts->work, npo_ts_interval());
}

/* --- control ------------------------------------------------------------- */

/* Our clock was moved for us: what we refused may be right after all. */
static void npo_ts_forget_jumps(struct npo_dev *ndev)
{
	unsigned int i;

	ndev->ts.locked_once = false;
	for (i = 0; i < ndev->num_ports; i++)
		ndev->ts.ports[i].jumped = false;
}

/**
 * npo_timesync_user_changed() - user space stepped, set or tuned the clock
 * @ndev: the device.
 * @jumped: the time jumped (a step or a set), rather than its rate changed.
 *
 * A follower measures its clock afresh; a grandmaster's change is the
 * fabric's new time, which the followers take up.  Only a jump starts a
 * new epoch: a grandmaster steered by phc2sys tunes its rate every
 * second, and its followers must not measure their rate ratios afresh
 * each time.
 */
void npo_timesync_user_changed(struct npo_dev *ndev, bool jumped)
{
	struct npo_timesync *ts = &ndev->ts;

	if (jumped)
		npo_clock_forget_fabric(ndev);
	mutex_lock(&ts->lock);
	if (!npo_ts_running(ts)) {
		mutex_unlock(&ts->lock);
		return;
	}
	ts->freq_ppb16 = (s64)(s32)npo_rd32(ndev, NPO_REG_CLK_ADJ_FINE) * 1000;
	if (jumped)
		npo_ts_new_epoch(ndev);
	if (ts->role == NPO_CLOCK_ROLE_USER) {
		/* Its own business. */
	} else if (ts->role != NPO_CLOCK_ROLE_GRANDMASTER) {
		ts->samples = 0;
		/* Ours moved, not the parent's: stepping back is no jump. */
		npo_ts_forget_jumps(ndev);
		if (ts->role == NPO_CLOCK_ROLE_FOLLOWER)
			npo_ts_set_state(ndev, NPO_CLOCK_LOCKING);
		npo_ts_set_bound(ts, NPO_TS_BOUND_UNKNOWN, 0);
	} else {
		/*
		 * Whoever sets the grandmaster's clock sets the timescale,
		 * and its followers step to a new time only when told.
		 */
		ts->reference = true;
		if (jumped)
			ts->gm_epoch++;
		npo_ts_set_bound(ts, 0, 0);
	}
	mutex_unlock(&ts->lock);
}

/**
 * npo_timesync_set_priority() - change the device's grandmaster priority
 * @ndev: the device.
 * @prio: 0 (most preferred) to 255.
 *
 * Takes effect at the next election, within one sync interval.
 */
void npo_timesync_set_priority(struct npo_dev *ndev, u8 prio)
{
	mutex_lock(&ndev->ts.lock);
	ndev->ts.prio = prio;
	if (ndev->ts.role == NPO_CLOCK_ROLE_GRANDMASTER)
		ndev->ts.gm_prio = prio;
	mutex_unlock(&ndev->ts.lock);
}

/**
 * npo_timesync_set_sync() - hand the device's clock to user space, or back
 * @ndev: the device.
 * @sync: false: user space owns the clock (linuxptp, a PHC test); the
 *	device leaves fabric time and its neighbours elect around it.  true:
 *	it takes part again, following the fabric before it may lead.
 */
void npo_timesync_set_sync(struct npo_dev *ndev, bool sync)
{
	struct npo_timesync *ts = &ndev->ts;

	mutex_lock(&ts->lock);
	if (!npo_ts_running(ts)) {
		mutex_unlock(&ts->lock);
		return;
	}
	if (!sync && ts->role != NPO_CLOCK_ROLE_USER) {
		npo_info(ndev, "fabric time: the clock is user space's\n");
		ts->role = NPO_CLOCK_ROLE_USER;
		ts->rejoining = false;
	} else if (sync && ts->role == NPO_CLOCK_ROLE_USER) {
		npo_info(ndev, "fabric time: the clock is the fabric's again; following it first\n");
		ts->role = NPO_CLOCK_ROLE_GRANDMASTER;
		ts->rejoining = true;
		ts->rejoin_since = jiffies;
		ts->syntonised = false;
		ts->samples = 0;
		npo_ts_forget_jumps(ndev);
		npo_ts_new_epoch(ndev);
	} else {
		mutex_unlock(&ts->lock);
		return;
	}
	npo_ts_lead_self(ndev);
	ts->reference = false;
	npo_ts_set_bound(ts, NPO_TS_BOUND_UNKNOWN, 0);
	npo_ts_set_state(ndev, NPO_CLOCK_UNLOCKED);
	ts->changed = true;
	mutex_unlock(&ts->lock);
}

/**
 * npo_timesync_set_gm_allow() - the nodes that may lead the fabric's time
 * @ndev: the device.
 * @nodes: their node ids; NULL with @n 0: any node may.
 * @n: how many, at most %NPO_TS_GM_ALLOW_MAX.
 *
 * Takes effect at the next election, within one sync interval: the
 * device no longer follows, relays or becomes a grandmaster not named.
 */
void npo_timesync_set_gm_allow(struct npo_dev *ndev, const u32 *nodes,
			       unsigned int n)
{
	struct npo_timesync *ts = &ndev->ts;

	if (WARN_ON_ONCE(n > NPO_TS_GM_ALLOW_MAX))
		return;
	mutex_lock(&ts->lock);
	memset(ts->gm_allow, 0, sizeof(ts->gm_allow));
	if (n)
		memcpy(ts->gm_allow, nodes, n * sizeof(*nodes));
	ts->gm_allow_n = n;
	ts->changed = true;
	mutex_unlock(&ts->lock);
}

/**
 * npo_timesync_get() - a consistent copy of the service's state
 * @ndev: the device.
 * @info: filled in.
 *
 * Return: 0, or -ENODEV if the device has no clock.
 */
int npo_timesync_get(struct npo_dev *ndev, struct npo_timesync_info *info)
{
	struct npo_timesync *ts = &ndev->ts;

	mutex_lock(&ts->lock);
	if (!npo_ts_running(ts)) {
		mutex_unlock(&ts->lock);
		return -ENODEV;
	}
	*info = (struct npo_timesync_info) {
		.role = ts->role,
		.state = ts->state,
		.prio = ts->prio,
		.gm_prio = ts->gm_prio,
		.gm_node = ts->gm_node,
		.steps = ts->steps,
		.parent = ts->parent,
		.offset = ts->offset,
		.delay = ts->delay,
		.freq_ppt = div_s64(ts->freq_ppb16 * 1000, 65536),
		.steps_taken = ts->steps_taken,
		.bound_ns = npo_ts_bound_at(ts, ktime_get_ns()),
		.reference = ts->role == NPO_CLOCK_ROLE_GRANDMASTER &&
			     ts->reference,
		.gm_allow_n = ts->gm_allow_n,
		.refused_gms = ts->refused_gms,
		.refused_steps = ts->refused_steps,
		/* In u64: an age past 49 days must not wrap to "just now". */
		.refused_age_ms = ts->refused_at ?
				  div_u64((u64)(jiffies - ts->refused_at) *
					  MSEC_PER_SEC, HZ) : U64_MAX,
		.refused_node = ts->refused_node,
		.refused_port = ts->refused_port,
	};
	memcpy(info->gm_allow, ts->gm_allow, sizeof(info->gm_allow));
	mutex_unlock(&ts->lock);
	return 0;
}

/**
 * npo_timesync_show() - the service's state and per-port counters
 * @ndev: the device.
 * @m: where to print: a line for the servo, then a line per port that
 *	ever exchanged a message.
 *
 * Context: process context; takes the service's lock.
 */
void npo_timesync_show(struct npo_dev *ndev, struct seq_file *m)
{
	struct npo_timesync *ts = &ndev->ts;
	unsigned int i;

	mutex_lock(&ts->lock);
	if (!npo_ts_running(ts)) {
		mutex_unlock(&ts->lock);
		return;
	}
	seq_printf(m, "role %s state %s parent %d gm %u steps %u offset %lld delay %lld freq_ppb16 %lld samples %d good %d steps_taken %llu reference %d bound %lld gm_epoch %u locked_once %d refused_gms %llu refused_steps %llu rx_policed %u rx_dropped %u\n",
		   npo_clock_role_str(ts->role),
		   npo_clock_state_str(ts->state), ts->parent,
		   ts->gm_node, ts->steps, ts->offset, ts->delay,
		   ts->freq_ppb16, ts->samples, ts->good, ts->steps_taken,
		   ts->reference, (s64)npo_ts_bound_at(ts, ktime_get_ns()),
		   ts->gm_epoch, ts->locked_once,
		   ts->refused_gms, ts->refused_steps,
		   npo_ts_hw_auth(ndev) ? npo_rd32(ndev, NPO_REG_CLK_RX_POLICED) : 0,
		   npo_rd32(ndev, NPO_REG_CLK_RX_DROPS));
	for (i = 0; i < ndev->num_ports; i++) {
		struct npo_ts_port *tp = &ts->ports[i];

		if (!tp->heard_at && !tp->stats.unauthentic)
			continue;	/* nothing heard, nothing to say */
		seq_printf(m, "port %u: peer %u %s heard %u ms ago; syncs %llu send-errors %llu replies %llu stale %llu impossible %llu unrated %llu outliers %llu used %llu unauthentic %llu refused-gm %llu jumped %d; rate %lld ppb delay %lld avg %lld offset %lld\n",
			   i, tp->node, npo_clock_state_str(tp->peer_state),
			   jiffies_to_msecs(jiffies - tp->heard_at),
			   tp->stats.syncs, tp->stats.send_errors,
			   tp->stats.replies, tp->stats.stale,
			   tp->stats.impossible, tp->stats.unrated,
			   tp->stats.outliers, tp->stats.used,
			   tp->stats.unauthentic, tp->stats.refused_gm,
			   tp->jumped,
			   tp->rate_known ? tp->rate_ppb : 0, tp->delay,
			   npo_ts_delay_avg(tp),
			   tp->offset);
	}
	mutex_unlock(&ts->lock);
}

/**
 * npo_timesync_start() - start the service on a device with a clock
 * @ndev: the device, its PHC registered.
 *
 * Return: 0 or a negative errno.
 */
int npo_timesync_start(struct npo_dev *ndev)
{
	struct npo_timesync *ts = &ndev->ts;

	mutex_init(&ts->lock);
	/* What peers make it say: a peer alternating grandmasters, say. */
	ratelimit_state_init(&ts->log, 10 * HZ, 5);
	if (!ndev->ptp)
		return 0;
	ts->ports = kcalloc(ndev->num_ports, sizeof(*ts->ports), GFP_KERNEL);
	if (!ts->ports)
		return -ENOMEM;
	ts->wq = alloc_ordered_workqueue("npo%d_time", WQ_HIGHPRI | WQ_MEM_RECLAIM,
					 ndev->minor);
	if (!ts->wq) {
		kfree(ts->ports);
		ts->ports = NULL;
		return -ENOMEM;
	}
	INIT_DELAYED_WORK(&ts->work, npo_ts_work);
	INIT_WORK(&ts->rx_work, npo_ts_rx_work);
	ts->prio = NPO_TS_DEFAULT_PRIORITY;
	ts->max_adj_ppb = ndev->ptp_info.max_adj;
	ts->role = NPO_CLOCK_ROLE_GRANDMASTER;
	WRITE_ONCE(ts->state, NPO_CLOCK_UNLOCKED);
	ts->parent = -1;
	ts->gm_node = ndev->node_id;
	ts->gm_prio = ts->prio;
	/* A clock that never followed is its own timescale. */
	ts->reference = true;
	npo_ts_set_bound(ts, 0, 0);
	WRITE_ONCE(ts->running, true);
	queue_delayed_work(ts->wq, &ts->work, 0);
	return 0;
}

/**
 * npo_timesync_stop() - stop the service
 * @ndev: the device.
 */
void npo_timesync_stop(struct npo_dev *ndev)
{
	struct npo_timesync *ts = &ndev->ts;

	if (!ts->wq)
		return;
	/* No interrupt queues work once we start tearing it down. */
	WRITE_ONCE(ts->running, false);
	synchronize_irq(pci_irq_vector(ndev->pdev, NPO_IRQ_VECTOR_ADMIN));
	cancel_delayed_work_sync(&ts->work);
	cancel_work_sync(&ts->rx_work);
	destroy_workqueue(ts->wq);
	ts->wq = NULL;
	/*
	 * Under the lock: the PHC's operations may still be on their way
	 * here (shutdown leaves the PHC registered), and look under it.
	 */
	mutex_lock(&ts->lock);
	kfree(ts->ports);
	ts->ports = NULL;
	mutex_unlock(&ts->lock);
}
