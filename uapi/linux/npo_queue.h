/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * NPO DMA queues: the formats a process shares with the device through
 * the rings it maps (Documentation/hardware.rst, "DMA queues").  The
 * device model, the driver and libnpo all use these definitions.
 * Everything is little endian.
 */
#ifndef _UAPI_LINUX_NPO_QUEUE_H
#define _UAPI_LINUX_NPO_QUEUE_H

#include <linux/const.h>
#include <linux/types.h>

/**
 * enum npo_op - descriptor opcodes
 * @NPO_OP_NOP: completes without moving data.
 * @NPO_OP_WRITE: copy @length bytes from local memory to the destination's
 *	registered memory.
 * @NPO_OP_READ: copy @length bytes from the destination's registered
 *	memory to local memory.
 * @NPO_OP_WRITE_IMM: as WRITE, then deliver @imm in a completion on the
 *	destination queue.
 * @NPO_OP_FETCH_ADD: atomically add @compare_add to the 64-bit word at
 *	remote_addr; the old value lands at local_addr.
 * @NPO_OP_CMP_SWAP: atomically replace the 64-bit word at remote_addr by
 *	@swap if it equals @compare_add; the old value lands at local_addr.
 * @NPO_OP_SEND: two-sided: deliver @length bytes into the next receive
 *	buffer posted on the destination queue @dest_queue.
 * @NPO_OP_RECV_IMM: completion only: immediate data arrived.
 * @NPO_OP_RECV: completion only: a SEND filled a posted receive buffer.
 */
enum npo_op {
	NPO_OP_NOP = 0,
	NPO_OP_WRITE = 1,
	NPO_OP_READ = 2,
	NPO_OP_WRITE_IMM = 3,
	NPO_OP_FETCH_ADD = 4,
	NPO_OP_CMP_SWAP = 5,
	NPO_OP_SEND = 6,
	NPO_OP_RECV_IMM = 0x80,
	NPO_OP_RECV = 0x81,
};

/* npo_sqe.flags */
#define NPO_SQE_FENCE		_BITUL(0)	/* start after all earlier ones completed */

/**
 * struct npo_sqe - submission queue entry, 64 bytes
 * @opcode: &enum npo_op.
 * @flags: NPO_SQE_*; unknown bits fail the descriptor.
 * @dest_queue: queue on the destination device that receives a
 *	WRITE_IMM's completion or a SEND's data.
 * @length: bytes to move; 8 for atomics.
 * @wr_id: returned unchanged in the completion.
 * @remote_key: remote key (&struct npo_mr_reg.rkey) of the destination's
 *	memory region.
 * @local_addr: address in the local region.
 * @remote_addr: address in the destination's region.
 * @local_key: local key (&struct npo_mr_reg.lkey) of the local region.
 * @dest_node: fabric node id of the destination; this device's own node id
 *	for a loopback operation.
 * @compare_add: value to add (FETCH_ADD) or to compare (CMP_SWAP).
 * @imm: immediate data of a WRITE_IMM, in the place of @compare_add.
 * @swap: value to store (CMP_SWAP).
 *
 * The remote key is 64 bits wide so that it cannot be guessed; an atomic's
 * operand and an immediate share a word, since no operation has both.
 */
struct npo_sqe {
	__u8 opcode;
	__u8 flags;
	__u16 dest_queue;
	__u32 length;
	__u64 wr_id;
	__u64 remote_key;
	__u64 local_addr;
	__u64 remote_addr;
	__u32 local_key;
	__u32 dest_node;
	union {
		__u64 compare_add;
		__u32 imm;
	};
	__u64 swap;
};

/**
 * enum npo_status - completion status
 * @NPO_STATUS_OK: done.
 * @NPO_STATUS_BAD_DESCRIPTOR: unknown opcode or flags, or a length or
 *	alignment the opcode does not allow.
 * @NPO_STATUS_LOCAL_KEY: the local key names no region of this queue's
 *	protection domain.
 * @NPO_STATUS_LOCAL_ACCESS: the local range is outside the region or the
 *	region lacks the access the operation needs.
 * @NPO_STATUS_REMOTE_KEY: not reported since interface 1.6 (see
 *	REMOTE_ACCESS); the value stays reserved.
 * @NPO_STATUS_REMOTE_ACCESS: the destination has no region for this
 *	request: the remote key names none, or one of another job, or the
 *	range is outside it, or it lacks the remote right the operation
 *	needs.  One status for every reason, so that the target is no oracle
 *	for guessing keys.
 * @NPO_STATUS_REMOTE_QUEUE: the destination queue does not exist, is in
 *	error, or belongs to another job.
 * @NPO_STATUS_UNREACHABLE: no active link leads to the destination node.
 * @NPO_STATUS_DMA_ERROR: host memory could not be read or written.
 * @NPO_STATUS_FLUSHED: not executed: the queue was already in error.  On
 *	a RECV completion: the sender abandoned the message half-way (its
 *	queue was destroyed); the buffer's contents are undefined.
 * @NPO_STATUS_LINK_DOWN: the link to the destination (the completion's
 *	port) went down, or its peer is not there.  On a RECV completion:
 *	the link went down while the message arrived.
 * @NPO_STATUS_RNR: receiver not ready: the destination queue had no
 *	receive buffer posted for a SEND within the retry time.
 * @NPO_STATUS_REMOTE_LENGTH: the receive buffer is smaller than the SEND.
 * @NPO_STATUS_RESET: written by libnpo, never the device (interface 2.2):
 *	the device was reset or removed before this descriptor or receive
 *	buffer completed.  Whether its data moved, wholly or in part, is
 *	unknown; nothing more will happen to it.
 */
enum npo_status {
	NPO_STATUS_OK = 0,
	NPO_STATUS_BAD_DESCRIPTOR = 1,
	NPO_STATUS_LOCAL_KEY = 2,
	NPO_STATUS_LOCAL_ACCESS = 3,
	NPO_STATUS_REMOTE_KEY = 4,
	NPO_STATUS_REMOTE_ACCESS = 5,
	NPO_STATUS_REMOTE_QUEUE = 6,
	NPO_STATUS_UNREACHABLE = 7,
	NPO_STATUS_DMA_ERROR = 8,
	NPO_STATUS_FLUSHED = 9,
	NPO_STATUS_LINK_DOWN = 10,
	NPO_STATUS_RNR = 11,
	NPO_STATUS_REMOTE_LENGTH = 12,
	NPO_STATUS_RESET = 13,
};

/**
 * struct npo_cqe - completion queue entry, 32 bytes
 * @wr_id: the descriptor's wr_id; 0 for RECV_IMM.
 * @status: &enum npo_status.
 * @length: bytes moved; for RECV_IMM, the WRITE_IMM's length.
 * @imm: immediate data of a RECV_IMM.
 * @opcode: the descriptor's &enum npo_op, or NPO_OP_RECV_IMM.
 * @port: the link port the operation used (for RECV_IMM: arrived on), or
 *	NPO_CQE_PORT_NONE for loopback and local failures.
 * @rsvd: zero.
 * @peer_node: the other end: for RECV and RECV_IMM the node that sent it;
 *	for the sender's own completion, the destination node.
 * @peer_queue: for RECV and RECV_IMM the queue that sent it; for a SEND or
 *	WRITE_IMM, the destination queue; else 0.
 * @rsvd2: zero.
 */
struct npo_cqe {
	__u64 wr_id;
	__u32 status;
	__u32 length;
	__u32 imm;
	__u8 opcode;
	__u8 port;
	__u8 rsvd[2];
	__u32 peer_node;
	__u16 peer_queue;
	__u16 rsvd2;
};

#define NPO_CQE_PORT_NONE	0xff

/**
 * struct npo_rqe - receive queue entry, 32 bytes: a buffer for one SEND
 * @wr_id: returned in the RECV completion.
 * @key: local key of a region of the queue's protection domain with
 *	NPO_ACCESS_LOCAL_WRITE.
 * @addr: start of the buffer.
 * @length: its size in bytes.
 * @rsvd: zero.
 */
struct npo_rqe {
	__u64 wr_id;
	__u32 key;
	__u32 length;
	__u64 addr;
	__u64 rsvd;
};

/*
 * Ring memory of a queue: a 4 KiB header, then the submission ring, the
 * completion ring and the receive ring.  Each index counts entries modulo
 * 2^32; the ring slot is index & (entries - 1).
 */
#define NPO_RING_SQ_HEAD	0x00	/* u32, device writes: SQEs consumed */
#define NPO_RING_CQ_TAIL	0x40	/* u32, device writes: CQEs produced */
#define NPO_RING_CQ_HEAD	0x80	/* u32, host writes: CQEs consumed */
#define NPO_RING_STATUS		0xc0	/* u32, device writes: NPO_QSTAT_* */
#define NPO_RING_RQ_HEAD	0x100	/* u32, device writes: RQEs consumed */
#define NPO_RING_HEADER_SIZE	4096

/* NPO_RING_STATUS bits */
#define NPO_QSTAT_ERROR		_BITUL(0)	/* in error: the rest is flushed */
#define NPO_QSTAT_CQ_FULL	_BITUL(1)	/* waiting for CQ room; ring again */
/*
 * Set by the driver, never the device: the queue was destroyed, reset or
 * its device removed, and this mapping shows a stand-in page (interface 2.1).
 */
#define NPO_QSTAT_REVOKED	_BITUL(31)
/*
 * Set by the driver with REVOKED when the device stopped under the queue
 * (reset, fatal error, removal; interface 2.2): the mapping shows a copy
 * of the rings as the device left them, so SQ_HEAD, CQ_TAIL and RQ_HEAD
 * are final and the completions not yet consumed can still be read.  The
 * copy is the process's own until it destroys the queue or closes the file.
 */
#define NPO_QSTAT_FINAL		_BITUL(30)

/* Doorbell page of a queue: offsets of its 32-bit registers. */
#define NPO_DB_SQ_TAIL		0x0	/* SQEs posted */
#define NPO_DB_CQ_ARM		0x4	/* interrupt once CQ_TAIL differs from this */
#define NPO_DB_RQ_TAIL		0x8	/* RQEs posted */
#define NPO_DB_CQ_HEAD		0xc	/* CQEs consumed: resumes a CQ_FULL queue */

/* Access rights of a memory region. */
#define NPO_ACCESS_LOCAL_WRITE		_BITUL(0)
#define NPO_ACCESS_REMOTE_READ		_BITUL(1)
#define NPO_ACCESS_REMOTE_WRITE		_BITUL(2)
#define NPO_ACCESS_REMOTE_ATOMIC	_BITUL(3)
#define NPO_ACCESS_ALL			0xf

#endif /* _UAPI_LINUX_NPO_QUEUE_H */
