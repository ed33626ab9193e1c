/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the NPO selftests.
 */
#ifndef NPO_TEST_LIB_H
#define NPO_TEST_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NPO_SYSFS_CLASS "/sys/class/npo"

/*
 * The 6.1 kselftest harness runs a test's body even when its fixture setup
 * called SKIP(); every NPO test starts with this so a skip stays a skip.
 */
#define NPO_TEST_SETUP_DONE() do {		\
	if (_metadata->skip)			\
		return;				\
} while (0)

/* Number of /dev/npoN devices, or -1 if the driver is not loaded. */
int npo_test_count_devices(void);
/* Name of the i-th device in index order ("npo0"), into buf. */
int npo_test_device_name(int i, char *buf, size_t len);

/* Read a sysfs attribute of a device, trailing newline removed. */
int npo_test_read_attr(const char *dev, const char *attr, char *buf,
		       size_t len);
/* Read a whole file; -errno on failure. */
int npo_test_read_file(const char *path, char *buf, size_t len);
int npo_test_write_file(const char *path, const char *text);
/* Write a fault injection command to npo<dev>'s debugfs "fault" file. */
int npo_test_fault(int dev, const char *cmd);
/*
 * How many times slower this lane runs (NPO_TEST_TIME_SCALE, 1 unless a
 * debug kernel's lane says): for the limits a test sets itself.
 */
int npo_test_time_scale(void);

/*
 * The driver's tracepoints: on, with an empty buffer (false without
 * tracefs), npo_mbox_cmd, which every mailbox command fires, only if
 * mbox; then off, and what they recorded.
 */
bool npo_test_trace_start(bool mbox);
int npo_test_trace_stop(char *buf, size_t len);

/* Seconds of the monotonic clock. */
double npo_test_now_s(void);

/* Run a shell command; exit status, or -1.  Output goes to out if given. */
int npo_test_run(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * npo-vm --topology ring: wait up to 30 s until both ring ports of each of
 * the n devices are active (npoctl -j link); false if they never are.
 */
bool npo_test_ring_up(int n);
/* Put the ring back: every device's faults cleared, its ring ports retrained. */
void npo_test_ring_reset(int n);

/*
 * (Re)load the driver with the given module parameters ("" for none) and
 * wait until every device has left the probing state.  0 on success.
 */
int npo_test_reload(const char *params);
bool npo_test_module_loaded(void);

/*
 * Kernel log since a mark: the mark is the sequence number of the newest
 * record (/dev/kmsg), so it holds even once the ring buffer wrapped.
 */
size_t npo_test_dmesg_mark(void);
int npo_test_dmesg_since(size_t mark, char *buf, size_t len);

/* Expected device count from NPO_EXPECT_DEVICES, or -1 if unset. */
int npo_test_expected_devices(void);

bool npo_test_is_root(void);

/*
 * Why this host cannot run a test that needs a ring of at least min
 * devices and says so (NPO_EXPECT_TOPOLOGY=ring): a reason to SKIP with,
 * or NULL when it can.
 */
const char *npo_test_no_ring(int min);
#define NPO_TEST_NEED_RING(min) do {				\
	const char *_why = npo_test_no_ring(min);		\
								\
	if (_why)						\
		SKIP(return, "%s", _why);			\
} while (0)

struct npo_device;
struct npo_queue;
struct npo_queue_attr;
struct npo_mr;
struct npo_cqe;
/* Wait up to ms for a completion of q, copy it to *out and consume it. */
int npo_test_take_cqe(struct npo_queue *q, struct npo_cqe *out, int ms);

/*
 * One end of a test's traffic, as a job's process holds it: a device put
 * in a job, a queue on it, and len bytes of anonymous memory registered
 * for every access.  node is the device's node id.
 */
struct npo_test_end {
	struct npo_device *dev;
	struct npo_queue *q;
	uint8_t *buf;
	size_t len;
	struct npo_mr *mr;
	uint32_t node;
};

int npo_test_end_open(struct npo_test_end *e, const char *name, uint32_t job,
		      const struct npo_queue_attr *attr, size_t len);
/* Undoes what npo_test_end_open() did, however far it got. */
void npo_test_end_close(struct npo_test_end *e);
/* RESET_COUNT's offset in BAR0 (hardware.rst, interface 1.6). */
#define NPO_TEST_RESET_COUNT_REG	0x050
/* BAR0's registers: the device's, then its ports' at 0x1000 + p * 0x40. */
#define NPO_TEST_BAR_REGS_SIZE		0x4000
#define NPO_TEST_PORT_REG(p, off)	(0x1000 + (p) * 0x40 + (off))
/*
 * A 32-bit register of the device's BAR0 (Documentation/hardware.rst),
 * read through sysfs: the device's view, not the driver's.  -1 if
 * unreadable.
 */
long long npo_test_bar_read(const char *name, unsigned int off);
/* The device's own count of resets (RESET_COUNT), as above. */
long long npo_test_reset_count(const char *name);
/* The device's PCI address ("0000:01:00.0") into buf; 0 or -1. */
int npo_test_pci_addr(const char *name, char *buf, size_t len);

/* iproute2's devlink, which the devlink tests drive as an operator does. */
#define NPO_TEST_DEVLINK	"/usr/bin/devlink"
#define NPO_TEST_NEED_DEVLINK() do {					\
	if (access(NPO_TEST_DEVLINK, X_OK))				\
		SKIP(return, "no %s (iproute2)", NPO_TEST_DEVLINK);	\
} while (0)
/* The device's devlink handle ("pci/0000:01:00.0") into buf; 0 or -1. */
int npo_test_devlink_handle(const char *name, char *buf, size_t len);

/*
 * Run fn(arg) in a child process that has given up root for nobody (uid
 * and gid 65534), keeping the files already open.  Returns what fn
 * returned (0 for success, the number of the step that failed otherwise),
 * NPO_TEST_NO_DROP if privileges could not be dropped, or -1 if the child
 * could not start or did not exit normally.
 */
#define NPO_TEST_NO_DROP	100
int npo_test_as_nobody(int (*fn)(void *arg), void *arg);

/*
 * Whether the kernel poisons the pages it frees and checks the poison when
 * it hands them out again (page_poison=1): a write into freed memory, by
 * the CPU or by a device, is then logged as "pagealloc: memory corruption".
 */
bool npo_test_page_poisoning(void);
/*
 * Make the kernel hand out nearly all of its free pages once, so that each
 * one's poison is checked now: a child process faults in anonymous memory
 * until little is left, then exits.  0, or -1 if the child failed.
 */
int npo_test_reuse_free_memory(void);
/*
 * With page poisoning on: hand out the free pages again, then 1 if the
 * kernel logged a corrupted poisoned page since @mark (something wrote
 * into memory after it was freed), 0 if not, -1 if that cannot be told.
 */
int npo_test_freed_memory_written(size_t mark);

/* Anonymous private memory of len bytes, or NULL. */
void *npo_test_map(size_t len);
/* A pattern of seed over len bytes: a different seed, different bytes. */
void npo_test_fill(void *p, size_t len, unsigned int seed);
/* Whether every one of len bytes at p is v (memory that must stay put). */
bool npo_test_all_are(const void *p, size_t len, unsigned char v);

#endif
