/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: the device clock and fabric time.
 *
 * npo_clock.c exposes the clock as a PHC; npo_timesync.c elects a
 * grandmaster among the devices of the fabric and steers each clock to
 * it (Documentation/timesync.rst).  &struct npo_dev embeds the state.
 */
#ifndef _NPO_TIMESYNC_H
#define _NPO_TIMESYNC_H

#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct genl_info;
struct netlink_callback;
struct npo_dev;
struct npo_fabric_time;
struct seq_file;
struct sk_buff;

#define NPO_TS_SYNCS_KEPT	4
/* Nodes an allow-list of grandmasters names at most. */
#define NPO_TS_GM_ALLOW_MAX	16
/* Measurements whose offsets a follower's error bound covers. */
#define NPO_TS_BOUND_WINDOW	16

/**
 * struct npo_ts_sync - a SYNC we sent
 * @seq: its sequence number.
 * @pending: it awaits its REPLY.
 * @epoch: our clock's epoch when it left.
 * @tx: its departure stamp.
 */
struct npo_ts_sync {
	u32 seq;
	bool pending;
	u8 epoch;
	u64 tx;
};

/**
 * struct npo_ts_port - fabric time sync on one port
 * @sync_seq: sequence number of our last SYNC.
 * @sync: the last %NPO_TS_SYNCS_KEPT SYNCs, by sequence number modulo
 *	that: a REPLY handled after the next SYNC left (a busy host) still
 *	finds its own.
 * @heard_at: jiffies of the last message from the peer, 0 never.
 * @node: the peer's node id.
 * @prio: the peer's own priority.
 * @peer_state: the peer's &enum npo_clock_state.
 * @gm_prio: the grandmaster the peer announces: its priority,
 * @gm_node: node id,
 * @gm_seq: and interval count, as last heard.
 * @gm_seq_at: jiffies when @gm_seq last advanced, 0 not yet.
 * @steps: the peer's links to that grandmaster.
 * @offset: the peer's clock less ours at the last exchange, ns.
 * @delay: the path delay measured then, ns.
 * @delay_avg16: the path delay, filtered, in 1/16 ns so that the
 *	average settles on the last nanosecond.
 * @delay_samples: exchanges behind @delay_avg16.
 * @delay_rejects: exchanges dropped in a row for a delay far from it.
 * @peer_epoch: the peer's clock epoch in its last REPLY that was not
 *	stale.
 * @anchor_valid: @anchor_t1 and @anchor_t2 hold an exchange of this
 *	epoch on both sides, for the rate ratio.
 * @anchor_t1: that exchange's SYNC departure, on our clock,
 * @anchor_t2: and arrival, on the peer's.
 * @rate_known: @rate_ppb was measured since either clock last stepped.
 * @rate_ppb: the peer's clock rate less ours, ppb, between the last two
 *	exchanges (802.1AS's neighbour rate ratio, less one).
 * @peer_bound: the peer's error bound as it last announced it, ns;
 *	%NPO_TS_BOUND_UNKNOWN if it has none,
 * @peer_bound_at: and when we heard it, CLOCK_MONOTONIC ns.
 * @gm_epoch: the grandmaster's count of the times its time was set, as
 *	the peer relays it.
 * @no_gm: the peer offers no grandmaster (&enum npo_clock_role FREE).
 * @used_at: jiffies of the last exchange that measured the peer, 0 none:
 *	a peer that announces but never answers is not followed.
 * @refused_log_at: jiffies when a refused grandmaster from this port was
 *	last logged, 0 never.
 * @jumped: a locked clock refused to step to this port's time, which is
 *	not followed while it stays beyond locked_step_max_ns of ours and
 *	its grandmaster announces no new time since (@jumped_epoch).
 * @jumped_epoch: the grandmaster's count of new times then.
 * @stats: what became of the exchanges on this port, since probe:
 * @stats.syncs: SYNCs sent;
 * @stats.send_errors: SYNC and REPLY messages the device would not send;
 * @stats.replies: REPLY messages received;
 * @stats.stale: REPLY messages to a SYNC no longer kept (late, or our clock stepped since);
 * @stats.impossible: exchanges a clock step spanned (turnaround or delay
 *	out of range);
 * @stats.unrated: exchanges that only measured the rate ratio;
 * @stats.outliers: exchanges dropped for a delay far from the learnt one;
 * @stats.used: exchanges that measured the peer;
 * @stats.unauthentic: messages refused by the fabric key;
 * @stats.refused_gm: announcements of a grandmaster not allowed.
 */
struct npo_ts_port {
	u32 sync_seq;
	struct npo_ts_sync sync[NPO_TS_SYNCS_KEPT];
	unsigned long heard_at;
	u32 node;
	u8 prio;
	u8 peer_state;
	u8 gm_prio;
	u32 gm_node;
	u32 gm_seq;
	unsigned long gm_seq_at;
	u8 steps;
	s64 offset;
	s64 delay;
	s64 delay_avg16;
	u32 delay_samples;
	u32 delay_rejects;
	u8 peer_epoch;
	bool anchor_valid;
	u64 anchor_t1;
	u64 anchor_t2;
	bool rate_known;
	s64 rate_ppb;
	u64 peer_bound;
	u64 peer_bound_at;
	u8 gm_epoch;
	bool no_gm;
	unsigned long used_at;
	unsigned long refused_log_at;
	bool jumped;
	u8 jumped_epoch;
	struct {
		u64 syncs;
		u64 send_errors;
		u64 replies;
		u64 stale;
		u64 impossible;
		u64 unrated;
		u64 outliers;
		u64 used;
		u64 unauthentic;
		u64 refused_gm;
	} stats;
};

/**
 * struct npo_timesync - the device's part in fabric time sync
 * @wq: ordered: periodic work and received messages, one at a time.
 * @work: once per sync interval: elect, then send SYNCs.
 * @rx_work: handles received messages.
 * @running: interrupts may queue @rx_work; READ_ONCE/WRITE_ONCE.
 * @hw_lost: the device was not ready at the last interval; only @work
 *	touches it.
 * @lock: protects the fields below: @wq runs one work at a time, but
 *	netlink readers and the PHC's callbacks come from other contexts.
 * @ports: per-port state.
 * @changed: something listeners should hear about; the work that clears
 *	it sends the event after dropping @lock.
 * @prio: this device's grandmaster priority, lower preferred.
 * @role: &enum npo_clock_role.
 * @state: &enum npo_clock_state.
 * @parent: port towards the grandmaster, -1 as grandmaster.
 * @gm_prio: the grandmaster's priority,
 * @gm_node: node id,
 * @gm_seq: and interval count.
 * @own_seq: this device's interval count, announced when it leads.
 * @steps: links to the grandmaster.
 * @holdover_since: jiffies when holdover began.
 * @offset: this clock less the parent's at the last measurement, ns.
 * @delay: path delay to the parent, filtered, ns.
 * @max_adj_ppb: the clock's frequency range.
 * @freq_ppb16: frequency adjustment in effect, ppb << 16.
 * @integral: the servo's integral term, ppb << 16.
 * @samples: measurements since following began, capped at 2.
 * @syntonised: the rate was measured against a grandmaster once.
 * @last_off: previous measurement,
 * @last_at: and when, on this clock.
 * @good: consecutive measurements within the lock threshold.
 * @steps_taken: clock steps since probe.
 * @epoch: counts the discontinuities of this clock (steps, sets, a
 *	reset's lost frequency adjustment), announced so peers measure
 *	rates afresh; a new frequency is no discontinuity.
 * @reference: as grandmaster, this clock is the fabric's timescale: it
 *	never followed another since probe, or user space set or steered it
 *	since (a GPS-fed phc2sys, say); one elected after losing its
 *	grandmaster is not, and its error bound keeps growing.
 * @rejoining: handed back by user space, the clock follows the fabric's
 *	grandmaster before it may lead (or leads alone once nothing was
 *	heard for a while),
 * @rejoin_since: since when, jiffies.
 * @bound_ns: bound on this clock's error from the fabric's timescale at
 *	@bound_at, ns, %NPO_TS_BOUND_UNKNOWN if there is none (never
 *	measured, or measured afresh since a step),
 * @bound_at: CLOCK_MONOTONIC, ns,
 * @bound_rate_ppb: and how fast it grows since, ppb of elapsed time.
 * @answer_delay_us: test hook (debugfs, test devices): each SYNC is
 *	answered after a random wait of up to this long (at most 200 ms),
 *	as a busy host would; 0 normally.
 * @log: limits the log's lines peers can cause (grandmaster changes,
 *	holdover); events keep the full record.
 * @gm_allow: the nodes that may be grandmaster, @gm_allow_n of them; none
 *	means any.
 * @gm_allow_n: how many.
 * @gm_epoch: counts the times the grandmaster's time was set: as
 *	grandmaster, by user space; as follower, as the parent relays it.  A
 *	new count is a new time, which a locked follower steps to.
 * @locked_once: since following this grandmaster at this @gm_epoch the
 *	clock was locked: a step beyond locked_step_max_ns is now refused.
 * @off_seen: |offset| of the last %NPO_TS_BOUND_WINDOW measurements, ns,
 *	@off_next the slot the next goes in: the error bound covers them, so
 *	that a jump of the parent's time counts for a while after it.
 * @off_next: see @off_seen.
 * @refused_gms: grandmaster announcements refused, since probe.
 * @refused_steps: steps refused, since probe.
 * @refused_at: jiffies of the last refusal, 0 none.
 * @refused_node: whom it was of,
 * @refused_port: and through which port.
 * @warned_unsigned: the log said this device cannot sign time messages.
 */
struct npo_timesync {
	struct workqueue_struct *wq;
	struct delayed_work work;
	struct work_struct rx_work;
	bool running;
	bool hw_lost;
	struct ratelimit_state log; /* its own lock */
	struct mutex lock; /* the fields below */
	struct npo_ts_port *ports;
	bool changed;
	u8 prio;
	u8 role;
	u8 state;
	int parent;
	u8 gm_prio;
	u32 gm_node;
	u32 gm_seq;
	u32 own_seq;
	u8 steps;
	unsigned long holdover_since;
	s64 offset;
	s64 delay;
	u32 max_adj_ppb;
	s64 freq_ppb16;
	s64 integral;
	int samples;
	bool syntonised;
	s64 last_off;
	u64 last_at;
	int good;
	u64 steps_taken;
	u8 epoch;
	bool reference;
	bool rejoining;
	unsigned long rejoin_since;
	u64 bound_ns;
	u64 bound_at;
	u32 bound_rate_ppb;
	u32 answer_delay_us;
	u32 gm_allow[NPO_TS_GM_ALLOW_MAX];
	unsigned int gm_allow_n;
	u8 gm_epoch;
	bool locked_once;
	u64 off_seen[NPO_TS_BOUND_WINDOW];
	unsigned int off_next;
	u64 refused_gms;
	u64 refused_steps;
	unsigned long refused_at;
	u32 refused_node;
	unsigned int refused_port;
	bool warned_unsigned;
};

/* No bound on a clock's error: not measured yet. */
#define NPO_TS_BOUND_UNKNOWN	U64_MAX

/**
 * struct npo_timesync_info - a copy of &struct npo_timesync for readers
 * @role: &enum npo_clock_role.
 * @state: &enum npo_clock_state.
 * @prio: own priority.
 * @gm_prio: grandmaster's priority.
 * @gm_node: grandmaster's node id.
 * @steps: links to it.
 * @parent: port towards it, -1 as grandmaster.
 * @offset: last offset to the parent, ns.
 * @delay: path delay to the parent, ns.
 * @freq_ppt: frequency adjustment, parts per trillion.
 * @steps_taken: clock steps since probe.
 * @bound_ns: bound on the clock's error from the fabric's timescale now,
 *	ns; %NPO_TS_BOUND_UNKNOWN if none.
 * @reference: the clock is the fabric's timescale (a grandmaster that
 *	never lost one).
 * @gm_allow: the nodes that may be grandmaster,
 * @gm_allow_n: how many; 0: any.
 * @refused_gms: grandmaster announcements refused.
 * @refused_steps: steps refused.
 * @refused_age_ms: since the last refusal, ms; U64_MAX if none.
 * @refused_node: whom the last refusal was of,
 * @refused_port: and through which port.
 */
struct npo_timesync_info {
	u8 role;
	u8 state;
	u8 prio;
	u8 gm_prio;
	u32 gm_node;
	u8 steps;
	int parent;
	s64 offset;
	s64 delay;
	s64 freq_ppt;
	u64 steps_taken;
	u64 bound_ns;
	bool reference;
	u32 gm_allow[NPO_TS_GM_ALLOW_MAX];
	unsigned int gm_allow_n;
	u64 refused_gms;
	u64 refused_steps;
	u64 refused_age_ms;
	u32 refused_node;
	unsigned int refused_port;
};

/* npo_clock.c: the PHC and the clock netlink commands */
int npo_clock_register(struct npo_dev *ndev);
void npo_clock_unregister(struct npo_dev *ndev);
int npo_clock_index(struct npo_dev *ndev);
int npo_clock_get_time(struct npo_dev *ndev, struct npo_fabric_time *t);
int npo_clock_fabric_now(struct npo_dev *ndev, u64 *ns);
void npo_clock_forget_fabric(struct npo_dev *ndev);
bool npo_clock_keeps_fabric(struct npo_dev *ndev);
void npo_clock_step(struct npo_dev *ndev, s64 delta);
void npo_clock_set_freq(struct npo_dev *ndev, long scaled_ppm);
int npo_clock_nl_get_doit(struct sk_buff *skb, struct genl_info *info);
int npo_clock_nl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int npo_clock_nl_set_doit(struct sk_buff *skb, struct genl_info *info);
void npo_clock_event(struct npo_dev *ndev);

/* npo_timesync.c: fabric time sync */
int npo_timesync_start(struct npo_dev *ndev);
void npo_timesync_stop(struct npo_dev *ndev);
void npo_timesync_irq(struct npo_dev *ndev);
void npo_timesync_user_changed(struct npo_dev *ndev, bool jumped);
void npo_timesync_set_priority(struct npo_dev *ndev, u8 prio);
void npo_timesync_set_sync(struct npo_dev *ndev, bool sync);
void npo_timesync_set_gm_allow(struct npo_dev *ndev, const u32 *nodes,
			       unsigned int n);
int npo_timesync_get(struct npo_dev *ndev, struct npo_timesync_info *info);
const char *npo_clock_state_str(unsigned int state);
const char *npo_clock_role_str(unsigned int role);
void npo_timesync_show(struct npo_dev *ndev, struct seq_file *m);

#endif /* _NPO_TIMESYNC_H */
