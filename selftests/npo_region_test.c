// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions: access rights are enforced, a key of another process
 * never works, registration refuses bad memory, and a dma-buf (vgem) is
 * reachable as any region is.
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

TEST_F(queue, access_rights_are_enforced)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	uint8_t *ro = alloc_buf(65536);
	struct npo_mr *ro_mr;
	struct npo_queue *q;
	struct npo_cqe c;
	uint64_t key;

	NPO_TEST_SETUP_DONE();
	/* Local read only: no remote rights, no local write. */
	ASSERT_EQ(0, npo_reg_mr(self->dev, ro, 65536, 0, &ro_mr));

	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_write(npo_get_sqe(q), 1, npo_mr_lkey(self->src_mr), self->src, 8,
		       self->node, npo_mr_rkey(ro_mr), (uintptr_t)ro);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_REMOTE_ACCESS, c.status);
	npo_destroy_queue(q);

	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_read(npo_get_sqe(q), 2, npo_mr_lkey(ro_mr), ro, 8, self->node,
		      npo_mr_rkey(self->dst_mr), (uintptr_t)self->dst);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_LOCAL_ACCESS, c.status);
	npo_destroy_queue(q);

	/* As the source of a write, local read is enough. */
	npo_prep_write(npo_get_sqe(self->q), 3, npo_mr_lkey(ro_mr), ro, 8,
		       self->node, npo_mr_rkey(self->dst_mr), (uintptr_t)self->dst);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_OK, c.status);

	/* A deregistered key is dead at once. */
	key = npo_mr_rkey(ro_mr);
	ASSERT_EQ(0, npo_dereg_mr(ro_mr));
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_read(npo_get_sqe(q), 4, npo_mr_lkey(self->dst_mr), self->dst, 8,
		      self->node, key, (uintptr_t)ro);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_REMOTE_ACCESS, c.status);
	npo_destroy_queue(q);

	/* The right index with a guessed tag is no key at all. */
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_write(npo_get_sqe(q), 5, npo_mr_lkey(self->src_mr) ^ 0x10000,
		       self->src, 8, self->node, npo_mr_rkey(self->dst_mr),
		       (uintptr_t)self->dst);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_LOCAL_KEY, c.status);
	npo_destroy_queue(q);
	munmap(ro, 65536);
}

/* A key registered by another process is never usable as a local key. */
TEST_F(queue, another_process_key_never_works)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	int to_parent[2], to_child[2];
	struct npo_mr_dereg md = { 0 };
	struct npo_queue *q;
	struct npo_cqe c;
	uint32_t key;
	char done;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, pipe(to_child));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct npo_device *dev = npo_open_device("npo0");
		uint8_t *mem = alloc_buf(65536);
		struct npo_mr *mr;

		if (!dev || npo_reg_mr(dev, mem, 65536, ALL_ACCESS, &mr))
			_exit(1);
		key = npo_mr_lkey(mr);
		if (write(to_parent[1], &key, 4) != 4 ||
		    read(to_child[0], &done, 1) != 1)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(4, read(to_parent[0], &key, 4));
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_write(npo_get_sqe(q), 1, key, self->src, 8, self->node,
		       npo_mr_rkey(self->dst_mr), (uintptr_t)self->dst);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_LOCAL_KEY, c.status);
	npo_destroy_queue(q);
	/* Nor can this file deregister it. */
	md.lkey = key;
	EXPECT_EQ(-1, ioctl(npo_device_fd(self->dev), NPO_IOCTL_DEREG_MR, &md));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(1, write(to_child[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
}

/*
 * A region's slot in the device's table is in the low 16 bits of both
 * keys.  Taken lowest-free, it told every user of the device which slots
 * others held and when they registered: 32 regions of one process would
 * then sit in a run of consecutive slots.  At random, hardly two do.
 */
TEST_F(queue, region_slots_tell_nothing_of_others)
{
	struct npo_mr *mr[32];
	unsigned int i, j, next = 0;
	/* A page each: one page mapped writable 32 times overlaps itself. */
	uint8_t *mem = alloc_buf(32 * 4096);

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(NULL, mem);
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, npo_reg_mr(self->dev, mem + i * 4096, 4096, ALL_ACCESS,
					&mr[i]));
	for (i = 0; i < 32; i++)
		for (j = 0; j < 32; j++)
			next += (npo_mr_rkey(mr[j]) & 0xffff) ==
				(npo_mr_rkey(mr[i]) & 0xffff) + 1;
	for (i = 0; i < 32; i++) {
		/* Local and remote key name the same slot. */
		EXPECT_EQ(npo_mr_lkey(mr[i]) & 0xffff, npo_mr_rkey(mr[i]) & 0xffff);
		npo_dereg_mr(mr[i]);
	}
	/* Of 32 picks among 4095 slots, a neighbouring pair is rare. */
	EXPECT_GT(4, next) TH_LOG("%u of 32 regions sit next to another", next);
}

TEST_F(queue, registration_rejects_bad_memory)
{
	int fd = npo_device_fd(self->dev);
	struct npo_mr_reg reg;
	uint8_t *ro;
	struct npo_mr *mr;

	NPO_TEST_SETUP_DONE();
	ro = mmap(NULL, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	/* Read-only memory for write. */
	EXPECT_EQ(-EFAULT, npo_reg_mr(self->dev, ro, 65536,
				      NPO_ACCESS_REMOTE_WRITE, &mr));
	/* It is fine to read from it. */
	ASSERT_EQ(0, npo_reg_mr(self->dev, ro, 65536, NPO_ACCESS_REMOTE_READ, &mr));
	npo_dereg_mr(mr);
	munmap(ro, 65536);
	/* Unmapped memory. */
	EXPECT_EQ(-EFAULT, npo_reg_mr(self->dev, ro, 65536, 0, &mr));

	memset(&reg, 0, sizeof(reg));
	reg.addr = (uintptr_t)self->src;
	reg.length = 0;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.length = ~0ULL;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.length = 1ULL << 46;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(E2BIG, errno);
	reg.length = 4096;
	reg.access = 0x100;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.access = 0;
	reg.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.flags = 0;
	reg.addr = ~0ULL - 4096;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_MR, &reg));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * As nobody with 1 MiB of locked memory allowed: the second half of it
 * pins, more is refused, and deregistering gives the allowance back.
 */
static int vgem_dmabuf(size_t size, int *card, bool writable)
{
	struct drm_mode_create_dumb cd = { .width = 1024, .bpp = 32 };
	char path[64];
	int i, fd = -1, buf;

	for (i = 0; i < 16 && fd < 0; i++) {
		drmVersionPtr v;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (!v || strcmp(v->name, "vgem")) {
			close(fd);
			fd = -1;
		}
		drmFreeVersion(v);
	}
	if (fd < 0)
		return -1;
	cd.height = size / 4096;
	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &cd) ||
	    drmPrimeHandleToFD(fd, cd.handle,
			       DRM_CLOEXEC | (writable ? DRM_RDWR : 0), &buf)) {
		close(fd);
		return -1;
	}
	*card = fd;
	return buf;
}

/* Device memory of another driver, through dma-buf: written and read. */
TEST_F(queue, dmabuf_from_vgem_is_reachable)
{
	const size_t size = 1 << 20;
	const uint64_t iova = 0x100000000ULL;
	int buf, card, fd = npo_device_fd(self->dev);
	struct npo_queue_attr attr = { .sq_entries = 4 };
	struct npo_dmabuf_reg reg;
	struct npo_queue *q;
	struct npo_mr *mr;
	struct npo_cqe c;
	uint8_t *map;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root to load vgem");
	npo_test_run(NULL, 0, "/sbin/modprobe vgem 2>/dev/null");
	buf = vgem_dmabuf(size, &card, true);
	if (buf < 0)
		SKIP(return, "no vgem device");
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
	ASSERT_NE(MAP_FAILED, map);
	memset(map, 0, size);

	ASSERT_EQ(0, npo_reg_dmabuf(self->dev, buf, 0, size, iova,
				    NPO_ACCESS_ALL, &mr));
	fill(self->src, size, 21);
	npo_prep_write(npo_get_sqe(self->q), 1, npo_mr_lkey(self->src_mr),
		       self->src, size - 4096, self->node, npo_mr_rkey(mr),
		       iova + 4096);
	ASSERT_EQ(0, run_one(self->q, &c));
	ASSERT_EQ(NPO_STATUS_OK, c.status) TH_LOG("%s", npo_status_str(c.status));
	EXPECT_EQ(0, memcmp(map + 4096, self->src, size - 4096));
	EXPECT_EQ(0, map[4095]);

	memset(self->dst, 0, size);
	npo_prep_read(npo_get_sqe(self->q), 2, npo_mr_lkey(self->dst_mr),
		      self->dst, size, self->node, npo_mr_rkey(mr), iova);
	ASSERT_EQ(0, run_one(self->q, &c));
	ASSERT_EQ(NPO_STATUS_OK, c.status);
	EXPECT_EQ(0, memcmp(self->dst, map, size));
	/* Past the registered length is out of bounds, as for any region. */
	npo_prep_read(npo_get_sqe(self->q), 3, npo_mr_lkey(self->dst_mr),
		      self->dst, 8, self->node, npo_mr_rkey(mr), iova + size);
	ASSERT_EQ(0, run_one(self->q, &c));
	EXPECT_EQ(NPO_STATUS_REMOTE_ACCESS, c.status);
	EXPECT_EQ(0, npo_dereg_mr(mr));

	/* Bad arguments: not a dma-buf, no file, beyond it, unaligned. */
	memset(&reg, 0, sizeof(reg));
	reg.length = 4096;
	reg.fd = card;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.fd = -1;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EBADF, errno);
	reg.fd = buf;
	reg.offset = size;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EINVAL, errno);
	reg.offset = 100;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EINVAL, errno);
	/* A region still registered when the file closes goes with it. */
	reg.offset = 0;
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	munmap(map, size);
	close(buf);
	close(card);

	/* A buffer its exporter handed out read-only registers for reading only. */
	buf = vgem_dmabuf(size, &card, false);
	ASSERT_GE(buf, 0);
	memset(&reg, 0, sizeof(reg));
	reg.fd = buf;
	reg.length = size;
	reg.iova = iova;
	reg.access = NPO_ACCESS_REMOTE_WRITE;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EACCES, errno);
	reg.access = NPO_ACCESS_LOCAL_WRITE;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	EXPECT_EQ(EACCES, errno);
	reg.access = NPO_ACCESS_REMOTE_READ;
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_REG_DMABUF, &reg));
	/* And the device can read it (on a new queue: the last one is in error). */
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	npo_prep_read(npo_get_sqe(q), 4, npo_mr_lkey(self->dst_mr),
		      self->dst, 4096, self->node, reg.rkey, iova);
	ASSERT_EQ(0, run_one(q, &c));
	EXPECT_EQ(NPO_STATUS_OK, c.status);
	npo_destroy_queue(q);
	close(buf);
	close(card);
}

TEST_HARNESS_MAIN
