// SPDX-License-Identifier: GPL-2.0-only
/*
 * npo-mpi-test: MPI collectives and point-to-point checked against a CPU
 * reference, and timed the way nccl-tests and the OSU benchmarks time
 * them.  Transport-neutral: what carries it is mpirun's choice, which the
 * caller checks.
 *
 *   npo-mpi-test check [MAX_BYTES]   every collective, 8 B .. MAX_BYTES
 *   npo-mpi-test bench [MAX_BYTES]   allreduce table, p2p latency and
 *                                    bandwidth, as JSON lines on rank 0
 *
 * Sizes are those of the buffer each rank ends with (nccl-tests' "size"):
 * an allgather of 64 MiB gathers 64 MiB / n from each rank.  Every rank's
 * element i is a function of (rank, i), so every rank computes what any
 * result must be without a reference buffer.
 */
#include <inttypes.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks;
/* The first wrong element found: what it held and what it should. */
static int64_t bad_got, bad_want;

static int64_t value(int r, size_t i)
{
	return (int64_t)(r + 1) * 1000003 + (int64_t)i * 7;
}

static int64_t sum_of(size_t i)
{
	int64_t s = 0;
	int r;

	for (r = 0; r < nranks; r++)
		s += value(r, i);
	return s;
}

static void *xmalloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (!p) {
		fprintf(stderr, "rank %d: no memory for %zu bytes\n", rank, len);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

/* Whether every rank found its result right; reported by rank 0. */
static bool agree(const char *what, size_t bytes, bool ok, size_t bad_at)
{
	int mine = ok, all = 0;

	if (!ok)
		fprintf(stderr, "rank %d: %s of %zu bytes: element %zu is "
			"%" PRId64 ", not %" PRId64 "\n", rank, what, bytes,
			bad_at, bad_got, bad_want);
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	if (!rank)
		printf("%s %s %zu bytes on %d ranks\n", all ? "ok" : "not ok",
		       what, bytes, nranks);
	fflush(stdout);
	return all;
}

/* One size of every collective; false if any result was wrong. */
static bool check_size(size_t bytes)
{
	size_t count = bytes / sizeof(int64_t), chunk = count / nranks, i;
	int64_t *in, *out;
	bool ok, all = true;
	size_t bad = 0;
	int r;

	in = xmalloc(count * sizeof(int64_t));
	out = xmalloc(count * sizeof(int64_t));

	/* Allreduce: every element summed over the ranks. */
	for (i = 0; i < count; i++)
		in[i] = value(rank, i);
	memset(out, 0, count * sizeof(int64_t));
	MPI_Allreduce(in, out, count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	for (ok = true, i = 0; ok && i < count; i++)
		if (out[i] != sum_of(i))
			ok = false, bad = i, bad_got = out[i], bad_want = sum_of(i);
	all &= agree("MPI_Allreduce", bytes, ok, bad);

	/* Bcast from the last rank: everyone ends with its data. */
	for (i = 0; i < count; i++)
		out[i] = rank == nranks - 1 ? value(rank, i) : -1;
	MPI_Bcast(out, count, MPI_INT64_T, nranks - 1, MPI_COMM_WORLD);
	for (ok = true, i = 0; ok && i < count; i++)
		if (out[i] != value(nranks - 1, i))
			ok = false, bad = i, bad_got = out[i],
			bad_want = value(nranks - 1, i);
	all &= agree("MPI_Bcast", bytes, ok, bad);

	if (!chunk)
		goto out;
	/* Allgather: chunk r of the result is rank r's chunk. */
	for (i = 0; i < chunk; i++)
		in[i] = value(rank, i);
	memset(out, 0, count * sizeof(int64_t));
	MPI_Allgather(in, chunk, MPI_INT64_T, out, chunk, MPI_INT64_T,
		      MPI_COMM_WORLD);
	for (ok = true, r = 0; r < nranks; r++)
		for (i = 0; ok && i < chunk; i++)
			if (out[r * chunk + i] != value(r, i))
				ok = false, bad = r * chunk + i,
				bad_got = out[bad], bad_want = value(r, i);
	all &= agree("MPI_Allgather", chunk * nranks * sizeof(int64_t), ok,
		     bad);

	/* Reduce_scatter_block: rank r gets the sums of chunk r. */
	for (i = 0; i < chunk * nranks; i++)
		in[i] = value(rank, i);
	memset(out, 0, chunk * sizeof(int64_t));
	MPI_Reduce_scatter_block(in, out, chunk, MPI_INT64_T, MPI_SUM,
				 MPI_COMM_WORLD);
	for (ok = true, i = 0; ok && i < chunk; i++)
		if (out[i] != sum_of(rank * chunk + i))
			ok = false, bad = i, bad_got = out[i],
			bad_want = sum_of(rank * chunk + i);
	all &= agree("MPI_Reduce_scatter", chunk * nranks * sizeof(int64_t),
		     ok, bad);

	/* Alltoall: chunk r of rank s's result is chunk s of rank r's input. */
	for (i = 0; i < chunk * nranks; i++)
		in[i] = value(rank, i);
	memset(out, 0, chunk * nranks * sizeof(int64_t));
	MPI_Alltoall(in, chunk, MPI_INT64_T, out, chunk, MPI_INT64_T,
		     MPI_COMM_WORLD);
	for (ok = true, r = 0; r < nranks; r++)
		for (i = 0; ok && i < chunk; i++)
			if (out[r * chunk + i] != value(r, rank * chunk + i))
				ok = false, bad = r * chunk + i,
				bad_got = out[bad],
				bad_want = value(r, rank * chunk + i);
	all &= agree("MPI_Alltoall", chunk * nranks * sizeof(int64_t), ok,
		     bad);
out:
	free(in);
	free(out);
	return all;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define RUNS	5

/* Median, min and max of RUNS timings of fn, in seconds, on rank 0. */
static void timed(void (*fn)(void *), void *arg, int iters, double *med,
		  double *lo, double *hi)
{
	double t[RUNS], start;
	int run, i;

	fn(arg);	/* warm up: registrations, first touches */
	for (run = 0; run < RUNS; run++) {
		MPI_Barrier(MPI_COMM_WORLD);
		start = MPI_Wtime();
		for (i = 0; i < iters; i++)
			fn(arg);
		t[run] = (MPI_Wtime() - start) / iters;
		/* The slowest rank's time is the collective's. */
		MPI_Allreduce(MPI_IN_PLACE, &t[run], 1, MPI_DOUBLE, MPI_MAX,
			      MPI_COMM_WORLD);
	}
	qsort(t, RUNS, sizeof(double), compare_double);
	*med = t[RUNS / 2];
	*lo = t[0];
	*hi = t[RUNS - 1];
}

struct ar {
	int64_t *in, *out;
	size_t count;
};

static void allreduce_once(void *arg)
{
	struct ar *a = arg;

	MPI_Allreduce(a->in, a->out, a->count, MPI_INT64_T, MPI_SUM,
		      MPI_COMM_WORLD);
}

struct pp {
	char *buf;
	int len;
};

/* Rank 0 and rank nranks-1 ping-pong; one iteration is a round trip. */
static void pingpong_once(void *arg)
{
	struct pp *p = arg;
	int peer = nranks - 1;

	if (!rank) {
		MPI_Send(p->buf, p->len, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
		MPI_Recv(p->buf, p->len, MPI_CHAR, peer, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	} else if (rank == peer) {
		MPI_Recv(p->buf, p->len, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Send(p->buf, p->len, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
	}
}

/* A window of 16 sends from rank 0 to the last rank, then an ack. */
static void window_once(void *arg)
{
	struct pp *p = arg;
	MPI_Request req[16];
	int peer = nranks - 1, i;
	char ack;

	if (!rank) {
		for (i = 0; i < 16; i++)
			MPI_Isend(p->buf, p->len, MPI_CHAR, peer, 2,
				  MPI_COMM_WORLD, &req[i]);
		MPI_Waitall(16, req, MPI_STATUSES_IGNORE);
		MPI_Recv(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	} else if (rank == peer) {
		for (i = 0; i < 16; i++)
			MPI_Irecv(p->buf, p->len, MPI_CHAR, 0, 2,
				  MPI_COMM_WORLD, &req[i]);
		MPI_Waitall(16, req, MPI_STATUSES_IGNORE);
		MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
	}
}

static void bench(size_t max)
{
	size_t bytes;
	struct ar a;
	struct pp p;
	double med, lo, hi, algbw;

	a.in = xmalloc(max);
	a.out = xmalloc(max);
	memset(a.in, 1, max);
	if (!rank)
		printf("# %10s %12s %10s %10s (allreduce, int64 sum, %d ranks)\n",
		       "size", "time_us", "algbw_GBps", "busbw_GBps", nranks);
	/* 8 B, 32 B, ... times four, and max itself. */
	for (bytes = 8; bytes <= max; bytes = bytes * 4 > max && bytes < max ?
					     max : bytes * 4) {
		a.count = bytes / sizeof(int64_t);
		timed(allreduce_once, &a, bytes < (1 << 20) ? 20 :
		      bytes < (8 << 20) ? 2 : 1, &med, &lo, &hi);
		algbw = bytes / med / 1e9;
		if (!rank)
			printf("{\"op\": \"allreduce\", \"bytes\": %zu, "
			       "\"time_us\": %.3f, \"time_us_min\": %.3f, "
			       "\"time_us_max\": %.3f, \"algbw_GBps\": %.4f, "
			       "\"busbw_GBps\": %.4f}\n", bytes, med * 1e6,
			       lo * 1e6, hi * 1e6, algbw,
			       algbw * 2 * (nranks - 1) / nranks);
	}
	p.buf = xmalloc(4 << 20);
	p.len = 8;
	timed(pingpong_once, &p, 200, &med, &lo, &hi);
	if (!rank)
		printf("{\"op\": \"latency\", \"bytes\": 8, \"time_us\": %.3f, "
		       "\"time_us_min\": %.3f, \"time_us_max\": %.3f}\n",
		       med / 2 * 1e6, lo / 2 * 1e6, hi / 2 * 1e6);
	p.len = 4 << 20;
	timed(window_once, &p, 2, &med, &lo, &hi);
	if (!rank)
		printf("{\"op\": \"bandwidth\", \"bytes\": %d, \"GBps\": %.4f, "
		       "\"GBps_min\": %.4f, \"GBps_max\": %.4f}\n", p.len,
		       16.0 * p.len / med / 1e9, 16.0 * p.len / hi / 1e9,
		       16.0 * p.len / lo / 1e9);
	fflush(stdout);
	free(p.buf);
	free(a.in);
	free(a.out);
}

int main(int argc, char **argv)
{
	size_t max = 64 << 20, bytes;
	bool ok = true;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (argc > 2)
		max = strtoull(argv[2], NULL, 0);
	if (argc < 2 || max < 8 || (strcmp(argv[1], "check") &&
				    strcmp(argv[1], "bench"))) {
		if (!rank)
			fprintf(stderr, "usage: npo-mpi-test check|bench "
				"[MAX_BYTES]\n");
		MPI_Finalize();
		return 2;
	}
	if (!strcmp(argv[1], "bench")) {
		bench(max);
	} else {
		for (bytes = 8; bytes <= max; bytes *= 8)
			ok &= check_size(bytes);
		if (bytes / 8 != max)
			ok &= check_size(max);
	}
	MPI_Finalize();
	return ok ? 0 : 1;
}
