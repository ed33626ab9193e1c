// SPDX-License-Identifier: GPL-2.0-only
/*
 * npo-perf: bandwidth, latency and message rate of NPO DMA queues, in
 * the spirit of perftest's ib_write_bw and ib_write_lat.
 *
 * Both ends live in this process: the local device posts, the remote
 * device (another NPO device linked to it, or the same one for loopback)
 * only owns the target memory, as the passive side of a one-sided test.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <json-c/json.h>
#include <npo.h>

#define MAX_QUEUES	16
#define MIN_SIZE	8
#define MAX_SIZE	(8u << 20)

enum mode { MODE_BW, MODE_LAT, MODE_RATE, MODE_MEMCPY };

struct opts {
	enum mode mode;
	uint8_t opcode;
	const char *local, *remote;
	uint32_t size;		/* 0: all sizes */
	unsigned int iters;
	unsigned int queues;
	unsigned int depth;
	unsigned int batch;
	bool interrupt;
	bool json;
	bool pretty;
};

struct ctx {
	struct npo_device *ldev, *rdev;
	struct npo_queue *q[MAX_QUEUES];
	struct npo_queue *rq;		/* send: the receiving queue */
	struct npo_mr *lmr, *rmr;
	uint8_t *lbuf, *rbuf;
	size_t buf_size;
	uint32_t dest_node;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: npo-perf [OPTIONS] write|read|send [bw|lat|rate]\n"
		"       npo-perf [OPTIONS] memcpy\n"
		"  -d, --device DEV      posting device (default npo0)\n"
		"  -r, --remote DEV      device owning the target memory; the\n"
		"                        same as -d for loopback (default)\n"
		"  -s, --size BYTES      one message size (K/M suffixes); default\n"
		"                        every power of two from 8 B to 8 MiB\n"
		"  -n, --iters N         messages per size (default: by size)\n"
		"  -q, --queues N        queues to spread over (bw, rate; max %d)\n"
		"  -t, --depth N         outstanding messages per queue (bw)\n"
		"  -b, --batch N         messages per doorbell (rate, default 32)\n"
		"  -I, --interrupt       sleep on completion interrupts, not poll\n"
		"  -j, --json            JSON output; -p pretty-prints it\n",
		MAX_QUEUES);
}

static int parse_size(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end || v < 1 || v > MAX_SIZE)
		return -1;
	*out = v;
	return 0;
}

static unsigned int iters_for(const struct opts *o, uint32_t size)
{
	if (o->iters)
		return o->iters;
	if (o->mode == MODE_LAT)
		return 2000;
	/* Enough bytes to time, few enough to finish quickly under TCG. */
	return size >= (1u << 20) ? 64 : size >= 65536 ? 512 : 4096;
}

/*
 * Buffers on 2 MiB boundaries with transparent huge pages where the kernel
 * allows them: as collective libraries allocate, and fewer, longer runs
 * of contiguous memory for the device.
 */
static uint8_t *alloc_buffer(size_t size)
{
	const size_t huge = 2u << 20;
	uint8_t *p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *aligned;

	if (p == MAP_FAILED)
		return NULL;
	aligned = (uint8_t *)(((uintptr_t)p + huge - 1) & ~(huge - 1));
	madvise(aligned, size, MADV_HUGEPAGE);
	memset(aligned, 0x5a, size);
	return aligned;
}

static int setup(struct ctx *c, const struct opts *o)
{
	struct npo_queue_attr attr = {
		.sq_entries = 256,
		.flags = o->interrupt ? NPO_QUEUE_INTERRUPT : 0,
	};
	struct npo_device_attr ra;
	unsigned int i;
	int err;

	c->ldev = npo_open_device(o->local);
	if (!c->ldev)
		return -errno;
	c->rdev = strcmp(o->local, o->remote) ? npo_open_device(o->remote) :
						c->ldev;
	if (!c->rdev)
		return -errno;
	err = npo_query_device(c->rdev, &ra);
	if (err)
		return err;
	c->dest_node = ra.node_id;
	for (i = 0; i < o->queues; i++) {
		err = npo_create_queue(c->ldev, &attr, &c->q[i]);
		if (err)
			return err;
	}
	if (o->opcode == NPO_OP_SEND) {
		struct npo_queue_attr ra = { .sq_entries = 1, .cq_entries = 256,
					     .rq_entries = 256 };

		err = npo_create_queue(c->rdev, &ra, &c->rq);
		if (err)
			return err;
	}
	c->buf_size = MAX_SIZE;
	c->lbuf = alloc_buffer(c->buf_size);
	c->rbuf = alloc_buffer(c->buf_size);
	if (!c->lbuf || !c->rbuf)
		return -ENOMEM;
	err = npo_reg_mr(c->ldev, c->lbuf, c->buf_size, NPO_ACCESS_LOCAL_WRITE,
			 &c->lmr);
	if (err)
		return err;
	return npo_reg_mr(c->rdev, c->rbuf, c->buf_size,
			  NPO_ACCESS_REMOTE_READ | NPO_ACCESS_REMOTE_WRITE |
			  NPO_ACCESS_LOCAL_WRITE, &c->rmr);
}

/*
 * Send: keep the receiving queue's ring full, reposting a buffer for
 * every message received, as a receiver would.  Every buffer is the whole
 * target memory, so any message size fits; only the count matters.
 */
static int replenish(struct ctx *c)
{
	struct npo_cqe *cqe;

	if (!c->rq)
		return 0;
	while ((cqe = npo_peek_cqe(c->rq))) {
		if (cqe->status) {
			fprintf(stderr, "npo-perf: receive: %s\n",
				npo_status_str(cqe->status));
			return -EIO;
		}
		npo_cq_advance(c->rq, 1);
	}
	while (!npo_post_recv(c->rq, 0, npo_mr_lkey(c->rmr), c->rbuf, c->buf_size))
		;
	return 0;
}

static void teardown(struct ctx *c)
{
	unsigned int i;

	npo_dereg_mr(c->lmr);
	npo_dereg_mr(c->rmr);
	for (i = 0; i < MAX_QUEUES; i++)
		npo_destroy_queue(c->q[i]);
	npo_destroy_queue(c->rq);
	if (c->rdev != c->ldev)
		npo_close_device(c->rdev);
	npo_close_device(c->ldev);
}

/*
 * Post message n of size bytes.  Every message uses the start of both
 * buffers, as perftest does, so the working set is the message size and
 * the figure compares with a memcpy of that size.
 */
static void prep(struct ctx *c, const struct opts *o, struct npo_sqe *sqe,
		 uint64_t n, uint32_t size)
{
	if (o->opcode == NPO_OP_SEND)
		npo_prep_send(sqe, n, npo_mr_lkey(c->lmr), c->lbuf, size,
			      c->dest_node, c->rq->id);
	else
		npo_prep_rdma(sqe, o->opcode, n, npo_mr_lkey(c->lmr), c->lbuf,
			      size, c->dest_node, npo_mr_rkey(c->rmr),
			      (uintptr_t)c->rbuf);
}

static int reap(struct npo_queue *q, bool block, unsigned int *done)
{
	struct npo_cqe *cqe;
	int err;

	if (block) {
		err = npo_wait_cqe(q, &cqe, 10000);
		if (err)
			return err;
	}
	while ((cqe = npo_peek_cqe(q))) {
		if (cqe->status) {
			fprintf(stderr, "npo-perf: message %llu: %s (port %u)\n",
				(unsigned long long)cqe->wr_id,
				npo_status_str(cqe->status), cqe->port);
			return -EIO;
		}
		npo_cq_advance(q, 1);
		(*done)++;
	}
	/*
	 * A queue revoked (device reset or removed) completes nothing more,
	 * and its ring may look full for ever: stop rather than spin.
	 */
	if (npo_queue_revoked(q)) {
		fprintf(stderr, "npo-perf: queue %u revoked: %s\n",
			q->id, npo_strerror(ENODEV));
		return -ENODEV;
	}
	return 0;
}

/* Keep depth messages in flight on each queue; batch per doorbell. */
static int run_stream(struct ctx *c, const struct opts *o, uint32_t size,
		      unsigned int iters, unsigned int batch, double *secs)
{
	unsigned int posted[MAX_QUEUES] = { 0 }, done[MAX_QUEUES] = { 0 };
	unsigned int per_q = (iters + o->queues - 1) / o->queues, i, k;
	uint64_t n = 0;
	bool busy = true;
	double t0 = now_s();
	int err;

	while (busy) {
		busy = false;
		err = replenish(c);
		if (err)
			return err;
		for (i = 0; i < o->queues; i++) {
			struct npo_queue *q = c->q[i];
			struct npo_sqe *sqe;

			for (k = 0; k < batch && posted[i] < per_q &&
			     posted[i] - done[i] < o->depth &&
			     (sqe = npo_get_sqe(q)); k++, posted[i]++)
				prep(c, o, sqe, n++, size);
			npo_submit(q);
			/* One queue: sleep when nothing more can be posted. */
			err = reap(q, o->queues == 1 && done[i] < per_q &&
				      (posted[i] - done[i] >= o->depth ||
				       posted[i] == per_q), &done[i]);
			if (err)
				return err;
			busy |= done[i] < per_q;
		}
	}
	*secs = now_s() - t0;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int run_lat(struct ctx *c, const struct opts *o, uint32_t size,
		   unsigned int iters, double *lat)
{
	unsigned int i, done = 0;
	int err;

	for (i = 0; i < iters; i++) {
		double t0;

		err = replenish(c);
		if (err)
			return err;
		t0 = now_s();
		prep(c, o, npo_get_sqe(c->q[0]), i, size);
		npo_submit(c->q[0]);
		err = reap(c->q[0], true, &done);
		if (err)
			return err;
		lat[i] = (now_s() - t0) * 1e6;
	}
	qsort(lat, iters, sizeof(*lat), cmp_double);
	return 0;
}

/*
 * The best of five trials of at least 50 ms each: a ceiling should not
 * move with whatever else the machine did during one of them.
 */
static double memcpy_gbps(uint32_t size)
{
	uint8_t *a = malloc(size), *b = malloc(size);
	double best = 0;
	int trial;

	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	memset(a, 1, size);
	memset(b, 2, size);
	for (trial = 0; trial < 5; trial++) {
		double t0 = now_s(), secs;
		uint64_t n = 0;

		do {
			memcpy(b, a, size);
			/* Keep the copy from being optimised away. */
			__asm__ volatile("" : : "r"(b) : "memory");
			n++;
		} while ((secs = now_s() - t0) < 0.05);
		if (size * (double)n / secs / 1e9 > best)
			best = size * (double)n / secs / 1e9;
	}
	free(a);
	free(b);
	return best;
}

static const char *test_name(const struct opts *o)
{
	static const char *const modes[] = { "bw", "lat", "rate", "memcpy" };
	static char name[32];

	if (o->mode == MODE_MEMCPY)
		return "memcpy";
	snprintf(name, sizeof(name), "%s_%s",
		 o->opcode == NPO_OP_READ ? "read" :
		 o->opcode == NPO_OP_SEND ? "send" : "write", modes[o->mode]);
	return name;
}

static int run(const struct opts *o, struct json_object *results)
{
	struct ctx c = { 0 };
	uint32_t size;
	int err = 0;

	if (o->mode != MODE_MEMCPY) {
		err = setup(&c, o);
		if (err) {
			fprintf(stderr, "npo-perf: setup: %s\n", strerror(-err));
			teardown(&c);
			return err;
		}
	}
	if (!o->json && o->mode == MODE_LAT)
		printf("%10s %10s %10s %10s %10s %10s\n", "#bytes", "#iters",
		       "min[us]", "median[us]", "p99[us]", "avg[us]");
	else if (!o->json && o->mode == MODE_MEMCPY)
		printf("%10s %14s\n", "#bytes", "BW[GB/s]");
	else if (!o->json)
		printf("%10s %10s %14s %14s\n", "#bytes", "#iters", "BW[GB/s]",
		       "rate[Mmsg/s]");
	for (size = o->size ? o->size : MIN_SIZE; size <= MAX_SIZE; size *= 2) {
		unsigned int iters = iters_for(o, size);
		struct json_object *r = json_object_new_object();
		double secs;

		json_object_object_add(r, "bytes", json_object_new_int64(size));
		if (o->mode == MODE_MEMCPY) {
			double gbps = memcpy_gbps(size);

			json_object_object_add(r, "bw_gbps", json_object_new_double(gbps));
			if (!o->json)
				printf("%10u %14.2f\n", size, gbps);
		} else if (o->mode == MODE_LAT) {
			double *lat = calloc(iters, sizeof(*lat)), sum = 0;
			unsigned int i;

			err = lat ? run_lat(&c, o, size, iters, lat) : -ENOMEM;
			if (err) {
				free(lat);
				json_object_put(r);
				break;
			}
			for (i = 0; i < iters; i++)
				sum += lat[i];
			json_object_object_add(r, "iterations", json_object_new_int(iters));
			json_object_object_add(r, "lat_min_us", json_object_new_double(lat[0]));
			json_object_object_add(r, "lat_median_us",
					       json_object_new_double(lat[iters / 2]));
			json_object_object_add(r, "lat_p99_us",
					       json_object_new_double(lat[iters * 99 / 100]));
			json_object_object_add(r, "lat_avg_us",
					       json_object_new_double(sum / iters));
			if (!o->json)
				printf("%10u %10u %10.2f %10.2f %10.2f %10.2f\n", size,
				       iters, lat[0], lat[iters / 2],
				       lat[iters * 99 / 100], sum / iters);
			free(lat);
		} else {
			err = run_stream(&c, o, size, iters,
					 o->mode == MODE_RATE ? o->batch : 1, &secs);
			if (err) {
				json_object_put(r);
				break;
			}
			json_object_object_add(r, "iterations", json_object_new_int(iters));
			json_object_object_add(r, "bw_gbps",
					       json_object_new_double(size * (double)iters /
								      secs / 1e9));
			json_object_object_add(r, "msg_rate_mpps",
					       json_object_new_double(iters / secs / 1e6));
			if (!o->json)
				printf("%10u %10u %14.3f %14.3f\n", size, iters,
				       size * (double)iters / secs / 1e9,
				       iters / secs / 1e6);
		}
		json_object_array_add(results, r);
		if (o->size)
			break;
	}
	if (o->mode != MODE_MEMCPY)
		teardown(&c);
	return err;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "remote", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "queues", required_argument, NULL, 'q' },
		{ "depth", required_argument, NULL, 't' },
		{ "batch", required_argument, NULL, 'b' },
		{ "interrupt", no_argument, NULL, 'I' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct opts o = {
		.mode = MODE_BW, .opcode = NPO_OP_WRITE, .local = "npo0",
		.queues = 1, .depth = 64, .batch = 32,
	};
	struct json_object *doc, *results;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "d:r:s:n:q:t:b:Ijph", long_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'd':
			o.local = optarg;
			break;
		case 'r':
			o.remote = optarg;
			break;
		case 's':
			if (parse_size(optarg, &o.size)) {
				fprintf(stderr, "npo-perf: bad size '%s' (1 B to 8 MiB)\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			o.iters = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			o.queues = strtoul(optarg, NULL, 0);
			break;
		case 't':
			o.depth = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			o.batch = strtoul(optarg, NULL, 0);
			break;
		case 'I':
			o.interrupt = true;
			break;
		case 'p':
			o.pretty = true;
			/* fall through */
		case 'j':
			o.json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[optind], "memcpy")) {
		o.mode = MODE_MEMCPY;
	} else if (!strcmp(argv[optind], "write") || !strcmp(argv[optind], "read") ||
		   !strcmp(argv[optind], "send")) {
		o.opcode = argv[optind][0] == 'r' ? NPO_OP_READ :
			   argv[optind][0] == 's' ? NPO_OP_SEND : NPO_OP_WRITE;
		if (optind + 1 < argc) {
			const char *m = argv[optind + 1];

			o.mode = !strcmp(m, "bw") ? MODE_BW : !strcmp(m, "lat") ?
				 MODE_LAT : !strcmp(m, "rate") ? MODE_RATE : -1;
			if ((int)o.mode < 0) {
				fprintf(stderr, "npo-perf: unknown test '%s'\n", m);
				return 2;
			}
		}
	} else {
		fprintf(stderr, "npo-perf: unknown operation '%s'\n", argv[optind]);
		return 2;
	}
	if (!o.queues || o.queues > MAX_QUEUES || !o.depth || o.depth > 256 ||
	    !o.batch || o.batch > 256) {
		fprintf(stderr, "npo-perf: queues 1..%d, depth and batch 1..256\n",
			MAX_QUEUES);
		return 2;
	}
	if (o.mode == MODE_RATE && !o.size)
		o.size = 8;
	if (!o.remote)
		o.remote = o.local;

	doc = json_object_new_object();
	results = json_object_new_array();
	json_object_object_add(doc, "test", json_object_new_string(test_name(&o)));
	if (o.mode != MODE_MEMCPY) {
		json_object_object_add(doc, "device", json_object_new_string(o.local));
		json_object_object_add(doc, "remote", json_object_new_string(o.remote));
		json_object_object_add(doc, "queues", json_object_new_int(o.queues));
		json_object_object_add(doc, "interrupt", json_object_new_boolean(o.interrupt));
	}
	json_object_object_add(doc, "results", results);
	err = run(&o, results);
	if (o.json)
		printf("%s\n", json_object_to_json_string_ext(doc,
			o.pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	return err ? 1 : 0;
}
