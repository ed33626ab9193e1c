// SPDX-License-Identifier: GPL-2.0-only
/*
 * Module lifetime: modprobe/modprobe -r cycles, each using every device's
 * queues and memory regions, leave nothing behind, and a file held open
 * keeps the module pinned rather than freed under it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <npo.h>

#include "kselftest_harness.h"
#include "npo_test_lib.h"

#define CYCLES 100

FIXTURE(module) {
	int ndev;
};

FIXTURE_SETUP(module)
{
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	self->ndev = npo_test_count_devices();
	if (self->ndev <= 0)
		SKIP(return, "no NPO device");
}

FIXTURE_TEARDOWN(module)
{
	if (self->ndev > 0 && !npo_test_module_loaded())
		npo_test_reload("");
}

static long meminfo_kb(const char *key)
{
	char buf[8192], *p;

	if (npo_test_read_file("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key) + 1, NULL, 10) : -1;
}

static int count_lines(const char *path, const char *needle)
{
	static char buf[1 << 20];
	char *p = buf;
	int n = 0;

	if (npo_test_read_file(path, buf, sizeof(buf)))
		return -1;
	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Active objects of every slab cache, from /proc/slabinfo. */
#define MAX_CACHES	512

struct slab_counts {
	int n;
	char name[MAX_CACHES][40];
	long objs[MAX_CACHES];
};

static int slab_read(struct slab_counts *c)
{
	char line[512];
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	c->n = 0;
	while (fgets(line, sizeof(line), f) && c->n < MAX_CACHES) {
		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%39s %ld", c->name[c->n], &c->objs[c->n]) == 2)
			c->n++;
	}
	fclose(f);
	return 0;
}

/*
 * The cache that grew most, and by how many objects.  A leak of one
 * object per device and cycle grows some cache by that many at least;
 * process and page-cache churn of modprobe itself stays far below.
 */
static long slab_most_grown(const struct slab_counts *a,
			    const struct slab_counts *b, const char **which)
{
	long most = 0;
	int i, j;

	*which = "none";
	for (j = 0; j < b->n; j++) {
		long before = 0;

		for (i = 0; i < a->n; i++)
			if (!strcmp(a->name[i], b->name[j]))
				before = a->objs[i];
		if (b->objs[j] - before > most) {
			most = b->objs[j] - before;
			*which = b->name[j];
		}
	}
	return most;
}

/*
 * Each device once, as a job would: a queue, a region, one write through
 * them; then close.  0, or the device that failed plus one.
 */
static int use_every_device(int ndev, uint8_t *buf)
{
	struct npo_queue_attr attr = { .sq_entries = 16, .rq_entries = 4 };
	char name[16];
	int i;

	for (i = 0; i < ndev; i++) {
		struct npo_device *dev;
		struct npo_queue *q;
		struct npo_cqe *c;
		struct npo_mr *mr;
		int bad;

		snprintf(name, sizeof(name), "npo%d", i);
		dev = npo_open_device(name);
		if (!dev || npo_create_queue(dev, &attr, &q) ||
		    npo_reg_mr(dev, buf, 65536, NPO_ACCESS_ALL, &mr))
			return i + 1;
		npo_prep_write(npo_get_sqe(q), 1, npo_mr_lkey(mr), buf, 4096,
			       q->node_id, npo_mr_rkey(mr), (uintptr_t)buf + 32768);
		npo_submit(q);
		bad = npo_wait_cqe(q, &c, 10000) || c->status;
		npo_dereg_mr(mr);
		npo_destroy_queue(q);
		npo_close_device(dev);
		if (bad)
			return i + 1;
	}
	return 0;
}

/* 100 cycles of 8 devices take about a minute under TCG. */
TEST_F_TIMEOUT(module, load_unload_cycles_leave_nothing, 600)
{
	uint8_t *buf = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static struct slab_counts caches_before, caches_after;
	long slab_before, slab_after, grown;
	const char *cache;
	int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(MAP_FAILED, buf);

	/* Warm up caches that the first cycles would otherwise fill. */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, npo_test_reload(""));
		ASSERT_EQ(0, use_every_device(self->ndev, buf));
	}
	slab_before = meminfo_kb("SUnreclaim:");
	ASSERT_EQ(0, slab_read(&caches_before));

	for (i = 0; i < CYCLES; i++) {
		ASSERT_EQ(0, npo_test_run(NULL, 0, "/sbin/modprobe -r npo 2>&1"))
			TH_LOG("cycle %d: unload", i);
		ASSERT_FALSE(exists("/sys/class/npo")) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, npo_test_run(NULL, 0, "/sbin/modprobe npo 2>&1"))
			TH_LOG("cycle %d: load", i);
		ASSERT_EQ(self->ndev, npo_test_count_devices())
			TH_LOG("cycle %d", i);
		ASSERT_EQ(0, use_every_device(self->ndev, buf))
			TH_LOG("cycle %d: a device's queue or region failed", i);
	}

	ASSERT_EQ(0, npo_test_run(NULL, 0, "/sbin/modprobe -r npo"));
	EXPECT_FALSE(exists("/sys/class/npo"));
	EXPECT_FALSE(exists("/sys/kernel/debug/npo"));
	EXPECT_FALSE(exists("/dev/npo0"));
	EXPECT_EQ(0, count_lines("/proc/devices", " npo\n"));
	EXPECT_EQ(0, count_lines("/proc/interrupts", "npo"));
	EXPECT_EQ(0, count_lines("/proc/iomem", ": npo\n"));
	slab_after = meminfo_kb("SUnreclaim:");
	ASSERT_EQ(0, slab_read(&caches_after));
	/*
	 * Per device and cycle (probe, open, queue, region, write, close,
	 * remove), not one object may stay behind in any cache.
	 */
	grown = slab_most_grown(&caches_before, &caches_after, &cache);
	TH_LOG("%d device cycles: SUnreclaim %ld -> %ld kB; most grown cache "
	       "%s, %ld objects", CYCLES * self->ndev, slab_before, slab_after,
	       cache, grown);
	EXPECT_LT(grown, CYCLES * self->ndev) TH_LOG("a leak in %s?", cache);
	EXPECT_LT(slab_after - slab_before, 1024);
	ASSERT_EQ(0, npo_test_reload(""));
	EXPECT_EQ(1, count_lines("/proc/devices", " npo\n"));
	EXPECT_EQ(self->ndev, count_lines("/proc/interrupts", "npo"));
	munmap(buf, 65536);
}

TEST_F(module, open_file_pins_module)
{
	char out[512];
	int fd;

	NPO_TEST_SETUP_DONE();
	fd = open("/dev/npo0", O_RDWR);

	ASSERT_GE(fd, 0);
	EXPECT_NE(0, npo_test_run(out, sizeof(out), "/sbin/modprobe -r npo 2>&1"));
	EXPECT_TRUE(npo_test_module_loaded());
	close(fd);
	EXPECT_EQ(0, npo_test_run(out, sizeof(out), "/sbin/modprobe -r npo 2>&1"))
		TH_LOG("%s", out);
	EXPECT_FALSE(npo_test_module_loaded());
}

TEST_F(module, module_parameters_documented)
{
	char out[4096];

	NPO_TEST_SETUP_DONE();

	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "/sbin/modinfo -F parm npo"));
	EXPECT_NE(NULL, strstr(out, "fw_name:")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "dbg_mask:")) TH_LOG("%s", out);
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "/sbin/modinfo -F alias npo"));
	EXPECT_NE(NULL, strstr(out, "pci:v00001234d00004E50")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
