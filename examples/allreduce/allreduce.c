// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A ring all-reduce (sum) of float32 vectors across every NPO device of
 * this host, using only the public libnpo API, checked against a CPU
 * reference.
 *
 * Each device is one rank, driven by its own thread.  Rank r sends to its
 * ring successor, the device its port 0 reaches, with WRITE_IMM; the
 * immediate tells the receiver which step and chunk arrived.  The usual
 * two phases: N-1 reduce-scatter steps (receive a partial chunk into a
 * scratch slot, add it to one's own), then N-1 all-gather steps (write
 * the finished chunk straight into the successor's vector).  Ranks learn
 * each other's keys and addresses through an out-of-band table, as a real
 * job would through its bootstrap network.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <npo.h>

#define MAX_RANKS	64

/*
 * What a rank publishes for its predecessor, as the byte blobs libnpo
 * packs for any out-of-band channel: its endpoint, its vector and its
 * scratch space (one chunk per reduce-scatter step).
 */
struct rank_blobs {
	uint8_t endpoint[NPO_ENDPOINT_BLOB_SIZE];
	uint8_t data[NPO_REMOTE_MR_BLOB_SIZE];
	uint8_t scratch[NPO_REMOTE_MR_BLOB_SIZE];
};

/* The same, unpacked by the rank that will write to it. */
struct rank_info {
	struct npo_endpoint ep;
	struct npo_remote_mr data;
	struct npo_remote_mr scratch;
};

struct rank {
	int index;
	struct npo_device *dev;
	struct npo_queue *q;
	float *data;
	float *scratch;
	struct npo_mr *mr_data, *mr_scratch;
	unsigned int sends_done, recvs_done;
	int err;
};

static struct {
	int nranks;
	size_t count;
	struct rank_blobs published[MAX_RANKS];
	pthread_barrier_t published_all;
	pthread_barrier_t scattered;
} job;

/* Chunk c of the vector: [begin, end). */
static void chunk_range(int c, size_t *begin, size_t *end)
{
	size_t base = job.count / job.nranks, extra = job.count % job.nranks;
	size_t k = (size_t)c;

	*begin = k * base + (k < extra ? k : extra);
	*end = *begin + base + (k < extra);
}

static int mod(int a, int n)
{
	return ((a % n) + n) % n;
}

/*
 * Wait until `sends` of our writes completed and `recvs` writes from our
 * predecessor arrived.  Both kinds share the completion queue, and a
 * predecessor running ahead may deliver its next step's data early: each
 * kind arrives in order, so counting them is enough.
 */
static int progress(struct rank *r, unsigned int sends, unsigned int recvs)
{
	struct npo_cqe *c;
	int err;

	while (r->sends_done < sends || r->recvs_done < recvs) {
		err = npo_wait_cqe(r->q, &c, 30000);
		if (err)
			return err;
		if (c->status) {
			char why[160];

			fprintf(stderr, "rank %d: %s\n", r->index,
				npo_cqe_describe(r->q, c, why, sizeof(why)));
			return -EIO;
		}
		if (c->opcode == NPO_OP_RECV_IMM) {
			if (c->imm != r->recvs_done)
				return -EPROTO;
			r->recvs_done++;
		} else {
			if (c->wr_id != r->sends_done)
				return -EPROTO;
			r->sends_done++;
		}
		npo_cq_advance(r->q, 1);
	}
	return 0;
}

static int post_write(struct rank *r, uint64_t wr_id, const float *src,
		      size_t n, const struct npo_endpoint *to,
		      const struct npo_remote_mr *region, uint64_t to_addr,
		      uint32_t imm)
{
	struct npo_sqe *sqe = npo_get_sqe(r->q);

	if (!sqe)
		return -ENOSPC;
	npo_prep_write_imm(sqe, wr_id, npo_mr_lkey(r->mr_data), src,
			   n * sizeof(float), to->node_id, to->queue_id,
			   region->rkey, to_addr, imm);
	npo_submit(r->q);
	return 0;
}

static void *rank_main(void *arg)
{
	struct rank *r = arg;
	int n = job.nranks, me = r->index, s, err = 0;
	const struct rank_blobs *blobs = &job.published[mod(me + 1, n)];
	struct rank_info nx, *next = &nx;
	size_t b, e, i;

	pthread_barrier_wait(&job.published_all);
	if (npo_endpoint_unpack(blobs->endpoint, sizeof(blobs->endpoint), &nx.ep) < 0 ||
	    npo_mr_unpack_remote(blobs->data, sizeof(blobs->data), &nx.data) < 0 ||
	    npo_mr_unpack_remote(blobs->scratch, sizeof(blobs->scratch),
				 &nx.scratch) < 0)
		err = -EPROTO;
	/* Reduce-scatter: after step s we own the partial sum of chunk me-s-1. */
	for (s = 0; s < n - 1 && !err; s++) {
		int send = mod(me - s, n), recv = mod(me - s - 1, n);

		chunk_range(send, &b, &e);
		err = post_write(r, s, r->data + b, e - b, &next->ep, &next->scratch,
				 next->scratch.addr + (uint64_t)s * sizeof(float) *
				 (job.count / n + 1), s);
		if (!err)
			err = progress(r, s + 1, s + 1);
		if (err)
			break;
		chunk_range(recv, &b, &e);
		for (i = b; i < e; i++)
			r->data[i] += r->scratch[(size_t)s * (job.count / n + 1) + i - b];
	}
	/*
	 * All-gather writes into the successor's vector, which must be done
	 * sending its own chunks first: one out-of-band barrier, where a real
	 * library would return credits.  A failed rank still takes part.
	 */
	pthread_barrier_wait(&job.scattered);
	for (s = 0; s < n - 1 && !err; s++) {
		int send = mod(me + 1 - s, n);

		chunk_range(send, &b, &e);
		err = post_write(r, n - 1 + s, r->data + b, e - b, &next->ep,
				 &next->data, next->data.addr + b * sizeof(float),
				 n - 1 + s);
		if (!err)
			err = progress(r, n + s, n + s);
	}
	r->err = err;
	return NULL;
}

/* len bytes in whole pages of their own, for free(). */
static float *alloc_pages_for(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = (len + page - 1) / page * page;

	return aligned_alloc(page, size ? size : page);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The device whose port 0 peer is node, in index order: the ring. */
static int open_ranks(struct rank *ranks)
{
	struct npo_device_entry *list;
	struct npo_queue_attr attr = { .sq_entries = 16, .cq_entries = 64,
				       .flags = NPO_QUEUE_INTERRUPT };
	int count, i, err;

	list = npo_get_device_list(&count);
	if (!list || count < 2) {
		fprintf(stderr, "allreduce: needs at least 2 NPO devices\n");
		return -ENODEV;
	}
	job.nranks = count > MAX_RANKS ? MAX_RANKS : count;
	for (i = 0; i < job.nranks; i++) {
		struct rank *r = &ranks[i];
		struct npo_device_attr a;

		r->index = i;
		r->dev = npo_open_device(list[i].name);
		if (!r->dev)
			return -errno;
		err = npo_query_device(r->dev, &a);
		if (!err)
			err = npo_create_queue(r->dev, &attr, &r->q);
		if (err)
			return err;
		if (npo_endpoint_pack(r->q, job.published[i].endpoint,
				      sizeof(job.published[i].endpoint)) < 0)
			return -EINVAL;
	}
	npo_free_device_list(list);
	return 0;
}

int main(int argc, char **argv)
{
	static struct rank ranks[MAX_RANKS];
	size_t chunk_max, i;
	double *expect, t0, secs, worst = 0;
	pthread_t tid[MAX_RANKS];
	int r, err, opt;

	job.count = 1 << 20;
	while ((opt = getopt(argc, argv, "n:h")) != -1) {
		if (opt == 'n') {
			job.count = strtoull(optarg, NULL, 0);
		} else {
			printf("Usage: npo-allreduce [-n FLOATS]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	err = open_ranks(ranks);
	if (err) {
		fprintf(stderr, "allreduce: %s\n", npo_strerror(err));
		return 1;
	}
	if (job.count < (size_t)job.nranks) {
		fprintf(stderr, "allreduce: need at least one float per rank\n");
		return 2;
	}
	chunk_max = job.count / job.nranks + 1;
	expect = calloc(job.count, sizeof(*expect));
	srand(42);
	for (r = 0; r < job.nranks; r++) {
		struct rank *k = &ranks[r];
		size_t scratch_len = chunk_max * (job.nranks - 1) * sizeof(float);

		/*
		 * Registered memory in pages of its own: a device maps whole
		 * pages, so buffers sharing one would be mapped by every rank's
		 * device (the kernel's DMA debugging counts that as a leak).
		 */
		k->data = alloc_pages_for(job.count * sizeof(float));
		k->scratch = alloc_pages_for(scratch_len);
		if (!k->data || !k->scratch || !expect)
			return 1;
		for (i = 0; i < job.count; i++) {
			k->data[i] = (float)rand() / RAND_MAX - 0.5f;
			expect[i] += k->data[i];
		}
		err = npo_reg_mr(k->dev, k->data, job.count * sizeof(float),
				 NPO_ACCESS_REMOTE_WRITE, &k->mr_data);
		if (!err)
			err = npo_reg_mr(k->dev, k->scratch, scratch_len,
					 NPO_ACCESS_REMOTE_WRITE, &k->mr_scratch);
		if (err) {
			fprintf(stderr, "allreduce: register: %s\n", npo_strerror(err));
			return 1;
		}
		npo_mr_pack_remote(k->mr_data, job.published[r].data,
				   sizeof(job.published[r].data));
		npo_mr_pack_remote(k->mr_scratch, job.published[r].scratch,
				   sizeof(job.published[r].scratch));
	}

	pthread_barrier_init(&job.published_all, NULL, job.nranks);
	pthread_barrier_init(&job.scattered, NULL, job.nranks);
	t0 = now_s();
	for (r = 0; r < job.nranks; r++)
		pthread_create(&tid[r], NULL, rank_main, &ranks[r]);
	for (r = 0; r < job.nranks; r++)
		pthread_join(tid[r], NULL);
	secs = now_s() - t0;

	err = 0;
	for (r = 0; r < job.nranks; r++) {
		if (ranks[r].err) {
			fprintf(stderr, "allreduce: rank %d failed: %s\n", r,
				npo_strerror(ranks[r].err));
			err = 1;
			continue;
		}
		for (i = 0; i < job.count; i++) {
			double d = fabs(ranks[r].data[i] - expect[i]);

			if (d > worst)
				worst = d;
		}
	}
	/* Sums of N floats in [-0.5, 0.5] in another order: float rounding. */
	if (!err && worst > 1e-5 * job.nranks) {
		fprintf(stderr, "allreduce: result differs from the reference by %g\n",
			worst);
		err = 1;
	}
	if (!err)
		printf("allreduce: %d ranks, %zu floats, verified (max error %.2g), "
		       "%.3f s, %.2f GB/s algorithm bandwidth\n", job.nranks,
		       job.count, worst, secs,
		       job.count * sizeof(float) / secs / 1e9);
	for (r = 0; r < job.nranks; r++) {
		npo_dereg_mr(ranks[r].mr_data);
		npo_dereg_mr(ranks[r].mr_scratch);
		npo_destroy_queue(ranks[r].q);
		npo_close_device(ranks[r].dev);
		free(ranks[r].data);
		free(ranks[r].scratch);
	}
	free(expect);
	return err;
}
