// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo: the blobs processes exchange out of band to reach each other,
 * an endpoint (node, queue, job) and a remote region (node, job, remote
 * key, range).  A blob says nothing a peer does not need: no local key,
 * no protection domain; its remote key works only for the peer's job.
 *
 * Layout, little-endian: 'N' 'P' kind version, then the fields; reserved
 * bytes are zero.  Version 2 (64-bit remote keys and jobs):
 * endpoint (kind 1): node u32, queue u16, zero u16, job u32;
 * remote region (kind 2): node u32, job u32, zero u32, remote key u64,
 * address u64, length u64.  Version 1 blobs are refused.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "internal.h"

#define BLOB_VERSION	2
#define KIND_ENDPOINT	1
#define KIND_REMOTE_MR	2

static void put_header(uint8_t *b, uint8_t kind)
{
	b[0] = 'N';
	b[1] = 'P';
	b[2] = kind;
	b[3] = BLOB_VERSION;
}

static int check_header(const uint8_t *b, size_t len, uint8_t kind,
			size_t size)
{
	if (!b || len != size || b[0] != 'N' || b[1] != 'P' || b[2] != kind ||
	    b[3] != BLOB_VERSION)
		return -EINVAL;
	return 0;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

int npo_endpoint_pack(const struct npo_queue *q, void *buf, size_t len)
{
	uint8_t *b = buf;

	if (!q || !b)
		return -EINVAL;
	if (len < NPO_ENDPOINT_BLOB_SIZE)
		return -ENOSPC;
	memset(b, 0, NPO_ENDPOINT_BLOB_SIZE);
	put_header(b, KIND_ENDPOINT);
	put32(b + 4, q->node_id);
	b[8] = q->id & 0xff;
	b[9] = q->id >> 8;
	put32(b + 12, q->job);
	return NPO_ENDPOINT_BLOB_SIZE;
}

int npo_endpoint_unpack(const void *buf, size_t len, struct npo_endpoint *ep)
{
	const uint8_t *b = buf;
	int err = check_header(b, len, KIND_ENDPOINT, NPO_ENDPOINT_BLOB_SIZE);

	if (err || !ep || b[10] || b[11])
		return -EINVAL;
	ep->node_id = get32(b + 4);
	ep->queue_id = b[8] | b[9] << 8;
	ep->job = get32(b + 12);
	return NPO_ENDPOINT_BLOB_SIZE;
}

int npo_mr_pack_remote(const struct npo_mr *mr, void *buf, size_t len)
{
	uint8_t *b = buf;

	if (!mr || !b)
		return -EINVAL;
	if (len < NPO_REMOTE_MR_BLOB_SIZE)
		return -ENOSPC;
	memset(b, 0, NPO_REMOTE_MR_BLOB_SIZE);
	put_header(b, KIND_REMOTE_MR);
	put32(b + 4, mr->node_id);
	put32(b + 8, mr->job);
	put64(b + 16, mr->rkey);
	put64(b + 24, mr->addr);
	put64(b + 32, mr->length);
	return NPO_REMOTE_MR_BLOB_SIZE;
}

int npo_mr_unpack_remote(const void *buf, size_t len, struct npo_remote_mr *rmr)
{
	const uint8_t *b = buf;
	int err = check_header(b, len, KIND_REMOTE_MR, NPO_REMOTE_MR_BLOB_SIZE);

	if (err || !rmr || get32(b + 12))
		return -EINVAL;
	rmr->node_id = get32(b + 4);
	rmr->job = get32(b + 8);
	rmr->rkey = get64(b + 16);
	rmr->addr = get64(b + 24);
	rmr->length = get64(b + 32);
	/* A range that wraps cannot be a region. */
	if (!rmr->length || rmr->addr + rmr->length < rmr->addr)
		return -EINVAL;
	return NPO_REMOTE_MR_BLOB_SIZE;
}
