// SPDX-License-Identifier: GPL-2.0-only
/*
 * PCIe AER: an uncorrectable error on an NPO device goes through the
 * driver's error handlers, and the device comes back ready with its
 * firmware running, while the other devices never notice: the devices'
 * own reset counters, read from their BARs, say which one was reset.
 * A corrected error is counted, by the PCI core and by the driver, and
 * resets nothing.  Errors are injected with the kernel's aer_inject
 * module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <json-c/json.h>

#include <npo.h>

#include "kselftest_harness.h"
#include "npo_flood_lib.h"
#include "npo_test_lib.h"

#define PCI_ERR_UNC_COMP_TIME	0x00004000	/* non-fatal by default */
#define PCI_ERR_UNC_MALF_TLP	0x00040000	/* fatal by default */
#define PCI_ERR_COR_RCVR	0x00000001	/* receiver error */

/* The record /dev/aer_inject takes (drivers/pci/pcie/aer_inject.c). */
struct aer_error_inj {
	unsigned char bus;
	unsigned char dev;
	unsigned char fn;
	unsigned int uncor_status;
	unsigned int cor_status;
	unsigned int header_log0;
	unsigned int header_log1;
	unsigned int header_log2;
	unsigned int header_log3;
	unsigned int domain;
};

FIXTURE(aer) {
	char name[32];
	unsigned int domain, bus, dev, fn;
};

FIXTURE_SETUP(aer)
{
	char link[256], target[256];
	ssize_t n;

	if (!npo_test_is_root())
		SKIP(return, "needs root");
	if (npo_test_device_name(0, self->name, sizeof(self->name)))
		SKIP(return, "no NPO device");
	if (npo_test_run(NULL, 0, "/sbin/modprobe aer_inject 2>&1") ||
	    access("/dev/aer_inject", W_OK))
		SKIP(return, "aer_inject not available");
	snprintf(link, sizeof(link), NPO_SYSFS_CLASS "/%s/device", self->name);
	n = readlink(link, target, sizeof(target) - 1);
	ASSERT_GT(n, 0);
	target[n] = '\0';
	ASSERT_EQ(4, sscanf(strrchr(target, '/') + 1, "%x:%x:%x.%x",
			    &self->domain, &self->bus, &self->dev, &self->fn));
}

FIXTURE_TEARDOWN(aer)
{
}

static int inject_status(FIXTURE_DATA(aer) *self, unsigned int uncor,
			 unsigned int cor)
{
	struct aer_error_inj e = {
		.bus = self->bus, .dev = self->dev, .fn = self->fn,
		.uncor_status = uncor, .cor_status = cor,
		.domain = self->domain,
	};
	int fd = open("/dev/aer_inject", O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, &e, sizeof(e));
	close(fd);
	return n == sizeof(e) ? 0 : -errno;
}

static int inject(FIXTURE_DATA(aer) *self, unsigned int uncor)
{
	return inject_status(self, uncor, 0);
}

/* Resets of the device under test and of another, before an injection. */
struct resets {
	long long self, other;
	char other_name[32];
};

static void resets_before(FIXTURE_DATA(aer) *self, struct resets *r)
{
	r->self = npo_test_reset_count(self->name);
	r->other = -1;
	if (!npo_test_device_name(1, r->other_name, sizeof(r->other_name)))
		r->other = npo_test_reset_count(r->other_name);
}

/*
 * The device itself says it was reset (at least once, if it had to be),
 * and the other device was not: the recovery stayed in its fault domain.
 */
static void expect_resets(struct __test_metadata *_metadata,
			  FIXTURE_DATA(aer) *self, const struct resets *r,
			  bool must_reset)
{
	long long now = npo_test_reset_count(self->name);

	/* A kernel with strict iomem checks hides a claimed BAR from sysfs. */
	if (r->self < 0 && npo_test_expected_devices() < 0)
		SKIP(return, "RESET_COUNT not readable (boot with iomem=relaxed)");
	ASSERT_GE(r->self, 0) TH_LOG("cannot read RESET_COUNT of %s", self->name);
	if (must_reset)
		EXPECT_GT(now, r->self) TH_LOG("%s was not reset", self->name);
	if (r->other >= 0)
		EXPECT_EQ(r->other, npo_test_reset_count(r->other_name))
			TH_LOG("%s was reset too", r->other_name);
}

static void expect_recovered(struct __test_metadata *_metadata,
			     FIXTURE_DATA(aer) *self, size_t mark)
{
	char state[32], fw[32], log[65536], other[32];
	int tries;

	/* Recovery runs in a kernel worker: wait for it, bounded. */
	for (tries = 0; tries < 100; tries++) {
		ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
		if (strstr(log, "recovered from PCIe error"))
			break;
		usleep(50000);
	}
	EXPECT_NE(NULL, strstr(log, "PCIe error reported")) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "recovered from PCIe error")) TH_LOG("%s", log);
	ASSERT_EQ(0, npo_test_read_attr(self->name, "state", state, sizeof(state)));
	EXPECT_STREQ("ready", state);
	ASSERT_EQ(0, npo_test_read_attr(self->name, "fw_version", fw, sizeof(fw)));
	EXPECT_STRNE("none", fw);
	/* Fault isolation: another device saw nothing. */
	if (!npo_test_device_name(1, other, sizeof(other))) {
		ASSERT_EQ(0, npo_test_read_attr(other, "state", state,
						sizeof(state)));
		EXPECT_STREQ("ready", state);
	}
}

TEST_F(aer, nonfatal_error_recovers)
{
	struct resets r;
	size_t mark;

	NPO_TEST_SETUP_DONE();
	resets_before(self, &r);
	mark = npo_test_dmesg_mark();
	ASSERT_EQ(0, inject(self, PCI_ERR_UNC_COMP_TIME));
	expect_recovered(_metadata, self, mark);
	expect_resets(_metadata, self, &r, false);
}

TEST_F(aer, fatal_error_resets_and_recovers)
{
	struct resets r;
	size_t mark;

	NPO_TEST_SETUP_DONE();
	resets_before(self, &r);
	mark = npo_test_dmesg_mark();
	ASSERT_EQ(0, inject(self, PCI_ERR_UNC_MALF_TLP));
	expect_recovered(_metadata, self, mark);
	expect_resets(_metadata, self, &r, true);
}

/*
 * The reset takes the device's queues and memory table with it: a process
 * holding them finds them gone, its queue's memory revoked, and can start
 * again on the recovered device.
 */
TEST_F(aer, queues_are_revoked_and_can_be_made_again)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	struct npo_queue_destroy qd = { 0 };
	struct npo_device *d;
	struct npo_device_attr da;
	struct npo_queue *q;
	struct npo_mr *mr;
	struct npo_cqe *c;
	void *buf = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t mark;
	double t0;
	int i;

	NPO_TEST_SETUP_DONE();
	d = npo_open_device(self->name);
	ASSERT_NE(NULL, d);
	ASSERT_EQ(0, npo_query_device(d, &da));
	if (!(da.caps & NPO_CAP_QUEUES))
		SKIP(return, "device has no DMA queues");
	ASSERT_EQ(0, npo_create_queue(d, &attr, &q));
	ASSERT_EQ(0, npo_reg_mr(d, buf, 65536, NPO_ACCESS_ALL, &mr));
	mark = npo_test_dmesg_mark();
	ASSERT_EQ(0, inject(self, PCI_ERR_UNC_MALF_TLP));
	expect_recovered(_metadata, self, mark);

	/*
	 * Gone: the queue and the region.  A wait on the queue says so at
	 * once rather than wait out its timeout; the handles only need
	 * freeing.
	 */
	EXPECT_TRUE(npo_queue_revoked(q));
	t0 = npo_test_now_s();
	EXPECT_EQ(-ENODEV, npo_wait_cqe(q, &c, 10000));
	EXPECT_LT(npo_test_now_s() - t0, 2.0);
	EXPECT_EQ(NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED | NPO_QSTAT_FINAL,
		  *q->status);
	/*
	 * The final rings the file kept of it go with the destroy, even
	 * while still mapped, as a careless or hostile process leaves them:
	 * the mapping then shows the stand-in, never the freed copy.
	 */
	qd.queue_id = q->id;
	EXPECT_EQ(0, ioctl(npo_device_fd(d), NPO_IOCTL_DESTROY_QUEUE, &qd));
	EXPECT_EQ(NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED, *q->status);
	EXPECT_EQ(0, *q->cq_tail);
	EXPECT_EQ(-ENOENT, npo_destroy_queue(q));
	EXPECT_EQ(-ENOENT, npo_dereg_mr(mr));

	/* The same open file starts again. */
	ASSERT_EQ(0, npo_create_queue(d, &attr, &q));
	ASSERT_EQ(0, npo_reg_mr(d, buf, 65536, NPO_ACCESS_ALL, &mr));
	for (i = 0; i < 4096; i++)
		((uint8_t *)buf)[i] = (uint8_t)(i * 7 + 1);
	memset((uint8_t *)buf + 8192, 0, 4096);
	npo_prep_write(npo_get_sqe(q), 1, npo_mr_lkey(mr), buf, 4096, q->node_id,
		       npo_mr_rkey(mr), (uintptr_t)buf + 8192);
	npo_submit(q);
	ASSERT_EQ(0, npo_wait_cqe(q, &c, 10000));
	EXPECT_EQ(NPO_STATUS_OK, c->status);
	/* The recovered device moves the right bytes. */
	EXPECT_EQ(0, memcmp(buf, (uint8_t *)buf + 8192, 4096));
	npo_dereg_mr(mr);
	npo_destroy_queue(q);
	npo_close_device(d);
	munmap(buf, 65536);
}

/* The neighbour's writes: large, so that the device is always busy. */
#define FLOOD_WRITE	(1u << 20)
#define FLOOD_JOB	93

/*
 * Recovery frees what the device was given only once the device can no
 * longer reach it.  The region's pages are held by its pin alone (the
 * buffer is unmapped), so the recovery's unpin frees them while a
 * neighbour floods them with writes; page poisoning then finds any write
 * that landed after the free.
 */
TEST_F(aer, recovery_stops_the_device_before_it_frees)
{
	size_t len = 32u << 20;
	struct npo_device *d;
	struct npo_device_attr da;
	struct npo_mr *mr;
	struct npo_test_flood f;
	void *buf;
	size_t mark;
	int i;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_page_poisoning())
		SKIP(return, "page_poison=1 not on the kernel command line");
	d = npo_open_device(self->name);
	ASSERT_NE(NULL, d);
	ASSERT_EQ(0, npo_query_device(d, &da));
	if (!(da.caps & NPO_CAP_QUEUES))
		SKIP(return, "device has no DMA queues");
	ASSERT_EQ(0, npo_device_set_job(d, FLOOD_JOB));
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 1, len);
	ASSERT_EQ(0, npo_reg_mr(d, buf, len, NPO_ACCESS_ALL, &mr));
	ASSERT_EQ(0, munmap(buf, len));

	/* npo1 is npo0's neighbour on the ring. */
	ASSERT_EQ(0, npo_test_flood_open(&f, "npo1", FLOOD_JOB, FLOOD_WRITE, 64));
	f.node = da.node_id;
	f.rkey = npo_mr_rkey(mr);
	f.raddr = (uintptr_t)buf;
	f.len = len;
	ASSERT_EQ(0, npo_test_flood_start(&f));
	usleep(200000);
	mark = npo_test_dmesg_mark();
	ASSERT_EQ(0, inject(self, PCI_ERR_UNC_COMP_TIME));
	expect_recovered(_metadata, self, mark);
	/* The region went with the recovery: the neighbour's writes fail. */
	for (i = 0; i < 100 && !__atomic_load_n(&f.failed, __ATOMIC_RELAXED); i++)
		usleep(50000);
	npo_test_flood_stop(&f);
	/* It wrote until the end: before the error, and in vain after. */
	EXPECT_EQ(0, f.error) TH_LOG("the neighbour stopped: %s", strerror(-f.error));
	EXPECT_LT(0, f.landed);
	EXPECT_LT(0, f.failed);
	EXPECT_EQ(0, npo_test_freed_memory_written(mark));
	npo_test_flood_close(&f);
	EXPECT_EQ(-ENOENT, npo_dereg_mr(mr));
	npo_close_device(d);
}

/* The AER core's count of the device's errors of a kind, -1 if none. */
static long long aer_total(const char *name, const char *kind,
			   const char *total)
{
	char path[128], out[4096], *line;
	long long n = -1;

	snprintf(path, sizeof(path), NPO_SYSFS_CLASS "/%s/device/aer_dev_%s",
		 name, kind);
	if (npo_test_read_file(path, out, sizeof(out)))
		return -1;
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, total, strlen(total)) &&
		    line[strlen(total)] == ' ')
			n = atoll(line + strlen(total) + 1);
	return n;
}

/* Drivers hear of corrected errors from 6.3 on; the PCI core counts them. */
static bool kernel_tells_drivers(void)
{
	struct utsname u;
	int major, minor;

	return !uname(&u) && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 3));
}

/* The "pcie" item of npoctl -j health DEV, as counts; false if absent. */
static bool health_pcie(const char *name, long long *cor, long long *fatal)
{
	static char out[1 << 16];
	struct json_object *h, *devs, *items, *it, *v;
	bool found = false;
	size_t i;

	if (npo_test_run(out, sizeof(out), "npoctl -j health %s", name) == 1)
		return false;
	h = json_tokener_parse(out);
	if (!h)
		return false;
	if (json_object_object_get_ex(h, "devices", &devs) &&
	    json_object_object_get_ex(json_object_array_get_idx(devs, 0),
				      "items", &items))
		for (i = 0; i < json_object_array_length(items); i++) {
			it = json_object_array_get_idx(items, i);
			if (!json_object_object_get_ex(it, "what", &v) ||
			    strcmp(json_object_get_string(v), "pcie"))
				continue;
			json_object_object_get_ex(it, "correctable", &v);
			*cor = json_object_get_int64(v);
			json_object_object_get_ex(it, "fatal", &v);
			*fatal = json_object_get_int64(v);
			found = true;
		}
	json_object_put(h);
	return found;
}

/*
 * A corrected error costs a replay, not a reset: the PCI core counts it
 * on this device alone, npoctl health shows the count, the driver says so
 * (where the kernel tells it), and nothing is recovered or reset.
 */
TEST_F(aer, correctable_error_is_counted_not_recovered)
{
	long long before, after = -1, other_before = -1, cor = -1, fatal = -1;
	char log[65536], state[32], other[32] = "";
	long long resets;
	size_t mark;
	int tries;

	NPO_TEST_SETUP_DONE();
	before = aer_total(self->name, "correctable", "TOTAL_ERR_COR");
	ASSERT_GE(before, 0) TH_LOG("no AER statistics for %s", self->name);
	if (!npo_test_device_name(1, other, sizeof(other)))
		other_before = aer_total(other, "correctable", "TOTAL_ERR_COR");
	resets = npo_test_reset_count(self->name);
	mark = npo_test_dmesg_mark();
	ASSERT_EQ(0, inject_status(self, 0, PCI_ERR_COR_RCVR));
	/* The AER core handles it in a kernel thread: wait, bounded. */
	for (tries = 0; tries < 100; tries++) {
		after = aer_total(self->name, "correctable", "TOTAL_ERR_COR");
		if (after > before)
			break;
		usleep(50000);
	}
	EXPECT_EQ(before + 1, after);
	if (other[0])
		EXPECT_EQ(other_before,
			  aer_total(other, "correctable", "TOTAL_ERR_COR"));

	ASSERT_TRUE(health_pcie(self->name, &cor, &fatal));
	EXPECT_EQ(after, cor);
	EXPECT_EQ(aer_total(self->name, "fatal", "TOTAL_ERR_FATAL"), fatal);

	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	if (kernel_tells_drivers())
		EXPECT_NE(NULL, strstr(log, "correctable PCIe error (")) TH_LOG("%s", log);
	EXPECT_EQ(NULL, strstr(log, "PCIe error reported")) TH_LOG("%s", log);
	ASSERT_EQ(0, npo_test_read_attr(self->name, "state", state, sizeof(state)));
	EXPECT_STREQ("ready", state);
	EXPECT_EQ(resets, npo_test_reset_count(self->name));
}

TEST_HARNESS_MAIN
