// SPDX-License-Identifier: GPL-2.0-only
/*
 * A neighbour that keeps writing into another device's memory; see
 * npo_flood_lib.h.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npo_flood_lib.h"

static void *flood_thread(void *arg)
{
	struct npo_test_flood *f = arg;
	uint64_t off = 0;
	struct npo_sqe *sqe;
	struct npo_cqe *c;
	unsigned long n = 0;

	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		while ((sqe = npo_get_sqe(f->q))) {
			if (f->queue >= 0)
				npo_prep_write_imm(sqe, n, npo_mr_lkey(f->mr),
						   f->src, f->write_len,
						   f->node, f->queue, f->rkey,
						   f->raddr + off, (uint32_t)n);
			else
				npo_prep_write(sqe, n, npo_mr_lkey(f->mr),
					       f->src, f->write_len, f->node,
					       f->rkey, f->raddr + off);
			n++;
			off = (off + f->write_len) % f->len;
		}
		npo_submit(f->q);
		f->error = npo_wait_cqe(f->q, &c, 2000);
		if (f->error)
			break;
		while ((c = npo_peek_cqe(f->q))) {
			/* Atomic: a test may watch them while it runs. */
			if (c->status == NPO_STATUS_OK)
				__atomic_fetch_add(&f->landed, 1, __ATOMIC_RELAXED);
			else
				__atomic_fetch_add(&f->failed, 1, __ATOMIC_RELAXED);
			npo_cq_advance(f->q, 1);
		}
		/* A target that fails everything fast is no reason to spin. */
		if (__atomic_load_n(&f->failed, __ATOMIC_RELAXED))
			usleep(100);
	}
	return NULL;
}

int npo_test_flood_open(struct npo_test_flood *f, const char *name,
			uint32_t job, uint32_t write_len, unsigned int window)
{
	struct npo_queue_attr attr = { .sq_entries = window };
	void *p;

	memset(f, 0, sizeof(*f));
	f->queue = -1;
	f->write_len = write_len;
	f->dev = npo_open_device(name);
	if (!f->dev || npo_device_set_job(f->dev, job) ||
	    npo_create_queue(f->dev, &attr, &f->q))
		return -1;
	p = mmap(NULL, write_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	f->src = p;
	memset(f->src, 0x5c, write_len);
	return npo_reg_mr(f->dev, f->src, write_len, NPO_ACCESS_ALL, &f->mr);
}

int npo_test_flood_start(struct npo_test_flood *f)
{
	if (!f->len || f->len % f->write_len)
		return -1;
	return pthread_create(&f->thread, NULL, flood_thread, f) ? -1 : 0;
}

void npo_test_flood_stop(struct npo_test_flood *f)
{
	__atomic_store_n(&f->stop, true, __ATOMIC_RELEASE);
	pthread_join(f->thread, NULL);
}

void npo_test_flood_close(struct npo_test_flood *f)
{
	if (f->mr)
		npo_dereg_mr(f->mr);
	if (f->q)
		npo_destroy_queue(f->q);
	if (f->src)
		munmap(f->src, f->write_len);
	if (f->dev)
		npo_close_device(f->dev);
	memset(f, 0, sizeof(*f));
}
