/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: error reporting and recovery.
 *
 * The device's faults, the firmware's heartbeat and crash record, queues
 * in error and the clock's trust, each a devlink health reporter; device
 * restarts and PCIe error recovery.  &struct npo_dev embeds the state.
 */
#ifndef _NPO_HEALTH_H
#define _NPO_HEALTH_H

#include <linux/ratelimit_types.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <uapi/linux/npo_netlink.h>

#include "npo_regs.h"
#include "npo_timesync.h"

struct devlink_health_reporter;
struct npo_dev;
struct npo_port;
struct pci_error_handlers;
struct sk_buff;

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
	spinlock_t lock; /* pending, last, last_at, crash, live, stopped, and npo_dev.gone */
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

/* npo_health.c: containment, restarts, PCIe errors */
extern const struct pci_error_handlers npo_err_handlers;
void npo_health_port_event(struct npo_port *port, u32 event);
void npo_health_fatal(struct npo_dev *ndev);
void npo_health_quarantine(struct npo_dev *ndev);
void npo_health_fail(struct npo_dev *ndev, enum npo_dev_fault fault);
bool npo_health_gone(struct npo_dev *ndev);
void npo_health_stop_stuck(struct npo_dev *ndev);
int npo_health_restart(struct npo_dev *ndev);
void npo_health_dev_event(struct npo_dev *ndev, enum npo_dev_fault fault);
void npo_health_init(struct npo_dev *ndev);

/* npo_fw_health.c: heartbeat, crash record, the "fw" reporter */
void npo_fw_health_recovered(struct npo_dev *ndev);
const char *npo_dev_fault_str(enum npo_dev_fault fault);
void npo_fw_health_init(struct npo_dev *ndev);
int npo_fw_health_create(struct npo_dev *ndev);
void npo_fw_health_start(struct npo_dev *ndev);
void npo_fw_health_stop(struct npo_dev *ndev);
void npo_fw_health_destroy(struct npo_dev *ndev);
void npo_fw_health_read_crash(struct npo_dev *ndev);
void npo_fw_health_report(struct npo_dev *ndev);

/* npo_queue_health.c: queues in error, the "queue" reporter */
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
const char *npo_op_str(u8 opcode);
const char *npo_status_str(u32 status);

/* npo_clock_health.c: the "clock" reporter, the clocks' one judge */
u32 npo_clock_error_limit_ns(void);
u32 npo_clock_health(const struct npo_timesync_info *ti, u32 *why);
void npo_clock_health_judge(struct npo_dev *ndev);
int npo_clock_health_create(struct npo_dev *ndev);
void npo_clock_health_start(struct npo_dev *ndev);
void npo_clock_health_stop(struct npo_dev *ndev);
void npo_clock_health_destroy(struct npo_dev *ndev);

/* npo_link_health.c: the "link" port reporters, the ports' one judge */
u32 npo_port_health(const struct npo_port *port, u32 *why);
void npo_link_health_event(struct npo_port *port, u32 event);
int npo_link_health_create(struct npo_dev *ndev);
void npo_link_health_start(struct npo_dev *ndev);
void npo_link_health_stop(struct npo_dev *ndev);
void npo_link_health_destroy(struct npo_dev *ndev);

/* npo_devlink.c: the devlink instance, its info and ports */
int npo_devlink_alloc(struct npo_dev *ndev);
int npo_devlink_register(struct npo_dev *ndev);
void npo_devlink_unregister(struct npo_dev *ndev);
void npo_devlink_free(struct npo_dev *ndev);

#endif /* _NPO_HEALTH_H */
