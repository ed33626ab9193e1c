// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory the device was given is freed only once the device can no longer
 * reach it.  When the device does not confirm that it let go (a destroy it
 * refuses, injected with the model's mailbox fault), the driver stops the
 * whole device before it frees: bus mastering off in PCI config space and
 * a reset the device itself counts, both read without the driver.  A
 * neighbour that keeps writing sees none of its writes land, and the
 * kernel's page poisoning sees no write into the freed memory.  And
 * removal waits for nothing unbounded: not a minute-long PRBS test, not a
 * pin of memory nobody pages in; and a clock operation in flight touches
 * nothing removal freed.  Then the device is bound again, as an operator
 * would.
 *
 * Runs last: it takes the last device down and brings it back.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include <linux/npo.h>
#include <linux/npo_queue.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "npo_flood_lib.h"
#include "npo_nl_lib.h"
#include "npo_test_lib.h"

/* Mailbox opcodes, Documentation/hardware.rst. */
#define MBOX_OP_QUEUE_DESTROY	0x31
#define MBOX_OP_MR_DESTROY	0x34
#define PCI_COMMAND		0x04
#define PCI_COMMAND_MASTER	0x4
/* The job the victim's file and its peer share, so that writes may land. */
#define TEARDOWN_JOB		91

FIXTURE(teardown) {
	char name[32];
	char addr[32];
	char fault[96];
	int fd;
};

FIXTURE_SETUP(teardown)
{
	char path[64];
	int n;

	self->fd = -1;
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	n = npo_test_count_devices();
	if (n <= 0)
		SKIP(return, "no NPO device");
	ASSERT_EQ(0, npo_test_device_name(n - 1, self->name, sizeof(self->name)));
	ASSERT_EQ(0, npo_test_pci_addr(self->name, self->addr, sizeof(self->addr)));
	snprintf(self->fault, sizeof(self->fault),
		 "/sys/kernel/debug/npo/%s/fault", self->name);
	if (access(self->fault, W_OK))
		SKIP(return, "no fault injection (a test device is needed)");
	snprintf(path, sizeof(path), "/dev/%s", self->name);
	self->fd = open(path, O_RDWR);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(teardown)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Bus mastering as PCI config space has it, or -1. */
static int bus_master(const char *addr)
{
	char path[96];
	uint16_t cmd;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", addr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &cmd, sizeof(cmd), PCI_COMMAND) != sizeof(cmd))
		cmd = 0xffff;
	close(fd);
	return cmd == 0xffff ? -1 : !!(cmd & PCI_COMMAND_MASTER);
}

static void expect_state(struct __test_metadata *_metadata, const char *name,
			 const char *want)
{
	char state[32];

	ASSERT_EQ(0, npo_test_read_attr(name, "state", state, sizeof(state)));
	EXPECT_STREQ(want, state);
}

/*
 * The device was stopped before the memory went: dead, bus mastering off,
 * reset since @resets, and the log says why; other devices never noticed.
 */
static void expect_stopped(struct __test_metadata *_metadata,
			   FIXTURE_DATA(teardown) *self, long long resets,
			   size_t mark)
{
	char log[16384];

	expect_state(_metadata, self->name, "dead");
	EXPECT_EQ(0, bus_master(self->addr));
	EXPECT_GT(npo_test_reset_count(self->name), resets);
	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "did not release memory")) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "device stopped")) TH_LOG("%s", log);
	expect_state(_metadata, "npo0", "ready");
}

/* Unbind the device from another thread, so that a hang can be seen. */
struct unbind {
	const char *addr;
	bool done;		/* atomic */
	int err;
};

static void *unbind_thread(void *arg)
{
	struct unbind *u = arg;

	u->err = npo_test_write_file("/sys/bus/pci/drivers/npo/unbind", u->addr);
	__atomic_store_n(&u->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether the unbind finished within @secs. */
static bool unbind_within(struct unbind *u, int secs)
{
	int i;

	for (i = 0; i < secs * 20; i++) {
		if (__atomic_load_n(&u->done, __ATOMIC_ACQUIRE))
			return true;
		usleep(50000);
	}
	return false;
}

/* Bind the device again after an unbind, and wait until it is ready. */
static void bind_again(struct __test_metadata *_metadata,
		       FIXTURE_DATA(teardown) *self)
{
	char state[32] = "";
	int tries;

	ASSERT_EQ(0, npo_test_write_file("/sys/bus/pci/drivers/npo/bind",
					 self->addr));
	for (tries = 0; tries < 100; tries++) {
		if (!npo_test_read_attr(self->name, "state", state,
					sizeof(state)) &&
		    !strcmp(state, "ready"))
			break;
		usleep(100000);
	}
	EXPECT_STREQ("ready", state);
}

/* An operator's way back: unbind and bind the device; it comes up ready. */
static void rebind(struct __test_metadata *_metadata,
		   FIXTURE_DATA(teardown) *self)
{
	int n = npo_test_count_devices();

	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, npo_test_write_file("/sys/bus/pci/drivers/npo/unbind",
					 self->addr));
	bind_again(_metadata, self);
	EXPECT_EQ(1, bus_master(self->addr));
	EXPECT_EQ(n, npo_test_count_devices());
}

/*
 * A stopped device is reported to devlink's "fw" reporter, which leaves it
 * to the operator (no auto-recovery, the reporter in error, the fault in
 * its dump); devlink health recover brings it back, and it makes queues.
 */
/* The fw reporter's recover count, or -1. */
static long long fw_recovers(FIXTURE_DATA(teardown) *self)
{
	char out[4096];
	const char *at;

	if (npo_test_run(out, sizeof(out), NPO_TEST_DEVLINK " health show pci/%s reporter fw",
			 self->addr) || !(at = strstr(out, " recover ")))
		return -1;
	return atoll(at + strlen(" recover "));
}

/*
 * Before the fault: no dump from an earlier one, and no grace period
 * that would hold devlink back anyway; the recoveries so far.
 */
static long long fw_reporter_prepare(FIXTURE_DATA(teardown) *self)
{
	npo_test_run(NULL, 0, NPO_TEST_DEVLINK " health dump clear pci/%s reporter fw", self->addr);
	npo_test_run(NULL, 0, NPO_TEST_DEVLINK " health set pci/%s reporter fw grace_period 0",
		     self->addr);
	return fw_recovers(self);
}

static void operator_recovers(struct __test_metadata *_metadata,
			      FIXTURE_DATA(teardown) *self, long long recovers)
{
	struct npo_queue_create qc = { .sq_entries = 8, .cq_entries = 8 };
	char out[4096], state[32];
	int i, fd;

	for (i = 0; i < 50; i++) {
		if (!npo_test_run(out, sizeof(out), NPO_TEST_DEVLINK " health show pci/%s reporter fw",
				  self->addr) && strstr(out, "state error"))
			break;
		usleep(100000);
	}
	EXPECT_NE(NULL, strstr(out, "state error")) TH_LOG("%s", out);
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), NPO_TEST_DEVLINK " -j health dump show pci/%s reporter fw",
				  self->addr));
	EXPECT_NE(NULL, strstr(out, "\"fault\":\"command unanswered\"")) TH_LOG("%s", out);
	/* Not recovered by itself, though no grace period held it back. */
	sleep(1);
	ASSERT_EQ(0, npo_test_read_attr(self->name, "state", state, sizeof(state)));
	EXPECT_STREQ("dead", state);
	EXPECT_EQ(recovers, fw_recovers(self));

	EXPECT_EQ(0, npo_test_run(out, sizeof(out), NPO_TEST_DEVLINK " health recover pci/%s reporter fw",
				  self->addr)) TH_LOG("%s", out);
	for (i = 0; i < 200; i++) {
		if (!npo_test_read_attr(self->name, "state", state, sizeof(state)) &&
		    !strcmp(state, "ready"))
			break;
		usleep(100000);
	}
	EXPECT_STREQ("ready", state);
	EXPECT_EQ(1, bus_master(self->addr));
	snprintf(out, sizeof(out), "/dev/%s", self->name);
	fd = open(out, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	close(fd);
	EXPECT_EQ(recovers + 1, fw_recovers(self));
	npo_test_run(NULL, 0, NPO_TEST_DEVLINK " health dump clear pci/%s reporter fw", self->addr);
	npo_test_run(NULL, 0, NPO_TEST_DEVLINK " health set pci/%s reporter fw grace_period 10000",
		     self->addr);
}

/*
 * The neighbour that keeps writing into the device under test (the last of
 * the ring) is device n - 2, linked to it.
 */
static int neighbour_open(struct npo_test_flood *f, uint32_t node)
{
	int n = npo_test_count_devices();
	char name[32];

	if (n < 3 || npo_test_device_name(n - 2, name, sizeof(name)) ||
	    npo_test_flood_open(f, name, TEARDOWN_JOB, 8, 1))
		return -1;
	f->node = node;
	f->len = 8;
	return 0;
}

/* Put the file in the test's job, before it has a queue or a region. */
static int join(int fd)
{
	struct npo_job job = { .job = TEARDOWN_JOB };

	return ioctl(fd, NPO_IOCTL_SET_JOB, &job);
}

/*
 * Nothing wrote into memory after the driver freed it, in the kernel's own
 * view (page poisoning; Documentation/testing.rst).  Without it the test
 * cannot see such a write: it says so by skipping, rather than pass.
 */
static void expect_no_write_after_free(struct __test_metadata *_metadata,
				       size_t mark)
{
	/* A skip would hide what already failed: only a passing test skips. */
	if (!npo_test_page_poisoning() && _metadata->passed)
		SKIP(return, "page_poison=1 not on the kernel command line: a write into freed memory would go unseen");
	if (!npo_test_page_poisoning())
		return;
	EXPECT_EQ(0, npo_test_freed_memory_written(mark));
}

TEST_F(teardown, a_queue_the_device_keeps_stops_the_device)
{
	struct npo_queue_create qc = { .sq_entries = 8, .cq_entries = 8 };
	struct npo_queue_create other_qc = { .sq_entries = 8, .cq_entries = 8 };
	struct npo_queue_destroy qd = { 0 };
	volatile uint32_t *ring, *other_ring;
	struct npo_dev_info info = { 0 };
	uint64_t target = 0;
	struct npo_mr_reg reg = {
		.access = NPO_ACCESS_ALL, .addr = (uintptr_t)&target,
		.length = sizeof(target),
	};
	char cmd[32], path[64];
	struct npo_test_flood peer;
	long long resets;
	int other, i;
	size_t mark;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, join(self->fd));
	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_GET_INFO, &info));
	ASSERT_EQ(0, neighbour_open(&peer, info.node_id));
	/* The peer's writes reach the queue: its completions land in the rings. */
	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_REG_MR, &reg));
	/* Another process' file with a queue on the same device. */
	snprintf(path, sizeof(path), "/dev/%s", self->name);
	other = open(path, O_RDWR);
	ASSERT_GE(other, 0);
	ASSERT_EQ(0, ioctl(other, NPO_IOCTL_CREATE_QUEUE, &other_qc));
	other_ring = mmap(NULL, other_qc.ring_size, PROT_READ, MAP_SHARED,
			  other, other_qc.ring_offset);
	ASSERT_NE(MAP_FAILED, other_ring);
	EXPECT_EQ(0, other_ring[NPO_RING_STATUS / 4]);
	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	ring = mmap(NULL, qc.ring_size, PROT_READ, MAP_SHARED, self->fd,
		    qc.ring_offset);
	ASSERT_NE(MAP_FAILED, ring);
	EXPECT_EQ(0, ring[NPO_RING_STATUS / 4]);
	EXPECT_EQ(1, bus_master(self->addr));
	peer.queue = qc.queue_id;
	peer.rkey = reg.rkey;
	peer.raddr = reg.addr;
	resets = npo_test_reset_count(self->name);
	ASSERT_GE(resets, 0);
	mark = npo_test_dmesg_mark();

	snprintf(cmd, sizeof(cmd), "mboxfail %x 1", MBOX_OP_QUEUE_DESTROY);
	ASSERT_EQ(0, npo_test_write_file(self->fault, cmd));
	qd.queue_id = qc.queue_id;
	/* The queue is gone from the file either way. */
	EXPECT_EQ(0, ioctl(self->fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	EXPECT_EQ(NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED, ring[NPO_RING_STATUS / 4]);
	/* The peer keeps writing, as it would: nothing lands any more. */
	ASSERT_EQ(0, npo_test_flood_start(&peer));
	expect_stopped(_metadata, self, resets, mark);
	/* A dead device creates nothing. */
	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	/*
	 * The other file's queue is revoked too: its poll ends, no hang.
	 * Not the process's doing, so it keeps the final rings.
	 */
	for (i = 0; i < 100 && !(other_ring[NPO_RING_STATUS / 4] &
				 NPO_QSTAT_REVOKED); i++)
		usleep(20000);
	EXPECT_EQ(NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED | NPO_QSTAT_FINAL,
		  other_ring[NPO_RING_STATUS / 4]);
	munmap((void *)other_ring, other_qc.ring_size);
	close(other);
	munmap((void *)ring, qc.ring_size);
	usleep(100000);
	npo_test_flood_stop(&peer);
	EXPECT_EQ(0, peer.landed);
	EXPECT_LT(0, peer.failed);
	npo_test_flood_close(&peer);
	expect_no_write_after_free(_metadata, mark);
	rebind(_metadata, self);
}

TEST_F(teardown, a_region_the_device_keeps_stops_the_device)
{
	size_t len = 65536;
	uint8_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct npo_mr_reg reg = {
		.access = NPO_ACCESS_ALL, .addr = (uintptr_t)buf, .length = len,
	};
	struct npo_mr_dereg md = { 0 };
	struct npo_dev_info info = { 0 };
	struct npo_test_flood peer;
	long long resets, recovers;
	char cmd[32];
	size_t mark;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 0x11, len);
	ASSERT_EQ(0, join(self->fd));
	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_GET_INFO, &info));
	ASSERT_EQ(0, neighbour_open(&peer, info.node_id));
	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_REG_MR, &reg));
	peer.rkey = reg.rkey;
	/* The last page: the one most likely handed out again first. */
	peer.raddr = reg.addr + len - 4096;
	resets = npo_test_reset_count(self->name);
	recovers = fw_reporter_prepare(self);
	ASSERT_LE(0, recovers);
	mark = npo_test_dmesg_mark();
	snprintf(cmd, sizeof(cmd), "mboxfail %x 1", MBOX_OP_MR_DESTROY);
	ASSERT_EQ(0, npo_test_write_file(self->fault, cmd));
	md.lkey = reg.lkey;
	EXPECT_EQ(0, ioctl(self->fd, NPO_IOCTL_DEREG_MR, &md));
	ASSERT_EQ(0, npo_test_flood_start(&peer));
	expect_stopped(_metadata, self, resets, mark);
	/*
	 * The pages were unpinned after the stop: they are the process' again,
	 * and freed here while the peer still tries to write into them.
	 */
	EXPECT_EQ(0, munmap(buf, len));
	usleep(100000);
	npo_test_flood_stop(&peer);
	EXPECT_EQ(0, peer.landed);
	EXPECT_LT(0, peer.failed);
	npo_test_flood_close(&peer);
	expect_no_write_after_free(_metadata, mark);
	operator_recovers(_metadata, self, recovers);
}

/*
 * A PRBS test holds the device for up to a minute: removing the device
 * ends it at once (ENODEV to its requester) instead of waiting.
 */
TEST_F_TIMEOUT(teardown, removal_ends_a_prbs_test, 150)
{
	struct unbind u = { .addr = self->addr };
	int dev = atoi(self->name + 3), status, i;
	struct npo_nl_port port = { 0 };
	struct nl_sock *sk;
	pthread_t t;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	close(self->fd);
	self->fd = -1;
	/* The link first: the last test bound the device again. */
	sk = npo_nl_connect();
	ASSERT_NE(NULL, sk);
	for (i = 0; i < 400; i++) {
		if (!npo_nl_get_port(sk, npo_nl_family(sk), dev, 0, &port) &&
		    port.state == NPO_PORT_ACTIVE)
			break;
		usleep(50000);
	}
	ASSERT_EQ(NPO_PORT_ACTIVE, port.state);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct nl_msg *msg;
		int err;

		sk = npo_nl_connect();
		if (!sk)
			_exit(1);
		msg = npo_nl_port_request(npo_nl_family(sk), NPO_CMD_PORT_TEST,
					  dev, 0);
		nla_put_u32(msg, NPO_ATTR_TEST_DURATION_MS, 60000);
		err = npo_nl_transact(sk, msg);
		_exit(err == -ENODEV ? 0 : 2);
	}
	/* The test runs: the port says so. */
	for (i = 0; i < 100; i++) {
		if (!npo_nl_get_port(sk, npo_nl_family(sk), dev, 0, &port) &&
		    port.state == NPO_PORT_TEST)
			break;
		usleep(50000);
	}
	nl_socket_free(sk);
	ASSERT_EQ(NPO_PORT_TEST, port.state);
	ASSERT_EQ(0, pthread_create(&t, NULL, unbind_thread, &u));
	EXPECT_TRUE(unbind_within(&u, 20))
		TH_LOG("the unbind waited for the PRBS test");
	pthread_join(t, NULL);
	EXPECT_EQ(0, u.err);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the PRBS test did not end with ENODEV (step %d)",
		       WEXITSTATUS(status));
	bind_again(_metadata, self);
}

/* REG_MR in a thread, for a pin that cannot finish until allowed. */
struct pin {
	int fd;
	void *addr;
	size_t len;
	int err;
};

static void *pin_thread(void *arg)
{
	struct pin *p = arg;
	struct npo_mr_reg reg = {
		.access = NPO_ACCESS_LOCAL_WRITE,
		.addr = (uintptr_t)p->addr,
		.length = p->len,
	};

	p->err = ioctl(p->fd, NPO_IOCTL_REG_MR, &reg) ? errno : 0;
	return NULL;
}

/*
 * Pinning can wait without bound (a FUSE-backed range; here a
 * userfaultfd range nobody serves): removal does not wait for it, and the
 * registration fails.
 */
TEST_F_TIMEOUT(teardown, removal_does_not_wait_for_a_pin, 120)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct unbind u = { .addr = self->addr };
	struct pin p = { .fd = self->fd, .len = 65536 };
	struct uffdio_register ur = { 0 };
	struct pollfd pfd;
	pthread_t pt, ut;
	bool prompt;
	int uffd;

	NPO_TEST_SETUP_DONE();
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	ASSERT_GE(uffd, 0) TH_LOG("userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	p.addr = mmap(NULL, p.len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p.addr);
	ur.range.start = (uintptr_t)p.addr;
	ur.range.len = p.len;
	ur.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &ur));

	ASSERT_EQ(0, pthread_create(&pt, NULL, pin_thread, &p));
	/* The pin is stuck in the fault: userfaultfd reports it. */
	pfd.fd = uffd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 10000));

	ASSERT_EQ(0, pthread_create(&ut, NULL, unbind_thread, &u));
	prompt = unbind_within(&u, 10);
	/* Let the pin go on either way: the server goes, the faults resolve. */
	close(uffd);
	pthread_join(pt, NULL);
	pthread_join(ut, NULL);
	EXPECT_TRUE(prompt) TH_LOG("the unbind waited for the pin");
	EXPECT_EQ(0, u.err);
	/*
	 * Nothing registered with a device that is gone: ENODEV once the
	 * pages came, or EFAULT where the kernel's pin gives up on a range
	 * whose userfaultfd went away under it (6.1 does).
	 */
	EXPECT_TRUE(p.err == ENODEV || p.err == EFAULT)
		TH_LOG("REG_MR: %s", strerror(p.err));
	munmap(p.addr, p.len);
	close(self->fd);
	self->fd = -1;
	bind_again(_metadata, self);
}


#define FD_TO_CLOCKID(fd)	((~(clockid_t)(fd) << 3) | 3)
#define CLOCK_WRITERS		4

/* Steps the device's PHC, by clock_settime and clock_adjtime in turn. */
struct clock_writer {
	int fd;
	bool stop;		/* atomic */
	long done;		/* calls that succeeded */
	int last_err;		/* errno of the last call that failed */
};

static void *clock_writer_thread(void *arg)
{
	struct clock_writer *w = arg;
	clockid_t clk = FD_TO_CLOCKID(w->fd);
	long i;

	for (i = 0; !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE); i++) {
		struct timex tx = {
			.modes = ADJ_SETOFFSET | ADJ_NANO,
			.time = { .tv_sec = 0, .tv_usec = 1000 },
		};
		struct timespec now;
		int rc;

		if (i & 1)
			rc = clock_adjtime(clk, &tx) < 0 ? -1 : 0;
		else
			rc = clock_gettime(clk, &now) ||
			     clock_settime(clk, &now) ? -1 : 0;
		if (rc)
			w->last_err = errno;
		else
			w->done++;
	}
	return NULL;
}

/* The PHC index of the PCI device at @addr, from sysfs, or -1. */
static int phc_of(const char *addr)
{
	char path[128];
	struct dirent *e;
	int phc = -1;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/ptp", addr);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "ptp%d", &phc) == 1)
			break;
	closedir(d);
	return phc;
}

/*
 * Removal while processes step the device's clock: the PHC goes before
 * the time sync service its operations reach into, so that none writes
 * into the service's freed state (KASAN's verdict on the debug kernel,
 * the runner's splat check everywhere).  Every writer then gets ENODEV.
 */
TEST_F_TIMEOUT(teardown, clock_writers_racing_removal_touch_nothing_freed, 120)
{
	struct clock_writer w[CLOCK_WRITERS] = { 0 };
	struct unbind u = { .addr = self->addr };
	pthread_t t[CLOCK_WRITERS], ut;
	char path[32];
	int phc, i;

	phc = phc_of(self->addr);
	if (phc < 0)
		SKIP(return, "%s has no PHC", self->name);
	snprintf(path, sizeof(path), "/dev/ptp%d", phc);
	for (i = 0; i < CLOCK_WRITERS; i++) {
		w[i].fd = open(path, O_RDWR);
		ASSERT_GE(w[i].fd, 0) TH_LOG("%s: %s", path, strerror(errno));
	}
	NPO_TEST_SETUP_DONE();
	for (i = 0; i < CLOCK_WRITERS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, clock_writer_thread, &w[i]));
	/* Every writer is under way before the removal starts. */
	usleep(300000);
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, pthread_create(&ut, NULL, unbind_thread, &u));
	EXPECT_TRUE(unbind_within(&u, 20)) TH_LOG("the unbind hung");
	pthread_join(ut, NULL);
	EXPECT_EQ(0, u.err);
	/* Each writer's calls now fail: a few more rounds to see it. */
	usleep(200000);
	for (i = 0; i < CLOCK_WRITERS; i++) {
		__atomic_store_n(&w[i].stop, true, __ATOMIC_RELEASE);
		pthread_join(t[i], NULL);
		close(w[i].fd);
		EXPECT_LT(0, w[i].done);
		EXPECT_EQ(ENODEV, w[i].last_err)
			TH_LOG("writer %d: %s", i, strerror(w[i].last_err));
	}
	bind_again(_metadata, self);
}

TEST_HARNESS_MAIN
