/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A neighbour that keeps writing into another device's memory from a
 * thread of its own, as the peers of a job do while one of its processes
 * or devices goes away.  What it counts is its own view of what landed,
 * independent of the target's driver.
 */
#ifndef NPO_FLOOD_LIB_H
#define NPO_FLOOD_LIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <npo.h>

struct npo_test_flood {
	/* The target, set before npo_test_flood_start(). */
	uint32_t node;
	int queue;		/* WRITE_IMM to this queue, or -1 for WRITE */
	uint64_t rkey, raddr;
	uint64_t len;		/* writes go round [raddr, raddr + len) */

	/* What the neighbour saw so far (read with __atomic_load_n()). */
	unsigned long landed, failed;
	int error;		/* why it stopped early: npo_wait_cqe()'s */

	struct npo_device *dev;
	struct npo_queue *q;
	struct npo_mr *mr;
	uint8_t *src;
	uint32_t write_len;
	pthread_t thread;
	bool stop;		/* atomic */
};

/*
 * Open the neighbour on device @name in @job, with @window writes of
 * @write_len bytes in flight.  0, or -1 (npo_test_flood_close() then
 * cleans up what was made).
 */
int npo_test_flood_open(struct npo_test_flood *f, const char *name,
			uint32_t job, uint32_t write_len, unsigned int window);
int npo_test_flood_start(struct npo_test_flood *f);
void npo_test_flood_stop(struct npo_test_flood *f);
void npo_test_flood_close(struct npo_test_flood *f);

#endif
