// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory the device was given is freed only once the device can no longer
 * reach it.  When the device does not confirm that it let go (a destroy it
 * refuses, injected with the model's mailbox fault), the driver stops the
 * whole device before it frees: bus mastering off in PCI config space and
 * a reset the device itself counts, both read without the driver.  Then
 * the device is bound again, as an operator would.
 *
 * Runs last: it takes the last device down and brings it back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/npo.h>
#include <linux/npo_queue.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

/* Mailbox opcodes, Documentation/hardware.rst. */
#define MBOX_OP_QUEUE_DESTROY	0x31
#define MBOX_OP_MR_DESTROY	0x34
#define PCI_COMMAND		0x04
#define PCI_COMMAND_MASTER	0x4

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

/* An operator's way back: bind the device again; it comes up ready. */
static void rebind(struct __test_metadata *_metadata,
		   FIXTURE_DATA(teardown) *self)
{
	char state[32] = "";
	int n = npo_test_count_devices(), tries;

	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, npo_test_write_file("/sys/bus/pci/drivers/npo/unbind",
					 self->addr));
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
	EXPECT_EQ(1, bus_master(self->addr));
	EXPECT_EQ(n, npo_test_count_devices());
}

TEST_F(teardown, a_queue_the_device_keeps_stops_the_device)
{
	struct npo_queue_create qc = { .sq_entries = 8, .cq_entries = 8 };
	struct npo_queue_destroy qd = { 0 };
	volatile uint32_t *ring;
	long long resets;
	char cmd[32];
	size_t mark;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	ring = mmap(NULL, qc.ring_size, PROT_READ, MAP_SHARED, self->fd,
		    qc.ring_offset);
	ASSERT_NE(MAP_FAILED, ring);
	EXPECT_EQ(0, ring[NPO_RING_STATUS / 4]);
	EXPECT_EQ(1, bus_master(self->addr));
	resets = npo_test_reset_count(self->name);
	ASSERT_GE(resets, 0);
	mark = npo_test_dmesg_mark();

	snprintf(cmd, sizeof(cmd), "mboxfail %x 1", MBOX_OP_QUEUE_DESTROY);
	ASSERT_EQ(0, npo_test_write_file(self->fault, cmd));
	qd.queue_id = qc.queue_id;
	/* The queue is gone from the file either way. */
	EXPECT_EQ(0, ioctl(self->fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	EXPECT_EQ(NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED, ring[NPO_RING_STATUS / 4]);
	expect_stopped(_metadata, self, resets, mark);
	/* A dead device creates nothing. */
	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	munmap((void *)ring, qc.ring_size);
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
	long long resets;
	char cmd[32];
	size_t mark;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_REG_MR, &reg));
	resets = npo_test_reset_count(self->name);
	mark = npo_test_dmesg_mark();
	snprintf(cmd, sizeof(cmd), "mboxfail %x 1", MBOX_OP_MR_DESTROY);
	ASSERT_EQ(0, npo_test_write_file(self->fault, cmd));
	md.lkey = reg.lkey;
	EXPECT_EQ(0, ioctl(self->fd, NPO_IOCTL_DEREG_MR, &md));
	expect_stopped(_metadata, self, resets, mark);
	/* The pages were unpinned after the stop: they are the process' again. */
	EXPECT_EQ(0, munmap(buf, len));
	rebind(_metadata, self);
}

TEST_HARNESS_MAIN
