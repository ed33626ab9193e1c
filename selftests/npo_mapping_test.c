// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rings and doorbells a process maps: its queue ioctls reject bad
 * arguments, its mappings are its own and are revoked when the queue
 * goes, and mappings racing a destroy see only the stand-in page.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <json-c/json.h>
#include <npo.h>
#include <xf86drm.h>

#include "kselftest_harness.h"
#include "npo_queue_fixture.h"
#include "npo_test_lib.h"

TEST_F(queue, queue_ioctls_reject_bad_arguments)
{
	int fd = npo_device_fd(self->dev);
	struct npo_queue_create qc;
	struct npo_queue_destroy qd = { .queue_id = 500 };
	struct npo_queue *qs[64];
	struct npo_queue_attr attr = { .sq_entries = 4 };
	unsigned int n = 0, i;
	int err;

	NPO_TEST_SETUP_DONE();
	memset(&qc, 0, sizeof(qc));
	qc.sq_entries = 3;
	qc.cq_entries = 4;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
	qc.sq_entries = 8;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno) TH_LOG("CQ smaller than SQ");
	qc.sq_entries = qc.cq_entries = NPO_MAX_RING_ENTRIES * 2;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
	qc.sq_entries = qc.cq_entries = 4;
	qc.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
	qc.flags = 0;
	/*
	 * Every ring at its most is 4 MiB and a page of ring memory: more than
	 * one contiguous allocation, refused before trying (6.12 warned).
	 */
	qc.sq_entries = qc.cq_entries = qc.rq_entries = NPO_MAX_RING_ENTRIES;
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	EXPECT_EQ(EINVAL, errno);
	/* An i386 caller built before the reserved field passed 68 bytes. */
	memset(&qc, 0, sizeof(qc));
	qc.sq_entries = qc.cq_entries = 4;
	ASSERT_EQ(0, ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, NPO_IOCTL_MAGIC,
				    _IOC_NR(NPO_IOCTL_CREATE_QUEUE),
				    offsetof(struct npo_queue_create, rsvd)),
			   &qc));
	qd.queue_id = qc.queue_id;
	EXPECT_EQ(0, ioctl(fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	qd.queue_id = 500;

	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	EXPECT_EQ(ENOENT, errno);
	/* Double destroy. */
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &qs[0]));
	qd.queue_id = qs[0]->id;
	EXPECT_EQ(0, npo_destroy_queue(qs[0]));
	EXPECT_EQ(-1, ioctl(fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	EXPECT_EQ(ENOENT, errno);

	/* The device's queues run out with EBUSY, and come back. */
	do {
		err = npo_create_queue(self->dev, &attr, &qs[n]);
	} while (!err && ++n < 64);
	EXPECT_EQ(-EBUSY, err);
	EXPECT_GT(n, 0);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, npo_destroy_queue(qs[i]));
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &qs[0]));
	npo_destroy_queue(qs[0]);
}

static sigjmp_buf bus_jump;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jump, 1);
}

TEST_F(queue, mappings_are_owned_and_revoked)
{
	struct npo_queue_create qc;
	struct npo_device *other;
	struct npo_queue_attr attr = { .sq_entries = 4 };
	struct npo_queue_destroy qd = { 0 };
	struct npo_queue *q;
	volatile uint32_t *ring;
	volatile bool readable = false;
	void *p;
	int fd = npo_device_fd(self->dev);

	NPO_TEST_SETUP_DONE();
	memset(&qc, 0, sizeof(qc));
	qc.sq_entries = qc.cq_entries = 4;
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_CREATE_QUEUE, &qc));

	/* Another open file cannot map this queue's doorbell or rings. */
	other = npo_open_device("npo0");
	ASSERT_NE(NULL, other);
	p = mmap(NULL, qc.doorbell_size, PROT_WRITE, MAP_SHARED,
		 npo_device_fd(other), qc.doorbell_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);
	p = mmap(NULL, qc.ring_size, PROT_READ, MAP_SHARED,
		 npo_device_fd(other), qc.ring_offset);
	EXPECT_EQ(MAP_FAILED, p);
	npo_close_device(other);

	/* Nor can another process with a file of its own: it gets nothing. */
	{
		pid_t pid = fork();
		int status;

		ASSERT_GE(pid, 0);
		if (pid == 0) {
			struct npo_device *theirs = npo_open_device("npo0");

			if (!theirs)
				_exit(1);
			p = mmap(NULL, qc.doorbell_size, PROT_WRITE, MAP_SHARED,
				 npo_device_fd(theirs), qc.doorbell_offset);
			if (p != MAP_FAILED || errno != ENOENT)
				_exit(2);
			p = mmap(NULL, qc.ring_size, PROT_READ, MAP_SHARED,
				 npo_device_fd(theirs), qc.ring_offset);
			_exit(p != MAP_FAILED ? 3 : 0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("another process mapped our queue (step %d)",
			       WEXITSTATUS(status));
	}

	/* Wrong size, private, executable. */
	p = mmap(NULL, qc.ring_size * 2, PROT_READ, MAP_SHARED, fd, qc.ring_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, qc.ring_size, PROT_READ, MAP_PRIVATE, fd, qc.ring_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, qc.doorbell_size, PROT_WRITE | PROT_EXEC, MAP_SHARED, fd,
		 qc.doorbell_offset);
	EXPECT_EQ(MAP_FAILED, p);
	/* Offsets that name nothing. */
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);

	ring = mmap(NULL, qc.ring_size, PROT_READ, MAP_SHARED, fd, qc.ring_offset);
	ASSERT_NE(MAP_FAILED, ring);
	EXPECT_EQ(0, ring[NPO_RING_STATUS / 4]);
	qd.queue_id = qc.queue_id;
	ASSERT_EQ(0, ioctl(fd, NPO_IOCTL_DESTROY_QUEUE, &qd));
	/* The destroyed queue's memory is gone: the stand-in says so. */
	signal(SIGBUS, on_sigbus);
	if (!sigsetjmp(bus_jump, 1)) {
		EXPECT_EQ(NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED,
			  ring[NPO_RING_STATUS / 4]);
		EXPECT_EQ(0, ring[NPO_RING_CQ_TAIL / 4]);
		readable = true;
	}
	signal(SIGBUS, SIG_DFL);
	EXPECT_TRUE(readable) TH_LOG("a revoked ring raised SIGBUS");
	munmap((void *)ring, qc.ring_size);

	/* A doorbell write past the ring's size puts only that queue in error. */
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	q->doorbell[0] = 1000;
	usleep(100000);
	EXPECT_TRUE(npo_queue_in_error(q));
	npo_destroy_queue(q);
}

/*
 * One thread maps a queue's rings and doorbell again and again while the
 * other destroys the queue and creates the next one, which gets the same
 * number: every mapping made before a destroy, or during one, must read
 * as the stand-in page afterwards, never the freed ring nor the ring that
 * reuses its pages, and writes to old doorbells must never reach the queue
 * that reuses the number.
 */
#define RACE_ROUNDS	1500
#define RACE_MAPS	64

struct map_race {
	int fd;
	uint64_t ring_offset;	/* atomic: the current queue's */
	uint64_t db_offset;	/* atomic */
	size_t ring_size;
	unsigned int attempts;	/* atomic */
	bool stop;		/* atomic */
	pthread_mutex_t lock;	/* the lists below */
	volatile uint32_t *rings[RACE_MAPS];
	unsigned int n_rings;
	volatile uint32_t *dbs[RACE_MAPS];
	unsigned int n_dbs;
	unsigned int kept;	/* rings and doorbells kept into the next round */
	unsigned int made;
};

static void *map_race_mapper(void *arg)
{
	struct map_race *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		uint64_t ro = __atomic_load_n(&r->ring_offset, __ATOMIC_ACQUIRE);
		uint64_t dbo = __atomic_load_n(&r->db_offset, __ATOMIC_ACQUIRE);
		volatile uint32_t *ring, *db;

		__atomic_add_fetch(&r->attempts, 1, __ATOMIC_RELEASE);
		ring = mmap(NULL, r->ring_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, r->fd, ro);
		db = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, r->fd, dbo);
		/* Touch the ring while its queue may still live. */
		if (ring != MAP_FAILED)
			(void)ring[NPO_RING_STATUS / 4];
		pthread_mutex_lock(&r->lock);
		if (ring != MAP_FAILED && r->n_rings < RACE_MAPS) {
			r->rings[r->n_rings++] = ring;
			r->made++;
		} else if (ring != MAP_FAILED) {
			munmap((void *)ring, r->ring_size);
		}
		if (db != MAP_FAILED && r->n_dbs < RACE_MAPS)
			r->dbs[r->n_dbs++] = db;
		else if (db != MAP_FAILED)
			munmap((void *)db, 4096);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* The stand-in: every page zero but for the status, in error and revoked. */
static bool reads_as_revoked(volatile uint32_t *ring, size_t size)
{
	size_t i;

	for (i = 0; i < size / 4; i++) {
		uint32_t want = (i * 4) % 4096 == NPO_RING_STATUS ?
				NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED : 0;

		if (ring[i] != want)
			return false;
	}
	return true;
}

/*
 * How many of @own and the first @n of the mapper's ring mappings do not
 * read as the stand-in; SIGBUS counts as one.
 */
static unsigned int count_unrevoked(struct map_race *r, volatile uint32_t *own,
				    unsigned int n, bool *faulted)
{
	volatile unsigned int bad = 0, i;

	if (sigsetjmp(bus_jump, 1)) {
		*faulted = true;
		return bad + 1;
	}
	if (own && !reads_as_revoked(own, r->ring_size))
		bad++;
	for (i = 0; i < n; i++)
		if (!reads_as_revoked(r->rings[i], r->ring_size))
			bad++;
	return bad;
}

/* Unmap the mapper's mappings but for the first @keep of each kind. */
static void map_race_unmap(struct map_race *r, unsigned int keep)
{
	unsigned int i;

	for (i = keep; i < r->n_rings; i++)
		munmap((void *)r->rings[i], r->ring_size);
	for (i = keep; i < r->n_dbs; i++)
		munmap((void *)r->dbs[i], 4096);
	r->n_rings = r->n_dbs = keep;
}

TEST_F_TIMEOUT(queue, mappings_racing_destroy_see_only_the_stand_in, 300)
{
	struct npo_queue_create qc = { .sq_entries = 64, .cq_entries = 64 };
	struct npo_queue_destroy qd = { 0 };
	struct map_race r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct npo_device *mine;
	unsigned int round, i, bad = 0, poked = 0, kept = 0;
	bool faulted = false;
	pthread_t mapper;
	uint64_t *sq;

	NPO_TEST_SETUP_DONE();
	/* A file of its own, whose only queue's number comes back each round. */
	mine = npo_open_device("npo0");
	ASSERT_NE(NULL, mine);
	r.fd = npo_device_fd(mine);
	ASSERT_EQ(0, ioctl(r.fd, NPO_IOCTL_CREATE_QUEUE, &qc));
	r.ring_size = qc.ring_size;
	r.ring_offset = qc.ring_offset;
	r.db_offset = qc.doorbell_offset;
	ASSERT_EQ(0, pthread_create(&mapper, NULL, map_race_mapper, &r));

	signal(SIGBUS, on_sigbus);
	for (round = 0; round < RACE_ROUNDS && !bad; round++) {
		volatile uint32_t *own;
		unsigned int seen;

		if (round) {
			memset(&qc, 0, sizeof(qc));
			qc.sq_entries = qc.cq_entries = 64;
			ASSERT_EQ(0, ioctl(r.fd, NPO_IOCTL_CREATE_QUEUE, &qc));
			ASSERT_EQ(r.ring_size, qc.ring_size);
			__atomic_store_n(&r.ring_offset, qc.ring_offset,
					 __ATOMIC_RELEASE);
			__atomic_store_n(&r.db_offset, qc.doorbell_offset,
					 __ATOMIC_RELEASE);
		}
		/* This round's mark in every ring word past the header. */
		own = mmap(NULL, qc.ring_size, PROT_READ | PROT_WRITE,
			   MAP_SHARED, r.fd, qc.ring_offset);
		ASSERT_NE(MAP_FAILED, own);
		for (sq = (uint64_t *)((char *)own + qc.sq_offset);
		     (char *)sq < (char *)own + qc.ring_size; sq++)
			*sq = 0x5eed000000000000ull | round;
		/*
		 * Every hundredth round, last round's mappings are still there:
		 * they must not reach the queue that took the number.
		 */
		if (round % 100 == 99) {
			pthread_mutex_lock(&r.lock);
			for (i = 0; i < r.kept; i++)
				r.dbs[i][NPO_DB_SQ_TAIL / 4] = 1000;
			bad = count_unrevoked(&r, NULL, r.kept, &faulted);
			pthread_mutex_unlock(&r.lock);
			EXPECT_EQ(0, bad) TH_LOG("round %u: an old ring mapping showed %s",
						 round, faulted ? "SIGBUS" : "ring memory");
			usleep(50000);
			EXPECT_EQ(0, own[NPO_RING_STATUS / 4])
				TH_LOG("round %u: an old doorbell reached queue %u",
				       round, qc.queue_id);
			poked++;
		}
		/* Destroy while the mapper is inside mmap() or just out of it. */
		seen = __atomic_load_n(&r.attempts, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&r.attempts, __ATOMIC_ACQUIRE) == seen)
			sched_yield();
		qd.queue_id = qc.queue_id;
		ASSERT_EQ(0, ioctl(r.fd, NPO_IOCTL_DESTROY_QUEUE, &qd));

		/* No queue exists in this file now: every mapping is revoked. */
		pthread_mutex_lock(&r.lock);
		bad = count_unrevoked(&r, own, r.n_rings, &faulted);
		r.kept = 0;
		if (round % 100 == 98) {
			r.kept = r.n_rings < r.n_dbs ? r.n_rings : r.n_dbs;
			kept += r.kept;
		}
		map_race_unmap(&r, r.kept);
		pthread_mutex_unlock(&r.lock);
		munmap((void *)own, qc.ring_size);
		EXPECT_EQ(0, bad) TH_LOG("round %u: a mapping showed %s", round,
					 faulted ? "SIGBUS" : "ring memory");
	}
	signal(SIGBUS, SIG_DFL);
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	pthread_join(mapper, NULL);
	map_race_unmap(&r, 0);
	TH_LOG("%u rounds, %u ring mappings checked, %u kept into the next round",
	       round, r.made, kept);
	EXPECT_GT(r.made, RACE_ROUNDS / 2);
	EXPECT_GT(kept, 0);
	EXPECT_EQ(RACE_ROUNDS / 100, poked);
	npo_close_device(mine);
}

/*
 * A CQ_HEAD doorbell beyond the tail is ignored: a queue paused with its
 * completion ring full stays paused, the completions not yet consumed stay
 * as they were, and once the consumer really frees room everything
 * arrives, in order and once.
 */

TEST_HARNESS_MAIN
