/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO supernode interconnect driver: the core.
 *
 * The device (&struct npo_dev), an open file (&struct npo_file), logging,
 * register access and the device's state.  Each concern has a header of
 * its own that is its contract: npo_link.h, npo_timesync.h, npo_route.h,
 * npo_health.h, npo_queue.h, npo_job.h, npo_fw.h, npo_mbox.h and
 * npo_genl.h.  The four whose state &struct npo_dev embeds (health,
 * netlink history, routing, time sync) are included here and see the
 * device only as a declared struct; the others include this header.
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

#include "npo_genl.h"
#include "npo_health.h"
#include "npo_regs.h"
#include "npo_fabric_key.h"
#include "npo_route.h"
#include "npo_timesync.h"

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

struct npo_port;

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
 * @gone: the device left the bus (npo_health_gone()) or the platform gave
 *	up on its PCIe link; set once, under &npo_fw_health.lock, never
 *	cleared: only its removal or a new probe follows.
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
 * @offenders: &struct npo_offender by job: whose queues were refused and
 *	how long their next queue waits; its own lock.
 * @owner_offenders: the same by the user a queue's refusals are charged to
 *	besides its job (npo_job_charge()); its own lock.
 * @userns_offenders: the same by user namespace, for namespaces root
 *	made (npo_job_charge()); its own lock.
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
 * @fkeys: the fabric keys its control messages are signed and checked
 *	with (npo_fabric_key.c).
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
 *   devlink's instance lock -> link_lock (a link reporter's recover)
 *   npo_port.stats.lock -> mbox_lock (a statistics read)
 *   link_lock -> the history's and the link reporters' spinlocks
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
	bool gone;
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
	struct xarray owner_offenders;
	struct xarray userns_offenders;
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
	struct npo_fabric_auth fkeys;
#ifdef CONFIG_CGROUP_RDMA
	struct rdmacg_device cg_dev;
	char cg_name[16];
#endif
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
const char *npo_state_str(enum npo_dev_state state);
struct npo_dev *npo_dev_get(unsigned long index);
struct npo_dev *npo_dev_get_next(unsigned long *index, unsigned long max);
int npo_hw_start(struct npo_dev *ndev, bool selftest);

/* npo_cdev.c */
int npo_cdev_init(void);
void npo_cdev_exit(void);
int npo_cdev_add(struct npo_dev *ndev);
void npo_cdev_del(struct npo_dev *ndev);
void npo_fill_info(struct npo_dev *ndev, struct npo_dev_info *info);

void npo_files_release_dma(struct npo_dev *ndev, bool detach);
void npo_files_release_dead(struct npo_dev *ndev);

/* npo_sysfs.c */
extern const struct attribute_group *npo_dev_groups[];

/* npo_debugfs.c */
void npo_debugfs_init(void);
void npo_debugfs_exit(void);
void npo_debugfs_add(struct npo_dev *ndev);
void npo_debugfs_del(struct npo_dev *ndev);

#endif /* _NPO_H */
