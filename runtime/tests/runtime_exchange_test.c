// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host tests of libnpo's out-of-band blobs and error descriptions: round
 * trips, refusal of every malformed blob, and random bytes that must
 * never be accepted unless they re-pack to themselves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "internal.h"

TEST(endpoint_round_trip)
{
	struct npo_queue q = { .node_id = 0x01020304, .id = 0xbeef,
			       .job = 0x80001234 };
	struct npo_endpoint ep;
	uint8_t blob[NPO_ENDPOINT_BLOB_SIZE + 4];

	ASSERT_EQ(NPO_ENDPOINT_BLOB_SIZE, npo_endpoint_pack(&q, blob, sizeof(blob)));
	/* Little-endian on the wire, whatever the host. */
	EXPECT_EQ(0x04, blob[4]);
	EXPECT_EQ(0xef, blob[8]);
	ASSERT_EQ(NPO_ENDPOINT_BLOB_SIZE,
		  npo_endpoint_unpack(blob, NPO_ENDPOINT_BLOB_SIZE, &ep));
	EXPECT_EQ(0x01020304, ep.node_id);
	EXPECT_EQ(0xbeef, ep.queue_id);
	EXPECT_EQ(0x80001234, ep.job);
	EXPECT_EQ(-ENOSPC, npo_endpoint_pack(&q, blob, NPO_ENDPOINT_BLOB_SIZE - 1));
}

TEST(remote_mr_round_trip)
{
	struct npo_mr mr = { .lkey = 0x5a5a0007, .rkey = 0xfedcba9876540007ULL,
			     .node_id = 9, .job = 42,
			     .addr = 0x7f0000001000ULL, .length = 1 << 20 };
	struct npo_remote_mr r;
	uint8_t blob[NPO_REMOTE_MR_BLOB_SIZE];
	unsigned int i;

	ASSERT_EQ(NPO_REMOTE_MR_BLOB_SIZE, npo_mr_pack_remote(&mr, blob, sizeof(blob)));
	/* What a peer needs, and not the local key. */
	for (i = 0; i + 4 <= sizeof(blob); i++)
		EXPECT_NE(0, memcmp(blob + i, &mr.lkey, 4));
	ASSERT_EQ(NPO_REMOTE_MR_BLOB_SIZE, npo_mr_unpack_remote(blob, sizeof(blob), &r));
	EXPECT_EQ(mr.rkey, r.rkey);
	EXPECT_EQ(42, r.job);
	EXPECT_EQ(9, r.node_id);
	EXPECT_EQ(mr.addr, r.addr);
	EXPECT_EQ(mr.length, r.length);
}

TEST(malformed_blobs_are_refused)
{
	struct npo_mr mr = { .lkey = 1, .rkey = 1, .node_id = 2, .addr = 4096,
			     .length = 4096 };
	struct npo_queue q = { .node_id = 2, .id = 3 };
	uint8_t ep[NPO_ENDPOINT_BLOB_SIZE], rm[NPO_REMOTE_MR_BLOB_SIZE], bad[64];
	struct npo_remote_mr r;
	struct npo_endpoint e;
	unsigned int i;

	npo_endpoint_pack(&q, ep, sizeof(ep));
	npo_mr_pack_remote(&mr, rm, sizeof(rm));
	/* Wrong length, wrong kind, each header byte, reserved bytes. */
	EXPECT_EQ(-EINVAL, npo_endpoint_unpack(ep, sizeof(ep) - 1, &e));
	EXPECT_EQ(-EINVAL, npo_endpoint_unpack(rm, sizeof(ep), &e));
	EXPECT_EQ(-EINVAL, npo_mr_unpack_remote(ep, sizeof(rm), &r));
	EXPECT_EQ(-EINVAL, npo_endpoint_unpack(NULL, sizeof(ep), &e));
	for (i = 0; i < 4; i++) {
		memcpy(bad, ep, sizeof(ep));
		bad[i] ^= 0x40;
		EXPECT_EQ(-EINVAL, npo_endpoint_unpack(bad, sizeof(ep), &e));
		memcpy(bad, rm, sizeof(rm));
		bad[i] ^= 0x40;
		EXPECT_EQ(-EINVAL, npo_mr_unpack_remote(bad, sizeof(rm), &r));
	}
	/* A version 1 blob (32-bit keys, no job) is refused, not misread. */
	memcpy(bad, rm, sizeof(rm));
	bad[3] = 1;
	EXPECT_EQ(-EINVAL, npo_mr_unpack_remote(bad, 32, &r));
	EXPECT_EQ(-EINVAL, npo_mr_unpack_remote(bad, sizeof(rm), &r));
	memcpy(bad, ep, sizeof(ep));
	bad[3] = 1;
	EXPECT_EQ(-EINVAL, npo_endpoint_unpack(bad, 12, &e));
	memcpy(bad, ep, sizeof(ep));
	bad[11] = 1;
	EXPECT_EQ(-EINVAL, npo_endpoint_unpack(bad, sizeof(ep), &e));
	memcpy(bad, rm, sizeof(rm));
	bad[13] = 1;
	EXPECT_EQ(-EINVAL, npo_mr_unpack_remote(bad, sizeof(rm), &r));
	/* A range that wraps, and an empty one. */
	mr.addr = ~0ULL - 10;
	npo_mr_pack_remote(&mr, bad, sizeof(rm));
	EXPECT_EQ(-EINVAL, npo_mr_unpack_remote(bad, sizeof(rm), &r));
	mr.addr = 4096;
	mr.length = 0;
	npo_mr_pack_remote(&mr, bad, sizeof(rm));
	EXPECT_EQ(-EINVAL, npo_mr_unpack_remote(bad, sizeof(rm), &r));
}

/* Random bytes: anything accepted must be exactly what packing gives. */
TEST(random_bytes_never_fool_the_parser)
{
	uint8_t blob[NPO_REMOTE_MR_BLOB_SIZE], again[NPO_REMOTE_MR_BLOB_SIZE];
	struct npo_remote_mr r;
	struct npo_endpoint e;
	unsigned int i, j, accepted = 0;

	srand(7);
	for (i = 0; i < 200000; i++) {
		for (j = 0; j < sizeof(blob); j++)
			blob[j] = rand();
		/*
		 * Half the time keep the header and reserved bytes valid, so
		 * that random field values are what gets tested.
		 */
		if (i & 1) {
			blob[0] = 'N';
			blob[1] = 'P';
			blob[2] = 1 + (i & 2) / 2;
			blob[3] = 2;
			if (blob[2] == 1)
				blob[10] = blob[11] = 0;
			else
				memset(blob + 12, 0, 4);
		}
		if (npo_mr_unpack_remote(blob, sizeof(blob), &r) > 0) {
			struct npo_mr mr = { .rkey = r.rkey, .job = r.job,
					     .node_id = r.node_id,
					     .addr = r.addr, .length = r.length };

			npo_mr_pack_remote(&mr, again, sizeof(again));
			EXPECT_EQ(0, memcmp(blob, again, sizeof(blob)));
			accepted++;
		}
		if (npo_endpoint_unpack(blob, NPO_ENDPOINT_BLOB_SIZE, &e) > 0) {
			struct npo_queue q = { .node_id = e.node_id,
					       .id = e.queue_id, .job = e.job };

			npo_endpoint_pack(&q, again, sizeof(again));
			EXPECT_EQ(0, memcmp(blob, again, NPO_ENDPOINT_BLOB_SIZE));
			accepted++;
		}
	}
	/* Some random field values must have passed, or nothing was tested. */
	EXPECT_GT(accepted, 0);
}

TEST(errors_name_device_queue_port_and_peer)
{
	struct npo_device dev = { .fd = -1, .name = "npo3" };
	struct npo_queue q = { .id = 5, .dev = &dev };
	struct npo_cqe c = { .opcode = NPO_OP_WRITE, .port = 1, .peer_node = 7,
			     .status = NPO_STATUS_LINK_DOWN };
	char buf[160];

	npo_cqe_describe(&q, &c, buf, sizeof(buf));
	EXPECT_STREQ("npo3 queue 5: write to node 7 through port 1: "
		     "the link to the destination is down", buf);
	c.opcode = NPO_OP_RECV;
	c.port = NPO_CQE_PORT_NONE;
	c.status = NPO_STATUS_REMOTE_LENGTH;
	npo_cqe_describe(&q, &c, buf, sizeof(buf));
	EXPECT_STREQ("npo3 queue 5: receive from node 7: "
		     "receive buffer smaller than the message", buf);
	/* Truncation is safe. */
	npo_cqe_describe(&q, &c, buf, 8);
	EXPECT_EQ(7, strlen(buf));
}

TEST_HARNESS_MAIN
