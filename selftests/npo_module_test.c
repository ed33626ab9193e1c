// SPDX-License-Identifier: GPL-2.0-only
/*
 * Module lifetime: modprobe/modprobe -r cycles, each using every device's
 * queues and memory regions, leave nothing behind, and a file held open
 * keeps the module pinned rather than freed under it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/*
 * Objects in use in every slab cache, from SLUB's sysfs.  /proc/slabinfo
 * counts what sits on per-CPU free lists as in use, which moves by a slab
 * at a time (512 objects of kmalloc-8) whatever leaks: each cache is
 * shrunk first, which hands those back.  What the last unload freed
 * after an RCU grace period (inodes, a workqueue's pools) is given a
 * second to go, and the count is the lowest of three readings, as
 * short-lived objects of the moment only add.
 */
#define MAX_CACHES	512
#define SLAB_DIR	"/sys/kernel/slab"

struct slab_counts {
	int n;
	char name[MAX_CACHES][64];
	long objs[MAX_CACHES];
};

static long slab_objects(const char *cache)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), SLAB_DIR "/%s/shrink", cache);
	npo_test_write_file(path, "1");
	snprintf(path, sizeof(path), SLAB_DIR "/%s/objects", cache);
	if (npo_test_read_file(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

static int slab_read(struct slab_counts *c)
{
	struct dirent *d;
	struct stat st;
	int i, round;
	DIR *dir;

	c->n = 0;
	dir = opendir(SLAB_DIR);
	if (!dir)
		return -1;
	/* Merged caches are links to the one they share: count it once. */
	while ((d = readdir(dir)) && c->n < MAX_CACHES) {
		if (d->d_name[0] == '.' ||
		    fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode) ||
		    strlen(d->d_name) >= sizeof(c->name[0]))
			continue;
		strcpy(c->name[c->n], d->d_name);
		c->objs[c->n++] = LONG_MAX;
	}
	closedir(dir);
	sleep(1);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < c->n; i++) {
			long objs = slab_objects(c->name[i]);

			if (objs >= 0 && objs < c->objs[i])
				c->objs[i] = objs;
		}
		usleep(300000);
	}
	return c->n ? 0 : -1;
}

static long slab_of(const struct slab_counts *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return c->objs[i];
	return 0;
}

/*
 * The cache that grew most steadily, and by how many objects in the half
 * of the cycles it grew less: a leak grows a cache in both halves, a
 * cache warming up in the first alone, and what the rest of the system
 * does moves it either way.
 */
static long slab_most_steady(const struct slab_counts *a,
			     const struct slab_counts *b,
			     const struct slab_counts *c, const char **which)
{
	long most = 0;
	int j;

	*which = "none";
	for (j = 0; j < c->n; j++) {
		long first = slab_of(b, c->name[j]) - slab_of(a, c->name[j]);
		long second = c->objs[j] - slab_of(b, c->name[j]);
		long steady = first < second ? first : second;

		if (steady > most) {
			most = steady;
			*which = c->name[j];
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

/*
 * A kernel with kmemleak (make check-debug) judges leaks itself, object
 * by object, after every binary (run_tests.sh); there KASAN's quarantine
 * also holds freed objects back for a while, so slab counts grow with
 * the churn whatever leaks, and say nothing.
 */
static bool kmemleak_judges(void)
{
	return exists("/sys/kernel/debug/kmemleak");
}

/*
 * 100 cycles of 8 devices take about a minute under TCG; a kernel that
 * checks every access (KASAN, kmemleak) runs 20, as many as its budget
 * holds with room to spare.
 */
static int cycles(void)
{
	return kmemleak_judges() ? 20 : CYCLES;
}

/* One unload and load, then every device used once; 0 or why not. */
static const char *cycle_once(int ndev, uint8_t *buf)
{
	if (npo_test_run(NULL, 0, "/sbin/modprobe -r npo 2>&1"))
		return "unload";
	if (exists("/sys/class/npo"))
		return "/sys/class/npo left after unload";
	if (npo_test_run(NULL, 0, "/sbin/modprobe npo 2>&1"))
		return "load";
	if (npo_test_count_devices() != ndev)
		return "not every device came back";
	if (use_every_device(ndev, buf))
		return "a device's queue or region failed";
	return NULL;
}

TEST_F_TIMEOUT(module, load_unload_cycles_leave_nothing, 600)
{
	uint8_t *buf = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static struct slab_counts before, half, after;
	long slab_before, slab_after, steady;
	const char *cache, *why;
	int i, n = cycles();

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(MAP_FAILED, buf);

	/* Warm up caches that the first cycles would otherwise fill. */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, npo_test_reload(""));
		ASSERT_EQ(0, use_every_device(self->ndev, buf));
	}
	slab_before = meminfo_kb("SUnreclaim:");
	ASSERT_EQ(0, slab_read(&before));
	for (i = 0; i < n; i++) {
		if (i == n / 2)
			ASSERT_EQ(0, slab_read(&half));
		why = cycle_once(self->ndev, buf);
		ASSERT_EQ(NULL, why) TH_LOG("cycle %d: %s", i, why);
	}
	/*
	 * Counted where the others were: the driver loaded and used.  Just
	 * after an unload, the helpers its uevents started still run.
	 */
	slab_after = meminfo_kb("SUnreclaim:");
	ASSERT_EQ(0, slab_read(&after));

	ASSERT_EQ(0, npo_test_run(NULL, 0, "/sbin/modprobe -r npo"));
	EXPECT_FALSE(exists("/sys/class/npo"));
	EXPECT_FALSE(exists("/sys/kernel/debug/npo"));
	EXPECT_FALSE(exists("/dev/npo0"));
	EXPECT_EQ(0, count_lines("/proc/devices", " npo\n"));
	EXPECT_EQ(0, count_lines("/proc/interrupts", "npo"));
	EXPECT_EQ(0, count_lines("/proc/iomem", ": npo\n"));
	/*
	 * One object left per modprobe grows a cache by n / 2 in each half,
	 * one per device and cycle by eight times that; counted as
	 * slab_read() does, noise stays well below n / 4 in one half or the
	 * other.  (make check-debug's kmemleak finds a single leaked object.)
	 */
	steady = slab_most_steady(&before, &half, &after, &cache);
	TH_LOG("%d cycles of %d devices: SUnreclaim %ld -> %ld kB; the cache "
	       "that grew most in both halves: %s, %ld objects in each at least",
	       n, self->ndev, slab_before, slab_after, cache, steady);
	if (kmemleak_judges())
		TH_LOG("kmemleak judges leaks on this kernel, not slab counts");
	else
		EXPECT_LT(steady, n / 4) TH_LOG("a leak in %s?", cache);
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
