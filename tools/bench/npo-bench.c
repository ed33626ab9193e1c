// SPDX-License-Identifier: GPL-2.0-only
/*
 * npo-bench: foundation figures, measured inside an NPO host (the VM or
 * real hardware), printed as one JSON object:
 *
 *   probe_s          modprobe npo, all devices probed and firmware running
 *   remove_s         modprobe -r npo
 *   ioctl_get_info_us, ioctl_get_param_us   mean ioctl round trip
 *   link_up_time_s   modprobe to every port with a peer active (if any)
 *   link_recover_time_s  a cut fibre restored to the link active again
 *
 * Usage: npo-bench [ITERATIONS]
 */
#include <errno.h>
#include <fcntl.h>
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

/* Seconds from t0 until expect ports are active, or -1. */
static double wait_links(double t0, int expect)
{
	while (now() - t0 < 60) {
		if (count_active() >= expect)
			return now() - t0;
		usleep(5000);
	}
	return -1;
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
static void mr_metadata(int fd, size_t len, struct json_object *out)
{
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct npo_mr_reg reg = { .length = len };
	struct npo_mr_dereg dr = { 0 };
	long before, after;
	double t0, secs;

	if (p == MAP_FAILED)
		return;
	memset(p, 1, len);
	reg.addr = (uintptr_t)p;
	before = mem_free_kib();
	t0 = now();
	if (ioctl(fd, NPO_IOCTL_REG_MR, &reg)) {
		fprintf(stderr, "npo-bench: REG_MR: %s\n", strerror(errno));
		munmap(p, len);
		return;
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
		if (!write_str("/sys/kernel/debug/npo/npo0/fault", "cut 0 1")) {
			double t1;

			usleep(300000);
			write_str("/sys/kernel/debug/npo/npo0/fault", "cut 0 0");
			t1 = now();
			json_object_object_add(out, "link_recover_time_s",
					       json_object_new_double(wait_links(t1, links)));
		}
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
	mr_metadata(fd, 256u << 20, out);
	close(fd);
	json_object_object_add(out, "remove_s",
			       json_object_new_double(timed_run("/sbin/modprobe -r npo")));
	timed_run("/sbin/modprobe npo");
	puts(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN));
	json_object_put(out);
	return 0;
}
