// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The device model below any guest driver: QEMU runs with the qtest
 * accelerator (no CPU, no firmware), and this test is the host.  It
 * programs the PCI function's BARs through configuration cycles, then
 * drives the registers and the mailbox as hardware.rst says a driver
 * may, stepping the virtual clock itself, so that the register contract
 * is checked with nothing of the driver's in the way.
 */
#include "qemu/osdep.h"
#include "npo-regs.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define REGS_BASE	0xe0000000ull	/* where the test maps BAR0 */
#define IMAGE_AT	0x100000ull	/* guest RAM the firmware is read from */
#define DEV_SLOT	3		/* -device npo,addr=3 on bus 0 */
#define NODE_ID		7

FIXTURE(model) {
	pid_t qemu;
	FILE *in, *out;
	char dir[64];
};

/* One qtest command; its answer's value (after "OK"), or ~0 on failure. */
static uint64_t qtest(FIXTURE_DATA(model) *self, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vfprintf(self->out, fmt, ap);
	va_end(ap);
	fputc('\n', self->out);
	fflush(self->out);
	while (fgets(line, sizeof(line), self->in)) {
		/* Asynchronous lines (interrupts) are not answers. */
		if (strncmp(line, "OK", 2) && strncmp(line, "FAIL", 4) &&
		    strncmp(line, "ERR", 3))
			continue;
		if (strncmp(line, "OK", 2))
			return ~0ull;
		return strtoull(line + 2, NULL, 0);
	}
	return ~0ull;
}

static uint32_t rd(FIXTURE_DATA(model) *self, uint32_t reg)
{
	return qtest(self, "readl 0x%llx", REGS_BASE + reg);
}

static void wr(FIXTURE_DATA(model) *self, uint32_t reg, uint32_t val)
{
	qtest(self, "writel 0x%llx 0x%x", REGS_BASE + reg, val);
}

static uint32_t cfg_addr(unsigned int off)
{
	return 0x80000000u | (DEV_SLOT << 11) | (off & 0xfc);
}

static uint32_t cfg_rd(FIXTURE_DATA(model) *self, unsigned int off)
{
	qtest(self, "outl 0xcf8 0x%x", cfg_addr(off));
	return qtest(self, "inl 0xcfc");
}

static void cfg_wr(FIXTURE_DATA(model) *self, unsigned int off, uint32_t v)
{
	qtest(self, "outl 0xcf8 0x%x", cfg_addr(off));
	qtest(self, "outl 0xcfc 0x%x", v);
}

/* Run the mailbox command op and let its time pass: its RESULT. */
static uint32_t mbox(FIXTURE_DATA(model) *self, uint32_t op, uint32_t arg0)
{
	wr(self, A_MBOX_ARG0, arg0);
	wr(self, A_MBOX_CMD, op);
	qtest(self, "clock_step %d", 10 * 1000 * 1000);
	return FIELD_EX32(rd(self, A_MBOX_STATUS), MBOX_STATUS, RESULT);
}

FIXTURE_SETUP(model)
{
	const char *build = getenv("BUILD");
	char self_dir[PATH_MAX];
	struct timeval answer_timeout = { .tv_sec = 10 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char qemu[PATH_MAX + 32], spec[160], dev[96], qemu_log[96];
	int lfd, fd;

	/* The test is built into BUILD/host-tests: QEMU is beside it. */
	if (!build) {
		ssize_t n = readlink("/proc/self/exe", self_dir,
				     sizeof(self_dir) - 1);

		ASSERT_LT(0, n);
		self_dir[n] = '\0';
		*strrchr(self_dir, '/') = '\0';
		*strrchr(self_dir, '/') = '\0';
		build = self_dir;
	}
	snprintf(qemu, sizeof(qemu), "%s/qemu/qemu-system-x86_64", build);
	ASSERT_EQ(0, access(qemu, X_OK)) TH_LOG("no %s", qemu);
	snprintf(self->dir, sizeof(self->dir), "/tmp/npo-qtest-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/qtest", self->dir);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, listen(lfd, 1));
	snprintf(spec, sizeof(spec), "unix:%s", sa.sun_path);
	snprintf(dev, sizeof(dev), "npo,addr=%d,node_id=%d,test_mode=on",
		 DEV_SLOT, NODE_ID);
	self->qemu = fork();
	ASSERT_LE(0, self->qemu);
	if (!self->qemu) {
		/* QEMU goes with the test, however the test ends. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* QEMU's own messages go to a log beside the socket. */
		snprintf(qemu_log, sizeof(qemu_log), "%s/qemu.log", self->dir);
		if (!freopen(qemu_log, "w", stderr))
			_exit(126);
		execl(qemu, qemu, "-machine", "q35", "-accel", "qtest",
		      "-qtest", spec, "-qtest-log", "/dev/null", "-display",
		      "none", "-nodefaults", "-m", "64", "-L", "/usr/share/qemu",
		      "-L", "/usr/share/seabios", "-device", dev, NULL);
		_exit(127);
	}
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	ASSERT_LE(0, fd);
	/* An answer that never comes fails the test, not the whole run. */
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &answer_timeout,
				sizeof(answer_timeout)));
	self->in = fdopen(fd, "r");
	self->out = fdopen(dup(fd), "w");
	ASSERT_NE(NULL, self->in);
	ASSERT_NE(NULL, self->out);

	/* What the firmware of a real host would do: map BAR0, enable. */
	ASSERT_EQ(NPO_VENDOR_ID | (NPO_DEVICE_ID << 16), cfg_rd(self, 0));
	cfg_wr(self, 0x10, (uint32_t)REGS_BASE);
	cfg_wr(self, 0x14, REGS_BASE >> 32);
	cfg_wr(self, 0x04, 0x6);	/* memory space, bus master */
}

FIXTURE_TEARDOWN(model)
{
	char path[96];

	if (self->out)
		fclose(self->out);
	if (self->in)
		fclose(self->in);
	if (self->qemu > 0) {
		kill(self->qemu, SIGTERM);
		waitpid(self->qemu, NULL, 0);
	}
	if (self->dir[0] == '/') {
		snprintf(path, sizeof(path), "%s/qtest", self->dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/qemu.log", self->dir);
		unlink(path);
		rmdir(self->dir);
	}
}

TEST_F(model, identity_registers_read_as_the_spec_says)
{
	uint32_t v = rd(self, A_IF_VERSION);

	EXPECT_EQ(NPO_MAGIC, rd(self, A_MAGIC));
	EXPECT_EQ(NPO_IF_MAJOR, FIELD_EX32(v, IF_VERSION, MAJOR));
	EXPECT_EQ(NPO_IF_MINOR, FIELD_EX32(v, IF_VERSION, MINOR));
	EXPECT_EQ(NODE_ID, rd(self, A_NODE_ID));
	v = rd(self, A_GEOMETRY);
	EXPECT_EQ(4, FIELD_EX32(v, GEOMETRY, PORTS));
	EXPECT_EQ(8, FIELD_EX32(v, GEOMETRY, LANES));
	EXPECT_TRUE(rd(self, A_CAPS) & R_CAPS_FW_MAILBOX_MASK);
	EXPECT_TRUE(rd(self, A_CAPS) & R_CAPS_FAULT_INJECT_MASK);
	EXPECT_TRUE(rd(self, A_STATUS) & R_STATUS_READY_MASK);
	EXPECT_FALSE(rd(self, A_STATUS) & R_STATUS_FW_RUNNING_MASK);
	wr(self, A_SCRATCH, 0x5a5aa5a5);
	EXPECT_EQ(0x5a5aa5a5, rd(self, A_SCRATCH));
}

/* NOP echoes ARG0, takes time, and raises MBOX_DONE, cleared by writing 1. */
TEST_F(model, the_mailbox_answers_in_time_and_interrupts)
{
	wr(self, A_IRQ_MASK, NPO_IRQ_ALL);
	wr(self, A_MBOX_ARG0, 0xabcd1234);
	wr(self, A_MBOX_CMD, MBOX_OP_NOP);
	EXPECT_TRUE(rd(self, A_MBOX_STATUS) & R_MBOX_STATUS_BUSY_MASK);
	/* A second command while the first runs is ignored. */
	wr(self, A_MBOX_CMD, 0xee);
	qtest(self, "clock_step %d", 10 * 1000 * 1000);
	EXPECT_EQ(MBOX_OK, rd(self, A_MBOX_STATUS));
	EXPECT_EQ(0xabcd1234, rd(self, A_MBOX_RET0));
	EXPECT_TRUE(rd(self, A_IRQ_STATUS) & R_IRQ_STATUS_MBOX_DONE_MASK);
	wr(self, A_IRQ_STATUS, R_IRQ_STATUS_MBOX_DONE_MASK);
	EXPECT_FALSE(rd(self, A_IRQ_STATUS) & R_IRQ_STATUS_MBOX_DONE_MASK);
}

TEST_F(model, an_unknown_opcode_is_refused)
{
	EXPECT_EQ(MBOX_ERR_OPCODE, mbox(self, 0xee, 0));
	EXPECT_EQ(MBOX_ERR_OPCODE, mbox(self, 0xff, 0));
	EXPECT_EQ(MBOX_ERR_OPCODE, mbox(self, 0x00, 0));
}

/*
 * Queues, the memory table and the logs are the firmware's: their
 * commands fail with MBOX_ERR_STATE until an image runs, then work.
 */
TEST_F(model, firmware_commands_wait_for_firmware)
{
	static const uint32_t ops[] = {
		MBOX_OP_QUEUE_CREATE, MBOX_OP_QUEUE_DESTROY, MBOX_OP_QUEUE_QUERY,
		MBOX_OP_QUEUE_PORTS, MBOX_OP_MR_CREATE, MBOX_OP_MR_PAGES,
		MBOX_OP_MR_DESTROY, MBOX_OP_PD_JOB, MBOX_OP_REFUSALS,
		MBOX_OP_QUEUE_ERRORS,
	};
	const char *path = getenv("FWIMAGE");
	uint8_t image[4096];
	char hex[2 * sizeof(image) + 1];
	size_t len, i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		EXPECT_EQ(MBOX_ERR_STATE, mbox(self, ops[i], 0))
			TH_LOG("opcode 0x%x", ops[i]);
	}
	/* Commands of the device itself need none. */
	EXPECT_EQ(MBOX_OK, mbox(self, MBOX_OP_NOP, 1));

	ASSERT_NE(NULL, path) TH_LOG("FWIMAGE is not set");
	f = fopen(path, "rb");
	ASSERT_NE(NULL, f);
	len = fread(image, 1, sizeof(image), f);
	fclose(f);
	ASSERT_LT(0, len);
	for (i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", image[i]);
	qtest(self, "write 0x%llx 0x%zx 0x%s", IMAGE_AT, len, hex);
	wr(self, A_MBOX_ARG0 + 4, IMAGE_AT >> 32);
	wr(self, A_MBOX_ARG0 + 8, len);
	ASSERT_EQ(MBOX_OK, mbox(self, MBOX_OP_FW_LOAD, (uint32_t)IMAGE_AT));
	EXPECT_TRUE(rd(self, A_STATUS) & R_STATUS_FW_RUNNING_MASK);
	EXPECT_NE(0, rd(self, A_FW_VERSION));
	EXPECT_EQ(rd(self, A_FW_VERSION), rd(self, A_MBOX_RET0));

	/* The refusal log drains to host memory: nothing refused yet. */
	wr(self, A_MBOX_ARG0 + 4, 0);
	wr(self, A_MBOX_ARG0 + 8, 16);
	EXPECT_EQ(MBOX_OK, mbox(self, MBOX_OP_REFUSALS, 0x200000));
	EXPECT_EQ(0, rd(self, A_MBOX_RET0));
	EXPECT_EQ(0, rd(self, A_MBOX_RET1));
}

TEST_HARNESS_MAIN
