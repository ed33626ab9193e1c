// SPDX-License-Identifier: GPL-2.0-only
/*
 * npo-bench: foundation figures, measured inside an NPO host (the VM or
 * real hardware), printed as one JSON object:
 *
 *   probe_s          modprobe npo, all devices probed and firmware running
 *   remove_s         modprobe -r npo
 *   ioctl_get_info_us, ioctl_get_param_us   mean ioctl round trip
 *   link_up_time_s   modprobe to every port with a peer active (if any)
 *   link_recover_time_s  a cut fibre (seen to take its link down) restored
 *                        to the link active again
 *   fw_hang_detect_s     firmware hung (fault) to the driver stopping the
 *                        device (state no longer ready)
 *   device_recover_s     firmware hung to data moving again: devlink's
 *                        automatic recovery, then a write completing
 *   sysfs_remove_idle_s  an orderly PCI removal (sysfs) of an idle device
 *                        until the driver released it; a surprise removal
 *                        under load is tools/vm/surprise-remove-test.sh's
 *   Each of the last three is the median of RECOVERY_RUNS runs, with the
 *   smallest and largest as *_min and *_max.
 *
 * A figure that could not be measured (a link that never came up, a run
 * that failed) is no figure: npo-bench says which and exits 1.
 *
 * Usage: npo-bench [ITERATIONS]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <linux/npo.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double timed_run(const char *cmd)
{
	double t0 = now();
	int status = system(cmd);

	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "npo-bench: '%s' failed\n", cmd);
		exit(1);
	}
	return now() - t0;
}

/* How many ports are active, from npoctl's JSON. */
static int count_active(void)
{
	struct json_object *doc, *p;
	char buf[1 << 16];
	size_t n, i;
	FILE *f;

	int active = 0;

	f = popen("npoctl -j link 2>/dev/null", "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	pclose(f);
	buf[n] = '\0';
	doc = json_tokener_parse(buf);
	if (!doc)
		return 0;
	for (i = 0; i < json_object_array_length(doc); i++) {
		struct json_object *st;

		p = json_object_array_get_idx(doc, i);
		if (json_object_object_get_ex(p, "state", &st) &&
		    !strcmp(json_object_get_string(st), "active"))
			active++;
	}
	json_object_put(doc);
	return active;
}

static void fail(const char *what)
{
	fprintf(stderr, "npo-bench: %s\n", what);
	exit(1);
}

/* Seconds from t0 until expect ports are active; no figure if never. */
static double wait_links(double t0, int expect)
{
	while (now() - t0 < 60) {
		if (count_active() >= expect)
			return now() - t0;
		usleep(5000);
	}
	fprintf(stderr, "npo-bench: %d of %d ports active after 60 s\n",
		count_active(), expect);
	exit(1);
}

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(s, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static double ioctl_us(int fd, unsigned long cmd, void *arg, size_t size,
		       long iters)
{
	char saved[64];
	double t0;
	long i;

	memcpy(saved, arg, size);
	t0 = now();
	for (i = 0; i < iters; i++) {
		memcpy(arg, saved, size);
		if (ioctl(fd, cmd, arg)) {
			fprintf(stderr, "npo-bench: ioctl: %s\n", strerror(errno));
			exit(1);
		}
	}
	return (now() - t0) / iters * 1e6;
}

#define RECOVERY_RUNS	5

/* A device's state from sysfs, "" if it has none (it is gone). */
static void dev_state(const char *dev, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/npo/%s/state", dev);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Poll until the device's state is (or, with @is false, is not) @want. */
static double wait_state(const char *dev, const char *want, bool is,
			 double t0, double limit)
{
	char state[32];

	while (now() - t0 < limit) {
		dev_state(dev, state, sizeof(state));
		if (!strcmp(state, want) == is)
			return now() - t0;
		usleep(1000);
	}
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* KEY: the median of n runs, with KEY_min and KEY_max; exit if one failed. */
static void add_runs(struct json_object *out, const char *key, double *v,
		     int n)
{
	char name[64];
	int i;

	for (i = 0; i < n; i++)
		if (v[i] < 0) {
			fprintf(stderr, "npo-bench: %s: run %d failed\n", key, i);
			exit(1);
		}
	qsort(v, n, sizeof(*v), cmp_double);
	json_object_object_add(out, key, json_object_new_double(v[n / 2]));
	snprintf(name, sizeof(name), "%s_min", key);
	json_object_object_add(out, name, json_object_new_double(v[0]));
	snprintf(name, sizeof(name), "%s_max", key);
	json_object_object_add(out, name, json_object_new_double(v[n - 1]));
}

/*
 * Device faults, timed: a hung firmware found by the heartbeat watch and
 * recovered by devlink (grace period 0, so that runs may follow each
 * other), then traffic moving again; and a removal.  On the last device,
 * whose links the others route around.
 */
static void recovery_figures(int devices, struct json_object *out)
{
	double detect[RECOVERY_RUNS], recover[RECOVERY_RUNS];
	double unplug[RECOVERY_RUNS];
	char dev[16], fault[64], cmd[256], pci[64], link[128];
	ssize_t n;
	int i;

	snprintf(dev, sizeof(dev), "npo%d", devices - 1);
	snprintf(fault, sizeof(fault), "/sys/kernel/debug/npo/%s/fault", dev);
	snprintf(link, sizeof(link), "/sys/class/npo/%s/device", dev);
	n = readlink(link, cmd, sizeof(cmd) - 1);
	if (n <= 0)
		fail("the last device has no PCI device");
	cmd[n] = '\0';
	snprintf(pci, sizeof(pci), "%s", strrchr(cmd, '/') + 1);
	snprintf(cmd, sizeof(cmd),
		 "devlink health set pci/%s reporter fw grace_period 0", pci);
	if (system(cmd))
		fail("devlink health set failed");
	for (i = 0; i < RECOVERY_RUNS; i++) {
		double t0;

		if (wait_state(dev, "ready", true, now(), 30) < 0 ||
		    write_str(fault, "fwhang")) {
			detect[i] = recover[i] = -1;
			continue;
		}
		t0 = now();
		detect[i] = wait_state(dev, "ready", false, t0, 30);
		recover[i] = -1;
		if (detect[i] < 0 || wait_state(dev, "ready", true, t0, 60) < 0)
			continue;
		/* Data moves again: a write completes on a new queue. */
		snprintf(cmd, sizeof(cmd),
			 "npo-perf -d %s write lat -s 8 -n 1 >/dev/null 2>&1", dev);
		while (now() - t0 < 60) {
			if (!system(cmd)) {
				recover[i] = now() - t0;
				break;
			}
			usleep(10000);
		}
	}
	add_runs(out, "fw_hang_detect_s", detect, RECOVERY_RUNS);
	add_runs(out, "device_recover_s", recover, RECOVERY_RUNS);

	/* A device that does not come back fails the runs left. */
	for (i = 0; i < RECOVERY_RUNS; i++)
		unplug[i] = -1;
	for (i = 0; i < RECOVERY_RUNS; i++) {
		char path[128];
		double t0;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", pci);
		t0 = now();
		if (write_str(path, "1"))
			continue;
		unplug[i] = now() - t0;
		/* Back for the next run: the bus is scanned and it probes. */
		write_str("/sys/bus/pci/rescan", "1");
		if (wait_state(dev, "ready", true, now(), 60) < 0)
			break;
	}
	add_runs(out, "sysfs_remove_idle_s", unplug, RECOVERY_RUNS);
}

static long mem_free_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/*
 * Kernel memory a registration costs, as a share of what it registers:
 * the memory is touched first, so the only new allocations are the
 * driver's (page pointers, bus addresses, bookkeeping).
 */
static int mr_metadata(int fd, size_t len, struct json_object *out)
{
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct npo_mr_reg reg = { .length = len };
	struct npo_mr_dereg dr = { 0 };
	long before, after;
	double t0, secs;

	if (p == MAP_FAILED)
		return -1;
	memset(p, 1, len);
	reg.addr = (uintptr_t)p;
	before = mem_free_kib();
	t0 = now();
	if (ioctl(fd, NPO_IOCTL_REG_MR, &reg)) {
		fprintf(stderr, "npo-bench: REG_MR: %s\n", strerror(errno));
		munmap(p, len);
		return -1;
	}
	secs = now() - t0;
	after = mem_free_kib();
	dr.lkey = reg.lkey;
	ioctl(fd, NPO_IOCTL_DEREG_MR, &dr);
	munmap(p, len);
	json_object_object_add(out, "mr_metadata_pct",
			       json_object_new_double((before - after) * 1024.0 *
						      100 / len));
	json_object_object_add(out, "mr_register_s_per_GiB",
			       json_object_new_double(secs * (1 << 30) / len));
	return 0;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 100000;
	struct npo_param_query q = { .param = NPO_PARAM_SERIAL };
	struct npo_dev_info info = { 0 };
	struct json_object *out = json_object_new_object();
	int fd, devices = 0, links;

	if (iters <= 0) {
		fprintf(stderr, "usage: npo-bench [ITERATIONS]\n");
		return 2;
	}
	if (access("/sys/module/npo", F_OK) == 0)
		timed_run("/sbin/modprobe -r npo");
	json_object_object_add(out, "probe_s",
			       json_object_new_double(timed_run("/sbin/modprobe npo")));
	while (devices < 256) {
		char path[32];

		snprintf(path, sizeof(path), "/dev/npo%d", devices);
		if (access(path, F_OK))
			break;
		devices++;
	}
	json_object_object_add(out, "probe_devices", json_object_new_int(devices));
	links = getenv("NPO_BENCH_LINKS") ? atoi(getenv("NPO_BENCH_LINKS")) : 0;
	if (links > 0) {
		double t0, up;

		/* Reload, timing from modprobe to every link active. */
		timed_run("/sbin/modprobe -r npo");
		t0 = now();
		timed_run("/sbin/modprobe npo");
		up = wait_links(t0, links);
		json_object_object_add(out, "link_up_time_s",
				       json_object_new_double(up));
		/* The cut must take the link down: both its ends. */
		if (write_str("/sys/kernel/debug/npo/npo0/fault", "cut 0 1"))
			fail("cannot cut npo0's port 0 (debugfs fault)");
		t0 = now();
		while (count_active() > links - 2 && now() - t0 < 10)
			usleep(5000);
		if (count_active() > links - 2)
			fail("the cut did not take the link down");
		if (write_str("/sys/kernel/debug/npo/npo0/fault", "cut 0 0"))
			fail("cannot restore npo0's port 0");
		t0 = now();
		json_object_object_add(out, "link_recover_time_s",
				       json_object_new_double(wait_links(t0, links)));
		recovery_figures(devices, out);
	}

	fd = open("/dev/npo0", O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "npo-bench: /dev/npo0: %s\n", strerror(errno));
		return 1;
	}
	json_object_object_add(out, "ioctl_get_info_us",
			       json_object_new_double(ioctl_us(fd, NPO_IOCTL_GET_INFO,
							       &info, sizeof(info), iters)));
	json_object_object_add(out, "ioctl_get_param_us",
			       json_object_new_double(ioctl_us(fd, NPO_IOCTL_GET_PARAM,
							       &q, sizeof(q), iters)));
	if (mr_metadata(fd, 256u << 20, out))
		fail("no registration figures");
	close(fd);
	json_object_object_add(out, "remove_s",
			       json_object_new_double(timed_run("/sbin/modprobe -r npo")));
	timed_run("/sbin/modprobe npo");
	puts(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN));
	json_object_put(out);
	return 0;
}
