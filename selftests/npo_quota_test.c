// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a process may pin and create: region page lists are charged to
 * the caller, the rdma cgroup bounds files, queues and regions, and
 * RLIMIT_MEMLOCK holds.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <json-c/json.h>
#include <npo.h>
#include <xf86drm.h>

#include "kselftest_harness.h"
#include "npo_queue_fixture.h"
#include "npo_test_lib.h"

static int pin_within_memlock(void *arg)
{
	struct npo_device *dev = arg;
	uint8_t *mem = alloc_buf(4 << 20);
	struct npo_mr *a, *b;

	if (npo_reg_mr(dev, mem, 512 << 10, 0, &a))
		return 11;
	if (npo_reg_mr(dev, mem + (1 << 20), 1 << 20, 0, &b) != -ENOMEM)
		return 12;
	if (npo_dereg_mr(a) || npo_reg_mr(dev, mem, 1 << 20, 0, &a))
		return 13;
	return 0;
}

/* A cgroup v2 hierarchy to work in: the system's, or one mounted here. */
static const char *cgroup2_root(void)
{
	static const char mnt[] = "/tmp/npo-cgroup2";

	if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK))
		return "/sys/fs/cgroup";
	if (!access("/tmp/npo-cgroup2/cgroup.controllers", F_OK))
		return mnt;
	mkdir(mnt, 0755);
	return mount("none", mnt, "cgroup2", 0, NULL) ? NULL : mnt;
}

/* A new child cgroup with @controller enabled, its path in @cg; 0 or -1. */
static int make_cgroup(const char *controller, const char *tag, char *cg,
		       size_t len)
{
	const char *root = cgroup2_root();
	char path[192], enable[32];

	if (!root)
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	snprintf(enable, sizeof(enable), "+%s", controller);
	npo_test_write_file(path, enable);
	snprintf(cg, len, "%s/npo-%s-%d", root, tag, getpid());
	return mkdir(cg, 0755);
}

/* Move the calling process into cgroup @cg: 0 or an errno. */
static int join_cgroup(const char *cg)
{
	char path[192], me[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(me, sizeof(me), "%d", getpid());
	return npo_test_write_file(path, me);
}

/*
 * The kernel memory a registration takes (a page pointer and a bus address
 * per page, up to 256 MiB for the largest region) is charged to the
 * caller's memory cgroup: a 4 GiB registration of memory that cannot be
 * pinned allocates 16 MiB of lists before it fails, and the cgroup's peak
 * shows them.
 */
TEST_F(queue, region_page_lists_are_charged_to_the_caller)
{
	const size_t len = 4ull << 30;
	char cg[128], path[192], peak[32] = "";
	int status, fd;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root for a memory cgroup");
	ASSERT_EQ(0, make_cgroup("memory", "test", cg, sizeof(cg)))
		TH_LOG("no cgroup v2: %s", strerror(errno));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct npo_mr_reg reg = { .access = NPO_ACCESS_LOCAL_WRITE };
		void *p;

		if (join_cgroup(cg))
			_exit(1);
		p = mmap(NULL, len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			_exit(2);
		reg.addr = (uintptr_t)p;
		reg.length = len;
		if (!ioctl(npo_device_fd(self->dev), NPO_IOCTL_REG_MR, &reg))
			_exit(3);
		_exit(errno == EFAULT ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child step %d", WEXITSTATUS(status));
	snprintf(path, sizeof(path), "%s/memory.peak", cg);
	fd = open(path, O_RDONLY);
	EXPECT_GE(fd, 0);
	if (fd >= 0) {
		EXPECT_LT(0, read(fd, peak, sizeof(peak) - 1));
		close(fd);
	}
	EXPECT_LE(16ull << 20, strtoull(peak, NULL, 10))
		TH_LOG("the cgroup's peak was %s bytes", peak);
	EXPECT_EQ(0, rmdir(cg));
}

/* A step of the quota child: its number as the exit code if it fails. */
#define QUOTA_STEP(n, cond) do { if (!(cond)) _exit(n); } while (0)

/*
 * The rdma cgroup controller bounds what one job holds on a device, as for
 * InfiniBand: with "npo0 hca_handle=2 hca_object=3" in its rdma.max, a
 * process opens two files and makes three queues or regions, the next
 * get EAGAIN, and what it gives back it can take again.  The cgroup's own
 * rdma.current, not the driver, says what was charged.
 */
TEST_F(queue, rdma_cgroup_bounds_files_queues_and_regions)
{
	char cg[128], path[192], current[256] = "";
	int status, fd;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root for an rdma cgroup");
	ASSERT_EQ(0, make_cgroup("rdma", "quota", cg, sizeof(cg)));
	snprintf(path, sizeof(path), "%s/rdma.max", cg);
	ASSERT_EQ(0, npo_test_write_file(path, "npo0 hca_handle=2 hca_object=3"))
		TH_LOG("the rdma controller does not know npo0");
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct npo_queue_create qc = { .sq_entries = 4, .cq_entries = 4 };
		struct npo_queue_destroy qd = { 0 };
		static char mem[3][4096] __attribute__((aligned(4096)));
		struct npo_mr_reg reg = { .access = NPO_ACCESS_LOCAL_WRITE,
					  .length = 4096 };
		int a, b;

		QUOTA_STEP(1, !join_cgroup(cg));
		a = open("/dev/npo0", O_RDWR);
		b = open("/dev/npo0", O_RDWR);
		QUOTA_STEP(2, a >= 0 && b >= 0);
		QUOTA_STEP(3, open("/dev/npo0", O_RDWR) < 0 && errno == EAGAIN);
		QUOTA_STEP(4, !ioctl(a, NPO_IOCTL_CREATE_QUEUE, &qc));
		reg.addr = (uintptr_t)mem[0];
		QUOTA_STEP(5, !ioctl(a, NPO_IOCTL_REG_MR, &reg));
		reg.addr = (uintptr_t)mem[1];
		QUOTA_STEP(6, !ioctl(b, NPO_IOCTL_REG_MR, &reg));
		/* Three objects: the next queue and region are refused. */
		QUOTA_STEP(7, ioctl(b, NPO_IOCTL_CREATE_QUEUE, &qc) && errno == EAGAIN);
		reg.addr = (uintptr_t)mem[2];
		QUOTA_STEP(8, ioctl(a, NPO_IOCTL_REG_MR, &reg) && errno == EAGAIN);
		/* The cgroup agrees, then a destroyed queue makes room. */
		snprintf(path, sizeof(path), "%s/rdma.current", cg);
		QUOTA_STEP(9, !npo_test_read_file(path, current, sizeof(current)) &&
			   strstr(current, "npo0 hca_handle=2 hca_object=3"));
		qd.queue_id = qc.queue_id;
		QUOTA_STEP(10, !ioctl(a, NPO_IOCTL_DESTROY_QUEUE, &qd));
		QUOTA_STEP(11, !ioctl(a, NPO_IOCTL_REG_MR, &reg));
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("quota child failed at step %d", WEXITSTATUS(status));
	/* The child's exit gave everything back. */
	snprintf(path, sizeof(path), "%s/rdma.current", cg);
	fd = npo_test_read_file(path, current, sizeof(current));
	EXPECT_EQ(0, fd);
	EXPECT_TRUE(!strstr(current, "npo0") ||
		    strstr(current, "npo0 hca_handle=0 hca_object=0"))
		TH_LOG("rdma.current: %s", current);
	/*
	 * The kernel's rdma controller keeps a device's pool in a cgroup
	 * while it has a limit, and an rmdir leaves that pool behind, freed
	 * cgroup and all, for the device's unregistration to trip over at
	 * rmmod (admin.rst, "Quotas").  Lift the limit first.
	 */
	snprintf(path, sizeof(path), "%s/rdma.max", cg);
	EXPECT_EQ(0, npo_test_write_file(path, "npo0 hca_handle=max hca_object=max"));
	EXPECT_EQ(0, rmdir(cg));
}

/* Pinned memory counts against RLIMIT_MEMLOCK for an unprivileged user. */
TEST_F(queue, memlock_limit_is_enforced)
{
	struct rlimit rl = { 1 << 20, 1 << 20 }, old;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root to drop privileges");
	/*
	 * Root sets the limit, which the child inherits: nobody could not
	 * raise it to 1 MiB if it started lower.  The device node is root's;
	 * the child keeps the open file.
	 */
	ASSERT_EQ(0, getrlimit(RLIMIT_MEMLOCK, &old));
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &rl));
	EXPECT_EQ(0, npo_test_as_nobody(pin_within_memlock, self->dev));
	setrlimit(RLIMIT_MEMLOCK, &old);
}

TEST_HARNESS_MAIN
