// SPDX-License-Identifier: GPL-2.0-only
/*
 * One end of a data exchange between two hosts that share an NPO link:
 * two QEMU processes in `make check`, two machines on real hardware.
 *
 *   npo_fabric_peer serve [linger]  prints "NPO-PEER-BLOB <hex> END" (its endpoint
 *                                and region) and waits for the other end
 *   npo_fabric_peer join HEX     the other end, given that line's HEX
 *
 * The joining end SENDs its own blob back, then both ends at once WRITE
 * 8 MiB into the other's inbox, READ the other's 8 MiB outbox, run both
 * atomics on the other's words, and check that a bad key, an
 * out-of-bounds READ and a missing queue fail with the status the other
 * end's device gives.  Both ends are in job PEER_JOB; a third handle in
 * another job, holding the other end's real key, tries to WRITE its inbox,
 * READ its outbox and SEND to its queue, and must be refused every time
 * (the job travels with each request).  A WRITE_IMM says "done"; each end
 * then checks what the other wrote, which the intruder must not have
 * touched.  Output is TAP; exit status 0 when all passed.  With linger,
 * the serving end then says "NPO-SERVED <status>" and keeps its region
 * and queue until it is killed, for what follows:
 *
 *   npo_fabric_peer join HEX bench   first measures WRITE into the other
 *                                end's inbox: 8 MiB bandwidth (BENCH_RUNS
 *                                runs) and 8 B latency, one "NPO-XPROC
 *                                {json}" line
 *   npo_fabric_peer flood HEX    WRITEs 8 MiB into the other end's inbox
 *                                without pause, says "NPO-PEER-FLOODING"
 *                                once data flows, and when the other end
 *                                dies (its host is killed) checks that
 *                                every WRITE posted completed exactly once
 *                                and the first failure names the link
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <npo.h>

#include "kselftest.h"

#define PART		(8u << 20)
#define INBOX		0			/* the other end writes here */
#define OUTBOX		PART			/* the other end reads this */
#define SCRATCH		(2 * PART)		/* what we send; our READs land here */
#define WORDS		(3 * PART)		/* the other end's atomics target these */
#define RESULTS		(WORDS + 512)		/* our atomics' original words */
#define BLOBS		(WORDS + 1024)		/* blobs sent and received */
#define BUF_SIZE	(WORDS + 4096)
#define BLOB_LEN	(NPO_ENDPOINT_BLOB_SIZE + NPO_REMOTE_MR_BLOB_SIZE)
#define IMM_DONE	0x0d0e0d0eu
#define WAIT_MS		300000
#define PEER_JOB	4242			/* both ends; needs CAP_NET_ADMIN */
#define INTRUDER_JOB	4243
#define NUM_TESTS	15
#define BENCH_RUNS	5
#define BENCH_WRITES	8			/* 8 MiB WRITEs per bandwidth run */
#define BENCH_LAT_ITERS	2000
#define FLOOD_DEPTH	4			/* WRITEs outstanding */
#define FLOOD_WAIT_MS	120000			/* for the other end to die */

struct peer {
	struct npo_endpoint ep;
	struct npo_remote_mr mr;
};

struct end {
	struct npo_device *dev;
	struct npo_queue *q;
	struct npo_mr *mr;
	uint8_t *buf;
	uint32_t node;
	bool peer_done;		/* the other end's IMM_DONE arrived */
	struct npo_cqe last;	/* the completion wait_for() returned */
};

/* Byte i of node's outbox, and of what node writes into its peer's inbox. */
static uint8_t outbox_byte(uint32_t node, size_t i)
{
	return (uint8_t)(i * 131 + node * 7 + (i >> 12));
}

static uint8_t inbox_byte(uint32_t node, size_t i)
{
	return (uint8_t)(i * 17 + node * 29 + (i >> 16));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int end_open(struct end *e, struct npo_queue **q)
{
	struct npo_queue_attr attr = { .sq_entries = 64, .rq_entries = 4 };
	struct npo_device_attr info;

	if (!e->dev) {
		e->dev = npo_open_device("npo0");
		if (!e->dev || npo_query_device(e->dev, &info) ||
		    npo_device_set_job(e->dev, PEER_JOB))
			return -1;
		e->node = info.node_id;
	}
	return npo_create_queue(e->dev, &attr, q);
}

/*
 * Wait for the completion of wr_id on q, noting the other end's "done"
 * immediate on the way, since it may come at any time.  Its status, or -1
 * when nothing came.  wr_id 0 waits for "done" alone.
 */
static int wait_for(struct end *e, struct npo_queue *q, uint64_t wr_id)
{
	struct npo_cqe *cqe;
	char why[256];

	for (;;) {
		if (npo_wait_cqe(q, &cqe, WAIT_MS)) {
			ksft_print_msg("no completion for request %llu\n",
				       (unsigned long long)wr_id);
			return -1;
		}
		e->last = *cqe;
		npo_cq_advance(q, 1);
		if (e->last.opcode == NPO_OP_RECV_IMM &&
		    e->last.imm == IMM_DONE) {
			e->peer_done = true;
			if (!wr_id)
				return 0;
			continue;
		}
		if (e->last.wr_id != wr_id) {
			ksft_print_msg("unexpected completion %llu\n",
				       (unsigned long long)e->last.wr_id);
			return -1;
		}
		if (e->last.status)
			ksft_print_msg("%s\n",
				       npo_cqe_describe(q, &e->last, why,
							sizeof(why)));
		return e->last.status;
	}
}

/* Post one descriptor, prepared by the caller, and wait for it. */
static struct npo_sqe *sqe_of(struct npo_queue *q)
{
	struct npo_sqe *sqe = npo_get_sqe(q);

	if (!sqe)
		ksft_exit_fail_msg("submission ring full\n");
	return sqe;
}

static int run_one(struct end *e, struct npo_queue *q, uint64_t wr_id)
{
	npo_submit(q);
	return wait_for(e, q, wr_id);
}

static void blob_pack(struct end *e, uint8_t *blob)
{
	if (npo_endpoint_pack(e->q, blob, NPO_ENDPOINT_BLOB_SIZE) < 0 ||
	    npo_mr_pack_remote(e->mr, blob + NPO_ENDPOINT_BLOB_SIZE,
			       NPO_REMOTE_MR_BLOB_SIZE) < 0)
		ksft_exit_fail_msg("cannot pack the blobs\n");
}

static int blob_unpack(const uint8_t *blob, struct peer *p)
{
	if (npo_endpoint_unpack(blob, NPO_ENDPOINT_BLOB_SIZE, &p->ep) < 0 ||
	    npo_mr_unpack_remote(blob + NPO_ENDPOINT_BLOB_SIZE,
				 NPO_REMOTE_MR_BLOB_SIZE, &p->mr) < 0)
		return -1;
	return 0;
}

/* The other end, from the hex its "NPO-PEER-BLOB" line printed. */
static void peer_from_hex(const char *hex, struct peer *p)
{
	uint8_t theirs[BLOB_LEN];
	int i;

	for (i = 0; i < BLOB_LEN; i++)
		if (strlen(hex) != 2 * BLOB_LEN ||
		    sscanf(hex + 2 * i, "%2hhx", &theirs[i]) != 1)
			ksft_exit_fail_msg("bad blob \"%s\"\n", hex);
	if (blob_unpack(theirs, p))
		ksft_exit_fail_msg("the blob is not an NPO blob\n");
}

/* A descriptor that must fail, on a queue of its own: errors end queues. */
static void expect_failure(struct end *e, const struct peer *p, uint8_t op,
			   uint64_t key, uint64_t off, uint32_t len,
			   uint16_t dest_queue, uint32_t want, const char *what)
{
	struct npo_queue *q;
	struct npo_sqe *sqe;
	int st;

	if (end_open(e, &q)) {
		ksft_test_result_fail("%s: no queue\n", what);
		return;
	}
	sqe = sqe_of(q);
	npo_prep_rdma(sqe, op, 1, npo_mr_lkey(e->mr), e->buf + SCRATCH, len,
		      p->ep.node_id, key, p->mr.addr + off);
	sqe->dest_queue = dest_queue;
	st = run_one(e, q, 1);
	ksft_test_result(st == (int)want, "%s: %s (want %s)\n", what,
			 st < 0 ? "nothing" : npo_status_str(st),
			 npo_status_str(want));
	npo_destroy_queue(q);
}

/*
 * A process of another job on this host that learnt the other end's blob
 * (key, addresses, queue): the other end's device must refuse it all.
 */
static void intrude(struct end *e, const struct peer *p)
{
	static const struct {
		uint8_t op;
		uint64_t off;
		uint16_t queue;
		uint32_t want;
		const char *what;
	} tries[] = {
		{ NPO_OP_WRITE, INBOX, 0, NPO_STATUS_REMOTE_ACCESS,
		  "another job's WRITE with the real key" },
		{ NPO_OP_READ, OUTBOX, 0, NPO_STATUS_REMOTE_ACCESS,
		  "another job's READ with the real key" },
		{ NPO_OP_SEND, 0, 0xffff, NPO_STATUS_REMOTE_QUEUE,
		  "another job's SEND to the real queue" },
	};
	struct end x = { .buf = e->buf };
	struct npo_queue_attr attr = { .sq_entries = 8 };
	struct npo_queue *q;
	unsigned int i;
	int st;

	x.dev = npo_open_device("npo0");
	if (!x.dev || npo_device_set_job(x.dev, INTRUDER_JOB) ||
	    npo_reg_mr(x.dev, e->buf + SCRATCH, 4096, NPO_ACCESS_ALL, &x.mr))
		ksft_exit_fail_msg("cannot open a handle in another job\n");
	/* What it would write, were it let in: not the other end's pattern. */
	memset(e->buf + SCRATCH, 0xee, 4096);
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		struct npo_sqe *sqe;

		if (npo_create_queue(x.dev, &attr, &q))
			ksft_exit_fail_msg("no queue for the intruder\n");
		sqe = sqe_of(q);
		npo_prep_rdma(sqe, tries[i].op, 1, npo_mr_lkey(x.mr),
			      e->buf + SCRATCH, 4096, p->ep.node_id,
			      p->mr.rkey, p->mr.addr + tries[i].off);
		sqe->dest_queue = tries[i].queue == 0xffff ? p->ep.queue_id : 0;
		st = run_one(&x, q, 1);
		ksft_test_result(st == (int)tries[i].want, "%s: %s\n",
				 tries[i].what,
				 st < 0 ? "nothing" : npo_status_str(st));
		npo_destroy_queue(q);
	}
	npo_dereg_mr(x.mr);
	npo_close_device(x.dev);
}

static void exercise(struct end *e, const struct peer *p)
{
	uint64_t *res = (uint64_t *)(e->buf + RESULTS);
	uint32_t key = npo_mr_lkey(e->mr), n = p->ep.node_id;
	bool same = true;
	double t;
	size_t i;
	int st;

	for (i = 0; i < PART; i++)
		e->buf[SCRATCH + i] = inbox_byte(e->node, i);
	t = now_s();
	npo_prep_write(sqe_of(e->q), 10, key, e->buf + SCRATCH, PART, n,
		       p->mr.rkey, p->mr.addr + INBOX);
	st = run_one(e, e->q, 10);
	t = now_s() - t;
	ksft_test_result(st == 0, "WRITE 8 MiB into node %u's inbox: %s\n", n,
			 st < 0 ? "nothing" : npo_status_str(st));
	ksft_print_msg("8 MiB WRITE to the other process: %.3f GB/s\n",
		       PART / t / 1e9);

	memset(e->buf + SCRATCH, 0, PART);
	npo_prep_read(sqe_of(e->q), 11, key, e->buf + SCRATCH, PART, n,
		      p->mr.rkey, p->mr.addr + OUTBOX);
	st = run_one(e, e->q, 11);
	for (i = 0; i < PART && same; i++)
		same = e->buf[SCRATCH + i] == outbox_byte(n, i);
	ksft_test_result(st == 0 && same,
			 "READ 8 MiB of node %u's outbox: %s, %s\n", n,
			 st < 0 ? "nothing" : npo_status_str(st),
			 same ? "every byte right" : "bytes differ");

	same = true;
	for (i = 0; i < 3; i++) {
		npo_prep_fetch_add(sqe_of(e->q), 20 + i, key, &res[i], n,
				   p->mr.rkey, p->mr.addr + WORDS, e->node);
		st = run_one(e, e->q, 20 + i);
		same = same && st == 0 && res[i] == i * e->node;
	}
	ksft_test_result(same, "FETCH_ADD x3 on node %u returns the sums\n", n);

	npo_prep_cmp_swap(sqe_of(e->q), 30, key, &res[3], n, p->mr.rkey,
			  p->mr.addr + WORDS + 8, 0, e->node);
	st = run_one(e, e->q, 30);
	npo_prep_cmp_swap(sqe_of(e->q), 31, key, &res[4], n, p->mr.rkey,
			  p->mr.addr + WORDS + 8, 0, 99);
	st |= run_one(e, e->q, 31);
	ksft_test_result(st == 0 && res[3] == 0 && res[4] == e->node,
			 "CMP_SWAP on node %u swaps once\n", n);

	expect_failure(e, p, NPO_OP_WRITE, p->mr.rkey ^ 0x10000, INBOX, 64, 0,
		       NPO_STATUS_REMOTE_ACCESS, "WRITE with a wrong key");
	expect_failure(e, p, NPO_OP_READ, p->mr.rkey, BUF_SIZE - 64, 128, 0,
		       NPO_STATUS_REMOTE_ACCESS, "READ past the region");
	expect_failure(e, p, NPO_OP_SEND, 0, 0, 64, 1000,
		       NPO_STATUS_REMOTE_QUEUE, "SEND to a queue that is not");

	intrude(e, p);

	npo_prep_write_imm(sqe_of(e->q), 40, key, e->buf, 0, n, p->ep.queue_id,
			   p->mr.rkey, p->mr.addr, IMM_DONE);
	st = run_one(e, e->q, 40);
	ksft_test_result(st == 0, "WRITE_IMM \"done\" to node %u\n", n);
}

/* After the other end's "done": what it wrote is all there. */
static void check_inbox(struct end *e, const struct peer *p)
{
	uint64_t *words = (uint64_t *)(e->buf + WORDS);
	uint32_t n = p->ep.node_id;
	bool same = true;
	size_t i;

	if (!e->peer_done)
		wait_for(e, e->q, 0);
	ksft_test_result(e->peer_done, "node %u said done\n", n);
	for (i = 0; i < PART && same; i++)
		same = e->buf[INBOX + i] == inbox_byte(n, i);
	ksft_test_result(same, "node %u's 8 MiB arrived intact\n", n);
	ksft_test_result(words[0] == 3ull * n && words[1] == n,
			 "node %u's atomics left %llu and %llu\n", n,
			 (unsigned long long)words[0],
			 (unsigned long long)words[1]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* BENCH_RUNS runs of BENCH_WRITES x 8 MiB on q, sorted; 0 or a status. */
static int bench_bw(struct end *e, const struct peer *p, struct npo_queue *q,
		    double *bw)
{
	uint32_t key = npo_mr_lkey(e->mr), n = p->ep.node_id;
	int run, i, st = 0;
	double t;

	for (run = 0; run < BENCH_RUNS && !st; run++) {
		t = now_s();
		for (i = 0; i < BENCH_WRITES; i++)
			npo_prep_write(sqe_of(q), 100 + i, key,
				       e->buf + SCRATCH, PART, n, p->mr.rkey,
				       p->mr.addr + INBOX);
		npo_submit(q);
		for (i = 0; i < BENCH_WRITES && !st; i++)
			st = wait_for(e, q, 100 + i);
		bw[run] = (double)BENCH_WRITES * PART / (now_s() - t) / 1e9;
	}
	qsort(bw, BENCH_RUNS, sizeof(*bw), cmp_double);
	return st;
}

/*
 * WRITE into the other end's inbox, as the transport between two hosts
 * carries it: bandwidth of BENCH_WRITES x 8 MiB per run (the bytes are
 * those exercise() writes, so check_inbox() on the other end still holds),
 * then one 8 B WRITE at a time for latency.  Medians with their spread.
 * Bandwidth twice: polling for completions, which under single-threaded
 * TCG keeps this VM's vCPU busy on one of the host's cores, and sleeping
 * on the completion interrupt, which leaves the host's cores to the two
 * QEMU processes' copies.
 */
static void bench(struct end *e, const struct peer *p)
{
	struct npo_queue_attr attr = { .sq_entries = 64,
				       .flags = NPO_QUEUE_INTERRUPT };
	double bw[BENCH_RUNS], irq[BENCH_RUNS], *lat, t;
	uint32_t key = npo_mr_lkey(e->mr), n = p->ep.node_id;
	struct npo_queue *iq;
	int i, st;
	size_t b;

	lat = calloc(BENCH_LAT_ITERS, sizeof(*lat));
	if (!lat)
		ksft_exit_fail_msg("out of memory\n");
	for (b = 0; b < PART; b++)
		e->buf[SCRATCH + b] = inbox_byte(e->node, b);
	st = bench_bw(e, p, e->q, bw);
	if (!st && npo_create_queue(e->dev, &attr, &iq))
		ksft_exit_fail_msg("no queue with interrupts\n");
	if (!st) {
		st = bench_bw(e, p, iq, irq);
		npo_destroy_queue(iq);
	}
	for (i = 0; i < BENCH_LAT_ITERS && !st; i++) {
		t = now_s();
		npo_prep_write(sqe_of(e->q), 200, key, e->buf + SCRATCH, 8, n,
			       p->mr.rkey, p->mr.addr + INBOX);
		st = run_one(e, e->q, 200);
		lat[i] = (now_s() - t) * 1e6;
	}
	if (st)
		ksft_exit_fail_msg("a benchmark WRITE failed: %d\n", st);
	qsort(lat, BENCH_LAT_ITERS, sizeof(*lat), cmp_double);
	printf("NPO-XPROC {\"write_bw_8MiB_GBps\":%.3f,\"write_bw_8MiB_min\":%.3f,"
	       "\"write_bw_8MiB_max\":%.3f,\"write_bw_8MiB_irq_GBps\":%.3f,"
	       "\"write_bw_8MiB_irq_min\":%.3f,\"write_bw_8MiB_irq_max\":%.3f,"
	       "\"runs\":%d,"
	       "\"write_lat_8B_us\":%.2f,\"write_lat_8B_p99_us\":%.2f,"
	       "\"write_lat_8B_min_us\":%.2f,\"lat_iters\":%d}\n",
	       bw[BENCH_RUNS / 2], bw[0], bw[BENCH_RUNS - 1],
	       irq[BENCH_RUNS / 2], irq[0], irq[BENCH_RUNS - 1], BENCH_RUNS,
	       lat[BENCH_LAT_ITERS / 2], lat[BENCH_LAT_ITERS * 99 / 100],
	       lat[0], BENCH_LAT_ITERS);
	fflush(stdout);
	free(lat);
}

/*
 * Keep FLOOD_DEPTH 8 MiB WRITEs posted until one fails, then account for
 * every one: each completes once, the first failure is LINK_DOWN (the
 * other end's host died under it) and nothing more arrives after.
 */
static int flood(struct end *e, const char *hex)
{
	uint32_t key = npo_mr_lkey(e->mr), first_bad = 0;
	uint64_t posted = 0, done = 0, ok = 0, dup = 0, next = 1;
	bool said = false;
	struct npo_cqe *cqe;
	struct peer p;

	peer_from_hex(hex, &p);
	ksft_set_plan(3);
	for (;;) {
		while (!first_bad && posted - done < FLOOD_DEPTH) {
			npo_prep_write(sqe_of(e->q), ++posted, key,
				       e->buf + SCRATCH, PART, p.ep.node_id,
				       p.mr.rkey, p.mr.addr + INBOX);
			npo_submit(e->q);
		}
		if (done == posted)
			break;
		if (npo_wait_cqe(e->q, &cqe, FLOOD_WAIT_MS))
			break;
		/* In order, each once: the queue completes in order. */
		if (cqe->wr_id != next)
			dup++;
		next = cqe->wr_id + 1;
		done++;
		if (!cqe->status)
			ok++;
		else if (!first_bad)
			first_bad = cqe->status;
		npo_cq_advance(e->q, 1);
		if (ok == 1 && !said) {
			printf("NPO-PEER-FLOODING\n");
			fflush(stdout);
			said = true;
		}
	}
	ksft_print_msg("%llu WRITEs posted, %llu completed (%llu OK)\n",
		       (unsigned long long)posted, (unsigned long long)done,
		       (unsigned long long)ok);
	ksft_test_result(ok > 0 && first_bad == NPO_STATUS_LINK_DOWN,
			 "data flowed, then the first failure was %s\n",
			 first_bad ? npo_status_str(first_bad) : "none");
	ksft_test_result(done == posted && !dup,
			 "every WRITE posted completed once, in order\n");
	ksft_test_result(npo_wait_cqe(e->q, &cqe, 1000) != 0,
			 "nothing completes after the last\n");
	return ksft_get_fail_cnt() ? 1 : 0;
}

static void setup(struct end *e)
{
	void *m;
	size_t i;

	if (end_open(e, &e->q))
		ksft_exit_skip("no NPO device with queues\n");
	m = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	e->buf = m;
	for (i = 0; i < PART; i++)
		e->buf[OUTBOX + i] = outbox_byte(e->node, i);
	if (npo_reg_mr(e->dev, e->buf, BUF_SIZE, NPO_ACCESS_ALL, &e->mr))
		ksft_exit_fail_msg("cannot register memory\n");
}

static int serve(struct end *e)
{
	uint8_t *blob = e->buf + BLOBS, *in = blob + 64;
	struct peer p;
	int i;

	blob_pack(e, blob);
	if (npo_post_recv(e->q, 1, npo_mr_lkey(e->mr), in, 64))
		ksft_exit_fail_msg("cannot post a receive\n");
	printf("NPO-PEER-BLOB ");
	for (i = 0; i < BLOB_LEN; i++)
		printf("%02x", blob[i]);
	printf(" END\n");
	fflush(stdout);

	ksft_set_plan(NUM_TESTS);
	if (wait_for(e, e->q, 1) || e->last.length != BLOB_LEN ||
	    blob_unpack(in, &p))
		ksft_exit_fail_msg("no blob from the other end\n");
	ksft_test_result(e->last.peer_node == p.ep.node_id &&
			 e->last.peer_queue == p.ep.queue_id,
			 "SEND from node %u queue %u names its origin\n",
			 p.ep.node_id, p.ep.queue_id);
	exercise(e, &p);
	check_inbox(e, &p);
	return ksft_get_fail_cnt() ? 1 : 0;
}

static int join(struct end *e, const char *hex, bool measure)
{
	uint8_t *blob = e->buf + BLOBS;
	struct peer p;
	int st;

	peer_from_hex(hex, &p);
	if (measure)
		bench(e, &p);
	ksft_set_plan(NUM_TESTS);
	blob_pack(e, blob);
	npo_prep_send(sqe_of(e->q), 1, npo_mr_lkey(e->mr), blob, BLOB_LEN,
		      p.ep.node_id, p.ep.queue_id);
	st = run_one(e, e->q, 1);
	ksft_test_result(st == 0, "SEND our blob to node %u queue %u\n",
			 p.ep.node_id, p.ep.queue_id);
	if (st)
		ksft_exit_fail();
	exercise(e, &p);
	check_inbox(e, &p);
	return ksft_get_fail_cnt() ? 1 : 0;
}

int main(int argc, char **argv)
{
	bool measure = argc == 4 && !strcmp(argv[3], "bench");
	bool linger = argc == 3 && !strcmp(argv[2], "linger");
	struct end e = { 0 };
	int rc;

	if (argc < 2 ||
	    !(!strcmp(argv[1], "serve") ? argc == 2 || linger :
	      !strcmp(argv[1], "join") ? argc == 3 || measure :
	      !strcmp(argv[1], "flood") && argc == 3)) {
		fprintf(stderr, "usage: npo_fabric_peer serve [linger] | "
			"join HEX [bench] | flood HEX\n");
		return 2;
	}
	ksft_print_header();
	setup(&e);
	if (!strcmp(argv[1], "serve")) {
		rc = serve(&e);
		if (linger) {
			printf("NPO-SERVED %d\n", rc);
			fflush(stdout);
			for (;;)
				pause();
		}
	} else if (!strcmp(argv[1], "join")) {
		rc = join(&e, argv[2], measure);
	} else {
		rc = flood(&e, argv[2]);
	}
	npo_dereg_mr(e.mr);
	npo_destroy_queue(e.q);
	npo_close_device(e.dev);
	return rc;
}
