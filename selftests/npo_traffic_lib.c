// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-accounting traffic for fault tests (npo_traffic_lib.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npo_traffic_lib.h"

#define SLOT		64		/* bytes per write */
#define MAX_WRITES	(1u << 18)	/* wr_ids in one run: 16 MiB of targets */
#define SRC_SLOTS	4096		/* reused after 4096 writes, never in flight */
#define DRAIN_MS	30000		/* what a stop waits for the last completions */
/*
 * A pause after each batch: a paced job, at most a window per PACE_US
 * (2,000 writes a second with a window of 16), so that a run of minutes
 * stays within MAX_WRITES and leaves the CPU to the VM.
 */
#define PACE_US		8000

enum {
	TRAFFIC_POSTED,		/* no completion yet */
	TRAFFIC_OK,
	TRAFFIC_FAILED,		/* ran and failed: landed whole or not at all */
	TRAFFIC_UNRUN,		/* flushed or reset before it ran */
};

/* Word k of write wr: distinct for every write and every word. */
static uint64_t pattern(uint64_t wr, unsigned int k)
{
	return (wr + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)k << 56 | 0x5a);
}

static void fill(uint8_t *slot, uint64_t wr)
{
	unsigned int k;

	for (k = 0; k < SLOT / 8; k++) {
		uint64_t v = pattern(wr, k);

		memcpy(slot + 8 * k, &v, 8);
	}
}

static bool holds(const uint8_t *slot, uint64_t wr)
{
	uint8_t want[SLOT];

	fill(want, wr);
	return !memcmp(slot, want, SLOT);
}

static bool untouched(const uint8_t *slot)
{
	unsigned int i;

	for (i = 0; i < SLOT; i++)
		if (slot[i])
			return false;
	return true;
}

static int queue_open(struct npo_test_traffic *t)
{
	struct npo_queue_attr attr = { .sq_entries = t->window };

	if (npo_create_queue(t->src_dev, &attr, &t->q)) {
		t->q = NULL;
		return -1;
	}
	t->queues++;
	return 0;
}

static void queue_close(struct npo_test_traffic *t)
{
	npo_destroy_queue(t->q);
	t->q = NULL;
}

/* One completion: whose, in order, how it ended. */
static void account(struct npo_test_traffic *t, const struct npo_cqe *c,
		    uint64_t *expect, bool *in_error)
{
	uint64_t wr = c->wr_id;

	if (wr >= t->posted) {
		t->strange++;
		return;
	}
	if (wr != *expect)
		t->out_of_order++;
	*expect = wr + 1;
	if (t->completions[wr] < 255)
		t->completions[wr]++;
	if (c->status == NPO_STATUS_OK) {
		t->status[wr] = TRAFFIC_OK;
		__atomic_fetch_add(&t->ok, 1, __ATOMIC_RELAXED);
		return;
	}
	t->status[wr] = c->status == NPO_STATUS_FLUSHED ||
			c->status == NPO_STATUS_RESET ? TRAFFIC_UNRUN :
							TRAFFIC_FAILED;
	__atomic_fetch_add(&t->failed, 1, __ATOMIC_RELAXED);
	*in_error = true;
}

static void *traffic_thread(void *arg)
{
	struct npo_test_traffic *t = arg;
	uint64_t expect = 0, outstanding = 0;
	bool in_error = false, stopping = false;
	unsigned int waited_ms = 0, batch;
	struct npo_sqe *sqe;
	struct npo_cqe *c;
	int err;

	for (;;) {
		if (!stopping && __atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
			stopping = true;
		if (!t->q) {
			if (stopping)
				break;
			/* The device may be resetting: try again shortly. */
			if (queue_open(t)) {
				usleep(50000);
				continue;
			}
			expect = t->posted;
		}
		batch = 0;
		while (!stopping && !in_error && t->posted < MAX_WRITES &&
		       (sqe = npo_get_sqe(t->q))) {
			uint64_t wr = t->posted;
			uint8_t *src = t->src + (wr % SRC_SLOTS) * SLOT;

			fill(src, wr);
			npo_prep_write(sqe, wr, npo_mr_lkey(t->src_mr), src, SLOT,
				       t->dst_node, npo_mr_rkey(t->dst_mr),
				       (uintptr_t)(t->dst + wr * SLOT));
			t->posted++;
			outstanding++;
			batch++;
		}
		npo_submit(t->q);
		if (batch)
			usleep(PACE_US);
		if (stopping && !outstanding)
			break;
		err = npo_wait_cqe(t->q, &c, 100);
		if (err == -ETIMEDOUT) {
			waited_ms += 100;
			if (stopping && waited_ms >= DRAIN_MS) {
				t->error = -ETIMEDOUT;
				break;
			}
			continue;
		}
		waited_ms = 0;
		if (err == -ENODEV) {
			/* Revoked, and every completion of it consumed. */
			if (outstanding)
				t->strange++;
			outstanding = 0;
			in_error = false;
			queue_close(t);
			continue;
		}
		if (err) {
			t->error = err;
			break;
		}
		while ((c = npo_peek_cqe(t->q))) {
			account(t, c, &expect, &in_error);
			outstanding--;
			npo_cq_advance(t->q, 1);
		}
		/*
		 * A queue in error is drained, then replaced; not at once, or
		 * a link that stays down is all this thread would do.
		 */
		if (in_error && !outstanding) {
			in_error = false;
			queue_close(t);
			usleep(20000);
		}
	}
	return NULL;
}

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Writes from device @src into device @dst's memory, both in @job, with
 * @window writes in flight.  0, or -1 (npo_test_traffic_close() then
 * cleans up what was made).
 */
int npo_test_traffic_open(struct npo_test_traffic *t, const char *src,
			  const char *dst, uint32_t job, unsigned int window)
{
	struct npo_device_attr da;

	memset(t, 0, sizeof(*t));
	t->window = window;
	t->src_dev = npo_open_device(src);
	t->dst_dev = npo_open_device(dst);
	if (!t->src_dev || !t->dst_dev || npo_device_set_job(t->src_dev, job) ||
	    npo_device_set_job(t->dst_dev, job) ||
	    npo_query_device(t->dst_dev, &da))
		return -1;
	t->dst_node = da.node_id;
	t->src = map(SRC_SLOTS * SLOT);
	t->dst = map((size_t)MAX_WRITES * SLOT);
	t->status = map(MAX_WRITES);
	t->completions = map(MAX_WRITES);
	if (!t->src || !t->dst || !t->status || !t->completions)
		return -1;
	if (npo_reg_mr(t->src_dev, t->src, SRC_SLOTS * SLOT, NPO_ACCESS_ALL,
		       &t->src_mr) ||
	    npo_reg_mr(t->dst_dev, t->dst, (size_t)MAX_WRITES * SLOT,
		       NPO_ACCESS_ALL, &t->dst_mr))
		return -1;
	return queue_open(t);
}

int npo_test_traffic_start(struct npo_test_traffic *t)
{
	if (pthread_create(&t->thread, NULL, traffic_thread, t))
		return -1;
	t->started = true;
	return 0;
}

/* Writes that completed OK so far. */
unsigned long npo_test_traffic_ok(struct npo_test_traffic *t)
{
	return __atomic_load_n(&t->ok, __ATOMIC_RELAXED);
}

/* Stop posting and wait for every write in flight to complete. */
void npo_test_traffic_stop(struct npo_test_traffic *t)
{
	if (!t->started)
		return;
	__atomic_store_n(&t->stop, true, __ATOMIC_RELEASE);
	pthread_join(t->thread, NULL);
	t->started = false;
}

/*
 * After npo_test_traffic_stop(): 0 if every write completed exactly once,
 * in order, landed whole if it completed OK, left its target untouched if
 * it never ran, and nothing else was written; else -1 and why.
 */
int npo_test_traffic_check(struct npo_test_traffic *t, char *why, size_t len)
{
	uint64_t wr;

	if (t->error) {
		snprintf(why, len, "the traffic stopped: %s", strerror(-t->error));
		return -1;
	}
	if (t->out_of_order || t->strange) {
		snprintf(why, len, "%u completions out of order, %u for no write",
			 t->out_of_order, t->strange);
		return -1;
	}
	for (wr = 0; wr < MAX_WRITES; wr++) {
		const uint8_t *slot = t->dst + wr * SLOT;

		if (wr >= t->posted) {
			if (!untouched(slot)) {
				snprintf(why, len, "slot %llu written, never posted",
					 (unsigned long long)wr);
				return -1;
			}
			continue;
		}
		if (t->completions[wr] != 1) {
			snprintf(why, len, "wr_id %llu completed %u times",
				 (unsigned long long)wr, t->completions[wr]);
			return -1;
		}
		if ((t->status[wr] == TRAFFIC_OK && !holds(slot, wr)) ||
		    (t->status[wr] == TRAFFIC_UNRUN && !untouched(slot)) ||
		    (t->status[wr] == TRAFFIC_FAILED && !holds(slot, wr) &&
		     !untouched(slot))) {
			snprintf(why, len, "wr_id %llu (%s): its target holds the wrong bytes",
				 (unsigned long long)wr,
				 t->status[wr] == TRAFFIC_OK ? "ok" :
				 t->status[wr] == TRAFFIC_UNRUN ? "unrun" : "failed");
			return -1;
		}
	}
	if (!t->ok) {
		snprintf(why, len, "no write landed");
		return -1;
	}
	snprintf(why, len, "%llu writes: %lu ok, %lu failed, %u queues",
		 (unsigned long long)t->posted, t->ok, t->failed, t->queues);
	return 0;
}

void npo_test_traffic_close(struct npo_test_traffic *t)
{
	npo_test_traffic_stop(t);
	if (t->q)
		npo_destroy_queue(t->q);
	if (t->src_mr)
		npo_dereg_mr(t->src_mr);
	if (t->dst_mr)
		npo_dereg_mr(t->dst_mr);
	if (t->src)
		munmap(t->src, SRC_SLOTS * SLOT);
	if (t->dst)
		munmap(t->dst, (size_t)MAX_WRITES * SLOT);
	if (t->status)
		munmap(t->status, MAX_WRITES);
	if (t->completions)
		munmap(t->completions, MAX_WRITES);
	if (t->src_dev)
		npo_close_device(t->src_dev);
	if (t->dst_dev)
		npo_close_device(t->dst_dev);
	memset(t, 0, sizeof(*t));
}
