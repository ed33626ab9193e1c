// SPDX-License-Identifier: GPL-2.0-only
/*
 * ioctl UAPI: GET_INFO and GET_PARAM answer truthfully, and every malformed
 * request gets the documented error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <linux/npo.h>
#include <linux/npo_queue.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

/* The same ioctl with another argument size, as an older/newer caller. */
#define NPO_IOWR_SIZED(nr, size) \
	_IOC(_IOC_READ | _IOC_WRITE, NPO_IOCTL_MAGIC, (nr), (size))

FIXTURE(ioctl) {
	int fd;
	char name[32];
};

FIXTURE_SETUP(ioctl)
{
	char path[64];

	self->fd = -1;
	if (npo_test_device_name(0, self->name, sizeof(self->name)))
		SKIP(return, "no NPO device");
	snprintf(path, sizeof(path), "/dev/%s", self->name);
	self->fd = open(path, O_RDWR);
	ASSERT_GE(self->fd, 0) TH_LOG("%s: %s", path, strerror(errno));
}

FIXTURE_TEARDOWN(ioctl)
{
	if (self->fd >= 0)
		close(self->fd);
}

static unsigned long long attr_ull(const char *dev, const char *attr, int base)
{
	char buf[64];

	if (npo_test_read_attr(dev, attr, buf, sizeof(buf)))
		return ~0ULL;
	return strtoull(buf, NULL, base);
}

TEST_F(ioctl, get_info_matches_sysfs)
{
	struct npo_dev_info info = { 0 };
	char fw[32], want_fw[32];

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_GET_INFO, &info));
	EXPECT_EQ(NPO_UAPI_VERSION, info.uapi_version);
	EXPECT_EQ(1, info.hw_if_version >> 16);
	EXPECT_EQ(attr_ull(self->name, "serial", 16), info.serial);
	EXPECT_EQ(attr_ull(self->name, "node_id", 10), info.node_id);
	EXPECT_EQ(attr_ull(self->name, "num_ports", 10), info.num_ports);
	EXPECT_EQ(attr_ull(self->name, "lanes_per_port", 10),
		  info.lanes_per_port);
	EXPECT_EQ(attr_ull(self->name, "num_queues", 10), info.num_queues);
	EXPECT_EQ(NPO_DEV_STATE_READY, info.state);
	EXPECT_NE(0, info.fw_version);
	snprintf(fw, sizeof(fw), "%u.%u.%u", info.fw_version >> 24,
		 (info.fw_version >> 16) & 0xff, info.fw_version & 0xffff);
	ASSERT_EQ(0, npo_test_read_attr(self->name, "fw_version", want_fw,
					sizeof(want_fw)));
	EXPECT_STREQ(want_fw, fw);
	EXPECT_EQ(atoi(self->name + 3), (int)info.minor);
	EXPECT_NE(0, info.caps & NPO_CAP_FW_MAILBOX);
	EXPECT_EQ(0, info.pad2);
	/*
	 * sysfs is the driver too: the identity must also be what the
	 * device's own registers say (NODE_ID 0x018, SERIAL 0x020/0x024,
	 * read through the BAR) ...
	 */
	EXPECT_EQ(npo_test_bar_read(self->name, 0x018), (long long)info.node_id);
	EXPECT_EQ(npo_test_bar_read(self->name, 0x020),
		  (long long)(info.serial & 0xffffffff));
	EXPECT_EQ(npo_test_bar_read(self->name, 0x024),
		  (long long)(info.serial >> 32));
}

/*
 * ... and what the harness gave the devices: npo-vm numbers them from
 * NPO_EXPECT_NODE_BASE, one node id each, in slot order.
 */
TEST_F(ioctl, node_ids_are_the_ones_the_harness_gave)
{
	const char *base = getenv("NPO_EXPECT_NODE_BASE");
	int n = npo_test_count_devices(), i, first;
	unsigned long long seen = 0;
	char name[16];

	NPO_TEST_SETUP_DONE();
	if (!base)
		SKIP(return, "NPO_EXPECT_NODE_BASE not set: no assignment to check against");
	first = atoi(base);
	ASSERT_GE(n, 1);
	ASSERT_GE(64, n);
	for (i = 0; i < n; i++) {
		struct npo_dev_info info = { 0 };
		char path[32];
		int fd;

		ASSERT_EQ(0, npo_test_device_name(i, name, sizeof(name)));
		snprintf(path, sizeof(path), "/dev/%s", name);
		fd = open(path, O_RDWR);
		ASSERT_GE(fd, 0);
		EXPECT_EQ(0, ioctl(fd, NPO_IOCTL_GET_INFO, &info));
		close(fd);
		EXPECT_LE(first, (int)info.node_id) TH_LOG("%s", name);
		EXPECT_GT(first + n, (int)info.node_id) TH_LOG("%s", name);
		if (info.node_id >= (unsigned int)first &&
		    info.node_id < (unsigned int)(first + n))
			seen |= 1ULL << (info.node_id - first);
	}
	/* Each of them once. */
	EXPECT_EQ(n == 64 ? ~0ULL : (1ULL << n) - 1, seen);
}

TEST_F(ioctl, get_param_matches_get_info)
{
	struct npo_dev_info info = { 0 };
	static const struct { __u32 param; size_t off; size_t size; } map[] = {
#define F(p, m) { p, offsetof(struct npo_dev_info, m), \
		  sizeof(((struct npo_dev_info *)0)->m) }
		F(NPO_PARAM_UAPI_VERSION, uapi_version),
		F(NPO_PARAM_HW_IF_VERSION, hw_if_version),
		F(NPO_PARAM_CAPS, caps),
		F(NPO_PARAM_SERIAL, serial),
		F(NPO_PARAM_NODE_ID, node_id),
		F(NPO_PARAM_STATE, state),
		F(NPO_PARAM_FW_VERSION, fw_version),
		F(NPO_PARAM_NUM_PORTS, num_ports),
		F(NPO_PARAM_LANES_PER_PORT, lanes_per_port),
		F(NPO_PARAM_NUM_QUEUES, num_queues),
#undef F
	};
	unsigned int i;

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_GET_INFO, &info));
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct npo_param_query q = { .param = map[i].param };
		unsigned long long want = 0;

		memcpy(&want, (char *)&info + map[i].off, map[i].size);
		ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_GET_PARAM, &q))
			TH_LOG("param %u: %s", map[i].param, strerror(errno));
		EXPECT_EQ(want, q.value) TH_LOG("param %u", map[i].param);
	}
}

TEST_F(ioctl, get_param_layout_facts)
{
	struct npo_param_query q = { .param = NPO_PARAM_DOORBELL_STRIDE };

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_GET_PARAM, &q));
	EXPECT_EQ(4096, q.value);
	q.param = NPO_PARAM_NUM_IRQ_VECTORS;
	q.value = 0;
	ASSERT_EQ(0, ioctl(self->fd, NPO_IOCTL_GET_PARAM, &q));
	EXPECT_GE(q.value, 1);
}

TEST_F(ioctl, get_info_flags_rejected)
{
	struct npo_dev_info info = { .flags = 1 };

	NPO_TEST_SETUP_DONE();

	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	info.flags = 0x80000000;
	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ioctl, get_info_pad_rejected)
{
	struct npo_dev_info info = { .pad = 1 };

	NPO_TEST_SETUP_DONE();

	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ioctl, get_info_too_small_rejected)
{
	char buf[sizeof(struct npo_dev_info)] = { 0 };

	NPO_TEST_SETUP_DONE();

	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOWR_SIZED(0, 8), buf));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd,
			    NPO_IOWR_SIZED(0, sizeof(struct npo_dev_info) - 4),
			    buf));
	EXPECT_EQ(EINVAL, errno);
}

/* A newer caller's larger struct works if the fields we don't know are 0. */
TEST_F(ioctl, get_info_larger_struct)
{
	struct {
		struct npo_dev_info info;
		__u64 future[4];
	} big;

	NPO_TEST_SETUP_DONE();

	memset(&big, 0, sizeof(big));
	ASSERT_EQ(0, ioctl(self->fd, NPO_IOWR_SIZED(0, sizeof(big)), &big));
	EXPECT_EQ(NPO_UAPI_VERSION, big.info.uapi_version);
	EXPECT_EQ(0, big.future[0]);
	EXPECT_EQ(0, big.future[3]);

	big.future[2] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOWR_SIZED(0, sizeof(big)), &big));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ioctl, get_param_bad_input_rejected)
{
	struct npo_param_query q = { .param = NPO_PARAM_SERIAL, .flags = 1 };

	NPO_TEST_SETUP_DONE();

	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_GET_PARAM, &q));
	EXPECT_EQ(EINVAL, errno);
	q.flags = 0;
	q.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_GET_PARAM, &q));
	EXPECT_EQ(EINVAL, errno);
	q.pad = 0;
	q.index = 1;
	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_GET_PARAM, &q));
	EXPECT_EQ(EINVAL, errno);
	q.index = 0;
	q.param = 0xffff;
	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_GET_PARAM, &q));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ioctl, unknown_ioctl_is_enotty)
{
	char buf[64] = { 0 };

	NPO_TEST_SETUP_DONE();

	/* Unused number, right magic. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(NPO_IOCTL_MAGIC, 0x7f, buf), buf));
	EXPECT_EQ(ENOTTY, errno);
	/* Wrong magic. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR('x', 0x00, struct npo_dev_info),
			    buf));
	EXPECT_EQ(ENOTTY, errno);
	/* Right number, wrong direction. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOW(NPO_IOCTL_MAGIC, 0x00,
					   struct npo_dev_info), buf));
	EXPECT_EQ(ENOTTY, errno);
	/* A plain terminal ioctl. */
	EXPECT_EQ(-1, ioctl(self->fd, TCGETS, buf));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(ioctl, bad_pointer_is_efault)
{
	NPO_TEST_SETUP_DONE();
	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_GET_INFO, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, NPO_IOCTL_GET_PARAM, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(ioctl, not_seekable)
{
	NPO_TEST_SETUP_DONE();
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
}

/*
 * A file opened read-only can look but not create or remove: no queue, no
 * region, no job, even when the node's mode lets anyone read it.
 */
TEST_F(ioctl, read_only_file_changes_nothing)
{
	struct npo_queue_create qc = { .sq_entries = 4, .cq_entries = 4 };
	struct npo_queue_destroy qd = { 0 };
	struct npo_mr_dereg md = { .lkey = 1 };
	struct npo_dev_info info = { 0 };
	struct npo_job job = { .job = NPO_JOB_MIN };
	char path[64], buf[4096];
	struct npo_mr_reg reg = {
		.access = NPO_ACCESS_LOCAL_WRITE,
		.addr = (uintptr_t)buf,
		.length = sizeof(buf),
	};
	int ro;

	NPO_TEST_SETUP_DONE();
	snprintf(path, sizeof(path), "/dev/%s", self->name);
	ro = open(path, O_RDONLY);
	ASSERT_GE(ro, 0);
	EXPECT_EQ(0, ioctl(ro, NPO_IOCTL_GET_INFO, &info));
	job.job = 0;
	EXPECT_EQ(0, ioctl(ro, NPO_IOCTL_GET_JOB, &job));
	EXPECT_NE(0, job.job);
	EXPECT_EQ(-1, ioctl(ro, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, ioctl(ro, NPO_IOCTL_DESTROY_QUEUE, &qd));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, ioctl(ro, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, ioctl(ro, NPO_IOCTL_DEREG_MR, &md));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, ioctl(ro, NPO_IOCTL_SET_JOB, &job));
	EXPECT_EQ(EBADF, errno);
	close(ro);
	/* The same requests on a read-write file get past that check. */
	EXPECT_EQ(0, ioctl(self->fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	qd.queue_id = qc.queue_id;
	EXPECT_EQ(0, ioctl(self->fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
}

TEST_HARNESS_MAIN
