/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Traffic that accounts for itself, for fault tests: a thread writes from
 * one device into another's memory, every write with its own wr_id and
 * its own destination and pattern, a window of them in flight, as a job's
 * peers do.  When a fault puts the queue in error it drains it and goes
 * on with a new one, as a collective library would.  Afterwards every
 * wr_id must have completed exactly once and in order, every write that
 * completed OK must have landed whole, every write flushed unrun must
 * have left its destination untouched, and nothing beyond what was posted
 * may have been written: the fault cost at most the work it failed.
 */
#ifndef NPO_TRAFFIC_LIB_H
#define NPO_TRAFFIC_LIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <npo.h>

struct npo_test_traffic {
	struct npo_device *src_dev, *dst_dev;
	struct npo_queue *q;
	struct npo_mr *src_mr, *dst_mr;
	uint8_t *src, *dst;
	uint32_t dst_node;
	unsigned int window;
	uint8_t *status;	/* per wr_id: TRAFFIC_* in npo_traffic_lib.c */
	uint8_t *completions;	/* per wr_id: how many completions named it */
	uint64_t posted;	/* the thread's; read after npo_test_traffic_stop() */
	unsigned long ok, failed;	/* atomic: watch them while it runs */
	unsigned int queues;	/* queues it went through */
	unsigned int out_of_order, strange;
	int error;		/* why it gave up early, or 0 */
	pthread_t thread;
	bool stop, started;
};

int npo_test_traffic_open(struct npo_test_traffic *t, const char *src,
			  const char *dst, uint32_t job, unsigned int window);
int npo_test_traffic_start(struct npo_test_traffic *t);
unsigned long npo_test_traffic_ok(struct npo_test_traffic *t);
void npo_test_traffic_stop(struct npo_test_traffic *t);
int npo_test_traffic_check(struct npo_test_traffic *t, char *why, size_t len);
void npo_test_traffic_close(struct npo_test_traffic *t);

#endif
