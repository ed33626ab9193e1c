// SPDX-License-Identifier: GPL-2.0-only
/*
 * npo-perf: bandwidth, latency and message rate of NPO DMA queues, in
 * the spirit of perftest's ib_write_bw and ib_write_lat.
 *
 * In one process (the default) the local device posts, and the remote
 * device (another NPO device linked to it, or the same one for loopback)
 * only owns the target memory, as the passive side of a one-sided test.
 *
 * In two processes (--server, --client HOST), as perftest runs, they
 * exchange their queue and region blobs over TCP (oob.c): bandwidth is
 * the client writing into the server's memory with a window of writes in
 * flight, the server checking the data after each size; latency is a
 * ping-pong, each side writing into the other's memory and polling for
 * it, reported as half the round trip as ib_write_lat does.
 *
 * Every WRITE and READ is checked, not only the last of a size: message n
 * goes to slot n % slots of the buffers (as many slots of the size as two
 * of the largest fit, at most the depth), carries n + 1 in its first and
 * last 8 bytes, and is checked there when it completes, before its slot
 * is used again; after a size, every slot is checked whole.  Two
 * processes check the last message of each slot, in the server's memory.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <npo.h>

#include "oob.h"

#define MAX_QUEUES	64
#define MIN_SIZE	8
#define MAX_SIZE	(8u << 20)
/* memcpy alone goes beyond, to sizes no cache holds. */
#define MAX_MEMCPY_SIZE	(1u << 30)
/* Each buffer: two messages of the largest size, more of smaller ones. */
#define BUF_SIZE	(2 * MAX_SIZE)
#define MAX_DEPTH	256
/* --span: messages through buffers larger than any cache, one process. */
#define MAX_SLOTS	4096
/* Two processes share this job unless told otherwise ("NP"). */
#define DEFAULT_JOB	0x4e50
/* A ping-pong peer silent this long has stopped. */
#define PEER_TIMEOUT_S	10

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
	/* Two processes: this one serves (server) or connects to client. */
	bool server;
	const char *client;
	const char *bind_addr;
	uint16_t port;
	uint32_t job;
	size_t span;		/* bytes of each buffer; 0: BUF_SIZE */
};

struct ctx {
	struct npo_device *ldev, *rdev;
	struct npo_queue *q[MAX_QUEUES];
	struct npo_queue *rq;		/* send: the receiving queue */
	struct npo_mr *lmr, *rmr;
	uint8_t *lbuf, *rbuf;
	size_t buf_size;
	/* Where messages go: the remote device's region or the peer's. */
	uint32_t dest_node;
	uint16_t dest_queue;
	uint64_t rkey, raddr;
	int oob;			/* two processes: the TCP channel, else -1 */
	/* The size running: message n uses slot n % slots. */
	uint32_t size;
	unsigned int slots;
	bool stamps;			/* each message numbered in its slot */
	bool check_each;		/* and checked there as it completes */
	bool slot_busy[MAX_SLOTS];
	uint64_t bad_messages;
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
		"  -s, --size BYTES      one message size (K/M/G suffixes); default\n"
		"                        every power of two from 8 B to 8 MiB\n"
		"                        (memcpy: up to 1 GiB)\n"
		"  -n, --iters N         messages per size (default: by size)\n"
		"  -q, --queues N        queues to spread over (bw, rate; max %d)\n"
		"  -t, --depth N         outstanding messages per queue (bw)\n"
		"  -b, --batch N         messages per doorbell (rate, default 32)\n"
		"  -w, --span BYTES      messages of a size go through buffers this\n"
		"                        large (up to 1 GiB; one process only)\n"
		"  -I, --interrupt       sleep on completion interrupts, not poll\n"
		"  -j, --json            JSON output; -p pretty-prints it\n"
		"  -S, --server          two processes: wait for a client\n"
		"  -C, --client HOST     two processes: connect to the server\n"
		"  -P, --port N          their TCP port (default %d)\n"
		"  -B, --bind ADDR       the server's address (default all)\n"
		"  -J, --job N           the job both processes join (default 0x%x)\n",
		MAX_QUEUES, OOB_DEFAULT_PORT, DEFAULT_JOB);
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
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (*end || v < 1 || v > MAX_MEMCPY_SIZE)
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

static bool two_processes(const struct opts *o)
{
	return o->server || o->client;
}

/*
 * Distinct source and target contents for each size, so that a message
 * that did not land, landed short or landed shifted shows.
 */
static uint8_t pattern_byte(uint32_t k, uint32_t seed)
{
	return (k * 2654435761u + seed * 40503u) >> 24;
}

#define SEED_SOURCE(size)	((size) * 2 + 1)
#define SEED_TARGET(size)	((size) * 2 + 2)

static void fill(uint8_t *buf, uint32_t size, uint32_t seed)
{
	uint32_t k;

	for (k = 0; k < size; k++)
		buf[k] = pattern_byte(k, seed);
}

/* The first byte that is not the pattern's, or -1. */
static long check(const uint8_t *buf, uint32_t size, uint32_t seed)
{
	uint32_t k;

	for (k = 0; k < size; k++)
		if (buf[k] != pattern_byte(k, seed))
			return k;
	return -1;
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
	if (two_processes(o)) {
		/* The peer's region and queue are reachable from its job only. */
		err = npo_device_set_job(c->ldev, o->job);
		if (err) {
			fprintf(stderr, "npo-perf: join job 0x%x: %s\n", o->job,
				strerror(-err));
			return err;
		}
		c->rdev = c->ldev;
	} else {
		c->rdev = strcmp(o->local, o->remote) ?
			  npo_open_device(o->remote) : c->ldev;
		if (!c->rdev)
			return -errno;
		err = npo_query_device(c->rdev, &ra);
		if (err)
			return err;
		c->dest_node = ra.node_id;
	}
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
	c->buf_size = o->span ? o->span : BUF_SIZE;
	c->lbuf = alloc_buffer(c->buf_size);
	c->rbuf = alloc_buffer(c->buf_size);
	if (!c->lbuf || !c->rbuf)
		return -ENOMEM;
	err = npo_reg_mr(c->ldev, c->lbuf, c->buf_size, NPO_ACCESS_LOCAL_WRITE,
			 &c->lmr);
	if (err)
		return err;
	err = npo_reg_mr(c->rdev, c->rbuf, c->buf_size,
			 NPO_ACCESS_REMOTE_READ | NPO_ACCESS_REMOTE_WRITE |
			 NPO_ACCESS_LOCAL_WRITE, &c->rmr);
	if (err || two_processes(o))
		return err;
	c->rkey = npo_mr_rkey(c->rmr);
	c->raddr = (uintptr_t)c->rbuf;
	c->dest_queue = c->rq ? c->rq->id : 0;
	return 0;
}

/*
 * Two processes: tell the peer where our queue and target memory are,
 * and learn where its are; the client's hello also says what to measure,
 * which the server adopts.
 */
static int exchange(struct ctx *c, struct opts *o)
{
	struct oob_hello mine = {
		.mode = o->mode, .opcode = o->opcode, .size = o->size,
		.iters = o->iters, .depth = o->depth,
	}, theirs;
	struct npo_remote_mr rmr;
	int err;

	err = npo_endpoint_pack(c->q[0], mine.endpoint, sizeof(mine.endpoint));
	if (err >= 0)
		err = npo_mr_pack_remote(c->rmr, mine.region, sizeof(mine.region));
	if (err < 0)
		return err;
	if (o->client) {
		err = oob_send_hello(c->oob, &mine);
		if (!err)
			err = oob_recv_hello(c->oob, &theirs);
	} else {
		err = oob_recv_hello(c->oob, &theirs);
		if (!err)
			err = oob_send_hello(c->oob, &mine);
	}
	if (err)
		return err;
	err = npo_mr_unpack_remote(theirs.region, sizeof(theirs.region), &rmr);
	if (err < 0) {
		fprintf(stderr, "npo-perf: the peer's region: %s\n", strerror(-err));
		return err;
	}
	if (rmr.job != o->job) {
		fprintf(stderr, "npo-perf: the peer is in job 0x%x, this process in 0x%x: it cannot be reached\n",
			rmr.job, o->job);
		return -EACCES;
	}
	if (rmr.length < BUF_SIZE)
		return -EPROTO;
	c->dest_node = rmr.node_id;
	c->rkey = rmr.rkey;
	c->raddr = rmr.addr;
	if (o->server) {
		if (theirs.mode > MODE_RATE || theirs.opcode != NPO_OP_WRITE ||
		    theirs.size > MAX_SIZE || !theirs.depth ||
		    theirs.depth > MAX_DEPTH) {
			fprintf(stderr, "npo-perf: the client asks for a test this server does not run\n");
			return -EPROTO;
		}
		o->mode = theirs.mode;
		o->opcode = theirs.opcode;
		o->size = theirs.size;
		o->iters = theirs.iters;
		o->depth = theirs.depth;
	}
	return 0;
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

	if (c->oob >= 0)
		close(c->oob);
	npo_dereg_mr(c->lmr);
	npo_dereg_mr(c->rmr);
	for (i = 0; i < MAX_QUEUES; i++)
		npo_destroy_queue(c->q[i]);
	npo_destroy_queue(c->rq);
	if (c->rdev != c->ldev)
		npo_close_device(c->rdev);
	npo_close_device(c->ldev);
}

/* Message n's number, n + 1 (never 0), in its first and last 8 bytes. */
static void stamp(uint8_t *p, uint32_t size, uint64_t n)
{
	uint64_t v = n + 1;

	memcpy(p, &v, sizeof(v));
	memcpy(p + size - sizeof(v), &v, sizeof(v));
}

static bool stamped(const uint8_t *p, uint32_t size, uint64_t n)
{
	uint64_t head, tail;

	memcpy(&head, p, sizeof(head));
	memcpy(&tail, p + size - sizeof(tail), sizeof(tail));
	return head == n + 1 && tail == n + 1;
}

/* Where a message lands, and where it comes from. */
static uint8_t *target_of(struct ctx *c, const struct opts *o)
{
	return o->opcode == NPO_OP_READ ? c->lbuf : c->rbuf;
}

static uint8_t *source_of(struct ctx *c, const struct opts *o)
{
	return o->opcode == NPO_OP_READ ? c->rbuf : c->lbuf;
}

/*
 * Post message n of size bytes into its slot.  A SEND lands at the start
 * of the receive buffer; a ping-pong uses the first slot, its stamp the
 * last 8 bytes (run_pingpong()).
 */
static void prep(struct ctx *c, const struct opts *o, struct npo_sqe *sqe,
		 uint64_t n, uint32_t size)
{
	size_t off = (n % c->slots) * size;

	if (c->stamps) {
		stamp(source_of(c, o) + off, size, n);
		c->slot_busy[n % c->slots] = true;
	}
	if (o->opcode == NPO_OP_SEND)
		npo_prep_send(sqe, n, npo_mr_lkey(c->lmr), c->lbuf, size,
			      c->dest_node, c->dest_queue);
	else
		npo_prep_rdma(sqe, o->opcode, n, npo_mr_lkey(c->lmr),
			      c->lbuf + off, size, c->dest_node, c->rkey,
			      c->raddr + off);
}

/* Message n completed well: it must be in its slot, whole. */
static void landed(struct ctx *c, const struct opts *o, uint64_t n)
{
	unsigned int slot = n % c->slots;

	if (!c->stamps)
		return;
	if (c->check_each &&
	    !stamped(target_of(c, o) + (size_t)slot * c->size, c->size, n) &&
	    !c->bad_messages++)
		fprintf(stderr, "npo-perf: %u B: message %llu is not where it was written\n",
			c->size, (unsigned long long)n);
	c->slot_busy[slot] = false;
}

static int reap(struct ctx *c, const struct opts *o, struct npo_queue *q,
		bool block, unsigned int *done)
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
		landed(c, o, cqe->wr_id);
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

			/* A slot is used again once its message was checked. */
			for (k = 0; k < batch && posted[i] < per_q &&
			     posted[i] - done[i] < o->depth &&
			     !c->slot_busy[n % c->slots] &&
			     (sqe = npo_get_sqe(q)); k++, posted[i]++)
				prep(c, o, sqe, n++, size);
			npo_submit(q);
			/* One queue: sleep when nothing more can be posted. */
			err = reap(c, o, q, o->queues == 1 && done[i] < per_q &&
				      (posted[i] - done[i] >= o->depth ||
				       posted[i] == per_q ||
				       c->slot_busy[n % c->slots]), &done[i]);
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
		err = reap(c, o, c->q[0], true, &done);
		if (err)
			return err;
		lat[i] = (now_s() - t0) * 1e6;
	}
	qsort(lat, iters, sizeof(*lat), cmp_double);
	return 0;
}

/*
 * Wait until the peer's message @want lands in the last 8 bytes of our
 * target, reaping our own completions meanwhile.
 */
static int await_peer(struct ctx *c, const struct opts *o, uint32_t size,
		      uint64_t want, unsigned int *done)
{
	const uint64_t *slot = (const uint64_t *)(c->rbuf + size - 8);
	double start = now_s();
	unsigned int spins = 0;
	int err;

	while (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != want) {
		if (++spins % 256)
			continue;
		err = reap(c, o, c->q[0], false, done);
		if (err)
			return err;
		if (now_s() - start > PEER_TIMEOUT_S) {
			fprintf(stderr, "npo-perf: the peer stopped answering at message %llu\n",
				(unsigned long long)want);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/*
 * Ping-pong between the two processes: the client writes message i into
 * the server's memory, the server waits for it and writes i back, the
 * client waits for that.  Half of each round trip goes into @lat (the
 * client's).  The counter is the message's last 8 bytes, which the
 * device writes last.
 */
static int run_pingpong(struct ctx *c, const struct opts *o, uint32_t size,
			unsigned int iters, double *lat)
{
	struct npo_queue *q = c->q[0];
	unsigned int done = 0, i;
	struct npo_sqe *sqe;
	int err;

	for (i = 1; i <= iters; i++) {
		uint64_t stamp = i;
		double t0 = now_s();

		if (o->server) {
			err = await_peer(c, o, size, i, &done);
			if (err)
				return err;
		}
		memcpy(c->lbuf + size - 8, &stamp, sizeof(stamp));
		while (!(sqe = npo_get_sqe(q))) {
			err = reap(c, o, q, true, &done);
			if (err)
				return err;
		}
		prep(c, o, sqe, i, size);
		npo_submit(q);
		if (o->client) {
			err = await_peer(c, o, size, i, &done);
			if (err)
				return err;
			lat[i - 1] = (now_s() - t0) * 1e6 / 2;
		}
	}
	while (done < iters) {
		err = reap(c, o, q, true, &done);
		if (err)
			return err;
	}
	if (lat)
		qsort(lat, iters, sizeof(*lat), cmp_double);
	return 0;
}

/*
 * The slots of a size, whether messages are numbered in them, and whether
 * each is checked as it completes (in this process's own memory only).
 * A ping-pong and a SEND use the start of the buffers.
 */
static void size_slots(struct ctx *c, const struct opts *o, uint32_t size)
{
	bool pingpong = o->mode == MODE_LAT && two_processes(o);

	c->size = size;
	c->slots = c->buf_size / size;
	/*
	 * A span is for its slots to be used; else every queue's window's
	 * worth do, so that slots hold back no message the depth lets go.
	 */
	if (!o->span && c->slots > o->depth * o->queues)
		c->slots = o->depth * o->queues;
	if (c->slots > MAX_SLOTS)
		c->slots = MAX_SLOTS;
	if (pingpong || o->opcode == NPO_OP_SEND)
		c->slots = 1;
	/* A number takes 8 bytes: smaller messages are checked per size. */
	c->stamps = !pingpong && o->opcode != NPO_OP_SEND && size >= 8;
	c->check_each = c->stamps && c->oob < 0;
	memset(c->slot_busy, 0, sizeof(c->slot_busy));
	c->bad_messages = 0;
}

/* Each slot's pattern, where messages come from or land. */
static void fill_slots(uint8_t *buf, struct ctx *c, uint32_t seed)
{
	unsigned int i;

	for (i = 0; i < c->slots; i++)
		fill(buf + (size_t)i * c->size, c->size, seed);
}

/*
 * After iters messages, each slot used holds the last message that went
 * there, whole: its number at both ends, the source's pattern between.
 * The offset of the first wrong byte, or -1.
 */
static long check_slots(const uint8_t *buf, struct ctx *c, unsigned int iters)
{
	uint32_t size = c->size, k;
	/* The source's pattern: between the numbers, or all of it. */
	uint32_t from = c->stamps ? 8 : 0, to = c->stamps ? size - 8 : size;
	unsigned int i;

	for (i = 0; i < c->slots && i < iters; i++) {
		const uint8_t *p = buf + (size_t)i * size;
		uint64_t last = i + (uint64_t)(iters - 1 - i) / c->slots * c->slots;

		if (c->stamps && !stamped(p, size, last))
			return (long)i * size;
		for (k = from; k < to; k++)
			if (p[k] != pattern_byte(k, SEED_SOURCE(size)))
				return (long)i * size + k;
	}
	return -1;
}

/*
 * The server's side of two processes: for each size the client starts,
 * prepare the target, answer the ping-pong or wait for the writes, and
 * check that what arrived is what the client sent.
 */
static int serve(struct ctx *c, const struct opts *o, unsigned int *sizes)
{
	struct oob_step st;
	long bad;
	int err;

	for (;;) {
		err = oob_expect(c->oob, 0, &st);
		if (err || st.cmd == OOB_BYE)
			return err;
		if (st.cmd != OOB_START || st.size < MIN_SIZE ||
		    st.size > MAX_SIZE || !st.iters)
			return -EPROTO;
		size_slots(c, o, st.size);
		if (o->mode == MODE_LAT) {
			memset(c->rbuf, 0, st.size);
			fill(c->lbuf, st.size, SEED_SOURCE(st.size));
		} else {
			fill_slots(c->rbuf, c, SEED_TARGET(st.size));
		}
		err = oob_step(c->oob, OOB_READY, st.size, st.iters, 0);
		if (!err && o->mode == MODE_LAT)
			err = run_pingpong(c, o, st.size, st.iters, NULL);
		if (!err)
			err = oob_expect(c->oob, OOB_DONE, &st);
		if (err)
			return err;
		/* The client says how many messages it wrote. */
		if (o->mode != MODE_LAT && !st.iters)
			return -EPROTO;
		bad = o->mode == MODE_LAT ? -1 : check_slots(c->rbuf, c, st.iters);
		err = oob_step(c->oob, bad < 0 ? OOB_OK : OOB_BAD, st.size,
			       st.iters, bad < 0 ? 0 : bad);
		if (err)
			return err;
		(*sizes)++;
	}
}

/* Messages a size posts: run_stream() gives each queue its share. */
static unsigned int messages_of(const struct opts *o, unsigned int iters)
{
	if (o->mode == MODE_LAT)
		return iters;
	return (iters + o->queues - 1) / o->queues * o->queues;
}

/*
 * Before a size: each slot of the source holds its pattern and each of
 * the target another, so that the checks prove the messages landed; two
 * processes start the size together.
 */
static int size_begin(struct ctx *c, const struct opts *o, uint32_t size,
		      unsigned int iters)
{
	struct oob_step st;
	int err;

	size_slots(c, o, size);
	if (o->mode == MODE_LAT && c->oob >= 0) {
		memset(c->rbuf, 0, size);
		fill(c->lbuf, size, SEED_SOURCE(size));
	} else {
		fill_slots(source_of(c, o), c, SEED_SOURCE(size));
		if (c->oob < 0)
			fill_slots(target_of(c, o), c, SEED_TARGET(size));
	}
	if (c->oob < 0)
		return 0;
	err = oob_step(c->oob, OOB_START, size, iters, 0);
	return err ? err : oob_expect(c->oob, OOB_READY, &st);
}

/*
 * After a size: every message was where it was written as it completed,
 * and every slot holds the last message written there, whole.  Two
 * processes: the server checks its memory, told how many messages came.
 */
static int size_end(struct ctx *c, const struct opts *o, uint32_t size,
		    unsigned int iters)
{
	unsigned int msgs = messages_of(o, iters);
	struct oob_step st;
	long bad;
	int err;

	if (c->oob >= 0) {
		err = oob_step(c->oob, OOB_DONE, size, msgs, 0);
		return err ? err : oob_expect(c->oob, OOB_OK, &st);
	}
	if (c->bad_messages) {
		fprintf(stderr, "npo-perf: %u B: %llu of %u messages were not where they were written\n",
			size, (unsigned long long)c->bad_messages, msgs);
		return -EBADMSG;
	}
	bad = check_slots(target_of(c, o), c, msgs);
	if (bad >= 0) {
		fprintf(stderr, "npo-perf: %u B: wrong data at offset %ld\n",
			size, bad);
		return -EBADMSG;
	}
	return 0;
}

/*
 * The median of five trials of at least 50 ms each, in buffers allocated
 * as the DMA tests' are (2 MiB aligned, huge pages where allowed): the
 * ceiling a DMA figure is compared with must be of the same memory kind,
 * and with distinct contents, so that no copy is of a page to itself.
 */
static double memcpy_gbps(uint32_t size)
{
	uint8_t *a = alloc_buffer(size), *b = alloc_buffer(size);
	double gbps[5];
	bool bad;
	int trial;

	if (!a || !b)
		return 0;
	fill(a, size, SEED_SOURCE(size));
	fill(b, size, SEED_TARGET(size));
	for (trial = 0; trial < 5; trial++) {
		double t0 = now_s(), secs;
		uint64_t n = 0;

		do {
			memcpy(b, a, size);
			/* Keep the copy from being optimised away. */
			__asm__ volatile("" : : "r"(b) : "memory");
			n++;
		} while ((secs = now_s() - t0) < 0.05);
		gbps[trial] = size * (double)n / secs / 1e9;
	}
	/* Every size of a run gets its own buffers: give these back. */
	bad = check(b, size, SEED_SOURCE(size)) >= 0;
	munmap(a, size);
	munmap(b, size);
	if (bad)
		return 0;
	qsort(gbps, 5, sizeof(gbps[0]), cmp_double);
	return gbps[2];
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

/* Two processes: set up, reach the peer and exchange; the server serves. */
static int connect_peer(struct ctx *c, struct opts *o, struct json_object *doc)
{
	unsigned int sizes = 0;
	int err;

	c->oob = o->server ? oob_accept(o->bind_addr, o->port) :
			     oob_connect(o->client, o->port, 30);
	if (c->oob < 0)
		return c->oob;
	err = exchange(c, o);
	if (err || o->client)
		return err;
	err = serve(c, o, &sizes);
	if (!err && !o->json)
		printf("npo-perf: served %u sizes of %s, every one verified\n",
		       sizes, test_name(o));
	json_object_object_add(doc, "sizes_served", json_object_new_int(sizes));
	return err;
}

static int run(struct opts *o, struct json_object *doc,
	       struct json_object *results)
{
	struct ctx ctx = { .oob = -1 }, *c = &ctx;
	uint32_t size;
	int err = 0;

	if (o->mode != MODE_MEMCPY) {
		err = setup(c, o);
		if (!err && two_processes(o))
			err = connect_peer(c, o, doc);
		json_object_object_add(doc, "test", json_object_new_string(test_name(o)));
		if (err || o->server) {
			if (err)
				fprintf(stderr, "npo-perf: %s: %s\n",
					o->server ? "serving" : "setup",
					strerror(-err));
			teardown(c);
			return err;
		}
	} else {
		json_object_object_add(doc, "test", json_object_new_string(test_name(o)));
	}
	if (!o->json && o->mode == MODE_LAT)
		printf("%10s %10s %10s %10s %10s %10s\n", "#bytes", "#iters",
		       "min[us]", "median[us]", "p99[us]", "avg[us]");
	else if (!o->json && o->mode == MODE_MEMCPY)
		printf("%10s %14s\n", "#bytes", "BW[GB/s]");
	else if (!o->json)
		printf("%10s %10s %14s %14s\n", "#bytes", "#iters", "BW[GB/s]",
		       "rate[Mmsg/s]");
	for (size = o->size ? o->size : MIN_SIZE;
	     size <= (o->size ? o->size : MAX_SIZE); size *= 2) {
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

			err = lat ? size_begin(c, o, size, iters) : -ENOMEM;
			if (!err)
				err = c->oob >= 0 ?
				      run_pingpong(c, o, size, iters, lat) :
				      run_lat(c, o, size, iters, lat);
			if (!err)
				err = size_end(c, o, size, iters);
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
			err = size_begin(c, o, size, iters);
			if (!err)
				err = run_stream(c, o, size, iters,
						 o->mode == MODE_RATE ? o->batch : 1,
						 &secs);
			if (!err)
				err = size_end(c, o, size, iters);
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
	if (err && err != -EIO)
		fprintf(stderr, "npo-perf: %u B: %s\n", size, strerror(-err));
	if (c->oob >= 0 && !err)
		err = oob_step(c->oob, OOB_BYE, 0, 0, 0);
	if (o->mode != MODE_MEMCPY)
		teardown(c);
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
		{ "span", required_argument, NULL, 'w' },
		{ "interrupt", no_argument, NULL, 'I' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "server", no_argument, NULL, 'S' },
		{ "client", required_argument, NULL, 'C' },
		{ "port", required_argument, NULL, 'P' },
		{ "bind", required_argument, NULL, 'B' },
		{ "job", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct opts o = {
		.mode = MODE_BW, .opcode = NPO_OP_WRITE, .local = "npo0",
		.queues = 1, .depth = 64, .batch = 32,
		.port = OOB_DEFAULT_PORT, .job = DEFAULT_JOB,
	};
	unsigned long v;
	char *end;
	struct json_object *doc, *results;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "d:r:s:n:q:t:b:w:IjpSC:P:B:J:h",
				  long_opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			o.local = optarg;
			break;
		case 'r':
			o.remote = optarg;
			break;
		case 's':
			if (parse_size(optarg, &o.size)) {
				fprintf(stderr, "npo-perf: bad size '%s' (1 B to 8 MiB, to 1 GiB for memcpy)\n",
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
		case 'w': {
			uint32_t span;

			if (parse_size(optarg, &span) || span < BUF_SIZE) {
				fprintf(stderr, "npo-perf: bad span '%s' (16 MiB to 1 GiB)\n",
					optarg);
				return 2;
			}
			o.span = span;
			break;
		}
		case 'I':
			o.interrupt = true;
			break;
		case 'p':
			o.pretty = true;
			/* fall through */
		case 'j':
			o.json = true;
			break;
		case 'S':
			o.server = true;
			break;
		case 'C':
			o.client = optarg;
			break;
		case 'B':
			o.bind_addr = optarg;
			break;
		case 'P':
		case 'J':
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || !v || (opt == 'P' && v > 65535) ||
			    v > UINT32_MAX) {
				fprintf(stderr, "npo-perf: bad %s '%s'\n",
					opt == 'P' ? "port" : "job", optarg);
				return 2;
			}
			if (opt == 'P')
				o.port = v;
			else
				o.job = v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (o.server && o.client) {
		fprintf(stderr, "npo-perf: --server or --client, not both\n");
		return 2;
	}
	if (o.span && (o.server || o.client)) {
		fprintf(stderr, "npo-perf: --span is for one process\n");
		return 2;
	}
	/* The server runs what its client asks for. */
	if (optind >= argc && !o.server) {
		usage(stderr);
		return 2;
	}
	if (optind >= argc)
		goto parsed;
	if (o.size > MAX_SIZE && strcmp(argv[optind], "memcpy")) {
		fprintf(stderr, "npo-perf: a message is at most 8 MiB\n");
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
	if (o.client && (o.opcode != NPO_OP_WRITE || o.mode == MODE_MEMCPY)) {
		fprintf(stderr, "npo-perf: two processes measure write bw, lat and rate\n");
		return 2;
	}
	if (o.client && o.size && o.size < MIN_SIZE) {
		fprintf(stderr, "npo-perf: two processes send at least %d B\n",
			MIN_SIZE);
		return 2;
	}
parsed:
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
	if (o.mode != MODE_MEMCPY) {
		json_object_object_add(doc, "device", json_object_new_string(o.local));
		if (two_processes(&o))
			json_object_object_add(doc, "peer", json_object_new_string(
					       o.server ? "client" : o.client));
		else
			json_object_object_add(doc, "remote",
					       json_object_new_string(o.remote));
		json_object_object_add(doc, "processes",
				       json_object_new_int(two_processes(&o) ? 2 : 1));
		json_object_object_add(doc, "queues", json_object_new_int(o.queues));
		json_object_object_add(doc, "interrupt", json_object_new_boolean(o.interrupt));
		/* Ping-pong latency is half a round trip, as ib_write_lat's. */
		if (o.mode == MODE_LAT)
			json_object_object_add(doc, "half_round_trip",
					       json_object_new_boolean(two_processes(&o)));
	}
	json_object_object_add(doc, "results", results);
	err = run(&o, doc, results);
	if (o.json)
		printf("%s\n", json_object_to_json_string_ext(doc,
			o.pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	return err ? 1 : 0;
}
