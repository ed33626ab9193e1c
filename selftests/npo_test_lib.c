// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers shared by the NPO selftests.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <npo.h>

#include "npo_test_lib.h"

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int list_indices(int *idx, int max)
{
	DIR *d = opendir(NPO_SYSFS_CLASS);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "npo", 3) && n < max)
			idx[n++] = atoi(de->d_name + 3);
	closedir(d);
	qsort(idx, n, sizeof(*idx), cmp_int);
	return n;
}

int npo_test_count_devices(void)
{
	int idx[256];

	return list_indices(idx, 256);
}

int npo_test_device_name(int i, char *buf, size_t len)
{
	int idx[256], n = list_indices(idx, 256);

	if (i < 0 || i >= n)
		return -ENOENT;
	snprintf(buf, len, "npo%d", idx[i]);
	return 0;
}

int npo_test_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1 &&
	       (n = read(fd, buf + total, len - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return 0;
}

int npo_test_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return 0;
}

int npo_test_fault(int dev, const char *cmd)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/debug/npo/npo%d/fault", dev);
	return npo_test_write_file(path, cmd);
}

int npo_test_read_attr(const char *dev, const char *attr, char *buf,
		       size_t len)
{
	char path[256];
	int err;

	snprintf(path, sizeof(path), NPO_SYSFS_CLASS "/%s/%s", dev, attr);
	err = npo_test_read_file(path, buf, len);
	if (!err)
		buf[strcspn(buf, "\n")] = '\0';
	return err;
}

int npo_test_run(char *out, size_t len, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	FILE *p;
	size_t n = 0;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (out && len) {
		n = fread(out, 1, len - 1, p);
		out[n] = '\0';
	} else {
		char sink[256];

		while (fread(sink, 1, sizeof(sink), p) > 0)
			;
	}
	status = pclose(p);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

bool npo_test_module_loaded(void)
{
	return access("/sys/module/npo", F_OK) == 0;
}

int npo_test_reload(const char *params)
{
	char name[32], state[32];
	int i, n, tries;

	if (npo_test_module_loaded() &&
	    npo_test_run(NULL, 0, "/sbin/modprobe -r npo 2>&1"))
		return -1;
	if (npo_test_run(NULL, 0, "/sbin/modprobe npo %s 2>&1", params))
		return -1;
	/* Probe is synchronous today; the wait keeps tests honest if not. */
	for (tries = 0; tries < 100; tries++) {
		n = npo_test_count_devices();
		for (i = 0; i < n; i++) {
			if (npo_test_device_name(i, name, sizeof(name)) ||
			    npo_test_read_attr(name, "state", state,
					       sizeof(state)) ||
			    !strcmp(state, "probing"))
				break;
		}
		if (n >= 0 && i == n)
			return 0;
		usleep(50000);
	}
	return -1;
}

/*
 * Walk /dev/kmsg: call fn for the text of each record with a sequence
 * number above after; returns the last sequence number seen.  Records the
 * ring buffer overwrote meanwhile are skipped (EPIPE), so a mark survives
 * a wrapped buffer, where byte offsets would not.
 */
static uint64_t kmsg_walk(uint64_t after, void (*fn)(const char *text,
						     size_t len, void *arg),
			  void *arg)
{
	char rec[8192];
	uint64_t seq, last = after;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return after;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *text, *end;

		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		/* "prio,seq,usec,flags;text\n" then continuation lines. */
		text = strchr(rec, ';');
		if (!text || sscanf(rec, "%*u,%" SCNu64, &seq) != 1)
			continue;
		last = seq;
		if (seq <= after || !fn)
			continue;
		text++;
		end = strchr(text, '\n');
		fn(text, end ? (size_t)(end - text) + 1 : strlen(text), arg);
	}
	close(fd);
	return last;
}

size_t npo_test_dmesg_mark(void)
{
	return kmsg_walk(0, NULL, NULL);
}

struct kmsg_out {
	char *buf;
	size_t len, used;
};

static void kmsg_append(const char *text, size_t len, void *arg)
{
	struct kmsg_out *o = arg;

	if (o->used + 1 >= o->len)
		return;
	if (len > o->len - o->used - 1)
		len = o->len - o->used - 1;
	memcpy(o->buf + o->used, text, len);
	o->used += len;
	o->buf[o->used] = '\0';
}

int npo_test_dmesg_since(size_t mark, char *out, size_t len)
{
	struct kmsg_out o = { .buf = out, .len = len };

	if (!len)
		return -1;
	out[0] = '\0';
	kmsg_walk(mark, kmsg_append, &o);
	return 0;
}

int npo_test_expected_devices(void)
{
	const char *e = getenv("NPO_EXPECT_DEVICES");

	return e && *e ? atoi(e) : -1;
}

bool npo_test_is_root(void)
{
	return geteuid() == 0;
}

const char *npo_test_no_ring(int min)
{
	const char *topo = getenv("NPO_EXPECT_TOPOLOGY");
	static char why[64];

	if (npo_test_count_devices() < min) {
		snprintf(why, sizeof(why), "needs a ring of at least %d NPO devices", min);
		return why;
	}
	if (!topo || strcmp(topo, "ring"))
		return "NPO_EXPECT_TOPOLOGY=ring not set";
	return NULL;
}

int npo_test_take_cqe(struct npo_queue *q, struct npo_cqe *out, int ms)
{
	struct npo_cqe *c;
	int err = npo_wait_cqe(q, &c, ms);

	if (err)
		return err;
	*out = *c;
	npo_cq_advance(q, 1);
	return 0;
}

int npo_test_end_open(struct npo_test_end *e, const char *name, uint32_t job,
		      const struct npo_queue_attr *attr, size_t len)
{
	struct npo_queue_attr a = *attr;
	void *p;

	memset(e, 0, sizeof(*e));
	e->dev = npo_open_device(name);
	if (!e->dev || npo_device_set_job(e->dev, job) ||
	    npo_create_queue(e->dev, &a, &e->q))
		return -1;
	e->node = e->q->node_id;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return -1;
	e->buf = p;
	e->len = len;
	return npo_reg_mr(e->dev, e->buf, len, NPO_ACCESS_ALL, &e->mr);
}

void npo_test_end_close(struct npo_test_end *e)
{
	npo_dereg_mr(e->mr);
	npo_destroy_queue(e->q);
	if (e->buf)
		munmap(e->buf, e->len);
	npo_close_device(e->dev);
	memset(e, 0, sizeof(*e));
}

int npo_test_as_nobody(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(NPO_TEST_NO_DROP);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

long long npo_test_bar_read(const char *name, unsigned int off)
{
	char path[256];
	volatile uint32_t *regs;
	long long v;
	int fd;

	size_t page = off & ~4095u;

	if (off >= NPO_TEST_BAR_REGS_SIZE || off % 4)
		return -1;
	snprintf(path, sizeof(path), NPO_SYSFS_CLASS "/%s/device/resource0",
		 name);
	fd = open(path, O_RDONLY | O_SYNC);
	if (fd < 0)
		return -1;
	regs = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, page);
	close(fd);
	if (regs == MAP_FAILED)
		return -1;
	v = regs[(off - page) / 4];
	munmap((void *)regs, 4096);
	return v;
}

long long npo_test_reset_count(const char *name)
{
	return npo_test_bar_read(name, NPO_TEST_RESET_COUNT_REG);
}

int npo_test_pci_addr(const char *name, char *buf, size_t len)
{
	char link[256], target[256];
	ssize_t n;

	snprintf(link, sizeof(link), NPO_SYSFS_CLASS "/%s/device", name);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return -1;
	target[n] = '\0';
	snprintf(buf, len, "%s", strrchr(target, '/') + 1);
	return 0;
}

int npo_test_devlink_handle(const char *name, char *buf, size_t len)
{
	char addr[64];

	if (npo_test_pci_addr(name, addr, sizeof(addr)))
		return -1;
	snprintf(buf, len, "pci/%s", addr);
	return 0;
}

bool npo_test_page_poisoning(void)
{
	char cmdline[4096];

	return !npo_test_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) &&
	       strstr(cmdline, "page_poison=1");
}

/* MemFree in KiB, or 0 if unreadable. */
static unsigned long mem_free_kib(void)
{
	char info[4096], *line;

	if (npo_test_read_file("/proc/meminfo", info, sizeof(info)))
		return 0;
	line = strstr(info, "MemFree:");
	return line ? strtoul(line + strlen("MemFree:"), NULL, 10) : 0;
}

/* Fault in len bytes of anonymous memory the process keeps until exit. */
static int take_memory(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;

	if (p == MAP_FAILED)
		return -1;
	for (off = 0; off < len; off += 4096)
		p[off] = 1;
	return 0;
}

#define REUSE_CHUNK		(4u << 20)
/* What is left free: well above the watermarks, so nothing is reclaimed. */
#define REUSE_MARGIN_KIB	(24u << 10)

int npo_test_reuse_free_memory(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	int status;
	long cpu;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* If anything is to be killed for memory, this child is. */
		npo_test_write_file("/proc/self/oom_score_adj", "1000");
		/* Pages freed lately sit in per-CPU lists: take some on each. */
		for (cpu = 0; cpu < cpus; cpu++) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set) ||
			    take_memory(REUSE_CHUNK))
				_exit(1);
		}
		while (mem_free_kib() > REUSE_MARGIN_KIB + REUSE_CHUNK / 1024)
			if (take_memory(REUSE_CHUNK))
				_exit(1);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) ? -1 : 0;
}

int npo_test_freed_memory_written(size_t mark)
{
	static char log[65536];

	if (!npo_test_page_poisoning() || npo_test_reuse_free_memory() ||
	    npo_test_dmesg_since(mark, log, sizeof(log)))
		return -1;
	return strstr(log, "pagealloc:") != NULL;
}

double npo_test_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

#define TRACING	"/sys/kernel/tracing"

bool npo_test_trace_start(bool mbox)
{
	if (access(TRACING "/events/npo/enable", W_OK) &&
	    npo_test_run(NULL, 0, "mount -t tracefs nodev " TRACING))
		return false;
	/* Every mailbox command is an event: only for who counts them. */
	return !npo_test_run(NULL, 0, "echo > " TRACING "/trace") &&
	       !npo_test_write_file(TRACING "/events/npo/enable", "1") &&
	       !npo_test_write_file(TRACING "/events/npo/npo_mbox_cmd/enable",
				    mbox ? "1" : "0");
}

int npo_test_trace_stop(char *buf, size_t len)
{
	npo_test_write_file(TRACING "/events/npo/enable", "0");
	return npo_test_read_file(TRACING "/trace", buf, len);
}

void *npo_test_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void npo_test_fill(void *p, size_t len, unsigned int seed)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (unsigned char)(i * 7 + seed);
}

bool npo_test_all_are(const void *p, size_t len, unsigned char v)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != v)
			return false;
	return true;
}

bool npo_test_ring_up(int n)
{
	static char out[1 << 16];
	int i;

	for (i = 0; i < 300; i++) {
		const char *p = out;
		int up = 0;

		if (!npo_test_run(out, sizeof(out), "npoctl -j link"))
			while ((p = strstr(p, "\"state\":\"active\"")))
				up++, p++;
		if (up >= 2 * n)
			return true;
		usleep(100000);
	}
	return false;
}

void npo_test_ring_reset(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		npo_test_fault(i, "clear");
		npo_test_run(NULL, 0, "npoctl link retrain npo%d/0 >/dev/null 2>&1", i);
		npo_test_run(NULL, 0, "npoctl link retrain npo%d/1 >/dev/null 2>&1", i);
	}
}

int npo_test_time_scale(void)
{
	const char *env = getenv("NPO_TEST_TIME_SCALE");
	long scale = env ? strtol(env, NULL, 10) : 1;

	return scale >= 1 && scale <= 100 ? scale : 1;
}

/*
 * The harness times each test with alarm(): 30 s, or a test's own.  A
 * debug kernel (KASAN, lockdep, kmemleak) runs everything several times
 * slower, so its lane scales every limit by NPO_TEST_TIME_SCALE (a whole
 * number, 1 by default).  Defined here, this alarm() is the one the
 * harness in each test binary calls.
 */
unsigned int alarm(unsigned int seconds)
{
	struct itimerval it = { 0 }, old;

	it.it_value.tv_sec = (time_t)seconds * npo_test_time_scale();
	if (setitimer(ITIMER_REAL, &it, &old))
		return 0;
	return old.it_value.tv_sec + (old.it_value.tv_usec > 0);
}
