// SPDX-License-Identifier: GPL-2.0-only
/*
 * Jobs keep tenants apart, as a hostile tenant would try them: a process
 * of another job that knows the key layout, the victim's addresses and
 * even its real keys reaches nothing, on the victim's device or across a
 * link; guessing keys for a bounded time finds nothing, even within the
 * job; the guesser is throttled and named to the administrator; and the
 * victim's own transfers, and a peer of its job, carry on unharmed.  Only
 * a privileged launcher assigns jobs.
 *
 * Attackers run as nobody, on device files a launcher (this test, as
 * root) opened and put in their job, as a workload manager would.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <npo.h>

#include "kselftest_harness.h"
#include "npo_nl_lib.h"
#include "npo_test_lib.h"

#define VICTIM_JOB	1001
#define ATTACK_JOB	1002
#define REGION_SIZE	(1u << 20)
#define SECRET		0		/* offset of what nobody may touch */
#define WORK		(REGION_SIZE / 2) /* the victim's own traffic */
#define GUESS_SECONDS	8
#define NOBODY		65534

/* One side of the victim: a device, a queue and a region in VICTIM_JOB. */
struct side {
	struct npo_device *dev;
	struct npo_queue *q;
	struct npo_mr *mr;
	uint8_t *buf;
	uint8_t *copy;		/* the secret as it must stay */
	uint32_t node;
};

FIXTURE(job) {
	struct side v[2];	/* npo0 (node 1) and npo1, its ring neighbour */
};

static uint8_t *alloc_buf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 167 + seed);
}

/* Open a device in a job, as a launcher does before handing it over. */
static struct npo_device *open_in_job(const char *name, uint32_t job)
{
	struct npo_device *dev = npo_open_device(name);

	if (dev && npo_device_set_job(dev, job)) {
		npo_close_device(dev);
		return NULL;
	}
	return dev;
}

static int side_open(struct side *s, const char *name)
{
	struct npo_queue_attr attr = { .sq_entries = 64, .rq_entries = 4 };

	s->dev = open_in_job(name, VICTIM_JOB);
	s->buf = alloc_buf(REGION_SIZE);
	s->copy = alloc_buf(REGION_SIZE);
	if (!s->dev || !s->buf || !s->copy ||
	    npo_create_queue(s->dev, &attr, &s->q) ||
	    npo_reg_mr(s->dev, s->buf, REGION_SIZE, NPO_ACCESS_ALL, &s->mr))
		return -1;
	s->node = s->q->node_id;
	fill(s->buf, REGION_SIZE, s->node);
	memcpy(s->copy, s->buf, REGION_SIZE);
	/* A receive buffer another job's SEND must never fill. */
	return npo_post_recv(s->q, 7, npo_mr_lkey(s->mr), s->buf + SECRET, 4096);
}

FIXTURE_SETUP(job)
{
	memset(self, 0, sizeof(*self));
	if (npo_test_count_devices() < 2)
		SKIP(return, "needs two linked NPO devices");
	if (!npo_test_is_root())
		SKIP(return, "the launcher needs CAP_NET_ADMIN");
	ASSERT_EQ(0, side_open(&self->v[0], "npo0"));
	ASSERT_EQ(0, side_open(&self->v[1], "npo1"));
}

FIXTURE_TEARDOWN(job)
{
	int i;

	for (i = 0; i < 2; i++) {
		npo_dereg_mr(self->v[i].mr);
		npo_destroy_queue(self->v[i].q);
		npo_close_device(self->v[i].dev);
	}
}

/* The victim's secret is as it was, and its queue heard from nobody. */
static void expect_untouched(struct __test_metadata *_metadata, struct side *s)
{
	struct npo_cqe *cqe = npo_peek_cqe(s->q);

	EXPECT_EQ(0, memcmp(s->buf + SECRET, s->copy + SECRET, WORK))
		TH_LOG("node %u: the secret changed", s->node);
	EXPECT_EQ(NULL, cqe) TH_LOG("node %u: a completion, opcode 0x%x from node %u",
				    s->node, cqe->opcode, cqe->peer_node);
	EXPECT_FALSE(npo_queue_in_error(s->q));
}

/* Give up root for nobody, keeping the device files a launcher opened. */
static int drop_to_nobody(void)
{
	struct rlimit lim = { 64 << 20, 64 << 20 };

	if (setrlimit(RLIMIT_MEMLOCK, &lim) || setgroups(0, NULL) ||
	    setgid(NOBODY) || setuid(NOBODY))
		return -1;
	return 0;
}

TEST_F(job, default_job_is_the_process_own)
{
	struct npo_device *a, *b;
	uint32_t ja, jb, jchild;
	int pipefd[2], status;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	a = npo_open_device("npo0");
	b = npo_open_device("npo1");
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, npo_device_job(a, &ja));
	ASSERT_EQ(0, npo_device_job(b, &jb));
	/* Every device this process opens, one job, marked as a default. */
	EXPECT_EQ(ja, jb);
	EXPECT_TRUE(ja & NPO_JOB_DEFAULT);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct npo_device *c = npo_open_device("npo0");
		uint32_t j = 0;

		if (!c || npo_device_job(c, &j) || write(pipefd[1], &j, 4) != 4)
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(4, read(pipefd[0], &jchild, 4));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* Another process: another default job. */
	EXPECT_TRUE(jchild & NPO_JOB_DEFAULT);
	EXPECT_NE(ja, jchild);
	close(pipefd[0]);
	close(pipefd[1]);
	npo_close_device(a);
	npo_close_device(b);
}

struct nobody_job_args {
	int fd;			/* a device file a launcher put in a job */
	uint32_t job;
};

/* As nobody: the job of a file given is kept, and cannot be changed. */
static int nobody_keeps_the_given_job(void *arg)
{
	struct nobody_job_args *a = arg;
	struct npo_job j = { 0 };
	struct npo_device *own, *given;
	char env[64];
	uint32_t job;

	if (ioctl(a->fd, NPO_IOCTL_GET_JOB, &j) || j.job != a->job)
		return 1;
	j.job = a->job + 1;
	if (!ioctl(a->fd, NPO_IOCTL_SET_JOB, &j) || errno != EPERM)
		return 2;
	/* Nor can it put a file of its own in a job. */
	own = npo_open_device("npo0");
	if (!own || npo_device_set_job(own, 5) != -EPERM)
		return 3;
	if (npo_device_job(own, &job) || !(job & NPO_JOB_DEFAULT))
		return 4;
	npo_close_device(own);
	/* libnpo takes the launcher's file from NPO_DEVICE_FDS. */
	snprintf(env, sizeof(env), "npo0=%d", a->fd);
	setenv("NPO_DEVICE_FDS", env, 1);
	given = npo_open_device("npo0");
	if (!given || npo_device_job(given, &job) || job != a->job)
		return 5;
	npo_close_device(given);
	/* A listed descriptor that is not the device is an error. */
	snprintf(env, sizeof(env), "npo0=%d", open("/dev/null", O_RDONLY));
	setenv("NPO_DEVICE_FDS", env, 1);
	if (npo_open_device("npo0") || errno != EBADF)
		return 6;
	return 0;
}

TEST_F(job, only_a_launcher_assigns_jobs)
{
	struct npo_queue_attr attr = { .sq_entries = 8 };
	struct nobody_job_args args = { .job = 4321 };
	struct npo_job j = { 0 };
	struct npo_device *dev;
	struct npo_queue *q;
	struct stat st;
	int fd;

	NPO_TEST_SETUP_DONE();
	dev = npo_open_device("npo0");
	ASSERT_NE(NULL, dev);
	fd = npo_device_fd(dev);
	/* Out of range, a default job, flags: refused. */
	j.job = 0;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_SET_JOB, &j));
	EXPECT_EQ(EINVAL, errno);
	j.job = NPO_JOB_DEFAULT | 5;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_SET_JOB, &j));
	EXPECT_EQ(EINVAL, errno);
	j.job = 7;
	j.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_SET_JOB, &j));
	EXPECT_EQ(EINVAL, errno);
	j.flags = 0;
	j.job = 3;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_GET_JOB, &j));
	EXPECT_EQ(EINVAL, errno);
	/* The launcher's own: then the file is in that job. */
	ASSERT_EQ(0, npo_device_set_job(dev, args.job));
	j.job = 0;
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_GET_JOB, &j));
	EXPECT_EQ(args.job, j.job);
	args.fd = fd;
	/* Let nobody open the device too, as a udev rule would. */
	ASSERT_EQ(0, stat("/dev/npo0", &st));
	ASSERT_EQ(0, chmod("/dev/npo0", 0666));
	EXPECT_EQ(0, npo_test_as_nobody(nobody_keeps_the_given_job, &args));
	chmod("/dev/npo0", st.st_mode & 07777);
	/* Once the file has a queue its job is settled, even for root. */
	ASSERT_EQ(0, npo_create_queue(dev, &attr, &q));
	EXPECT_EQ(args.job, q->job);
	EXPECT_EQ(-EBUSY, npo_device_set_job(dev, args.job + 1));
	npo_destroy_queue(q);
	npo_close_device(dev);
}

/*
 * The attacks of another job's process that knows everything: the real
 * remote key and addresses of the victim's region, its queue number.
 */
struct attack {
	uint8_t op;
	bool to_queue;		/* WRITE_IMM or SEND: names the victim's queue */
	uint32_t want;
	const char *what;
};

static const struct attack attacks[] = {
	{ NPO_OP_WRITE, false, NPO_STATUS_REMOTE_ACCESS, "WRITE" },
	{ NPO_OP_READ, false, NPO_STATUS_REMOTE_ACCESS, "READ" },
	{ NPO_OP_FETCH_ADD, false, NPO_STATUS_REMOTE_ACCESS, "FETCH_ADD" },
	{ NPO_OP_CMP_SWAP, false, NPO_STATUS_REMOTE_ACCESS, "CMP_SWAP" },
	{ NPO_OP_WRITE_IMM, true, NPO_STATUS_REMOTE_ACCESS, "WRITE_IMM" },
	{ NPO_OP_SEND, true, NPO_STATUS_REMOTE_QUEUE, "SEND" },
};

#define NUM_ATTACKS	(sizeof(attacks) / sizeof(attacks[0]))

struct target {
	uint32_t node;
	uint16_t queue;
	uint64_t rkey;
	uint64_t addr;
};

/* One attack on one target from dev; the completion status, or -1. */
static int attack_once(struct npo_device *dev, struct npo_mr *mr, void *buf,
		       const struct attack *a, const struct target *t)
{
	struct npo_queue_attr attr = { .sq_entries = 4 };
	struct npo_queue *q;
	struct npo_sqe *sqe;
	struct npo_cqe c;
	int st = -1;

	if (npo_create_queue(dev, &attr, &q))
		return -1;
	sqe = npo_get_sqe(q);
	npo_prep_rdma(sqe, a->op, 1, npo_mr_lkey(mr), buf,
		      a->op == NPO_OP_FETCH_ADD || a->op == NPO_OP_CMP_SWAP ?
		      8 : 4096, t->node, t->rkey, t->addr + SECRET);
	sqe->compare_add = a->op == NPO_OP_CMP_SWAP ? *(uint64_t *)buf : 1;
	sqe->swap = 0x5555555555555555ULL;
	if (a->to_queue)
		sqe->dest_queue = t->queue;
	if (a->op == NPO_OP_WRITE_IMM)
		sqe->imm = 0xbad;
	npo_submit(q);
	if (!npo_test_take_cqe(q, &c, 10000))
		st = c.status;
	npo_destroy_queue(q);
	return st;
}

struct intruder_args {
	struct npo_device *dev;	/* in the intruder's job, opened by root */
	struct target t[2];
	int results[2][NUM_ATTACKS];
};

static int intrude(void *arg)
{
	struct intruder_args *a = arg;
	uint8_t *buf = alloc_buf(4096);
	struct npo_mr *mr;
	unsigned int i, k;

	if (drop_to_nobody() || !buf ||
	    npo_reg_mr(a->dev, buf, 4096, NPO_ACCESS_ALL, &mr))
		return 1;
	memset(buf, 0xee, 4096);
	for (k = 0; k < 2; k++)
		for (i = 0; i < NUM_ATTACKS; i++)
			a->results[k][i] = attack_once(a->dev, mr, buf,
						       &attacks[i], &a->t[k]);
	return 0;
}

static void target_of(struct target *t, const struct side *s)
{
	t->node = s->node;
	t->queue = s->q->id;
	t->rkey = npo_mr_rkey(s->mr);
	t->addr = (uintptr_t)s->buf;
}

/*
 * Run intrude() as nobody on a file in job, in a child, and bring its
 * results back through shared memory.
 */
static int run_intruder(struct intruder_args *shared)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(intrude(shared));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(job, another_job_reaches_nothing_even_with_the_real_keys)
{
	struct intruder_args *a;
	unsigned int i, k;

	NPO_TEST_SETUP_DONE();
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	/* On the victim's own device (node 1) and across the link (node 2). */
	target_of(&a->t[0], &self->v[0]);
	target_of(&a->t[1], &self->v[1]);

	/* Control: a peer of the victim's job gets through with the same. */
	a->dev = open_in_job("npo0", VICTIM_JOB);
	ASSERT_NE(NULL, a->dev);
	ASSERT_EQ(0, run_intruder(a));
	for (k = 0; k < 2; k++) {
		for (i = 0; i < NUM_ATTACKS; i++) {
			EXPECT_EQ(NPO_STATUS_OK, a->results[k][i])
				TH_LOG("same job, %s to node %u: %s",
				       attacks[i].what, a->t[k].node,
				       npo_status_str(a->results[k][i]));
		}
	}
	npo_close_device(a->dev);
	/* Put the victims back as they were. */
	for (k = 0; k < 2; k++) {
		struct side *s = &self->v[k];
		struct npo_cqe c;

		while (!npo_test_take_cqe(s->q, &c, 0))
			;
		memcpy(s->buf, s->copy, REGION_SIZE);
		ASSERT_EQ(0, npo_post_recv(s->q, 7, npo_mr_lkey(s->mr),
					   s->buf + SECRET, 4096));
	}

	/* Another job, with exactly the same knowledge: nothing. */
	a->dev = open_in_job("npo0", ATTACK_JOB);
	ASSERT_NE(NULL, a->dev);
	ASSERT_EQ(0, run_intruder(a));
	for (k = 0; k < 2; k++) {
		for (i = 0; i < NUM_ATTACKS; i++) {
			EXPECT_EQ(attacks[i].want, a->results[k][i])
				TH_LOG("another job, %s to node %u: %s",
				       attacks[i].what, a->t[k].node,
				       npo_status_str(a->results[k][i]));
		}
	}
	npo_close_device(a->dev);
	expect_untouched(_metadata, &self->v[0]);
	expect_untouched(_metadata, &self->v[1]);
	munmap(a, sizeof(*a));
}

/* What the guesser reports back. */
struct guess_result {
	unsigned int guesses;
	unsigned int found;		/* requests that got through: must be 0 */
	unsigned int slowest_create_ms;
	pid_t pid;
};

struct guesser_args {
	struct npo_device *other;	/* in ATTACK_JOB */
	struct npo_device *same;	/* in VICTIM_JOB: keys still unknown */
	struct target t[2];
	struct guess_result r;
};

static unsigned int ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Guess remote keys for GUESS_SECONDS: the documented layout (index in
 * bits 15:0, a tag above), small indexes, random tags, the victim's real
 * addresses; WRITE and READ alternately, from another job and from the
 * victim's own, at both nodes.
 */
static int guess(void *arg)
{
	struct guesser_args *a = arg;
	struct npo_queue_attr attr = { .sq_entries = 4 };
	struct timespec start, t0;
	struct npo_mr *mr[2];
	uint8_t *buf = alloc_buf(8192);
	unsigned int n;

	if (drop_to_nobody() || !buf ||
	    npo_reg_mr(a->other, buf, 4096, NPO_ACCESS_ALL, &mr[0]) ||
	    npo_reg_mr(a->same, buf + 4096, 4096, NPO_ACCESS_ALL, &mr[1]))
		return 1;
	a->r.pid = getpid();
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (n = 0; ms_since(&start) < GUESS_SECONDS * 1000; n++) {
		struct npo_device *dev = n & 2 ? a->same : a->other;
		const struct target *t = &a->t[n & 1];
		struct npo_queue *q;
		struct npo_cqe c;
		uint64_t tag;
		unsigned int ms;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (npo_create_queue(dev, &attr, &q))
			return 2;
		ms = ms_since(&t0);
		if (ms > a->r.slowest_create_ms)
			a->r.slowest_create_ms = ms;
		if (getrandom(&tag, sizeof(tag), 0) != sizeof(tag))
			return 3;
		npo_prep_rdma(npo_get_sqe(q), n & 4 ? NPO_OP_READ : NPO_OP_WRITE,
			      n, npo_mr_lkey(mr[(n >> 1) & 1]),
			      buf + ((n >> 1) & 1) * 4096, 4096, t->node,
			      (tag << 16) | (1 + n % 16), t->addr + SECRET);
		npo_submit(q);
		if (npo_test_take_cqe(q, &c, 10000))
			return 4;
		a->r.guesses++;
		a->r.found += c.status == NPO_STATUS_OK;
		npo_destroy_queue(q);
	}
	return 0;
}

/* The victim's own traffic while it is attacked: every byte verified. */
static unsigned int victim_works(struct __test_metadata *_metadata,
				 struct side *s, pid_t guesser)
{
	unsigned int rounds = 0;
	int status;

	while (waitpid(guesser, &status, WNOHANG) == 0) {
		struct npo_cqe c;

		fill(s->buf + WORK, 4096, rounds);
		npo_prep_write(npo_get_sqe(s->q), rounds, npo_mr_lkey(s->mr),
			       s->buf + WORK, 4096, s->node, npo_mr_rkey(s->mr),
			       (uintptr_t)s->buf + WORK + 65536);
		npo_submit(s->q);
		EXPECT_EQ(0, npo_test_take_cqe(s->q, &c, 10000));
		EXPECT_EQ(NPO_STATUS_OK, c.status)
			TH_LOG("%s", npo_status_str(c.status));
		EXPECT_EQ(0, memcmp(s->buf + WORK, s->buf + WORK + 65536, 4096));
		rounds++;
		usleep(20000);
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the guesser failed at step %d", WEXITSTATUS(status));
	return rounds;
}

#define OFFENDERS	"/sys/kernel/debug/npo/npo0/offenders"
#define WINDOW_PARAM	"/sys/module/npo/parameters/refusal_window_ms"

/* The wait_ms the offenders table gives uid, or -1 if it lists none. */
static long offender_wait_ms(uid_t uid)
{
	char text[4096], want[32], *line;
	unsigned int w;

	if (npo_test_read_file(OFFENDERS, text, sizeof(text)) < 0)
		return -2;
	snprintf(want, sizeof(want), "uid %u ", uid);
	line = strstr(text, want);
	if (!line || !(line = strstr(line, "wait_ms ")) ||
	    sscanf(line, "wait_ms %u", &w) != 1)
		return -1;
	return w;
}

/*
 * The table lists the throttled guesser; once its penalty and a refusal
 * window have passed, the next refusal, of another user, forgets it.
 */
static void expect_offenders_pruned(struct __test_metadata *_metadata,
				    struct guesser_args *a)
{
	uint8_t *buf = alloc_buf(4096);
	char window[32];
	struct npo_mr *mr;
	long wait;

	ASSERT_NE(NULL, buf);
	wait = offender_wait_ms(NOBODY);
	ASSERT_GE(wait, 0) TH_LOG("%s lists no uid %d", OFFENDERS, NOBODY);
	ASSERT_GE(npo_test_read_file(WINDOW_PARAM, window, sizeof(window)), 0);
	ASSERT_EQ(0, npo_test_write_file(WINDOW_PARAM, "200"));
	usleep((wait + 400) * 1000);
	ASSERT_EQ(0, npo_reg_mr(a->other, buf, 4096, NPO_ACCESS_ALL, &mr));
	EXPECT_EQ(NPO_STATUS_REMOTE_ACCESS,
		  attack_once(a->other, mr, buf, &attacks[0], &a->t[1]));
	npo_dereg_mr(mr);
	/* The refusal work runs after the completion: give it a moment. */
	for (wait = 0; wait < 50 && offender_wait_ms(0) < 0; wait++)
		usleep(20000);
	EXPECT_GE(offender_wait_ms(0), 0) TH_LOG("root's refusal not counted");
	EXPECT_EQ(-1, offender_wait_ms(NOBODY))
		TH_LOG("uid %d still listed after its penalty and a window",
		       NOBODY);
	EXPECT_EQ(0, npo_test_write_file(WINDOW_PARAM, window));
	munmap(buf, 4096);
}

TEST_F_TIMEOUT(job, guessing_keys_finds_nothing_and_is_throttled_and_named, 120)
{
	struct npo_nl_events *ev = npo_nl_events_open();
	struct npo_nl_port e;
	struct guesser_args *a;
	bool requester = false, target = false;
	char log[65536], want[64];
	unsigned int rounds;
	size_t mark;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(NULL, ev);
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	target_of(&a->t[0], &self->v[0]);
	target_of(&a->t[1], &self->v[1]);
	a->other = open_in_job("npo0", ATTACK_JOB);
	a->same = open_in_job("npo0", VICTIM_JOB);
	ASSERT_NE(NULL, a->other);
	ASSERT_NE(NULL, a->same);
	mark = npo_test_dmesg_mark();

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(guess(a));
	rounds = victim_works(_metadata, &self->v[0], pid);
	TH_LOG("%u guesses in %d s, slowest queue creation %u ms; the victim "
	       "moved and verified %u blocks meanwhile", a->r.guesses,
	       GUESS_SECONDS, a->r.slowest_create_ms, rounds);
	EXPECT_GT(a->r.guesses, 16);
	EXPECT_EQ(0, a->r.found);
	EXPECT_GT(rounds, 0);
	/* Past refusal_limit refusals its queues wait: at least 100 ms. */
	EXPECT_GE(a->r.slowest_create_ms, 100);
	expect_untouched(_metadata, &self->v[0]);
	expect_untouched(_metadata, &self->v[1]);

	/*
	 * Named to the administrator: the requesting side with the process,
	 * its user, job and penalty; the target side with node, queue, job.
	 */
	while ((!requester || !target) &&
	       npo_nl_wait_event(ev, NPO_EVENT_REFUSED, 0, 0, 2000, &e)) {
		if (e.refusal.side == NPO_REFUSAL_SIDE_REQUESTER &&
		    e.refusal.pid == (uint32_t)a->r.pid && e.refusal.owned &&
		    e.refusal.uid == NOBODY && e.refusal.throttle_ms >= 100 &&
		    e.refusal.status == NPO_STATUS_REMOTE_ACCESS)
			requester = true;
		if (e.refusal.side == NPO_REFUSAL_SIDE_TARGET &&
		    e.refusal.job == ATTACK_JOB &&
		    e.refusal.peer_node == self->v[0].node && !e.refusal.owned)
			target = true;
	}
	EXPECT_TRUE(requester) TH_LOG("no REFUSED event names pid %d, throttled",
				      a->r.pid);
	EXPECT_TRUE(target) TH_LOG("no REFUSED event from the target's side");
	ASSERT_EQ(0, npo_test_dmesg_since(mark, log, sizeof(log)));
	snprintf(want, sizeof(want), "(pid %d npo_job_test, uid %d, job 0x",
		 a->r.pid, NOBODY);
	EXPECT_NE(NULL, strstr(log, want)) TH_LOG("no log line has \"%s\"", want);
	EXPECT_NE(NULL, strstr(log, "new queues delayed"));
	expect_offenders_pruned(_metadata, a);
	npo_close_device(a->other);
	npo_close_device(a->same);
	munmap(a, sizeof(*a));
	npo_nl_events_close(ev);
}

#define LIMIT_PARAM	"/sys/module/npo/parameters/refusal_limit"
#define TURNS		32

/* What the sweeper and the victim saw, shared across fork. */
struct sweep {
	uint32_t job;			/* the sweeper's own */
	unsigned int refused;		/* probes answered REMOTE_QUEUE */
	double created[TURNS];		/* when each parallel create returned */
	double victim_ms;		/* the victim's one create */
	int err;
};

struct turn_args {
	struct npo_device *dev;
	struct sweep *sw;
	int i;
};

static void *take_turn(void *arg)
{
	struct turn_args *t = arg;
	struct npo_queue_attr attr = { .sq_entries = 4 };
	struct npo_queue *q;

	if (!npo_create_queue(t->dev, &attr, &q))
		npo_destroy_queue(q);
	t->sw->created[t->i] = npo_test_now_s();
	return NULL;
}

/*
 * Opened by root, then as nobody, in its own job: SEND to queue numbers
 * of a peer node that have no queue of its job (a sweep for where the
 * victim listens), one queue per probe, until its job's penalty is over
 * a second; then 32 threads create queues at once.
 */
static int sweep_then_storm(struct sweep *sw)
{
	struct npo_device *dev = npo_open_device("npo0");
	struct npo_queue_attr attr = { .sq_entries = 4 };
	struct turn_args t[TURNS];
	pthread_t th[TURNS];
	struct npo_mr *mr;
	uint8_t *buf = alloc_buf(4096);
	int i;

	if (!dev || !buf || drop_to_nobody() || npo_device_job(dev, &sw->job) ||
	    npo_reg_mr(dev, buf, 4096, NPO_ACCESS_ALL, &mr))
		return 1;
	for (i = 0; i < 10; i++) {
		struct npo_queue *q;
		struct npo_cqe c;

		if (npo_create_queue(dev, &attr, &q))
			return 2;
		npo_prep_send(npo_get_sqe(q), i, npo_mr_lkey(mr), buf, 64, 2,
			      10 + i % 6);
		npo_submit(q);
		if (npo_test_take_cqe(q, &c, 10000))
			return 3;
		sw->refused += c.status == NPO_STATUS_REMOTE_QUEUE;
		npo_destroy_queue(q);
	}
	/* The refusal work counts after the completions: let it. */
	usleep(500000);
	for (i = 0; i < TURNS; i++) {
		t[i] = (struct turn_args) { .dev = dev, .sw = sw, .i = i };
		if (pthread_create(&th[i], NULL, take_turn, &t[i]))
			return 4;
	}
	for (i = 0; i < TURNS; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* As nobody too, in its own job: how long one create takes, meanwhile. */
static int victim_creates(struct sweep *sw)
{
	struct npo_device *dev = npo_open_device("npo0");
	struct npo_queue_attr attr = { .sq_entries = 4 };
	struct npo_queue *q;
	double t0;

	if (!dev || drop_to_nobody())
		return 1;
	t0 = npo_test_now_s();
	if (npo_create_queue(dev, &attr, &q))
		return 2;
	sw->victim_ms = (npo_test_now_s() - t0) * 1000;
	npo_destroy_queue(q);
	return 0;
}

/*
 * A sweep of queue numbers is charged like a sweep of keys; once its job's
 * penalty is 1.6 s, 32 queues created at once take turns, spread over 31
 * penalties rather than let through together when the gate opens; and
 * another process of the same user, in its own job, is not made to wait.
 * refusal_limit is lowered to 2 for the test, so that 10 probes are
 * enough (100 ms after 2, doubled after each 2 more).
 */
TEST_F_TIMEOUT(job, queue_sweep_is_charged_and_parallel_creates_take_turns, 180)
{
	struct sweep *sw = mmap(NULL, sizeof(*sw), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char limit[32], text[4096], want[32], *line;
	double first = 1e30, last = 0;
	unsigned int penalty = 0;
	int i, status = 0;
	bool reaped = false;
	pid_t storm, victim;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root to drop privileges");
	ASSERT_NE(MAP_FAILED, sw);
	memset(sw, 0, sizeof(*sw));
	ASSERT_GE(npo_test_read_file(LIMIT_PARAM, limit, sizeof(limit)), 0);
	ASSERT_EQ(0, npo_test_write_file(LIMIT_PARAM, "2"));
	storm = fork();
	ASSERT_GE(storm, 0);
	if (!storm)
		_exit(sweep_then_storm(sw));
	/* The victim creates once the storm is under way. */
	for (i = 0; i < 600 && sw->refused < 10 && !reaped; i++) {
		reaped = waitpid(storm, &status, WNOHANG) == storm;
		usleep(100000);
	}
	sleep(2);
	snprintf(want, sizeof(want), "job 0x%x ", sw->job);
	if (npo_test_read_file(OFFENDERS, text, sizeof(text)) >= 0 &&
	    (line = strstr(text, want)) && (line = strstr(line, "penalty_ms ")))
		sscanf(line, "penalty_ms %u", &penalty);
	victim = fork();
	ASSERT_GE(victim, 0);
	if (!victim)
		_exit(victim_creates(sw));
	ASSERT_EQ(victim, waitpid(victim, &i, 0));
	EXPECT_TRUE(WIFEXITED(i) && !WEXITSTATUS(i)) TH_LOG("victim: 0x%x", i);
	if (!reaped)
		ASSERT_EQ(storm, waitpid(storm, &status, 0));
	EXPECT_EQ(0, npo_test_write_file(LIMIT_PARAM, limit));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the sweeper failed (status 0x%x)", status);
	for (i = 0; i < TURNS; i++) {
		first = sw->created[i] < first ? sw->created[i] : first;
		last = sw->created[i] > last ? sw->created[i] : last;
	}
	TH_LOG("%u of 10 probes refused; penalty %u ms; %d creates over %.1f s; the victim's took %.0f ms",
	       sw->refused, penalty, TURNS, last - first, sw->victim_ms);
	EXPECT_EQ(10, sw->refused);
	EXPECT_LE(1000, penalty) TH_LOG("%s", text);
	EXPECT_LE(0.9 * (TURNS - 1) * penalty / 1000.0, last - first);
	EXPECT_GT(500, sw->victim_ms);
	munmap(sw, sizeof(*sw));
}

/*
 * npoctl job run's command, in this binary: what job does a process that
 * opens the device through libnpo find itself in?
 */
static void __attribute__((constructor)) print_job_and_exit(void)
{
	const char *name = getenv("NPO_JOB_TEST_PRINT_JOB");
	struct npo_device *dev;
	uint32_t job;

	if (!name)
		return;
	dev = npo_open_device(name);
	if (!dev || npo_device_job(dev, &job))
		_exit(1);
	printf("JOB %u\n", job);
	fflush(stdout);
	_exit(0);
}

static int nobody_cannot_launch(void *arg)
{
	char out[4096];

	(void)arg;
	if (npo_test_run(out, sizeof(out),
			 "npoctl job run 5 npo0 -- true 2>&1") != 1)
		return 1;
	return strstr(out, "needs CAP_NET_ADMIN") ? 0 : 2;
}

TEST_F(job, npoctl_job_run_hands_the_job_over)
{
	char out[4096], self_exe[256];
	struct stat st;
	ssize_t n;

	NPO_TEST_SETUP_DONE();
	if (npo_test_run(NULL, 0, "command -v npoctl >/dev/null"))
		SKIP(return, "npoctl not installed");
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	ASSERT_GT(n, 0);
	self_exe[n] = '\0';
	ASSERT_EQ(0, npo_test_run(out, sizeof(out),
				  "NPO_JOB_TEST_PRINT_JOB=npo1 npoctl job run 5555 npo0 npo1 -- %s",
				  self_exe));
	EXPECT_NE(NULL, strstr(out, "JOB 5555")) TH_LOG("%s", out);
	/* Every device by default; the listed descriptors reach the command. */
	ASSERT_EQ(0, npo_test_run(out, sizeof(out),
				  "npoctl job run 6 -- sh -c 'echo $NPO_DEVICE_FDS'"));
	EXPECT_NE(NULL, strstr(out, "npo0=")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "npo1=")) TH_LOG("%s", out);
	/* Not a job, or no command: usage errors. */
	EXPECT_EQ(2, npo_test_run(out, sizeof(out),
				  "npoctl job run 0 -- true 2>&1"));
	EXPECT_EQ(2, npo_test_run(out, sizeof(out), "npoctl job run 5 2>&1"));
	/* Without CAP_NET_ADMIN the launcher cannot, and says why. */
	ASSERT_EQ(0, stat("/dev/npo0", &st));
	ASSERT_EQ(0, chmod("/dev/npo0", 0666));
	EXPECT_EQ(0, npo_test_as_nobody(nobody_cannot_launch, NULL));
	chmod("/dev/npo0", st.st_mode & 07777);
}

TEST_HARNESS_MAIN
