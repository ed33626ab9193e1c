/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO supernode interconnect driver: shared definitions.
 */
#ifndef _NPO_H
#define _NPO_H

#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/cdev.h>
#include <linux/cgroup_rdma.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/ptp_clock_kernel.h>
#include <linux/ratelimit_types.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <uapi/linux/npo.h>
#include <uapi/linux/npo_netlink.h>
#include <uapi/linux/npo_queue.h>

#include "npo_regs.h"

#define NPO_DRIVER_NAME		"npo"
#define NPO_MAX_DEVICES		256
/*
 * Ports the driver handles: one word of pending link events, and well
 * inside the register BAR's port space ((NPO_REGS_SIZE - NPO_PORT_BASE) /
 * NPO_PORT_STRIDE = 192).
 */
#define NPO_DRIVER_MAX_PORTS	BITS_PER_LONG
static_assert(NPO_DRIVER_MAX_PORTS <=
	      (NPO_REGS_SIZE - NPO_PORT_BASE) / NPO_PORT_STRIDE);

/* Debug areas, selected by the dbg_mask module parameter. */
#define NPO_DBG_PROBE		BIT(0)
#define NPO_DBG_MBOX		BIT(1)
#define NPO_DBG_FW		BIT(2)
#define NPO_DBG_IRQ		BIT(3)
#define NPO_DBG_IOCTL		BIT(4)
#define NPO_DBG_LINK		BIT(5)
#define NPO_DBG_DMA		BIT(6)
#define NPO_DBG_CLOCK		BIT(7)

extern unsigned int npo_dbg_mask;

#define npo_err(ndev, fmt, ...) \
	dev_err(&(ndev)->pdev->dev, fmt, ##__VA_ARGS__)
#define npo_warn(ndev, fmt, ...) \
	dev_warn(&(ndev)->pdev->dev, fmt, ##__VA_ARGS__)
#define npo_info(ndev, fmt, ...) \
	dev_info(&(ndev)->pdev->dev, fmt, ##__VA_ARGS__)
#define npo_dbg(ndev, area, fmt, ...) do {				\
	if (unlikely(npo_dbg_mask & NPO_DBG_##area))			\
		dev_dbg(&(ndev)->pdev->dev, "[" #area "] " fmt,	\
			##__VA_ARGS__);					\
} while (0)

struct npo_dev;
struct firmware;
struct netlink_callback;
struct netlink_ext_ack;
struct sk_buff;

/* Retrain backoff after a training failure (npo_link.c). */
#define NPO_BACKOFF_MIN_MS	100
#define NPO_BACKOFF_MAX_MS	10000
#define NPO_BACKOFF_WARN_MS	1600	/* warn after about 3 s of failures */

/*
 * Port statistics cost a mailbox command and a DMA buffer: readers without
 * CAP_NET_ADMIN share one reading this long, so that a flood of them
 * cannot starve queue setup and time sync of the mailbox.
 */
#define NPO_STATS_SHARED_MS	200

struct npo_port_watch;

/**
 * struct npo_port_down - a port's flight record of its last link-down
 * @time_known: @time was latched by the device (interface 1.10) while its
 *	clock kept fabric time.
 * @time: the device clock at the instant the link lost its signal, ns:
 *	both ends of a cut link latch the same fabric time.
 * @lanes_known: the link watch had read the lanes before the loss.
 * @lanes_age_ms: how long before the driver heard of the loss they were
 *	read, ms.
 * @ber: per lane, -log10(pre-FEC BER) x 100 then.
 * @rx: per lane, received power then, 1/100 dBm.
 * @eye: per lane, eye height then, mV.
 */
struct npo_port_down {
	bool time_known;
	u64 time;
	bool lanes_known;
	u32 lanes_age_ms;
	u16 ber[NPO_MAX_LANES];
	s16 rx[NPO_MAX_LANES];
	u16 eye[NPO_MAX_LANES];
};

struct npo_link_health;

/**
 * struct npo_module - an optical module's identity and limits
 * @valid: read from the device (interface 1.15) or a peer's report.
 * @vendor: vendor name.
 * @part: part number.
 * @serial: serial number.
 * @tx_high_alarm: transmit power high alarm, 1/100 dBm.
 * @tx_high_warn: transmit power high warning.
 * @tx_low_warn: transmit power low warning.
 * @tx_low_alarm: transmit power low alarm.
 * @temp_high_alarm: temperature high alarm, 1/100 degC (own module only).
 * @temp_high_warn: temperature high warning.
 * @bias_high_alarm: laser bias high alarm, 1/100 mA (own module only).
 * @bias_high_warn: laser bias high warning.
 */
struct npo_module {
	bool valid;
	char vendor[NPO_HW_MODULE_ID_LEN + 1];
	char part[NPO_HW_MODULE_ID_LEN + 1];
	char serial[NPO_HW_MODULE_ID_LEN + 1];
	s16 tx_high_alarm;
	s16 tx_high_warn;
	s16 tx_low_warn;
	s16 tx_low_alarm;
	s16 temp_high_alarm;
	s16 temp_high_warn;
	u16 bias_high_alarm;
	u16 bias_high_warn;
};

/**
 * struct npo_peer_lane - one lane as the far end's report gave it
 * @tx: its transmit power, 1/100 dBm.
 * @rx: its received power, 1/100 dBm.
 * @ber: its pre-FEC BER, -log10 x 100.
 * @flags: NPO_HW_LANE_*.
 */
struct npo_peer_lane {
	s16 tx;
	s16 rx;
	u16 ber;
	u8 flags;
};

/**
 * struct npo_link_diag - what each end of a port's link sees (npo_link_diag.c)
 * @module: this port's optical module, read once per link-up.
 * @module_gen: counts npo_link_diag_forget(): a module read across one is
 *	not kept.
 * @peer_valid: a report came from the far end since the driver started.
 * @peer_at: when, in jiffies.
 * @peer_node: the sender's node.
 * @peer_port: the sender's port.
 * @peer_module: the sender's module: identity and transmit limits.
 * @peer_lanes: lanes in the report.
 * @peer_lane: the report's lanes.
 *
 * Protected by &npo_dev.link_lock.
 */
struct npo_link_diag {
	struct npo_module module;
	unsigned int module_gen;
	bool peer_valid;
	unsigned long peer_at;
	u32 peer_node;
	u8 peer_port;
	struct npo_module peer_module;
	u8 peer_lanes;
	struct npo_peer_lane peer_lane[NPO_MAX_LANES];
};

/**
 * struct npo_port - the driver's view of one link port
 * @ndev: the device.
 * @index: port number.
 * @status: last PORT_STATUS read.
 * @state_since: when the port entered its current state.
 * @peer_valid: the peer fields below are known.
 * @peer_node: peer's fabric node id.
 * @peer_port: peer's port number.
 * @peer_rates: lane rates the peer supports, bit n = rate n + 1.
 * @peer_lanes: lanes of the peer's port.
 * @fault_lanes: lanes that failed the last negotiation (interface 1.2).
 * @ber_lanes: lanes above the BER warning threshold (interface 1.2).
 * @down_reason: why the link last went down, latched by the device when it
 *	happened (interface 1.2; before, the FAIL field of @status).
 * @flaps: times the link went down since probe.
 * @recoveries_seen: recoveries (retrains while up) since probe.
 * @backoff_ms: delay before the next retrain after a failure, 0 when up.
 * @admin_up: the administrator wants the port enabled.
 * @max_rate: administrator's rate limit, 0 for none.
 * @max_width: administrator's width limit, 0 for none.
 * @retrain_work: retrain after @backoff_ms.
 * @prbs_done: completed when a PRBS test ends.
 * @prbs_running: a requester's PRBS test runs; the requester waits on
 *	@prbs_done.
 * @prbs_cut: a device reset ended the requester's test.
 * @selftest: &enum npo_selftest, where the port's self-test after a reset
 *	stands (npo_link_selftest.c).
 * @selftest_deadline: jiffies by which the device must report the end of
 *	the self-test, while @selftest is %NPO_SELFTEST_RUNNING.
 * @selftest_lanes: the lanes that failed it, while @selftest is
 *	%NPO_SELFTEST_FAILED.
 * @stats_lock: protects @stats and @stats_at.
 * @stats: the last statistics block read, or NULL; unprivileged readers
 *	share it for NPO_STATS_SHARED_MS.
 * @stats_at: when it was read, in jiffies.
 * @watch: the link watch's recent readings of the lanes, or NULL
 *	(npo_link_watch.c); set before the links start.
 * @risk_lanes: lanes at risk, as last reported (NPO_EVENT_AT_RISK).
 * @risk_reason: &enum npo_risk of the worst of them.
 * @risk_lane: the worst of them.
 * @risk_eta_s: when the worst is expected to fail, in s; 0 unknown.
 * @risk_log: limits the kernel log's at-risk lines; netlink, the history
 *	and devlink still hear every change.
 * @last_down: when the link last went down and how its lanes looked just
 *	before, sent with NPO_EVENT_LINK_DOWN.
 * @health: the port's devlink "link" reporter, or NULL (npo_link_health.c);
 *	set and cleared under &npo_dev.link_lock.
 * @diag: its module and the far end's last report (npo_link_diag.c).
 * @plan_set: the administrator said which peer the port is cabled to:
 * @plan_node: its node id
 * @plan_port: and port.
 * @miswired: the port's link trained with another peer than @plan_node
 *	and @plan_port: it is quarantined (npo_link_plan.c).  Read without
 *	the lock by routing and time sync.
 *
 * All fields but @retrain_work, @prbs_done, @watch and the statistics are
 * protected by
 * &npo_dev.link_lock.  Fabric time sync (npo_timesync.c) also reads
 * @status without it, with READ_ONCE, for the port's state alone.
 */
struct npo_port {
	struct npo_dev *ndev;
	unsigned int index;
	u32 status;
	ktime_t state_since;
	bool peer_valid;
	u32 peer_node;
	u8 peer_port;
	u8 peer_rates;
	u8 peer_lanes;
	u32 fault_lanes;
	u32 ber_lanes;
	u8 down_reason;
	u64 flaps;
	u64 recoveries_seen;
	unsigned int backoff_ms;
	bool admin_up;
	u8 max_rate;
	u8 max_width;
	struct delayed_work retrain_work;
	struct completion prbs_done;
	bool prbs_running;
	bool prbs_cut;
	u8 selftest;
	u32 selftest_lanes;
	unsigned long selftest_deadline;
	struct mutex stats_lock; /* stats, stats_at */
	struct npo_hw_port_stats *stats;
	unsigned long stats_at;
	struct npo_port_watch *watch;
	u32 risk_lanes;
	u8 risk_reason;
	u8 risk_lane;
	u32 risk_eta_s;
	struct ratelimit_state risk_log;
	struct npo_port_down last_down;
	struct npo_link_health *health;
	struct npo_link_diag diag;
	bool plan_set;
	u32 plan_node;
	u8 plan_port;
	bool miswired;
};

#define NPO_TS_SYNCS_KEPT	4

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
 * @stats: what became of the exchanges on this port, since probe:
 * @stats.syncs: SYNCs sent;
 * @stats.send_errors: SYNC and REPLY messages the device would not send;
 * @stats.replies: REPLY messages received;
 * @stats.stale: REPLY messages to a SYNC no longer kept (late, or our clock stepped since);
 * @stats.impossible: exchanges a clock step spanned (turnaround or delay
 *	out of range);
 * @stats.unrated: exchanges that only measured the rate ratio;
 * @stats.outliers: exchanges dropped for a delay far from the learnt one;
 * @stats.used: exchanges that measured the peer.
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
	struct {
		u64 syncs;
		u64 send_errors;
		u64 replies;
		u64 stale;
		u64 impossible;
		u64 unrated;
		u64 outliers;
		u64 used;
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
 */
struct npo_timesync {
	struct workqueue_struct *wq;
	struct delayed_work work;
	struct work_struct rx_work;
	bool running;
	bool hw_lost;
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
};

/**
 * struct npo_fw_crash - the firmware's crash record, read at its assert
 * @reason: the assert's reason code.
 * @pc: where the firmware stopped.
 * @time_ns: when, in ns since the device powered on.
 * @log: the tail of its log, text.
 */
struct npo_fw_crash {
	u32 reason;
	u32 pc;
	u64 time_ns;
	char log[NPO_CRASH_LOG_SIZE + 1];
};

/**
 * struct npo_fw_health - the firmware's health, as devlink reports it
 * @reporter: the "fw" health reporter.
 * @watch: reads the heartbeat every %NPO_HEARTBEAT_WATCH_MS.
 * @beat: the heartbeat last read.
 * @beat_seen: jiffies when it last changed.
 * @lock: protects the fields below; taken from the fatal interrupt.
 * @pending: a fault the device was stopped for, to be reported once the
 *	files' queues are revoked.
 * @last: the last fault reported.
 * @last_at: when, in jiffies.
 * @crash: the last crash record read.
 * @crash_valid: @crash holds one.
 * @live: devlink shows the device: faults can be reported.
 * @stopped: the device is going away: report nothing more.
 */
struct npo_fw_health {
	struct devlink_health_reporter *reporter;
	struct delayed_work watch;
	u32 beat;
	unsigned long beat_seen;
	spinlock_t lock; /* pending, last, last_at, crash, live, stopped */
	enum npo_dev_fault pending;
	enum npo_dev_fault last;
	unsigned long last_at;
	struct npo_fw_crash crash;
	bool crash_valid;
	bool live;
	bool stopped;
};

/**
 * struct npo_queue_error - why the device put a queue in error
 * @wr_id: the failed descriptor's or receive buffer's wr_id.
 * @status: NPO_STATUS_* it completed with.
 * @peer_node: its destination node, or the sender of a receive.
 * @queue: the queue.
 * @opcode: NPO_OP_* of the work, %NPO_QERR_OP_NONE if none was at fault.
 * @port: the port it went through, %NPO_CQE_PORT_NONE if none.
 */
struct npo_queue_error {
	u64 wr_id;
	u32 status;
	u32 peer_node;
	u16 queue;
	u8 opcode;
	u8 port;
};

/**
 * struct npo_queue_fault - a queue error, with whom it befell
 * @err: what the device logged.
 * @owned: the queue was still there: its owner follows.
 * @pid: the process that created it.
 * @comm: its command name then.
 * @uid: its user.
 * @pd: its protection domain.
 * @job: its job.
 */
struct npo_queue_fault {
	struct npo_queue_error err;
	bool owned;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	uid_t uid;
	u32 pd;
	u32 job;
};

/**
 * struct npo_clock_health - whether the clock's time can be trusted, for
 *	devlink (npo_clock_health.c)
 * @reporter: the "clock" health reporter, NULL for a device without a
 *	clock.
 * @work: hands reports to devlink, with no driver lock held.
 * @live: devlink shows the device: judge and report; READ_ONCE.
 * @lock: protects the fields below.
 * @since: jiffies when judging started.
 * @armed: the clock was trusted once since: report any lapse at once.
 * @reported: devlink holds an error not since cleared.
 * @report: @work is to report @snap,
 * @clear: or to clear the error.
 * @snap: the clock as it was judged.
 */
struct npo_clock_health {
	struct devlink_health_reporter *reporter;
	struct work_struct work;
	bool live;
	spinlock_t lock; /* since, armed, reported, report, clear, snap */
	unsigned long since;
	bool armed;
	bool reported;
	bool report;
	bool clear;
	struct npo_timesync_info snap;
};

/* Queue errors waiting for the "queue" reporter, per device. */
#define NPO_QUEUE_REPORTS_QUEUED	8

/**
 * struct npo_queue_health - queues in error, as devlink reports them
 * @reporter: the "queue" health reporter.
 * @read_work: reads the device's queue error log; cancelled while the
 *	device restarts, as a record read then could name a reused queue.
 * @read_pending: the log may hold records @read_work has not read.
 * @report_work: hands faults to devlink, with no driver lock held (devlink
 *	takes its instance lock, under which a recovery cancels @read_work).
 * @rs: limits how often queue errors are logged and sent.
 * @lock: protects the fields below.
 * @queue: faults not yet handed to devlink, from @head, @count of them.
 * @head: the oldest.
 * @count: how many.
 * @failed: queues in error that still exist.
 * @reported: devlink was told of an error not since cleared.
 * @live: devlink shows the device: faults can be reported.
 */
struct npo_queue_health {
	struct devlink_health_reporter *reporter;
	struct work_struct read_work;
	bool read_pending;
	struct work_struct report_work;
	struct ratelimit_state rs;
	spinlock_t lock; /* queue, head, count, failed, reported, live */
	struct npo_queue_fault queue[NPO_QUEUE_REPORTS_QUEUED];
	unsigned int head;
	unsigned int count;
	unsigned int failed;
	bool reported;
	bool live;
};

struct npo_history_entry;

/**
 * struct npo_history - the events a device sent, kept (npo_history.c)
 * @lock: protects the fields below.
 * @last_seq: the number of the last event.
 * @head: the oldest event kept in @ring.
 * @count: events kept.
 * @ring: the events.
 */
struct npo_history {
	spinlock_t lock; /* all fields */
	u64 last_seq;
	unsigned int head;
	unsigned int count;
	struct npo_history_entry *ring[NPO_EVENT_HISTORY];
};

struct npo_rt_route;

/**
 * struct npo_routing - the device's part in routing (npo_route.c)
 * @lock: protects everything below but @running, @wq and the works.
 * @self: this device's node id.
 * @lsdb: every node's latest link-state advert, by node id.
 * @nodes: entries in @lsdb.
 * @seq: the number of this device's last advert.
 * @readvertise: send a new advert on the next run.
 * @dirty: @lsdb changed since the routes were last computed.
 * @table: the routes last set in the device, by node.
 * @entries: entries in @table.
 * @programmed: @table is in the device.
 * @programmed_resets: the device's RESET_COUNT then: a reset empties it.
 * @reroutes: REROUTE events sent.
 * @running: interrupts and port events may queue work; cleared under
 *	&npo_dev.link_lock.
 * @wq: runs @work and @rx_work, one at a time.
 * @work: advertises, ages adverts, recomputes and sets the routes.
 * @rx_work: reads link messages.
 */
struct npo_routing {
	struct mutex lock; /* everything below but running, wq, the works */
	u32 self;
	struct xarray lsdb;
	unsigned int nodes;
	u32 seq;
	bool readvertise;
	bool dirty;
	struct npo_rt_route *table;
	unsigned int entries;
	bool programmed;
	u32 programmed_resets;
	u64 reroutes;
	bool running;
	struct workqueue_struct *wq;
	struct delayed_work work;
	struct work_struct rx_work;
};

/**
 * struct npo_rt_route - one route
 * @node: the destination.
 * @port: the first hop.
 * @hops: links on the path.
 */
struct npo_rt_route {
	u32 node;
	u8 port;
	u8 hops;
};

/**
 * struct npo_dev - one NPO device
 * @pdev: the PCI device; NULL once the device is removed while files are
 *	still open (protected by @remove_lock).
 * @regs: BAR0 control registers.
 * @doorbells: BAR2 doorbell pages.
 * @dev: the class device behind /dev/npoN; owns this structure's lifetime
 *	(npo_main.c).
 * @cdev: the character device.
 * @minor: the device's index: N of /dev/npoN, and NPO_ATTR_DEV_INDEX.
 * @remove_lock: readers are ioctls, netlink requests and sysfs users of
 *	@pdev, @ports and @ptp; the writer is removal, which waits for them
 *	before it withdraws the clock and tears the hardware down.
 * @hw_if_version: register interface version read at probe.
 * @caps: NPO_CAPS_* register bits.
 * @serial: device serial number.
 * @node_id: fabric node id.
 * @num_ports: link ports.
 * @lanes_per_port: lanes in each port.
 * @num_queues: DMA queue pairs.
 * @db_stride: bytes between two queues' doorbells.
 * @num_vectors: MSI-X vectors enabled.
 * @state: &enum npo_dev_state.  Changed only by npo_set_state() (xchg) and
 *	npo_set_state_from() (cmpxchg), from any context: the fatal interrupt
 *	and the PCIe error callbacks force a state without a lock, so a start
 *	sequence moves on from RESETTING only if nothing moved it first.
 *	Read with npo_state() (READ_ONCE).
 * @state_lock: serialises start sequences (reset and firmware load) and
 *	protects @fw_error; the PCI core already keeps probe, remove and
 *	error recovery apart.
 * @state_wq: woken on every state change.
 * @fw_version: running firmware version, 0 if none; written under
 *	@state_lock, read with READ_ONCE by GET_INFO and sysfs.
 * @fw_error: why the firmware is not running, "" if it is.
 * @flash: the device's firmware flash as it last said (npo_fw_flash.c):
 *	FLASH_STATE and each slot's version, 0 without CAPS.FLASH; written
 *	under @state_lock, read with READ_ONCE.  @flash.activating is the
 *	slot a devlink fw_activate boots, kept from reload_down to
 *	reload_up (which the devlink instance lock keeps together).
 * @mbox_lock: serialises mailbox commands: the mailbox holds one at a time.
 * @mbox_done: completed by the interrupt handler when a command finishes.
 * @stops: how often the device was stopped (npo_health.c); a command that
 *	sees it change while it waits gets -ENODEV, not a stale answer.
 * @recover_lock: one device restart at a time (devlink or PCIe recovery).
 * @pcie_correctable: corrected PCIe errors the PCI core told us of.
 * @pcie_log: limits the kernel log's lines about them.
 * @devlink: the devlink instance (npo_devlink.c).
 * @dl_ports: its ports, one per link port.
 * @fwh: the firmware's health (npo_fw_health.c).
 * @qh: queues the device put in error (npo_queue_health.c).
 * @ch: whether the clock's time can be trusted (npo_clock_health.c).
 * @history: the events it sent, kept for those who come later.
 * @debugfs: this device's debugfs directory.
 * @ports: link ports, NULL if the device has no link capability.
 * @port_rates: lane rates the ports support, bit n = rate n + 1.
 * @link_lock: protects @ports' fields, @link_running, @link_gone and port
 *	registers.
 * @link_running: ports are enabled and supervised.
 * @link_gone: the device is being removed: no PRBS test starts, and those
 *	running end at once.
 * @link_work: handles port events in process context.
 * @selftest_work: judges the ports' self-tests after a reset.
 * @link_watch_work: reads active links' lanes every second and says which
 *	are at risk (npo_link_watch.c).
 * @num_mrs: memory table entries; keys index 1..@num_mrs - 1.
 * @pd_ida: protection domain numbers, one per open file.
 * @queue_ida: queue numbers in use.
 * @mr_ida: memory table indexes in use.
 * @files_lock: protects @files and @files_opened.
 * @files: open files, for revoking their queues and regions on removal,
 *	in the order they were opened.
 * @files_opened: files opened so far, to number each.
 * @refusal_work: reads the device's refusal log (npo_job.c).
 * @refusal_pending: the log may hold records @refusal_work has not read.
 * @refusal_rs: limits how often refusals are reported.
 * @queue_owners: &struct npo_queue_owner by queue number, so that a
 *	refusal names the process behind the queue; its own lock.
 * @offenders: &struct npo_offender by user id: whose queues were refused
 *	and how long their next queue waits; its own lock.
 * @cmd_buf: one page the device reads command blocks from.
 * @cmd_dma: its bus address.
 * @cmd_lock: one command block at a time.
 * @clk_lock: keeps multi-register clock accesses whole, and the anchor.
 * @fabric_anchor_mono: CLOCK_MONOTONIC, ns, when fabric time was last read
 *	from a locked clock; 0 if never.
 * @fabric_anchor: the fabric time read then, ns.
 * @ptp_info: the PHC's operations.
 * @ptp: the PHC, NULL if the device has no clock; withdrawn by removal
 *	under @remove_lock.
 * @ts: fabric time sync.
 * @rt: routing to nodes beyond the device's own links.
 * @dead_work: revokes every file's queues and regions once the device was
 *	stopped (npo_health_quarantine()).
 * @cg_dev: the device as the rdma cgroup controller knows it (npo_quota.c).
 * @cg_name: its name there, "npoN".
 *
 * Lock order (lockdep checks it on the debug kernel, make check-debug):
 *
 *   remove_lock -> files_lock -> npo_file.lock -> cmd_lock -> mbox_lock
 *   mmap_lock or a VMA lock -> npo_file.lock (mmap(), page faults)
 *   npo_file.lock -> i_mmap_rwsem (revoking mappings)
 *   state_lock -> link_lock -> mbox_lock
 *   npo_timesync.lock -> cmd_lock -> mbox_lock
 *   remove_lock -> npo_routing.lock -> link_lock
 *   npo_routing.lock -> cmd_lock -> mbox_lock
 *   recover_lock -> remove_lock (a device restart)
 *
 * Pinning a region's pages (mmap_lock) and waiting for a PRBS test take
 * neither remove_lock nor a file's lock: removal never waits on them.
 * clk_lock is a spinlock taken alone.  Nothing under npo_file.lock touches
 * user memory, so a fault on one of its own mappings cannot deadlock.
 */
struct npo_dev {
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *doorbells;
	struct device dev;
	struct cdev cdev;
	int minor;
	struct rw_semaphore remove_lock;

	u32 hw_if_version;
	u32 caps;
	u64 serial;
	u32 node_id;
	u16 num_ports;
	u16 lanes_per_port;
	u32 num_queues;
	u32 db_stride;
	int num_vectors;

	enum npo_dev_state state;
	struct mutex state_lock; /* start sequences, fw_error */
	wait_queue_head_t state_wq;
	u32 fw_version;
	char fw_error[96];
	struct {
		u32 state;
		u32 slot_version[2];
		unsigned int activating;
	} flash;

	struct mutex mbox_lock; /* one mailbox command at a time */
	struct completion mbox_done;
	atomic_t stops; /* times the device was stopped under a command */
	struct mutex recover_lock; /* one device restart at a time */
	atomic64_t pcie_correctable;
	struct ratelimit_state pcie_log;
	struct devlink *devlink;
	struct devlink_port *dl_ports;
	struct npo_fw_health fwh;
	struct npo_queue_health qh;
	struct npo_clock_health ch;
	struct npo_history history;

	struct dentry *debugfs;

	struct npo_port *ports;
	u8 port_rates;
	struct mutex link_lock; /* ports, link_running, port registers */
	bool link_running;
	bool link_gone;
	struct work_struct link_work;
	struct delayed_work selftest_work;
	struct delayed_work link_watch_work;

	u32 num_mrs;
	struct ida pd_ida;
	struct ida queue_ida;
	struct ida mr_ida;
	struct mutex files_lock; /* files, files_opened */
	unsigned long files_opened;
	struct list_head files;
	struct work_struct refusal_work;
	struct work_struct dead_work;
	bool refusal_pending;
	struct ratelimit_state refusal_rs;
	struct xarray queue_owners;
	struct xarray offenders;
	void *cmd_buf;
	dma_addr_t cmd_dma;
	struct mutex cmd_lock; /* cmd_buf */
	spinlock_t clk_lock; /* clock register sequences, fabric anchor */
	u64 fabric_anchor_mono;
	u64 fabric_anchor;
	struct ptp_clock_info ptp_info;
	struct ptp_clock *ptp;
	struct npo_timesync ts;
	struct npo_routing rt;
#ifdef CONFIG_CGROUP_RDMA
	struct rdmacg_device cg_dev;
	char cg_name[16];
#endif
};

/**
 * struct npo_queue_owner - who created a queue, for refusal and error reports
 * @tgid: the process (thread group id, in the initial namespace).
 * @comm: its command name then.
 * @uid: its user, whom the queue's refusals count against.
 * @pd: the queue's protection domain.
 * @job: the queue's job.
 * @failed: the device put the queue in error, for @error
 *	(npo_queue_health.c); under the table's lock.
 * @error: what it logged.
 *
 * The process that creates a queue may not be the one that opened the
 * file: a launcher opens it and hands it over.
 */
struct npo_queue_owner {
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	kuid_t uid;
	u32 pd;
	u32 job;
	bool failed;
	struct npo_queue_error error;
};

/**
 * struct npo_file - per-open state of /dev/npoN: a protection domain
 * @ndev: the device, referenced for as long as the file is open.
 * @mapping: the file's address space, to revoke mappings of its queues.
 * @pd: protection domain number; the file's queues and regions carry it.
 * @job: the job its queues and regions belong to (<linux/npo.h>); set
 *	under @lock while it has none.
 * @uid: the user that opened it.
 * @lock: protects @queues, @queue_serial, @mrs, @detached, @job, the
 *	revoked pages and @finals; the page faults of the file's mappings
 *	take it.
 * @queues: queues the file created, by queue number.
 * @queue_serial: how many queues it created, to tell apart two queues
 *	that had the same number.
 * @mrs: regions the file registered, by memory table index.
 * @node: entry in &npo_dev.files, which is in opening order.
 * @serial: &npo_dev.files_opened when it was opened: no other file of the
 *	device has this number.
 * @detached: the device went away and took the file's resources with it.
 * @owner: the process that opened the file, for administrators.
 * @comm: its command name then.
 * @revoked_ring: what revoked ring mappings show, or NULL until needed.
 * @revoked_db: where writes to revoked doorbell mappings go, or NULL.
 * @finals: final rings of queues the device stopped under, by the queue's
 *	serial (npo_queue.c).
 * @cg: the rdma cgroup its handle is charged to (npo_quota.c).
 */
struct npo_file {
	struct npo_dev *ndev;
	struct address_space *mapping;
	u32 pd;
	u32 job;
	kuid_t uid;
	struct mutex lock; /* queues, mrs, detached, job, revoked, finals */
	struct xarray queues;
	unsigned long queue_serial;
	struct xarray mrs;
	struct list_head node;
	unsigned long serial;
	bool detached;
	struct pid *owner;
	char comm[TASK_COMM_LEN];
	struct page *revoked_ring;
	struct page *revoked_db;
	struct xarray finals;
	struct rdma_cgroup *cg;
};

static inline u32 npo_rd32(struct npo_dev *ndev, u32 reg)
{
	return readl(ndev->regs + reg);
}

static inline void npo_wr32(struct npo_dev *ndev, u32 reg, u32 val)
{
	writel(val, ndev->regs + reg);
}

/* A register of one port's block (NPO_P_*). */
static inline u32 npo_port_rd(struct npo_port *port, u32 reg)
{
	return npo_rd32(port->ndev, NPO_PORT_REG(port->index, reg));
}

static inline void npo_port_wr(struct npo_port *port, u32 reg, u32 val)
{
	npo_wr32(port->ndev, NPO_PORT_REG(port->index, reg), val);
}

static inline enum npo_dev_state npo_state(struct npo_dev *ndev)
{
	return READ_ONCE(ndev->state);
}

/*
 * Interface 1.2 names the lanes behind degraded links and BER alarms and
 * latches why the link last went down.
 */
static inline bool npo_hw_blames_lanes(const struct npo_dev *ndev)
{
	return FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >= 2;
}

/* npo_main.c */
void npo_set_state(struct npo_dev *ndev, enum npo_dev_state state);
bool npo_set_state_from(struct npo_dev *ndev, enum npo_dev_state from,
			enum npo_dev_state to);
const char *npo_state_name(enum npo_dev_state state);
struct npo_dev *npo_dev_get(unsigned long index);
struct npo_dev *npo_dev_get_next(unsigned long *index, unsigned long max);
int npo_hw_start(struct npo_dev *ndev, bool selftest);

/* npo_health.c */
extern const struct pci_error_handlers npo_err_handlers;
void npo_health_port_event(struct npo_port *port, u32 event);
void npo_health_fatal(struct npo_dev *ndev);
void npo_health_quarantine(struct npo_dev *ndev);
void npo_health_fail(struct npo_dev *ndev, enum npo_dev_fault fault);
void npo_fw_health_recovered(struct npo_dev *ndev);
void npo_link_end_tests(struct npo_dev *ndev);
int npo_health_restart(struct npo_dev *ndev);
void npo_health_dev_event(struct npo_dev *ndev, enum npo_dev_fault fault);
void npo_health_init(struct npo_dev *ndev);

/* npo_fw_health.c */
const char *npo_dev_fault_name(enum npo_dev_fault fault);
void npo_fw_health_init(struct npo_dev *ndev);
int npo_fw_health_create(struct npo_dev *ndev);
void npo_fw_health_start(struct npo_dev *ndev);
void npo_fw_health_stop(struct npo_dev *ndev);
void npo_fw_health_destroy(struct npo_dev *ndev);
void npo_fw_health_read_crash(struct npo_dev *ndev);
void npo_fw_health_report(struct npo_dev *ndev);

/* npo_history.c */
void npo_history_init(struct npo_dev *ndev);
int npo_history_stamp(struct npo_dev *ndev, struct sk_buff *msg, u64 *seq);
void npo_history_add(struct npo_dev *ndev, u64 seq, const void *attrs,
		     size_t len);
int npo_history_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			 struct npo_dev *ndev, u64 after);
void npo_history_fini(struct npo_dev *ndev);

/* npo_genl.c */
u32 npo_lane_flags(u8 hw);

/* npo_link_diag.c; its link message type (hardware.rst "Link messages") */
#define NPO_LMSG_TYPE_DIAG	2
void npo_link_diag_send(struct npo_port *port,
			const struct npo_hw_port_stats *st);
void npo_link_diag_rx(struct npo_dev *ndev, unsigned int index,
		      const void *data, size_t len);
void npo_link_diag_forget(struct npo_port *port);
int npo_link_diag_fill(struct sk_buff *skb, struct npo_port *port);

/* npo_link_plan.c */
bool npo_link_plan_quarantines(const struct npo_dev *ndev);
u32 npo_port_control_plan(const struct npo_port *port);
bool npo_port_miswired(const struct npo_port *port);
void npo_link_plan_check(struct npo_port *port);
void npo_link_plan_set(struct npo_port *port, bool set, u32 node,
		       u8 peer_port);

/* npo_link_health.c */
void npo_link_health_event(struct npo_port *port, u32 event);
int npo_link_health_create(struct npo_dev *ndev);
void npo_link_health_start(struct npo_dev *ndev);
void npo_link_health_stop(struct npo_dev *ndev);
void npo_link_health_destroy(struct npo_dev *ndev);

/* npo_devlink.c */
int npo_devlink_alloc(struct npo_dev *ndev);
int npo_devlink_register(struct npo_dev *ndev);
void npo_devlink_unregister(struct npo_dev *ndev);
void npo_devlink_free(struct npo_dev *ndev);

/* npo_mbox.c */
void npo_mbox_release(struct npo_dev *ndev, u8 opcode, const u32 *args,
		      unsigned int nargs);
void npo_mbox_settle(struct npo_dev *ndev, u8 opcode, int err);
int npo_mbox_read(struct npo_dev *ndev, u8 opcode, const u32 *args,
		  unsigned int nargs, u32 *ret, unsigned int nret);
int npo_mbox_read_log(struct npo_dev *ndev, u8 opcode, void *log,
		      size_t rec_size, unsigned int max, u32 *lost);
int npo_mbox_exec(struct npo_dev *ndev, u8 opcode, const u32 *args,
		  unsigned int nargs, u32 *ret, unsigned int nret);
void npo_mbox_irq(struct npo_dev *ndev);
const char *npo_mbox_result_str(unsigned int result);

/* npo_link.c */
void npo_link_early_init(struct npo_dev *ndev);
int npo_link_init(struct npo_dev *ndev);
void npo_link_start(struct npo_dev *ndev, bool selftest);
u32 npo_port_control(struct npo_port *port);
void npo_link_stop(struct npo_dev *ndev);
void npo_link_fini(struct npo_dev *ndev);
void npo_link_irq(struct npo_dev *ndev);
void npo_port_refresh(struct npo_port *port);
void npo_port_apply(struct npo_port *port, bool retrain);
void npo_port_lock_fresh(struct npo_port *port);
void npo_port_unlock(struct npo_port *port);
int npo_port_get_param(struct npo_port *port, u32 param, u64 *value);
struct npo_hw_port_stats *npo_port_read_stats(struct npo_port *port,
					      bool shared);
int npo_port_clear_counters(struct npo_port *port);
void npo_link_abort_tests(struct npo_dev *ndev);
int npo_port_configure(struct npo_port *port, int admin_up, int rate,
		       int width);
int npo_port_retrain(struct npo_port *port);
int npo_port_prbs_test(struct npo_port *port, u32 ms);
const char *npo_port_state_name(unsigned int state);
const char *npo_port_fail_name(unsigned int reason);
const char *npo_port_rate_name(unsigned int rate);
u32 npo_port_rate_mbps(unsigned int rate);

/* npo_link_watch.c */

/**
 * struct npo_lane_trends - the link watch's trends of a port's lanes
 * @known: it has enough readings for the rest.
 * @ber: per lane, change of -log10(BER) x 100 per minute.
 * @rx: per lane, change of received power per minute, 1/100 dBm.
 */
struct npo_lane_trends {
	bool known;
	s32 ber[NPO_MAX_LANES];
	s32 rx[NPO_MAX_LANES];
};

/**
 * enum npo_selftest - a port's self-test after a reset
 * @NPO_SELFTEST_NONE: none, or passed: the port trains.
 * @NPO_SELFTEST_RUNNING: the PRBS test runs.
 * @NPO_SELFTEST_JUDGING: it ended; the device holds the port while the
 *	driver reads the result.
 * @NPO_SELFTEST_FAILED: a lane failed: the port stays held until the
 *	administrator retrains or reconfigures it.
 */
enum npo_selftest {
	NPO_SELFTEST_NONE,
	NPO_SELFTEST_RUNNING,
	NPO_SELFTEST_JUDGING,
	NPO_SELFTEST_FAILED,
};

/**
 * npo_port_testing() - does a PRBS test run on the port?
 * @port: the port.
 *
 * A requester's test or the self-test after a reset: nothing reconfigures
 * the port under either.
 *
 * Context: under &npo_dev.link_lock.
 * Return: true while one runs or its result is being judged.
 */
static inline bool npo_port_testing(const struct npo_port *port)
{
	return port->prbs_running || port->selftest == NPO_SELFTEST_RUNNING ||
	       port->selftest == NPO_SELFTEST_JUDGING;
}

void npo_link_selftest_init(struct npo_dev *ndev);
void npo_link_selftest_start(struct npo_port *port, bool test);
bool npo_link_selftest_done(struct npo_port *port);
void npo_link_selftest_release(struct npo_port *port);
void npo_link_selftest_stop(struct npo_dev *ndev);

void npo_link_watch_early_init(struct npo_dev *ndev);
int npo_link_watch_init(struct npo_dev *ndev);
void npo_link_watch_start(struct npo_dev *ndev);
void npo_link_watch_forget(struct npo_port *port);
bool npo_link_watch_judges_ber(const struct npo_port *port);
void npo_link_watch_trends(struct npo_port *port, struct npo_lane_trends *out);
void npo_link_watch_last(struct npo_port *port, struct npo_port_down *down);
void npo_link_watch_fini(struct npo_dev *ndev);
const char *npo_risk_name(unsigned int risk);

/* npo_clock.c */
struct genl_info;
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

/* npo_route.c */
int npo_route_start(struct npo_dev *ndev);
void npo_route_stop(struct npo_dev *ndev);
void npo_route_irq(struct npo_dev *ndev);
bool npo_lmsg_supported(struct npo_dev *ndev);
int npo_lmsg_send(struct npo_dev *ndev, unsigned int port, const void *msg,
		  size_t len);
void npo_route_port_event(struct npo_port *port, u32 event);
int npo_route_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
		       struct npo_dev *ndev);

/* npo_timesync.c */
int npo_timesync_start(struct npo_dev *ndev);
void npo_timesync_stop(struct npo_dev *ndev);
void npo_timesync_irq(struct npo_dev *ndev);
void npo_timesync_user_changed(struct npo_dev *ndev, bool jumped);
void npo_timesync_set_priority(struct npo_dev *ndev, u8 prio);
void npo_timesync_set_sync(struct npo_dev *ndev, bool sync);
int npo_timesync_get(struct npo_dev *ndev, struct npo_timesync_info *info);
const char *npo_clock_state_name(unsigned int state);
const char *npo_clock_role_name(unsigned int role);

/* npo_fw.c */
int npo_fw_precheck(const struct firmware *fw, const char **why);
int npo_fw_load(struct npo_dev *ndev);
void npo_fw_version_str(char *buf, size_t len, u32 version);

/* npo_fw_flash.c */
void npo_fw_flash_read(struct npo_dev *ndev);
void npo_fw_flash_refresh(struct npo_dev *ndev);
unsigned int npo_fw_flash_next(u32 state);
int npo_fw_flash_update(struct npo_dev *ndev, const struct firmware *fw,
			struct netlink_ext_ack *extack);
int npo_fw_flash_can_activate(struct npo_dev *ndev,
			      struct netlink_ext_ack *extack);
int npo_fw_flash_activate(struct npo_dev *ndev,
			  struct netlink_ext_ack *extack);
int npo_fw_flash_erase(struct npo_dev *ndev, unsigned int slot);
const char *npo_fw_slot_name(unsigned int slot);

/* npo_cdev.c */
int npo_cdev_init(void);
void npo_cdev_exit(void);
int npo_cdev_add(struct npo_dev *ndev);
void npo_cdev_del(struct npo_dev *ndev);
void npo_fill_info(struct npo_dev *ndev, struct npo_dev_info *info);

void npo_files_release_dma(struct npo_dev *ndev, bool detach);
void npo_files_release_dead(struct npo_dev *ndev);

/* npo_queue.c */
int npo_queue_create(struct npo_file *nfile, struct npo_queue_create *qc);
int npo_queue_destroy(struct npo_file *nfile, u32 qid);
void npo_queue_release_all(struct npo_file *nfile, bool hw_alive);
void npo_queue_revoke_all(struct npo_file *nfile);
int npo_queue_mmap(struct npo_file *nfile, struct vm_area_struct *vma);
void npo_file_free_revoked(struct npo_file *nfile);
int npo_queue_dump(struct sk_buff *skb, struct netlink_callback *cb,
		   struct npo_file *nfile, unsigned long *index);

/* npo_mr.c */
int npo_mr_register(struct npo_file *nfile, struct npo_mr_reg *reg);
int npo_mr_register_dmabuf(struct npo_file *nfile, struct npo_dmabuf_reg *reg);
int npo_mr_deregister(struct npo_file *nfile, u32 key);
void npo_mr_release_all(struct npo_file *nfile, bool hw_alive);
int npo_mr_dump(struct sk_buff *skb, struct netlink_callback *cb,
		struct npo_file *nfile, unsigned long *index);

/* npo_genl.c */
int npo_genl_init(void);
void npo_genl_exit(void);
void *npo_genl_put(struct sk_buff *msg, u32 portid, u32 seq, int flags,
		   u8 cmd);
int npo_genl_end(struct sk_buff *msg, void *hdr, int err);
int npo_genl_dump_devices(struct sk_buff *skb, struct netlink_callback *cb,
			  int (*fill)(struct sk_buff *skb,
				      struct netlink_callback *cb,
				      struct npo_dev *ndev));
void *npo_genl_dump_begin(struct sk_buff *skb, struct netlink_callback *cb,
			  u8 cmd, struct npo_file *nfile);
struct sk_buff *npo_genl_event_new(u32 event, void **hdr);
void npo_genl_dev_event(struct npo_dev *ndev, u32 fault);
void npo_genl_event_send(struct npo_dev *ndev, struct sk_buff *msg,
			 void *hdr, int err);
void npo_genl_port_event(struct npo_port *port, u32 event);

/* npo_quota.c */
#ifdef CONFIG_CGROUP_RDMA
void npo_quota_init(struct npo_dev *ndev);
void npo_quota_fini(struct npo_dev *ndev);
int npo_quota_charge(struct npo_dev *ndev, struct rdma_cgroup **cg,
		     enum rdmacg_resource_type what);
void npo_quota_uncharge(struct npo_dev *ndev, struct rdma_cgroup *cg,
			enum rdmacg_resource_type what);
#else
struct rdma_cgroup;
static inline void npo_quota_init(struct npo_dev *ndev) {}
static inline void npo_quota_fini(struct npo_dev *ndev) {}
static inline int npo_quota_charge(struct npo_dev *ndev,
				   struct rdma_cgroup **cg,
				   enum rdmacg_resource_type what)
{
	*cg = NULL;
	return 0;
}

static inline void npo_quota_uncharge(struct npo_dev *ndev,
				      struct rdma_cgroup *cg,
				      enum rdmacg_resource_type what) {}
#endif

/* npo_job.c */
u32 npo_job_default(void);
int npo_job_set(struct npo_file *nfile, u32 job);
int npo_pd_load_job(struct npo_dev *ndev, struct npo_file *nfile);
int npo_job_throttle(struct npo_file *nfile);
struct seq_file;
void npo_job_offenders_show(struct npo_dev *ndev, struct seq_file *m);
void npo_timesync_show(struct npo_dev *ndev, struct seq_file *m);
void npo_refusal_irq(struct npo_dev *ndev);
const char *npo_op_name(u8 opcode);
const char *npo_status_name(u32 status);
void npo_clock_health_judge(struct npo_dev *ndev);
int npo_clock_health_create(struct npo_dev *ndev);
void npo_clock_health_start(struct npo_dev *ndev);
void npo_clock_health_stop(struct npo_dev *ndev);
void npo_clock_health_destroy(struct npo_dev *ndev);
void npo_queue_health_init(struct npo_dev *ndev);
int npo_queue_health_create(struct npo_dev *ndev);
void npo_queue_health_start(struct npo_dev *ndev);
void npo_queue_health_stop(struct npo_dev *ndev);
void npo_queue_health_destroy(struct npo_dev *ndev);
void npo_queue_error_irq(struct npo_dev *ndev);
void npo_queue_error_flush(struct npo_dev *ndev);
void npo_queue_error_cancel(struct npo_dev *ndev);
void npo_queue_owner_forget(struct npo_dev *ndev, u32 id);
int npo_queue_error_put(struct sk_buff *skb, struct npo_dev *ndev, u32 id);
void npo_refusal_flush(struct npo_dev *ndev);
void npo_job_init(struct npo_dev *ndev);
void npo_job_fini(struct npo_dev *ndev);

/* npo_sysfs.c */
extern const struct attribute_group *npo_dev_groups[];

/* npo_debugfs.c */
void npo_debugfs_init(void);
void npo_debugfs_exit(void);
void npo_debugfs_add(struct npo_dev *ndev);
void npo_debugfs_del(struct npo_dev *ndev);

#endif /* _NPO_H */
