/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npo-perf's out-of-band channel between its two processes: one TCP
 * connection, as perftest's, over which they exchange their queue and
 * region blobs and keep in step, size by size.
 */
#ifndef NPO_PERF_OOB_H
#define NPO_PERF_OOB_H

#include <stddef.h>
#include <stdint.h>

#include <npo.h>

#define OOB_DEFAULT_PORT	18515
#define OOB_MAGIC		"NPOPERF1"

/*
 * What the client asks for and what each side tells the other; integers
 * little-endian on the wire.
 */
struct oob_hello {
	char magic[8];
	uint32_t mode;		/* enum mode of npo-perf.c */
	uint32_t opcode;	/* NPO_OP_* */
	uint32_t size;		/* 0: every size */
	uint32_t iters;		/* 0: by size */
	uint32_t depth;
	uint32_t reserved;
	uint8_t endpoint[NPO_ENDPOINT_BLOB_SIZE];
	uint8_t region[NPO_REMOTE_MR_BLOB_SIZE];
};

enum oob_cmd {
	OOB_START = 1,	/* client: size and iters follow */
	OOB_READY,	/* server: its target is prepared */
	OOB_DONE,	/* client: all sent; server: verify (bw) */
	OOB_OK,		/* server: the data arrived as sent */
	OOB_BAD,	/* server: it did not, at offset arg */
	OOB_BYE,	/* client: no more sizes */
};

struct oob_step {
	uint32_t cmd;
	uint32_t size;
	uint32_t iters;
	uint32_t arg;
};

int oob_accept(const char *bind_addr, uint16_t port);
int oob_connect(const char *host, uint16_t port, int timeout_s);
int oob_send(int fd, const void *buf, size_t len);
int oob_recv(int fd, void *buf, size_t len);
int oob_send_hello(int fd, const struct oob_hello *h);
int oob_recv_hello(int fd, struct oob_hello *h);
int oob_step(int fd, uint32_t cmd, uint32_t size, uint32_t iters,
	     uint32_t arg);
int oob_expect(int fd, uint32_t cmd, struct oob_step *step);

#endif
