// SPDX-License-Identifier: GPL-2.0-only
/*
 * The libfabric provider "npo" on the host, over a fake libnpo
 * (fake_npo.c) whose devices live in this process, under ASan and UBSan.
 * libfabric loads the provider built for this test from the folder
 * "provider" beside the binary, as it loads any provider.
 *
 * What a VM makes slow or cannot aim: a peer lost half-way through a
 * large message, a device reset with work outstanding, every queue and
 * region given back at close.  The same checks as the VM's npo_fi_test
 * where they overlap (data whole, nothing past the buffer touched).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <npo.h>

#include "kselftest_harness.h"
#include "fake_npo.h"
#include "npo_fi_end.h"

#define ENDS		3	/* of npo_fi_end.h's MAX_ENDS */
#define GUARD		4096
#define BIG		(1u << 20)	/* well past the eager size: RTS, READ, FIN */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 131 + seed);
}

static bool all_are(const uint8_t *p, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* libfabric finds the provider built for this test, and no other. */
static void use_test_provider(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(dir, sizeof(dir), "%s/provider", exe);
	setenv("FI_PROVIDER_PATH", dir, 1);
	setenv("FI_PROVIDER", "npo", 1);
	setenv("FI_NPO_JOB", "0x5151", 1);
	/* A launcher's local rank would pick one device only. */
	unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
	unsetenv("MPI_LOCALRANKID");
	unsetenv("SLURM_LOCALID");
	unsetenv("PMIX_LOCAL_RANK");
}

FIXTURE(fi) {
	struct fi_end e[ENDS];
};

FIXTURE_SETUP(fi)
{
	int i, j;

	use_test_provider();
	npo_fake_set_devices(ENDS);
	for (i = 0; i < ENDS; i++)
		ASSERT_EQ(0, end_open(&self->e[i], i)) TH_LOG("npo%d", i);
	for (i = 0; i < ENDS; i++)
		for (j = 0; j < ENDS; j++)
			ASSERT_EQ(1, fi_av_insert(self->e[i].av, self->e[j].name,
						  1, &self->e[i].peer[j], 0,
						  NULL));
}

FIXTURE_TEARDOWN(fi)
{
	int i;

	for (i = 0; i < ENDS; i++)
		end_close(&self->e[i]);
}

/*
 * The next completion of e, moving every endpoint on meanwhile: 1 with
 * *c, 0 with *err for an error completion, -1 after 10 s of nothing.
 */
static int next_cqe(struct fi_end *ends, struct fi_end *e,
		    struct fi_cq_tagged_entry *c, struct fi_cq_err_entry *err)
{
	double end = now_s() + 10;
	ssize_t rc;
	int i;

	while (now_s() < end) {
		rc = fi_cq_read(e->cq, c, 1);
		if (rc == 1)
			return 1;
		if (rc == -FI_EAVAIL) {
			memset(err, 0, sizeof(*err));
			if (fi_cq_readerr(e->cq, err, 0) == 1)
				return 0;
		}
		for (i = 0; i < ENDS; i++)
			if (&ends[i] != e && ends[i].cq)
				fi_cq_read(ends[i].cq, NULL, 0);
	}
	return -1;
}

/* The error text of a completion, as fi_cq_strerror() gives it. */
static const char *err_text(struct fi_end *e, const struct fi_cq_err_entry *err)
{
	static char text[256];

	fi_cq_strerror(e->cq, err->prov_errno, err->err_data, text,
		       sizeof(text));
	return text;
}

TEST(getinfo_offers_a_domain_per_device)
{
	struct fi_info *info, *fi;
	int n = 0;

	use_test_provider();
	npo_fake_set_devices(ENDS);
	ASSERT_EQ(0, fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, NULL, &info));
	for (fi = info; fi; fi = fi->next) {
		char want[16];

		snprintf(want, sizeof(want), "npo%d", n);
		EXPECT_STREQ("npo", fi->fabric_attr->prov_name);
		EXPECT_STREQ(want, fi->domain_attr->name);
		EXPECT_EQ(FI_EP_RDM, fi->ep_attr->type);
		n++;
	}
	EXPECT_EQ(ENDS, n);
	fi_freeinfo(info);
	/* No device at all: no fi_info, not a crash. */
	npo_fake_set_devices(0);
	EXPECT_EQ(-FI_ENODATA, fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0,
					  NULL, &info));
}

TEST_F(fi, tagged_messages_arrive_whole_eager_and_by_rendezvous)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	size_t eager = a->info->tx_attr->inject_size;
	size_t sizes[] = { 0, 1, eager, eager + 1, BIG };
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint8_t *src = malloc(BIG), *dst = malloc(BIG + GUARD);
	size_t i;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		size_t len = sizes[i];

		fill(src, len, i);
		memset(dst, 0xee, len + GUARD);
		ASSERT_EQ(0, fi_trecv(b->ep, dst, len, NULL, FI_ADDR_UNSPEC,
				      10 + i, 0, dst));
		ASSERT_EQ(0, fi_tsend(a->ep, src, len, NULL, a->peer[1],
				      10 + i, src));
		ASSERT_EQ(1, next_cqe(self->e, b, &c, &err))
			TH_LOG("size %zu: %s", len, fi_strerror(err.err));
		EXPECT_EQ(dst, c.op_context);
		EXPECT_EQ(len, c.len);
		EXPECT_EQ(10 + i, c.tag);
		ASSERT_EQ(1, next_cqe(self->e, a, &c, &err))
			TH_LOG("size %zu: %s", len, fi_strerror(err.err));
		EXPECT_EQ(src, c.op_context);
		EXPECT_EQ(0, memcmp(src, dst, len)) TH_LOG("size %zu", len);
		EXPECT_TRUE(all_are(dst + len, GUARD, 0xee))
			TH_LOG("size %zu: written past the buffer", len);
	}
	free(src);
	free(dst);
}

TEST_F(fi, rma_atomics_and_a_refused_key)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	size_t region = 64 << 10;
	uint8_t *mem = malloc(region + 2 * GUARD), *win = mem + GUARD;
	uint8_t *local = malloc(region);
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint64_t key, base, v = 5, result = 0;
	struct fid_mr *mr;

	ASSERT_NE(NULL, mem);
	ASSERT_NE(NULL, local);
	memset(mem, 0xee, region + 2 * GUARD);
	memset(win, 0, region);
	ASSERT_EQ(0, fi_mr_reg(b->domain, win, region,
			       FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &mr,
			       NULL));
	key = fi_mr_key(mr);
	base = (uintptr_t)win;
	fill(local, 4096, 3);
	ASSERT_EQ(0, fi_write(a->ep, local, 4096, NULL, a->peer[1], base + 100,
			      key, local));
	ASSERT_EQ(1, next_cqe(self->e, a, &c, &err));
	EXPECT_EQ(0, memcmp(win + 100, local, 4096));
	EXPECT_TRUE(all_are(win, 100, 0));
	EXPECT_TRUE(all_are(win + 4196, region - 4196, 0));
	memset(local, 0, 4096);
	ASSERT_EQ(0, fi_read(a->ep, local, 4096, NULL, a->peer[1], base + 100,
			     key, local));
	ASSERT_EQ(1, next_cqe(self->e, a, &c, &err));
	EXPECT_EQ(0, memcmp(win + 100, local, 4096));
	memcpy(win, &(uint64_t){ 10 }, 8);
	ASSERT_EQ(0, fi_fetch_atomic(a->ep, &v, 1, NULL, &result, NULL,
				     a->peer[1], base, key, FI_UINT64, FI_SUM,
				     NULL));
	ASSERT_EQ(1, next_cqe(self->e, a, &c, &err));
	EXPECT_EQ(10, result);
	memcpy(&v, win, 8);
	EXPECT_EQ(15, v);

	/* Another key, then past the end: refused, named, nothing written. */
	ASSERT_EQ(0, fi_write(a->ep, local, 64, NULL, a->peer[1], base,
			      key ^ 0x10000, NULL));
	ASSERT_EQ(0, next_cqe(self->e, a, &c, &err));
	EXPECT_EQ(FI_EACCES, err.err);
	EXPECT_NE(NULL, strstr(err_text(a, &err), "node 2"))
		TH_LOG("%s", err_text(a, &err));
	ASSERT_EQ(0, fi_write(a->ep, local, 4096, NULL, a->peer[1],
			      base + region - 100, key, NULL));
	ASSERT_EQ(0, next_cqe(self->e, a, &c, &err));
	EXPECT_EQ(FI_EACCES, err.err);
	EXPECT_TRUE(all_are(mem, GUARD, 0xee));
	EXPECT_TRUE(all_are(win + region, GUARD, 0xee));
	/* The queue the refusal broke is replaced: the next one goes. */
	fill(local, 64, 9);
	ASSERT_EQ(0, fi_write(a->ep, local, 64, NULL, a->peer[1], base + 512,
			      key, NULL));
	ASSERT_EQ(1, next_cqe(self->e, a, &c, &err))
		TH_LOG("%s", fi_strerror(err.err));
	EXPECT_EQ(0, memcmp(win + 512, local, 64));
	EXPECT_EQ(0, fi_close(&mr->fid));
	free(mem);
	free(local);
}

/*
 * A peer lost between the request to send and the receiver's READ: the
 * receive fails naming the peer, the send fails too (it will never hear
 * FIN), and a third endpoint's traffic goes on.
 */
TEST_F(fi, a_peer_lost_mid_rendezvous_fails_both_ends_and_no_other)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1], *z = &self->e[2];
	uint8_t *src = malloc(BIG), *dst = malloc(BIG + GUARD);
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint64_t v = 42, got = 0, run;
	int rc;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	fill(src, BIG, 1);
	memset(dst, 0xee, BIG + GUARD);
	ASSERT_EQ(0, fi_trecv(b->ep, dst, BIG, NULL, FI_ADDR_UNSPEC, 1, 0,
			      dst));
	/* The RTS lands in b's receive buffer; b has not looked at it yet. */
	run = npo_fake_descriptors_run();
	ASSERT_EQ(0, fi_tsend(a->ep, src, BIG, NULL, a->peer[1], 1, src));
	for (rc = 0; rc < 1000000 && npo_fake_descriptors_run() == run; rc++)
		fi_cq_read(a->cq, NULL, 0);
	ASSERT_NE(run, npo_fake_descriptors_run());
	npo_fake_fail_node(1, NPO_STATUS_LINK_DOWN);
	ASSERT_EQ(0, next_cqe(self->e, b, &c, &err));
	EXPECT_EQ(dst, err.op_context);
	EXPECT_TRUE(err.err == FI_ENETDOWN || err.err == FI_EHOSTUNREACH)
		TH_LOG("%s", fi_strerror(err.err));
	EXPECT_NE(NULL, strstr(err_text(b, &err), "node 1"))
		TH_LOG("%s", err_text(b, &err));
	EXPECT_TRUE(all_are(dst + BIG, GUARD, 0xee));
	rc = next_cqe(self->e, a, &c, &err);
	EXPECT_EQ(0, rc) TH_LOG("the sender %s", rc < 0 ? "never heard" :
				"completed a send that was never read");
	EXPECT_EQ(src, err.op_context);
	EXPECT_TRUE(err.err == FI_ENETDOWN || err.err == FI_EHOSTUNREACH)
		TH_LOG("%s", fi_strerror(err.err));
	/* b still talks to z. */
	ASSERT_EQ(0, fi_trecv(z->ep, &got, 8, NULL, FI_ADDR_UNSPEC, 2, 0,
			      &got));
	ASSERT_EQ(0, fi_tsend(b->ep, &v, 8, NULL, b->peer[2], 2, &v));
	ASSERT_EQ(1, next_cqe(self->e, b, &c, &err))
		TH_LOG("%s", fi_strerror(err.err));
	ASSERT_EQ(1, next_cqe(self->e, z, &c, &err));
	EXPECT_EQ(42, got);
	npo_fake_fail_node(1, 0);
	free(src);
	free(dst);
}

/*
 * A receiver that posts its buffer seconds after the request to send: the
 * sender probes it about once a second meanwhile (a PING it drops), which
 * must cost the rendezvous nothing.
 */
TEST_F(fi, a_late_receiver_is_probed_and_its_send_completes)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	uint8_t *src = malloc(BIG), *dst = malloc(BIG);
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint64_t before, probes;
	double until;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	fill(src, BIG, 6);
	ASSERT_EQ(0, fi_tsend(a->ep, src, BIG, NULL, a->peer[1], 6, src));
	for (until = now_s() + 0.5; now_s() < until;)
		fi_cq_read(b->cq, NULL, 0), fi_cq_read(a->cq, NULL, 0);
	before = npo_fake_descriptors_run();
	for (until = now_s() + 3; now_s() < until;) {
		fi_cq_read(b->cq, NULL, 0);
		EXPECT_EQ(-FI_EAGAIN, fi_cq_read(a->cq, &c, 1))
			TH_LOG("the send ended before its receive was posted");
	}
	/* The RTS went before; since, only PINGs: one a second. */
	probes = npo_fake_descriptors_run() - before;
	EXPECT_LE(2, probes);
	EXPECT_GE(4, probes);
	ASSERT_EQ(0, fi_trecv(b->ep, dst, BIG, NULL, FI_ADDR_UNSPEC, 6, 0,
			      dst));
	ASSERT_EQ(1, next_cqe(self->e, b, &c, &err))
		TH_LOG("%s", fi_strerror(err.err));
	ASSERT_EQ(1, next_cqe(self->e, a, &c, &err))
		TH_LOG("%s", fi_strerror(err.err));
	EXPECT_EQ(src, c.op_context);
	EXPECT_EQ(0, memcmp(src, dst, BIG));
	free(src);
	free(dst);
}

/*
 * A receiver whose endpoint closed (its process died) after the request
 * to send arrived, on a node still reachable: the send fails, named.
 */
TEST_F(fi, a_closed_receiver_fails_the_send_waiting_on_it)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	uint8_t *src = malloc(BIG);
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint64_t run;
	int rc;

	ASSERT_NE(NULL, src);
	run = npo_fake_descriptors_run();
	ASSERT_EQ(0, fi_tsend(a->ep, src, BIG, NULL, a->peer[1], 7, src));
	for (rc = 0; rc < 1000000 && npo_fake_descriptors_run() == run; rc++)
		fi_cq_read(a->cq, NULL, 0);
	end_close(b);
	rc = next_cqe(self->e, a, &c, &err);
	ASSERT_EQ(0, rc) TH_LOG("the sender %s", rc < 0 ? "never heard" :
				"completed a send that was never read");
	EXPECT_EQ(src, err.op_context);
	EXPECT_EQ(FI_EHOSTUNREACH, err.err) TH_LOG("%s", fi_strerror(err.err));
	EXPECT_NE(NULL, strstr(err_text(a, &err), "node 2"))
		TH_LOG("%s", err_text(a, &err));
	free(src);
}

/*
 * The receiver's device is reset with a receive posted and a send to it
 * outstanding: both complete with an error, none hangs, and once the
 * device is back a new endpoint on it carries data again.
 */
TEST_F(fi, a_device_reset_fails_what_was_outstanding)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint64_t v = 7, got = 0;
	int rc;

	ASSERT_EQ(0, fi_trecv(b->ep, &got, 8, NULL, FI_ADDR_UNSPEC, 9, 0,
			      &got));
	npo_fake_reset(2);
	rc = next_cqe(self->e, b, &c, &err);
	ASSERT_EQ(0, rc) TH_LOG("the receive %s", rc < 0 ? "hung" : "completed");
	EXPECT_EQ(&got, err.op_context);
	/* a's queue to b is on npo0, not reset: b's queue is gone. */
	ASSERT_EQ(0, fi_tsend(a->ep, &v, 8, NULL, a->peer[1], 9, &v));
	rc = next_cqe(self->e, a, &c, &err);
	ASSERT_EQ(0, rc) TH_LOG("the send %s", rc < 0 ? "hung" : "completed");
	EXPECT_EQ(&v, err.op_context);
	/* A new endpoint on the device that came back. */
	end_close(b);
	ASSERT_EQ(0, end_open(b, 1));
	ASSERT_EQ(1, fi_av_insert(b->av, a->name, 1, &b->peer[0], 0, NULL));
	ASSERT_EQ(1, fi_av_insert(a->av, b->name, 1, &a->peer[1], 0, NULL));
	ASSERT_EQ(0, fi_trecv(b->ep, &got, 8, NULL, FI_ADDR_UNSPEC, 10, 0,
			      &got));
	ASSERT_EQ(0, fi_tsend(a->ep, &v, 8, NULL, a->peer[1], 10, &v));
	ASSERT_EQ(1, next_cqe(self->e, a, &c, &err))
		TH_LOG("%s", fi_strerror(err.err));
	ASSERT_EQ(1, next_cqe(self->e, b, &c, &err));
	EXPECT_EQ(7, got);
}

/* Closing everything gives back every queue and region the provider made. */
TEST_F(fi, close_gives_back_every_queue_and_region)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	uint8_t *src = malloc(BIG), *dst = malloc(BIG);
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	int i;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	/* Traffic first, so that per-peer queues and bounce regions exist. */
	ASSERT_EQ(0, fi_trecv(b->ep, dst, BIG, NULL, FI_ADDR_UNSPEC, 3, 0,
			      NULL));
	ASSERT_EQ(0, fi_tsend(a->ep, src, BIG, NULL, a->peer[1], 3, NULL));
	ASSERT_EQ(1, next_cqe(self->e, b, &c, &err));
	ASSERT_EQ(1, next_cqe(self->e, a, &c, &err));
	EXPECT_LT(0, npo_fake_queues());
	EXPECT_LT(0, npo_fake_regions());
	for (i = 0; i < ENDS; i++)
		end_close(&self->e[i]);
	EXPECT_EQ(0, npo_fake_queues());
	EXPECT_EQ(0, npo_fake_regions());
	free(src);
	free(dst);
}

TEST_HARNESS_MAIN
