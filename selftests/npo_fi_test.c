// SPDX-License-Identifier: GPL-2.0-only
/*
 * The libfabric provider "npo", driven the way applications drive it:
 * through libfabric's own API and fi_info, loaded from libfabric's provider
 * directory.  Messages of every size arrive whole, and nothing past the
 * posted buffer is touched; directed receives take only their sender's
 * messages; FI_PEEK, FI_CLAIM, FI_DISCARD and cancel do what fi_tagged(3)
 * says; RMA and atomics land in the registered region and nowhere else; a
 * bad key or a lost peer fails that peer's operations, named, and no other
 * peer's; another job's endpoint is refused; two processes talk.
 *
 * Needs npo-vm --topology ring: device i is node i + 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
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
#include "npo_fi_end.h"
#include "npo_test_lib.h"

#define FI_JOB		"0x5151"
#define GUARD		4096

FIXTURE(fi) {
	struct fi_end e[MAX_ENDS];
	int n;
};

FIXTURE_SETUP(fi)
{
	int i, j;

	memset(self, 0, sizeof(*self));
	self->n = npo_test_count_devices();
	NPO_TEST_NEED_RING(3);
	if (!npo_test_is_root())
		SKIP(return, "needs root to put the devices in a job");
	if (self->n > MAX_ENDS)
		self->n = MAX_ENDS;
	setenv("FI_NPO_JOB", FI_JOB, 1);
	for (i = 0; i < self->n; i++)
		ASSERT_EQ(0, end_open(&self->e[i], i)) TH_LOG("npo%d", i);
	/* Everyone knows everyone: e[i].peer[j] is e[j] in e[i]'s AV. */
	for (i = 0; i < self->n; i++) {
		for (j = 0; j < self->n; j++) {
			ASSERT_EQ(1, fi_av_insert(self->e[i].av,
						  self->e[j].name, 1,
						  &self->e[i].peer[j], 0,
						  NULL));
		}
	}
}

FIXTURE_TEARDOWN(fi)
{
	int i;

	for (i = 0; i < MAX_ENDS; i++)
		end_close(&self->e[i]);
}

/* Progress every endpoint but the one being read. */
static void progress(struct fi_end *ends, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (ends[i].cq)
			fi_cq_read(ends[i].cq, NULL, 0);
}

/*
 * The next completion of e, progressing the others meanwhile: 1 with *c,
 * or 0 with *err for an error completion, or -1 after 15 s of nothing.
 */
static int next_cqe(struct fi_end *ends, int n, struct fi_end *e,
		    struct fi_cq_tagged_entry *c, fi_addr_t *src,
		    struct fi_cq_err_entry *err)
{
	double end = npo_test_now_s() + 15;
	fi_addr_t from;
	ssize_t rc;

	while (npo_test_now_s() < end) {
		rc = fi_cq_readfrom(e->cq, c, 1, &from);
		if (rc == 1) {
			if (src)
				*src = from;
			return 1;
		}
		if (rc == -FI_EAVAIL) {
			memset(err, 0, sizeof(*err));
			if (fi_cq_readerr(e->cq, err, 0) == 1)
				return 0;
		}
		progress(ends, n);
	}
	return -1;
}

TEST(fi_info_lists_the_provider_on_every_device)
{
	static char out[1 << 16];
	char want[32];
	int n = npo_test_count_devices(), i;

	if (n < 1)
		SKIP(return, "no NPO device");
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "fi_info -p npo"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "provider: npo")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "type: FI_EP_RDM")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "fabric: npo")) TH_LOG("%s", out);
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "domain: npo%d\n", i);
		EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	}
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "fi_info -p npo -v"));
	EXPECT_NE(NULL, strstr(out, "FI_TAGGED")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "FI_DIRECTED_RECV")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "FI_PROGRESS_MANUAL")) TH_LOG("%s", out);
	/* What it does not do, it does not claim. */
	EXPECT_EQ(61, npo_test_run(out, sizeof(out),
				   "fi_info -p npo -t FI_EP_MSG"));
	EXPECT_EQ(61, npo_test_run(out, sizeof(out),
				   "fi_info -p npo -c FI_MULTICAST"));
}

/* Open MPI 4.1's mtl ofi asks this; without a match it cannot run. */
TEST(getinfo_answers_open_mpis_hints)
{
	struct fi_info *h, *info = NULL;
	int n = npo_test_count_devices(), bits = 0;
	uint64_t fmt;

	if (n < 1)
		SKIP(return, "no NPO device");
	h = fi_allocinfo();
	ASSERT_NE(NULL, h);
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_TAGGED | FI_LOCAL_COMM | FI_REMOTE_COMM | FI_DIRECTED_RECV;
	h->tx_attr->msg_order = FI_ORDER_SAS;
	h->rx_attr->msg_order = FI_ORDER_SAS;
	h->tx_attr->op_flags = FI_COMPLETION;
	h->rx_attr->op_flags = FI_COMPLETION;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->domain_attr->cq_data_size = 4;
	h->domain_attr->av_type = FI_AV_MAP;
	h->domain_attr->resource_mgmt = FI_RM_ENABLED;
	h->domain_attr->mr_mode = 0;
	h->fabric_attr->prov_name = strdup("npo");
	ASSERT_EQ(0, fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, h, &info));
	ASSERT_NE(NULL, info);
	EXPECT_STREQ("npo", info->fabric_attr->prov_name);
	EXPECT_EQ(FI_EP_RDM, info->ep_attr->type);
	EXPECT_TRUE(info->caps & FI_DIRECTED_RECV);
	EXPECT_TRUE(info->caps & FI_TAGGED);
	/* No RMA for an application that takes no provider keys. */
	EXPECT_FALSE(info->caps & FI_RMA);
	EXPECT_EQ(0, info->domain_attr->mr_mode);
	EXPECT_GE(info->domain_attr->cq_data_size, 4);
	EXPECT_EQ(FI_AV_MAP, info->domain_attr->av_type);
	EXPECT_EQ(FI_THREAD_DOMAIN, info->domain_attr->threading);
	fmt = info->ep_attr->mem_tag_format;
	while (fmt) {
		bits += fmt & 1;
		fmt >>= 1;
	}
	/* Open MPI needs bit 63, and the whole 64-bit tag is matched. */
	EXPECT_EQ(64, bits);
	EXPECT_GT(info->tx_attr->inject_size, 0);
	EXPECT_EQ(0, strncmp(info->domain_attr->name, "npo", 3));
	fi_freeinfo(info);

	/* RMA without provider keys, a connected endpoint, a hostname: no. */
	h->caps |= FI_RMA;
	EXPECT_EQ(-FI_ENODATA, fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, h,
					  &info));
	h->caps &= ~FI_RMA;
	h->ep_attr->type = FI_EP_MSG;
	EXPECT_EQ(-FI_ENODATA, fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, h,
					  &info));
	h->ep_attr->type = FI_EP_RDM;
	EXPECT_EQ(-FI_ENODATA, fi_getinfo(FI_VERSION(1, 5), "127.0.0.1",
					  "9228", 0, h, &info));
	h->domain_attr->data_progress = FI_PROGRESS_AUTO;
	EXPECT_EQ(-FI_ENODATA, fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, h,
					  &info));
	fi_freeinfo(h);
}

TEST_F_TIMEOUT(fi, tagged_messages_arrive_whole_at_every_size, 240)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	/* The largest eager message is the inject size; one more is not. */
	size_t eager = a->info->tx_attr->inject_size;
	size_t sizes[] = { 0, 1, 4096, eager, eager + 1, 1 << 20, 8 << 20 };
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint8_t *src, *dst;
	fi_addr_t from;
	size_t i, len;
	int got_send, got_recv, rc;

	NPO_TEST_SETUP_DONE();
	src = npo_test_map(8 << 20);
	dst = npo_test_map((8 << 20) + GUARD);
	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		len = sizes[i];
		npo_test_fill(src, len, i);
		memset(dst, 0xee, len + GUARD);
		/* Half the sizes posted first, half arriving unexpected. */
		if (i % 2)
			ASSERT_EQ(0, fi_tsend(a->ep, src, len, NULL,
					      a->peer[1], 100 + i, &sizes[i]));
		ASSERT_EQ(0, fi_trecv(b->ep, dst, len, NULL, FI_ADDR_UNSPEC,
				      100 + i, 0, dst));
		if (!(i % 2))
			ASSERT_EQ(0, fi_tsend(a->ep, src, len, NULL,
					      a->peer[1], 100 + i, &sizes[i]));
		got_send = got_recv = 0;
		while (!got_send || !got_recv) {
			rc = next_cqe(self->e, self->n, got_recv ? a : b, &c,
				      &from, &err);
			ASSERT_EQ(1, rc) TH_LOG("size %zu: %s", len,
						rc ? "nothing" :
						fi_strerror(err.err));
			if (c.flags & FI_SEND) {
				EXPECT_EQ(&sizes[i], c.op_context);
				got_send++;
				continue;
			}
			EXPECT_EQ(dst, c.op_context);
			EXPECT_EQ(FI_RECV | FI_TAGGED, c.flags);
			EXPECT_EQ(len, c.len);
			EXPECT_EQ(100 + i, c.tag);
			EXPECT_EQ(b->peer[0], from);
			got_recv++;
		}
		EXPECT_EQ(1, got_send);
		EXPECT_EQ(0, memcmp(src, dst, len)) TH_LOG("size %zu", len);
		EXPECT_TRUE(npo_test_all_are(dst + len, GUARD, 0xee))
			TH_LOG("size %zu: written past the buffer", len);
	}
	/* Too long for the buffer: truncated, the rest untouched. */
	npo_test_fill(src, 1 << 20, 3);
	memset(dst, 0xee, (1 << 20) + GUARD);
	ASSERT_EQ(0, fi_trecv(b->ep, dst, 1000, NULL, FI_ADDR_UNSPEC, 7, 0,
			      dst));
	ASSERT_EQ(0, fi_tsend(a->ep, src, 1 << 20, NULL, a->peer[1], 7, NULL));
	ASSERT_EQ(0, next_cqe(self->e, self->n, b, &c, NULL, &err));
	EXPECT_EQ(FI_ETRUNC, err.err);
	EXPECT_EQ(1000, err.len);
	EXPECT_EQ((1 << 20) - 1000, err.olen);
	EXPECT_EQ(0, memcmp(src, dst, 1000));
	EXPECT_TRUE(npo_test_all_are(dst + 1000, GUARD, 0xee));
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(FI_SEND | FI_TAGGED, c.flags);
	munmap(src, 8 << 20);
	munmap(dst, (8 << 20) + GUARD);
}

/*
 * A receiver that posts its buffer seconds after the request to send
 * came: the sender's peer is probed meanwhile (an empty WRITE each
 * second, libfabric.rst), which must cost the rendezvous nothing.
 */
TEST_F_TIMEOUT(fi, a_rendezvous_waits_for_a_late_receiver, 120)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	size_t len = 1 << 20;
	uint8_t *src = npo_test_map(len), *dst = npo_test_map(len + GUARD);
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	double until;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	npo_test_fill(src, len, 4);
	memset(dst, 0xee, len + GUARD);
	ASSERT_EQ(0, fi_tsend(a->ep, src, len, NULL, a->peer[1], 44, src));
	/* Both move on for 3 s: the RTS waits at b, a probes b. */
	for (until = npo_test_now_s() + 3; npo_test_now_s() < until;)
		progress(self->e, self->n);
	EXPECT_EQ(-FI_EAGAIN, fi_cq_read(a->cq, &c, 1))
		TH_LOG("the send ended before its receive was posted");
	ASSERT_EQ(0, fi_trecv(b->ep, dst, len, NULL, FI_ADDR_UNSPEC, 44, 0,
			      dst));
	ASSERT_EQ(1, next_cqe(self->e, self->n, b, &c, NULL, &err))
		TH_LOG("%s", fi_strerror(err.err));
	EXPECT_EQ(len, c.len);
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err))
		TH_LOG("%s", fi_strerror(err.err));
	EXPECT_EQ(src, c.op_context);
	EXPECT_EQ(0, memcmp(src, dst, len));
	EXPECT_TRUE(npo_test_all_are(dst + len, GUARD, 0xee));
	munmap(src, len);
	munmap(dst, len + GUARD);
}

/* FI_MSG: untagged messages, apart from tagged ones, with CQ data. */
TEST_F(fi, untagged_messages_keep_apart_from_tagged_ones)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	uint64_t plain = 0x5555, tagged = 0x7777, got = 0, got_t = 0;
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint8_t *big = npo_test_map(1 << 20), *in = npo_test_map(1 << 20);
	fi_addr_t src;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(NULL, big);
	ASSERT_NE(NULL, in);
	/* A tagged receive that would take anything never takes a send. */
	ASSERT_EQ(0, fi_trecv(b->ep, &got_t, 8, NULL, FI_ADDR_UNSPEC, 0, ~0ULL,
			      &got_t));
	ASSERT_EQ(0, fi_senddata(a->ep, &plain, 8, NULL, 0x1234, a->peer[1],
				 &plain));
	ASSERT_EQ(0, fi_recv(b->ep, &got, 8, NULL, FI_ADDR_UNSPEC, &got));
	ASSERT_EQ(1, next_cqe(self->e, self->n, b, &c, &src, &err));
	EXPECT_EQ(&got, c.op_context);
	EXPECT_EQ(FI_RECV | FI_MSG | FI_REMOTE_CQ_DATA, c.flags);
	EXPECT_EQ(0x1234, c.data);
	EXPECT_EQ(plain, got);
	EXPECT_EQ(b->peer[0], src);
	EXPECT_EQ(0, got_t);
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(FI_SEND | FI_MSG, c.flags);
	/* The tagged receive is still there for a tagged message. */
	ASSERT_EQ(0, fi_tsend(a->ep, &tagged, 8, NULL, a->peer[1], 99, NULL));
	ASSERT_EQ(1, next_cqe(self->e, self->n, b, &c, NULL, &err));
	EXPECT_EQ(&got_t, c.op_context);
	EXPECT_EQ(tagged, got_t);
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	/* A large untagged one goes by rendezvous, whole. */
	npo_test_fill(big, 1 << 20, 11);
	ASSERT_EQ(0, fi_send(a->ep, big, 1 << 20, NULL, a->peer[1], big));
	ASSERT_EQ(0, fi_recv(b->ep, in, 1 << 20, NULL, FI_ADDR_UNSPEC, in));
	ASSERT_EQ(1, next_cqe(self->e, self->n, b, &c, NULL, &err));
	EXPECT_EQ(1 << 20, c.len);
	EXPECT_EQ(0, memcmp(big, in, 1 << 20));
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(big, c.op_context);
	munmap(big, 1 << 20);
	munmap(in, 1 << 20);
}

TEST_F(fi, directed_receives_take_only_their_senders_messages)
{
	struct fi_end *r = &self->e[0];
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint64_t from1 = 0x1111, from2 = 0x2222, again = 0x1112, got = 0;
	fi_addr_t src;
	int i;

	NPO_TEST_SETUP_DONE();
	/* Both send tag 5; node 1's twice, in order. */
	ASSERT_EQ(0, fi_tinject(self->e[1].ep, &from1, 8, self->e[1].peer[0],
				5));
	ASSERT_EQ(0, fi_tinject(self->e[2].ep, &from2, 8, self->e[2].peer[0],
				5));
	ASSERT_EQ(0, fi_tinject(self->e[1].ep, &again, 8, self->e[1].peer[0],
				5));
	/* Let all three arrive at r unexpected before anything is posted. */
	for (i = 0; i < 200; i++) {
		progress(self->e, self->n);
		usleep(1000);
	}
	ASSERT_EQ(0, fi_trecv(r->ep, &got, 8, NULL, r->peer[2], 5, 0, &got));
	ASSERT_EQ(1, next_cqe(self->e, self->n, r, &c, &src, &err));
	EXPECT_EQ(from2, got);
	EXPECT_EQ(r->peer[2], src);
	ASSERT_EQ(0, fi_trecv(r->ep, &got, 8, NULL, FI_ADDR_UNSPEC, 5, 0,
			      &got));
	ASSERT_EQ(1, next_cqe(self->e, self->n, r, &c, &src, &err));
	EXPECT_EQ(from1, got);
	EXPECT_EQ(r->peer[1], src);
	ASSERT_EQ(0, fi_trecv(r->ep, &got, 8, NULL, r->peer[1], 0, ~0ULL,
			      &got));
	ASSERT_EQ(1, next_cqe(self->e, self->n, r, &c, &src, &err));
	EXPECT_EQ(again, got);
	/* The other way round: node 1's message crosses node 2 to node 3. */
	ASSERT_EQ(0, fi_tinject(self->e[1].ep, &from2, 8, self->e[1].peer[2],
				6));
	ASSERT_EQ(0, fi_tinject(r->ep, &from1, 8, r->peer[2], 6));
	for (i = 0; i < 200; i++) {
		progress(self->e, self->n);
		usleep(1000);
	}
	ASSERT_EQ(0, fi_trecv(self->e[2].ep, &got, 8, NULL,
			      self->e[2].peer[0], 6, 0, &got));
	ASSERT_EQ(1, next_cqe(self->e, self->n, &self->e[2], &c, &src, &err));
	EXPECT_EQ(from1, got);
	EXPECT_EQ(self->e[2].peer[0], src);
	ASSERT_EQ(0, fi_trecv(self->e[2].ep, &got, 8, NULL,
			      self->e[2].peer[1], 6, 0, &got));
	ASSERT_EQ(1, next_cqe(self->e, self->n, &self->e[2], &c, &src, &err));
	EXPECT_EQ(from2, got);
	EXPECT_EQ(self->e[2].peer[1], src);
	/* Ignore bits: any tag matches; data rides along as CQ data. */
	ASSERT_EQ(0, fi_tinjectdata(self->e[1].ep, &from1, 8, 0xbeef,
				    self->e[1].peer[0], 0x7700));
	ASSERT_EQ(0, fi_trecv(r->ep, &got, 8, NULL, FI_ADDR_UNSPEC, 0x7711,
			      0xff, &got));
	ASSERT_EQ(1, next_cqe(self->e, self->n, r, &c, &src, &err));
	EXPECT_EQ(0x7700, c.tag);
	EXPECT_EQ(0xbeef, c.data);
	EXPECT_TRUE(c.flags & FI_REMOTE_CQ_DATA);
}

static ssize_t trecvmsg(struct fi_end *e, void *buf, size_t len,
			uint64_t tag, void *ctx, uint64_t flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct fi_msg_tagged m = {
		.msg_iov = &iov,
		.iov_count = buf ? 1 : 0,
		.addr = FI_ADDR_UNSPEC,
		.tag = tag,
		.context = ctx,
	};

	return fi_trecvmsg(e->ep, &m, flags | FI_COMPLETION);
}

TEST_F(fi, peek_claim_discard_and_cancel)
{
	struct fi_end *r = &self->e[0], *s = &self->e[1];
	char msg[8] = "claimed", got[8] = { 0 }, other[8];
	struct fi_context ctx_peek, ctx_claim, ctx_other;
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint8_t *big = npo_test_map(1 << 20);
	int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(NULL, big);
	ASSERT_EQ(0, fi_tsend(s->ep, msg, 8, NULL, s->peer[0], 9, msg));
	ASSERT_EQ(0, fi_tsend(s->ep, big, 1 << 20, NULL, s->peer[0], 10, big));
	/* Nothing with tag 77: FI_ENOMSG. */
	ASSERT_EQ(0, trecvmsg(r, NULL, 0, 77, &ctx_peek, FI_PEEK));
	ASSERT_EQ(0, next_cqe(self->e, self->n, r, &c, NULL, &err));
	EXPECT_EQ(FI_ENOMSG, err.err);
	EXPECT_EQ(&ctx_peek, err.op_context);
	/* Peek at tag 9 until it came: its length and tag, nothing taken. */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, trecvmsg(r, NULL, 0, 9, &ctx_peek, FI_PEEK));
		if (next_cqe(self->e, self->n, r, &c, NULL, &err) == 1)
			break;
		ASSERT_EQ(FI_ENOMSG, err.err);
		usleep(10000);
	}
	ASSERT_LT(i, 100) TH_LOG("tag 9 never came");
	EXPECT_EQ(8, c.len);
	EXPECT_EQ(9, c.tag);
	EXPECT_EQ(&ctx_peek, c.op_context);
	/* Claimed: an ordinary receive for tag 9 no longer gets it. */
	ASSERT_EQ(0, trecvmsg(r, NULL, 0, 9, &ctx_claim, FI_PEEK | FI_CLAIM));
	ASSERT_EQ(1, next_cqe(self->e, self->n, r, &c, NULL, &err));
	ASSERT_EQ(0, fi_trecv(r->ep, other, 8, NULL, FI_ADDR_UNSPEC, 9, 0,
			      &ctx_other));
	ASSERT_EQ(0, trecvmsg(r, got, 8, 0, &ctx_claim, FI_CLAIM));
	ASSERT_EQ(1, next_cqe(self->e, self->n, r, &c, NULL, &err));
	EXPECT_EQ(&ctx_claim, c.op_context);
	EXPECT_EQ(0, memcmp(msg, got, 8));
	/* The other receive is still posted: cancel it, once. */
	ASSERT_EQ(0, fi_cancel(&r->ep->fid, &ctx_other));
	ASSERT_EQ(0, next_cqe(self->e, self->n, r, &c, NULL, &err));
	EXPECT_EQ(FI_ECANCELED, err.err);
	EXPECT_EQ(&ctx_other, err.op_context);
	EXPECT_NE(0, fi_cancel(&r->ep->fid, &ctx_other));
	/*
	 * The 1 MiB one (rendezvous) discarded unread: its length is told,
	 * and the sender's send completes.
	 */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, trecvmsg(r, NULL, 0, 10, &ctx_peek,
				      FI_PEEK | FI_DISCARD));
		if (next_cqe(self->e, self->n, r, &c, NULL, &err) == 1)
			break;
		usleep(10000);
	}
	ASSERT_LT(i, 100);
	EXPECT_EQ(1 << 20, c.len);
	ASSERT_EQ(1, next_cqe(self->e, self->n, s, &c, NULL, &err));
	ASSERT_EQ(1, next_cqe(self->e, self->n, s, &c, NULL, &err));
	EXPECT_EQ(big, c.op_context);
	ASSERT_EQ(0, trecvmsg(r, NULL, 0, 10, &ctx_peek, FI_PEEK));
	ASSERT_EQ(0, next_cqe(self->e, self->n, r, &c, NULL, &err));
	EXPECT_EQ(FI_ENOMSG, err.err);
	munmap(big, 1 << 20);
}

TEST_F(fi, rma_and_atomics_land_in_the_region_and_nowhere_else)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1];
	size_t region = 64 << 10;
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint8_t *mem = npo_test_map(region + 2 * GUARD), *win;
	uint8_t *local = npo_test_map(region);
	uint64_t key, base, v, result, cmp;
	struct fid_mr *mr;
	char text[256];

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(NULL, mem);
	ASSERT_NE(NULL, local);
	memset(mem, 0xee, region + 2 * GUARD);
	win = mem + GUARD;
	memset(win, 0, region);
	ASSERT_EQ(0, fi_mr_reg(b->domain, win, region,
			       FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &mr,
			       NULL));
	key = fi_mr_key(mr);
	base = (uintptr_t)win;

	npo_test_fill(local, 4096, 5);
	ASSERT_EQ(0, fi_write(a->ep, local, 4096, NULL, a->peer[1], base + 100,
			      key, local));
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(FI_RMA | FI_WRITE, c.flags);
	EXPECT_EQ(0, memcmp(win + 100, local, 4096));
	EXPECT_TRUE(npo_test_all_are(win, 100, 0));
	EXPECT_TRUE(npo_test_all_are(win + 4196, region - 4196, 0));
	memset(local, 0, 4096);
	ASSERT_EQ(0, fi_read(a->ep, local, 4096, NULL, a->peer[1], base + 100,
			     key, local));
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(0, memcmp(win + 100, local, 4096));
	/* With remote CQ data: the target hears of it. */
	ASSERT_EQ(0, fi_writedata(a->ep, local, 64, NULL, 0xabcd, a->peer[1],
				  base + 8192, key, local));
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	ASSERT_EQ(1, next_cqe(self->e, self->n, b, &c, NULL, &err));
	EXPECT_EQ(0xabcd, c.data);
	EXPECT_TRUE(c.flags & FI_REMOTE_CQ_DATA);
	EXPECT_TRUE(c.flags & FI_REMOTE_WRITE);
	EXPECT_EQ(0, memcmp(win + 8192, local, 64));

	/* Atomics on the 64-bit word at base. */
	v = 10;
	memcpy(win, &v, 8);
	v = 5;
	ASSERT_EQ(0, fi_fetch_atomic(a->ep, &v, 1, NULL, &result, NULL,
				     a->peer[1], base, key, FI_UINT64, FI_SUM,
				     NULL));
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(10, result);
	cmp = 15;
	v = 99;
	ASSERT_EQ(0, fi_compare_atomic(a->ep, &v, 1, NULL, &cmp, NULL,
				       &result, NULL, a->peer[1], base, key,
				       FI_UINT64, FI_CSWAP, NULL));
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(15, result);
	memcpy(&v, win, 8);
	EXPECT_EQ(99, v);
	v = 1;
	EXPECT_EQ(-FI_EOPNOTSUPP, fi_atomic(a->ep, &v, 1, NULL, a->peer[1],
					    base, key, FI_UINT32, FI_SUM,
					    NULL));

	/*
	 * A wrong key, then past the region: each fails alone, named; the
	 * next write to the same peer goes through.
	 */
	ASSERT_EQ(0, fi_write(a->ep, local, 64, NULL, a->peer[1], base,
			      key ^ 0x10000, NULL));
	ASSERT_EQ(0, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(FI_EACCES, err.err);
	fi_cq_strerror(a->cq, err.prov_errno, err.err_data, text,
		       sizeof(text));
	EXPECT_NE(NULL, strstr(text, "node 2")) TH_LOG("%s", text);
	ASSERT_EQ(0, fi_write(a->ep, local, 4096, NULL, a->peer[1],
			      base + region - 100, key, NULL));
	ASSERT_EQ(0, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(FI_EACCES, err.err);
	EXPECT_TRUE(npo_test_all_are(mem, GUARD, 0xee));
	EXPECT_TRUE(npo_test_all_are(win + region, GUARD, 0xee));
	npo_test_fill(local, 64, 9);
	ASSERT_EQ(0, fi_write(a->ep, local, 64, NULL, a->peer[1], base + 512,
			      key, NULL));
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err));
	EXPECT_EQ(0, memcmp(win + 512, local, 64));
	EXPECT_EQ(0, fi_close(&mr->fid));
	munmap(mem, region + 2 * GUARD);
	munmap(local, region);
}

TEST_F_TIMEOUT(fi, a_lost_peer_fails_its_operations_only, 120)
{
	struct fi_end *a = &self->e[0], *b = &self->e[1], *z = &self->e[2];
	uint64_t v = 42, got = 0;
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	char text[256];
	int i, rc;

	NPO_TEST_SETUP_DONE();
	/* Node 2 (npo1) cut off from both its neighbours. */
	ASSERT_EQ(0, npo_test_fault(1, "cut 0 1"));
	ASSERT_EQ(0, npo_test_fault(1, "cut 1 1"));
	ASSERT_EQ(0, fi_tsend(a->ep, &v, 8, NULL, a->peer[1], 1, &v));
	rc = next_cqe(self->e, self->n, a, &c, NULL, &err);
	ASSERT_EQ(0, rc);
	EXPECT_TRUE(err.err == FI_ENETDOWN || err.err == FI_EHOSTUNREACH)
		TH_LOG("%s", fi_strerror(err.err));
	EXPECT_EQ(&v, err.op_context);
	fi_cq_strerror(a->cq, err.prov_errno, err.err_data, text,
		       sizeof(text));
	EXPECT_NE(NULL, strstr(text, "node 2")) TH_LOG("%s", text);
	/* The same endpoint still reaches node 3, the other way round. */
	ASSERT_EQ(0, fi_trecv(z->ep, &got, 8, NULL, FI_ADDR_UNSPEC, 2, 0,
			      &got));
	ASSERT_EQ(0, fi_tsend(a->ep, &v, 8, NULL, a->peer[2], 2, &v));
	ASSERT_EQ(1, next_cqe(self->e, self->n, a, &c, NULL, &err))
		TH_LOG("%s", fi_strerror(err.err));
	ASSERT_EQ(1, next_cqe(self->e, self->n, z, &c, NULL, &err));
	EXPECT_EQ(42, got);
	ASSERT_EQ(0, npo_test_fault(1, "cut 0 0"));
	ASSERT_EQ(0, npo_test_fault(1, "cut 1 0"));
	/* Back: node 2 is reached again, on a queue made anew. */
	got = 0;
	ASSERT_EQ(0, fi_trecv(b->ep, &got, 8, NULL, FI_ADDR_UNSPEC, 3, 0,
			      &got));
	for (i = 0; i < 30; i++) {
		ASSERT_EQ(0, fi_tsend(a->ep, &v, 8, NULL, a->peer[1], 3, &v));
		if (next_cqe(self->e, self->n, a, &c, NULL, &err) == 1)
			break;
		sleep(1);
	}
	ASSERT_LT(i, 30) TH_LOG("node 2 never came back");
	ASSERT_EQ(1, next_cqe(self->e, self->n, b, &c, NULL, &err));
	EXPECT_EQ(42, got);
}

/*
 * Unexpected messages past FI_NPO_UNEXP_MAX stay in their receive
 * buffers: three rounds of 100 (more than the free buffers, were they
 * not given back when taken) arrive whole, taken in reverse order.
 */
TEST(unexpected_messages_past_the_cap_wait_in_their_buffers)
{
	struct fi_end e[2] = { 0 };
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	size_t len = 60 << 10;
	uint8_t *out, *in;
	fi_addr_t to_b, to_a;
	int round, i, sent;

	if (npo_test_count_devices() < 2)
		SKIP(return, "needs two NPO devices");
	if (!npo_test_is_root())
		SKIP(return, "needs root to put the devices in a job");
	setenv("FI_NPO_JOB", FI_JOB, 1);
	setenv("FI_NPO_UNEXP_MAX", "200000", 1);
	ASSERT_EQ(0, end_open(&e[0], 0));
	ASSERT_EQ(0, end_open(&e[1], 1));
	unsetenv("FI_NPO_UNEXP_MAX");
	ASSERT_EQ(1, fi_av_insert(e[0].av, e[1].name, 1, &to_b, 0, NULL));
	ASSERT_EQ(1, fi_av_insert(e[1].av, e[0].name, 1, &to_a, 0, NULL));
	out = npo_test_map(100 * len);
	in = npo_test_map(len + GUARD);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, in);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 100; i++)
			npo_test_fill(out + i * len, len, round * 100 + i);
		/* All sent before any receive, retrying while buffers run out. */
		for (sent = 0; sent < 100;) {
			ssize_t rc = fi_tsend(e[0].ep, out + sent * len, len,
					      NULL, to_b, sent, NULL);

			if (rc == -FI_EAGAIN) {
				progress(e, 2);
				continue;
			}
			ASSERT_EQ(0, rc);
			sent++;
		}
		for (i = 0; i < 200; i++)
			progress(e, 2);
		for (i = 99; i >= 0; i--) {
			memset(in, 0xee, len + GUARD);
			ASSERT_EQ(0, fi_trecv(e[1].ep, in, len, NULL, to_a, i, 0,
					      in));
			ASSERT_EQ(1, next_cqe(e, 2, &e[1], &c, NULL, &err))
				TH_LOG("round %d, message %d", round, i);
			EXPECT_EQ(i, c.tag);
			ASSERT_EQ(0, memcmp(out + i * len, in, len))
				TH_LOG("round %d, message %d", round, i);
			EXPECT_TRUE(npo_test_all_are(in + len, GUARD, 0xee));
		}
		for (i = 0; i < 100; i++)
			ASSERT_EQ(1, next_cqe(e, 2, &e[0], &c, NULL, &err))
				TH_LOG("round %d: send %d: %s", round, i,
				       fi_strerror(err.err));
	}
	munmap(out, 100 * len);
	munmap(in, len + GUARD);
	end_close(&e[0]);
	end_close(&e[1]);
}

/* A pipe to pass an endpoint name between two processes. */
static int run_child(int (*fn)(int rd, int wr, int dev), int dev, int *rd,
		     int *wr)
{
	int up[2], down[2];
	pid_t pid;

	if (pipe(up) || pipe(down))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(up[0]);
		close(down[1]);
		_exit(fn(down[0], up[1], dev));
	}
	close(up[1]);
	close(down[0]);
	*rd = up[0];
	*wr = down[1];
	return pid;
}

#define PINGS	200

/* The other process: echoes PINGS small and 4 large messages back. */
static int echo_child(int rd, int wr, int dev)
{
	struct fi_end e = { 0 };
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint8_t name[NAME_LEN], *buf = npo_test_map(4 << 20);
	fi_addr_t peer;
	int i;

	if (!buf || end_open(&e, dev) ||
	    write(wr, e.name, NAME_LEN) != NAME_LEN ||
	    read(rd, name, NAME_LEN) != NAME_LEN ||
	    fi_av_insert(e.av, name, 1, &peer, 0, NULL) != 1)
		return 10;
	for (i = 0; i < PINGS + 4; i++) {
		size_t len = i < PINGS ? 64 : 4 << 20;

		if (fi_trecv(e.ep, buf, len, NULL, peer, i, 0, buf))
			return 11;
		if (next_cqe(&e, 1, &e, &c, NULL, &err) != 1 || c.len != len)
			return 12;
		if (fi_tsend(e.ep, buf, len, NULL, peer, i, NULL))
			return 13;
		if (next_cqe(&e, 1, &e, &c, NULL, &err) != 1)
			return 14;
	}
	end_close(&e);
	return 0;
}

TEST_F_TIMEOUT(fi, two_processes_ping_pong, 240)
{
	struct fi_end *a = &self->e[0];
	struct fi_cq_tagged_entry c;
	struct fi_cq_err_entry err;
	uint8_t name[NAME_LEN], *out = npo_test_map(4 << 20);
	uint8_t *in = npo_test_map(4 << 20);
	int rd, wr, status, i;
	fi_addr_t peer;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, in);
	/* The child takes npo1 anew: close this process' end there. */
	end_close(&self->e[1]);
	pid = run_child(echo_child, 1, &rd, &wr);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(NAME_LEN, read(rd, name, NAME_LEN));
	ASSERT_EQ(NAME_LEN, write(wr, a->name, NAME_LEN));
	ASSERT_EQ(1, fi_av_insert(a->av, name, 1, &peer, 0, NULL));
	for (i = 0; i < PINGS + 4; i++) {
		size_t len = i < PINGS ? 64 : 4 << 20;

		npo_test_fill(out, len, i);
		memset(in, 0, len);
		ASSERT_EQ(0, fi_trecv(a->ep, in, len, NULL, peer, i, 0, in));
		ASSERT_EQ(0, fi_tsend(a->ep, out, len, NULL, peer, i, out));
		ASSERT_EQ(1, next_cqe(self->e, 1, a, &c, NULL, &err))
			TH_LOG("round %d: %s", i, fi_strerror(err.err));
		ASSERT_EQ(1, next_cqe(self->e, 1, a, &c, NULL, &err))
			TH_LOG("round %d: %s", i, fi_strerror(err.err));
		ASSERT_EQ(0, memcmp(out, in, len)) TH_LOG("round %d", i);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	munmap(out, 4 << 20);
	munmap(in, 4 << 20);
}

/* Another job's endpoint: its name is refused, no request could reach. */
static int other_job_child(int rd, int wr, int dev)
{
	struct fi_end e = { 0 };
	char done;

	setenv("FI_NPO_JOB", "0x5152", 1);
	if (end_open(&e, dev) || write(wr, e.name, NAME_LEN) != NAME_LEN)
		return 10;
	/* Stay until the parent tried. */
	if (read(rd, &done, 1) != 1)
		return 11;
	end_close(&e);
	return 0;
}

TEST_F(fi, another_jobs_endpoint_is_refused)
{
	uint8_t name[NAME_LEN];
	fi_addr_t addr = 0;
	int rd, wr, status;
	pid_t pid;

	NPO_TEST_SETUP_DONE();
	pid = run_child(other_job_child, 2, &rd, &wr);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(NAME_LEN, read(rd, name, NAME_LEN));
	EXPECT_EQ(0, fi_av_insert(self->e[0].av, name, 1, &addr, 0, NULL));
	EXPECT_EQ(FI_ADDR_NOTAVAIL, addr);
	/* A name that is no name at all. */
	memset(name, 0x5a, NAME_LEN);
	EXPECT_EQ(0, fi_av_insert(self->e[0].av, name, 1, &addr, 0, NULL));
	ASSERT_EQ(1, write(wr, "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
