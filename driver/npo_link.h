/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: link ports.
 *
 * Supervision and port operations (npo_link.c), the self-test after a
 * reset, the link watch, what each end of a link reports and the cabling
 * plan.  &npo_dev.link_lock protects what the comments say it does.
 */
#ifndef _NPO_LINK_H
#define _NPO_LINK_H

#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/ratelimit_types.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "npo.h"

struct npo_link_health;
struct npo_port_watch;
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
 * @prbs: a requester's PRBS test (npo_port_prbs_test()):
 * @prbs.done: completed when the test ends;
 * @prbs.running: it runs; the requester waits on @prbs.done;
 * @prbs.cut: a device reset ended it.
 * @selftest: the port's self-test after a reset (npo_link_selftest.c):
 * @selftest.state: &enum npo_selftest, where it stands;
 * @selftest.deadline: jiffies by which the device must report its end,
 *	while @selftest.state is %NPO_SELFTEST_RUNNING;
 * @selftest.lanes: the lanes that failed it, while @selftest.state is
 *	%NPO_SELFTEST_FAILED.
 * @stats: the port's statistics block, shared by unprivileged readers
 *	for %NPO_STATS_SHARED_MS (npo_port_read_stats()):
 * @stats.lock: protects @stats.block, @stats.at, @stats.module and
 *	@stats.module_at;
 * @stats.block: the last block read, or NULL;
 * @stats.at: when it was read, in jiffies;
 * @stats.module: the module's identity as last read while the link was
 *	not active (an active link's is kept in @diag);
 * @stats.module_at: when, in jiffies; 0 never.
 * @watch: the link watch's recent readings of the lanes, or NULL
 *	(npo_link_watch.c); set before the links start.
 * @risk: lanes at risk, as last reported (NPO_EVENT_AT_RISK):
 * @risk.lanes: which;
 * @risk.reason: &enum npo_risk of the worst of them;
 * @risk.lane: the worst of them;
 * @risk.eta_s: when the worst is expected to fail, in s; 0 unknown;
 * @risk.log: limits the kernel log's at-risk lines; netlink, the history
 *	and devlink still hear every change.
 * @last_down: when the link last went down and how its lanes looked just
 *	before, sent with NPO_EVENT_LINK_DOWN.
 * @health: the port's devlink "link" reporter, or NULL (npo_link_health.c);
 *	set and cleared under &npo_dev.link_lock.
 * @diag: its module and the far end's last report (npo_link_diag.c).
 * @plan: the cabling plan for this port (npo_link_plan.c):
 * @plan.set: the administrator said which peer the port is cabled to:
 * @plan.node: its node id
 * @plan.port: and port;
 * @plan.miswired: the port's link trained with another peer than
 *	@plan.node and @plan.port: it is quarantined.  Read without the lock
 *	by routing and time sync.
 *
 * All fields but @retrain_work, @prbs.done, @watch and @stats are
 * protected by &npo_dev.link_lock.  Fabric time sync (npo_timesync.c) also
 * reads @status without it, with READ_ONCE, for the port's state alone.
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
	struct {
		struct completion done;
		bool running;
		bool cut;
	} prbs;
	struct {
		u8 state;
		unsigned long deadline;
		u32 lanes;
	} selftest;
	struct {
		struct mutex lock; /* block, at, module, module_at */
		struct npo_hw_port_stats *block;
		unsigned long at;
		struct npo_module module;
		unsigned long module_at;
	} stats;
	struct npo_port_watch *watch;
	struct {
		u32 lanes;
		u8 reason;
		u8 lane;
		u32 eta_s;
		struct ratelimit_state log;
	} risk;
	struct npo_port_down last_down;
	struct npo_link_health *health;
	struct npo_link_diag diag;
	struct {
		bool set;
		u32 node;
		u8 port;
		bool miswired;
	} plan;
};

/* A register of one port's block (NPO_P_*). */
static inline u32 npo_port_rd(struct npo_port *port, u32 reg)
{
	return npo_rd32(port->ndev, NPO_PORT_REG(port->index, reg));
}

static inline void npo_port_wr(struct npo_port *port, u32 reg, u32 val)
{
	npo_wr32(port->ndev, NPO_PORT_REG(port->index, reg), val);
}

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
	return port->prbs.running ||
	       port->selftest.state == NPO_SELFTEST_RUNNING ||
	       port->selftest.state == NPO_SELFTEST_JUDGING;
}

/* npo_link.c: supervision and port operations */
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
const char *npo_port_state_str(unsigned int state);
const char *npo_port_fail_str(unsigned int reason);
const char *npo_port_rate_str(unsigned int rate);
u32 npo_port_rate_mbps(unsigned int rate);
void npo_link_end_tests(struct npo_dev *ndev);

/* npo_link_selftest.c: the ports' self-test after a reset */
void npo_link_selftest_init(struct npo_dev *ndev);
void npo_link_selftest_start(struct npo_port *port, bool test);
bool npo_link_selftest_done(struct npo_port *port);
void npo_link_selftest_release(struct npo_port *port);
void npo_link_selftest_stop(struct npo_dev *ndev);

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

/* npo_link_watch.c: lanes read every second, links at risk */
void npo_link_watch_early_init(struct npo_dev *ndev);
int npo_link_watch_init(struct npo_dev *ndev);
void npo_link_watch_start(struct npo_dev *ndev);
void npo_link_watch_forget(struct npo_port *port);
bool npo_link_watch_judges_ber(const struct npo_port *port);
void npo_link_watch_trends(struct npo_port *port, struct npo_lane_trends *out);
void npo_link_watch_last(struct npo_port *port, struct npo_port_down *down);
void npo_link_watch_fini(struct npo_dev *ndev);
const char *npo_risk_str(unsigned int risk);

/* npo_link_diag.c; its link message type (hardware.rst "Link messages") */
#define NPO_LMSG_TYPE_DIAG	2
void npo_link_diag_send(struct npo_port *port,
			const struct npo_hw_port_stats *st);
void npo_link_diag_rx(struct npo_dev *ndev, unsigned int index,
		      const void *data, size_t len);
void npo_link_diag_forget(struct npo_port *port);
int npo_link_diag_fill(struct sk_buff *skb, struct npo_port *port, bool shared);

/* npo_link_plan.c: the cabling plan, miswired ports quarantined */
bool npo_link_plan_quarantines(const struct npo_dev *ndev);
u32 npo_port_control_plan(const struct npo_port *port);
bool npo_port_miswired(const struct npo_port *port);
void npo_link_plan_check(struct npo_port *port);
void npo_link_plan_set(struct npo_port *port, bool set, u32 node,
		       u8 peer_port);

#endif /* _NPO_LINK_H */
