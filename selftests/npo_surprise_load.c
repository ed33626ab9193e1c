// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest side of a surprise removal (tools/vm/surprise-remove-test.sh):
 * load on one device while the host makes it fall off the bus.
 *
 *   npo_surprise_load DEV
 *
 * Two processes stream WRITEs on DEV, one polling for its completions and
 * one asleep on the completion interrupt, each keeping DEPTH outstanding.
 * Every WRITE stamps its own slot (its request id and a pattern), and
 * every one that completes well is checked in memory.  Once both stream,
 * "LOADED" is printed: the host then pulls the device.  Each process then
 * checks that
 *  - every WRITE it posted completed exactly once, in order,
 *  - none completed well after the first that failed,
 *  - its wait ended because the driver revoked the queue (-ENODEV), not
 *    by a timeout, and nothing completes after;
 * and says when its last good completion came and when it was released.
 * The verdict is TAP ("ok N - ..."), then "SURPRISE-RELEASE-S S": from
 * the last good completion of either process, as near the fault as the
 * guest can see it, to the release of the later one.  Exit status 0 when
 * everything held.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <npo.h>

#include "npo_test_lib.h"

#define DEPTH		16		/* WRITEs outstanding per process */
#define SLOTS		64		/* > DEPTH: a slot is checked before reuse */
#define SLOT_BYTES	256
#define DST		(SLOTS * SLOT_BYTES)	/* destination slots follow */
#define REGION		(2 * DST)
#define LOAD_WAIT_S	180		/* for the host to pull the device */
#define RELEASE_WAIT_MS	60000		/* from the first failure to -ENODEV */
#define SURPRISE_JOB	0x5e1f

/* What one process saw, passed to the parent through a pipe. */
struct waiter_report {
	uint64_t posted, done, ok, bad_data, out_of_order, ok_after_failure;
	uint32_t first_failure;
	int end;		/* the wait's last result: -ENODEV expected */
	bool quiet_after;	/* nothing completed once released */
	double last_ok_s, released_s;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void stamp(uint8_t *p, uint64_t wr_id)
{
	unsigned int i;

	memcpy(p, &wr_id, sizeof(wr_id));
	for (i = sizeof(wr_id); i < SLOT_BYTES; i++)
		p[i] = (uint8_t)(wr_id * 31 + i);
}

static bool stamped(const uint8_t *p, uint64_t wr_id)
{
	uint8_t want[SLOT_BYTES];

	stamp(want, wr_id);
	return !memcmp(p, want, SLOT_BYTES);
}

static void post(struct npo_test_end *e, uint64_t wr_id)
{
	size_t slot = (wr_id % SLOTS) * SLOT_BYTES;

	stamp(e->buf + slot, wr_id);
	memset(e->buf + DST + slot, 0, SLOT_BYTES);
	npo_prep_write(npo_get_sqe(e->q), wr_id, npo_mr_lkey(e->mr),
		       e->buf + slot, SLOT_BYTES, e->node, npo_mr_rkey(e->mr),
		       (uintptr_t)(e->buf + DST + slot));
	npo_submit(e->q);
}

/*
 * Stream until the device fails under us, then drain: every completion
 * accounted for, until the revoked queue has no more to give.
 */
static void stream(struct npo_test_end *e, int streaming_fd,
		   struct waiter_report *r)
{
	double start = now_s();
	bool said = false;
	struct npo_cqe *c;

	memset(r, 0, sizeof(*r));
	r->end = -EINPROGRESS;
	for (;;) {
		int timeout = r->first_failure ? RELEASE_WAIT_MS : 1000;

		while (!r->first_failure && r->posted - r->done < DEPTH)
			post(e, ++r->posted);
		r->end = npo_wait_cqe(e->q, &c, timeout);
		if (r->end == -ETIMEDOUT && !r->first_failure &&
		    now_s() - start < LOAD_WAIT_S)
			continue;
		if (r->end)
			break;
		if (c->wr_id != r->done + 1)
			r->out_of_order++;
		r->done++;
		if (!c->status) {
			size_t slot = (c->wr_id % SLOTS) * SLOT_BYTES;

			if (r->first_failure)
				r->ok_after_failure++;
			if (!stamped(e->buf + DST + slot, c->wr_id))
				r->bad_data++;
			r->ok++;
			r->last_ok_s = now_s();
		} else if (!r->first_failure) {
			r->first_failure = c->status;
		}
		npo_cq_advance(e->q, 1);
		if (r->ok >= DEPTH && !said) {
			if (write(streaming_fd, "s", 1) != 1)
				break;
			said = true;
		}
	}
	r->released_s = now_s();
	r->quiet_after = npo_wait_cqe(e->q, &c, 500) == -ENODEV;
}

static int waiter(uint32_t flags, const char *dev, int streaming_fd,
		  int report_fd)
{
	struct npo_queue_attr attr = {
		.sq_entries = 2 * DEPTH, .flags = flags,
	};
	struct waiter_report r = { .end = -EIO };
	struct npo_test_end e;

	if (!npo_test_end_open(&e, dev, SURPRISE_JOB, &attr, REGION))
		stream(&e, streaming_fd, &r);
	/* A revoked queue and region still go away, without hanging. */
	npo_test_end_close(&e);
	return write(report_fd, &r, sizeof(r)) == sizeof(r) ? 0 : 1;
}

static int check(int n, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int check(int n, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return !ok;
}

static int judge(const char *mode, const struct waiter_report *r, int *n)
{
	int bad = 0;

	printf("# %s: %" PRIu64 " posted, %" PRIu64 " completed (%" PRIu64
	       " well), first failure %s, wait ended %s\n", mode, r->posted,
	       r->done, r->ok, r->first_failure ?
	       npo_status_str(r->first_failure) : "none", strerror(-r->end));
	bad |= check(++*n, r->ok >= DEPTH && !r->bad_data,
		     "%s: data moved before the fault, each WRITE checked "
		     "in memory (%" PRIu64 " wrong)", mode, r->bad_data);
	bad |= check(++*n, r->done == r->posted && !r->out_of_order,
		     "%s: every WRITE completed exactly once, in order", mode);
	bad |= check(++*n, r->first_failure && !r->ok_after_failure,
		     "%s: none completed well after the first failure", mode);
	bad |= check(++*n, r->end == -ENODEV && r->quiet_after,
		     "%s: released by the revocation, nothing after it", mode);
	return bad;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; uint32_t flags; } modes[] = {
		{ "polling", 0 },
		{ "interrupt", NPO_QUEUE_INTERRUPT },
	};
	struct waiter_report r[2];
	int streaming[2], report[2][2], n = 0, bad = 0, status;
	double last_ok = 0, released = 0;
	pid_t pid[2];
	unsigned int i;
	char c;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEV\n", argv[0]);
		return 2;
	}
	if (pipe(streaming))
		return 1;
	for (i = 0; i < 2; i++) {
		if (pipe(report[i]))
			return 1;
		pid[i] = fork();
		if (pid[i] < 0)
			return 1;
		if (!pid[i]) {
			close(streaming[0]);
			close(report[i][0]);
			_exit(waiter(modes[i].flags, argv[1], streaming[1],
				     report[i][1]));
		}
		close(report[i][1]);
	}
	close(streaming[1]);
	/* One byte from each once it streams; none from one that failed. */
	if (read(streaming[0], &c, 1) == 1 && read(streaming[0], &c, 1) == 1) {
		printf("LOADED\n");
		fflush(stdout);
	}
	printf("TAP version 13\n1..8\n");
	for (i = 0; i < 2; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].end = -EIO;
		if (read(report[i][0], &r[i], sizeof(r[i])) != sizeof(r[i]))
			printf("# %s: no report\n", modes[i].name);
		if (waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status))
			r[i].end = -ECHILD;
		bad |= judge(modes[i].name, &r[i], &n);
		if (r[i].last_ok_s > last_ok)
			last_ok = r[i].last_ok_s;
		if (r[i].released_s > released)
			released = r[i].released_s;
	}
	if (!bad)
		printf("SURPRISE-RELEASE-S %.3f\n", released - last_ok);
	return bad;
}
