// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl queue as an administrator sees it: every queue's owner, and
 * what a stuck queue waits for; refused to anyone else.
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
#include "npo_test_json.h"
#include "npo_test_lib.h"

/* Administrators see every process's queues and regions, others nothing. */
/* Listing every process's queues is for administrators.  Runs as nobody. */
static int npoctl_queue_is_refused(void *unused)
{
	char out[4096];

	return npo_test_run(out, sizeof(out), "npoctl queue 2>&1") == 1 &&
	       strstr(out, "permission denied") ? 0 : 11;
}

TEST_F(queue, npoctl_queue_shows_owners)
{
	static char out[1 << 16];
	struct json_object *doc, *list, *e;
	bool queue_seen = false;
	char comm[32];
	int i, regions = 0;
	uint32_t job;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	ASSERT_EQ(0, npo_device_job(self->dev, &job));
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "npoctl -j queue show npo0"));
	doc = json_tokener_parse(out);
	ASSERT_NE(NULL, doc) TH_LOG("%s", out);
	ASSERT_TRUE(json_object_object_get_ex(doc, "queues", &list));
	for (i = 0; i < (int)json_object_array_length(list); i++) {
		e = json_object_array_get_idx(list, i);
		if (jint(e, "pid") != getpid() || jint(e, "queue") != self->q->id)
			continue;
		queue_seen = true;
		EXPECT_EQ(64, jint(e, "sq_entries"));
		EXPECT_EQ(128, jint(e, "cq_entries"));
		EXPECT_EQ(0, jint(e, "uid"));
		EXPECT_EQ(job, jint(e, "job"));
	}
	EXPECT_TRUE(queue_seen) TH_LOG("%s", out);
	ASSERT_TRUE(json_object_object_get_ex(doc, "regions", &list));
	for (i = 0; i < (int)json_object_array_length(list); i++) {
		e = json_object_array_get_idx(list, i);
		if (jint(e, "pid") != getpid())
			continue;
		if (jint(e, "lkey") == npo_mr_lkey(self->src_mr) ||
		    jint(e, "lkey") == npo_mr_lkey(self->dst_mr)) {
			EXPECT_EQ(BUF_SIZE, jint(e, "length"));
			EXPECT_EQ(job, jint(e, "job"));
			regions++;
		}
		/* The remote keys, which grant access, are never shown. */
		EXPECT_FALSE(json_object_object_get_ex(e, "rkey", NULL));
	}
	EXPECT_EQ(2, regions) TH_LOG("%s", out);
	json_object_put(doc);
	/* The text view names the process, as the kernel does. */
	ASSERT_EQ(0, npo_test_read_file("/proc/self/comm", comm, sizeof(comm)));
	comm[strcspn(comm, "\n")] = '\0';
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "npoctl queue"));
	EXPECT_NE(NULL, strstr(out, comm)) TH_LOG("%s in %s", comm, out);

	EXPECT_EQ(0, npo_test_as_nobody(npoctl_queue_is_refused, NULL));
}

/*
 * Hang attribution: a queue whose process stopped reaping completions
 * makes no progress.  `npoctl queue stuck` names it, with the number of
 * descriptors the device still holds (checked against the ring's SQ_HEAD,
 * which the device writes), how long the oldest has waited, where it
 * goes and that it waits for completion room; once the process reaps, it
 * is no longer listed.
 */
TEST_F(queue, npoctl_queue_stuck_names_what_the_queue_waits_for)
{
	struct npo_queue_attr attr = { .sq_entries = 4, .cq_entries = 4 };
	static char out[1 << 16];
	struct json_object *doc, *list, *e = NULL;
	struct npo_queue *q;
	struct npo_cqe *c;
	unsigned int i;
	int rc;

	NPO_TEST_SETUP_DONE();
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	ASSERT_EQ(0, npo_create_queue(self->dev, &attr, &q));
	fill(self->src, 64, 7);
	/* Four completions fill the ring; four more writes stay behind. */
	for (i = 0; i < 8; i++) {
		if (i == 4) {
			for (int t = 0; t < 1000 &&
			     npo_load_acquire(q->sq_head) != 4; t++)
				usleep(1000);
			ASSERT_EQ(4, npo_load_acquire(q->sq_head));
		}
		npo_prep_write(npo_get_sqe(q), i, npo_mr_lkey(self->src_mr),
			       self->src, 64, self->node, npo_mr_rkey(self->dst_mr),
			       (uintptr_t)self->dst + i * 64);
		npo_submit(q);
	}
	for (i = 0; i < 1000 && !(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL); i++)
		usleep(1000);
	ASSERT_TRUE(npo_load_acquire(q->status) & NPO_QSTAT_CQ_FULL);
	ASSERT_EQ(4, npo_load_acquire(q->sq_head));
	usleep(300000);

	rc = npo_test_run(out, sizeof(out), "npoctl -j queue stuck --older 200 npo0");
	EXPECT_EQ(3, rc) TH_LOG("%s", out);
	doc = json_tokener_parse(out);
	ASSERT_NE(NULL, doc) TH_LOG("%s", out);
	ASSERT_TRUE(json_object_object_get_ex(doc, "queues", &list));
	for (i = 0; i < json_object_array_length(list); i++) {
		struct json_object *k = json_object_array_get_idx(list, i);

		if (jint(k, "pid") == getpid() && jint(k, "queue") == q->id)
			e = k;
		/* The fixture's idle queue has nothing outstanding. */
		EXPECT_FALSE(jint(k, "pid") == getpid() &&
			     jint(k, "queue") == self->q->id);
	}
	ASSERT_NE(NULL, e) TH_LOG("%s", out);
	EXPECT_EQ(8 - npo_load_acquire(q->sq_head), jint(e, "outstanding"));
	EXPECT_LE(200, jint(e, "oldest_ms"));
	EXPECT_GT(60000, jint(e, "oldest_ms"));
	EXPECT_EQ(self->node, jint(e, "dest_node"));
	EXPECT_STREQ("write", json_object_get_string(
		     json_object_object_get(e, "opcode")));
	/* Loopback: no port. */
	EXPECT_FALSE(json_object_object_get_ex(e, "port", NULL));
	EXPECT_NE(NULL, strstr(json_object_get_string(
		  json_object_object_get(e, "waits_for")), "does not reap"));
	json_object_put(doc);
	/* The text form says the same in a line. */
	npo_test_run(out, sizeof(out), "npoctl queue stuck --older 200 npo0");
	EXPECT_NE(NULL, strstr(out, "4 outstanding")) TH_LOG("%s", out);

	/* Reaped, the queue drains and is no longer stuck. */
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, npo_wait_cqe(q, &c, 10000));
		EXPECT_EQ(i, c->wr_id);
		EXPECT_EQ(NPO_STATUS_OK, c->status);
		npo_cq_advance(q, 1);
	}
	rc = npo_test_run(out, sizeof(out), "npoctl -j queue stuck --older 0 npo0");
	EXPECT_EQ(0, rc) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "\"outstanding\"")) TH_LOG("%s", out);
	/* Bad times are refused. */
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl queue stuck --older -1 2>/dev/null"));
	EXPECT_EQ(2, npo_test_run(NULL, 0, "npoctl queue stuck --older 1x 2>/dev/null"));
	npo_destroy_queue(q);
}

/* A process killed with transfers in flight leaves nothing broken. */
/*
 * Pages pinned for DMA (FOLL_PIN) and not yet released, host-wide, from
 * /proc/vmstat: an independent view of what every region still holds.
 */

TEST_HARNESS_MAIN
