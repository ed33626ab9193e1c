/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnpo data path: queues, memory regions, posting and completions.
 *
 * Included by <npo.h>.  Setup, registration and waiting are library calls;
 * posting a descriptor, ringing the doorbell and reaping completions are
 * the static inline functions below, which touch only the rings the
 * process mapped, as liburing does for io_uring.
 *
 * Thread safety: a queue belongs to one thread at a time (or is guarded
 * by the caller); different queues and regions may be used from different
 * threads freely.  Registration calls are thread-safe.
 */
#ifndef LIBNPO_NPO_DATAPATH_H
#define LIBNPO_NPO_DATAPATH_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/npo_queue.h>

#ifdef __cplusplus
extern "C" {
#endif

struct npo_device;
struct npo_mr;

/*
 * A queue pair mapped into this process.  Read-only for the caller except
 * through the functions here.
 */
struct npo_queue {
	struct npo_sqe *sqes;
	struct npo_cqe *cqes;
	struct npo_rqe *rqes;
	const uint32_t *sq_head;	/* device: SQEs consumed */
	const uint32_t *cq_tail;	/* device: CQEs produced */
	uint32_t *cq_head;		/* us: CQEs consumed */
	const uint32_t *status;		/* device: NPO_QSTAT_* */
	const uint32_t *rq_head;	/* device: receive buffers consumed */
	uint32_t *doorbell;		/* the queue's doorbell page */
	uint32_t sq_tail;		/* SQEs handed out by npo_get_sqe() */
	uint32_t sq_rung;		/* SQ tail the device was last told */
	uint32_t cq_head_local;
	uint32_t rq_tail;		/* receive buffers posted */
	uint32_t sq_mask;
	uint32_t cq_mask;
	uint32_t rq_mask;
	uint32_t id;			/* queue number on the device */
	uint32_t node_id;		/* the device's node: loopback dest_node */
	uint32_t job;			/* the job it belongs to */
	struct npo_device *dev;
	void *ring;
	size_t ring_size;
	size_t doorbell_size;
	int event_fd;			/* interrupt mode: readable when armed
					 * and a completion came; else -1 */
	/* Since libnpo 1.5; npo_flush_revoked() only. */
	uint32_t sq_flushed;		/* next descriptor owed a completion */
	uint32_t rq_flushed;		/* next receive buffer owed one */
	int flushing;			/* the two above are set */
};

/* npo_queue_attr.flags */
#define NPO_QUEUE_INTERRUPT	(1u << 0)	/* npo_wait_cqe() sleeps */

struct npo_queue_attr {
	uint32_t sq_entries;		/* power of two */
	uint32_t cq_entries;		/* power of two, >= sq_entries; 0: same */
	uint32_t flags;			/* NPO_QUEUE_* */
	uint32_t rq_entries;		/* receive buffers for SEND; 0: none */
};

/* 0 or a negative errno. */
int npo_create_queue(struct npo_device *dev, const struct npo_queue_attr *attr,
		     struct npo_queue **queue);
int npo_destroy_queue(struct npo_queue *queue);

/* access: NPO_ACCESS_* bits.  0 or a negative errno. */
int npo_reg_mr(struct npo_device *dev, void *addr, size_t length,
	       uint32_t access, struct npo_mr **mr);
/*
 * Register length bytes from offset of a dma-buf (a GPU buffer, say);
 * descriptors address it from iova.  Offset and iova page aligned.
 */
int npo_reg_dmabuf(struct npo_device *dev, int fd, uint64_t offset,
		   size_t length, uint64_t iova, uint32_t access,
		   struct npo_mr **mr);
int npo_dereg_mr(struct npo_mr *mr);
/* The key this process' descriptors name the region by (local_key). */
uint32_t npo_mr_lkey(const struct npo_mr *mr);
/*
 * The key other queues of the same job name it by (remote_key), here or
 * on another node; hand it out with npo_mr_pack_remote().
 */
uint64_t npo_mr_rkey(const struct npo_mr *mr);

/*
 * Wait up to timeout_ms (-1: forever) for a completion; 0 with *cqe set,
 * -ETIMEDOUT, or another negative errno.  Sleeps on the completion
 * interrupt in interrupt mode, polls otherwise.  On a revoked queue it
 * first calls npo_flush_revoked(), then -ENODEV once every completion was
 * consumed.
 */
int npo_wait_cqe(struct npo_queue *queue, struct npo_cqe **cqe, int timeout_ms);

/*
 * After the device stopped under the queue (npo_queue_revoked(): reset or
 * removed), give every descriptor and receive buffer that will get no
 * completion from the device one with status NPO_STATUS_RESET, after the
 * completions the device did write, as CQ room allows: each exactly once.
 * Returns how many still wait for room (consume completions and call
 * again), 0 once all have one, -EBUSY if the queue is not revoked, or
 * -ENODEV if the driver kept nothing of it (destroyed, or no memory).
 */
int npo_flush_revoked(struct npo_queue *queue);

/* Name of an NPO_STATUS_* code: never NULL. */
const char *npo_status_str(uint32_t status);

/*
 * What went wrong, naming device, queue, operation, port and peer:
 * "npo0 queue 3: write to node 2 through port 0: the link to the
 * destination is down".  Returns buf.
 */
const char *npo_cqe_describe(const struct npo_queue *q,
			     const struct npo_cqe *cqe, char *buf, size_t len);

/*
 * Out-of-band exchange.  A job's bootstrap (MPI, TCP, a file) carries
 * these byte blobs between processes; each is fixed-size, little-endian
 * and self-identifying, so a blob of the wrong kind or version is refused.
 */
#define NPO_ENDPOINT_BLOB_SIZE	16
#define NPO_REMOTE_MR_BLOB_SIZE	40

/*
 * Where to send: a queue of a node, and the job it belongs to (a queue
 * reaches only queues and regions of its own job).
 */
struct npo_endpoint {
	uint32_t node_id;
	uint16_t queue_id;
	uint32_t job;
};

/*
 * A region another process of the same job may target, within the rights
 * it was given.  The remote key is all a peer needs; the blob holds no
 * local key, and the key is worthless to a process of another job.
 */
struct npo_remote_mr {
	uint32_t node_id;
	uint32_t job;
	uint64_t rkey;
	uint64_t addr;
	uint64_t length;
};

/*
 * Each returns the blob's size, or a negative errno (-ENOSPC, -EINVAL).
 * Compare a peer's job with npo_device_job() to refuse, with a clear
 * error, a peer no request could reach.
 */
int npo_endpoint_pack(const struct npo_queue *q, void *buf, size_t len);
int npo_endpoint_unpack(const void *buf, size_t len, struct npo_endpoint *ep);
int npo_mr_pack_remote(const struct npo_mr *mr, void *buf, size_t len);
int npo_mr_unpack_remote(const void *buf, size_t len, struct npo_remote_mr *rmr);

/*
 * Barriers.  The device reads an SQE only after it sees the doorbell, and
 * writes a CQE before the tail that publishes it: a device barrier before
 * each doorbell (npo_db_write()), acquire on each index the device wrote.
 */
#define npo_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define npo_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

/*
 * Orders the CPU's stores to memory (descriptors, ring entries) before a
 * store to the device's doorbell page, as rdma-core's
 * udma_to_device_barrier() does.  x86 keeps stores in order, to
 * write-back memory and uncached MMIO alike, so only the compiler must not
 * move them; arm64 needs a store barrier over the outer shareable domain,
 * where the device observes memory.  A fence between CPUs is not enough
 * there: the device is not one of them.
 */
#if defined(__x86_64__) || defined(__i386__)
#define npo_dma_wmb()	__asm__ __volatile__("" ::: "memory")
#elif defined(__aarch64__)
#define npo_dma_wmb()	__asm__ __volatile__("dmb oshst" ::: "memory")
#else
#define npo_dma_wmb()	__sync_synchronize()
#endif

/* Write a queue's doorbell register at offset off (NPO_DB_*). */
static inline void npo_db_write(struct npo_queue *q, uint32_t off,
				uint32_t val)
{
	npo_dma_wmb();
	*(volatile uint32_t *)((char *)q->doorbell + off) = val;
}

/* The next free submission entry, zeroed, or NULL if the ring is full. */
static inline struct npo_sqe *npo_get_sqe(struct npo_queue *q)
{
	struct npo_sqe *sqe;

	/* Acquire: the device is done reading the slots it has consumed. */
	if (q->sq_tail - npo_load_acquire(q->sq_head) > q->sq_mask)
		return NULL;
	sqe = &q->sqes[q->sq_tail & q->sq_mask];
	memset(sqe, 0, sizeof(*sqe));
	q->sq_tail++;
	return sqe;
}

/* Tell the device about every entry obtained since the last submit. */
static inline void npo_submit(struct npo_queue *q)
{
	if (q->sq_tail == q->sq_rung)
		return;
	q->sq_rung = q->sq_tail;
	npo_db_write(q, NPO_DB_SQ_TAIL, q->sq_rung);
}

/* The oldest unconsumed completion, or NULL if there is none yet. */
static inline struct npo_cqe *npo_peek_cqe(struct npo_queue *q)
{
	/* Acquire: the entry is read only after the tail that published it. */
	if (q->cq_head_local == npo_load_acquire(q->cq_tail))
		return NULL;
	return &q->cqes[q->cq_head_local & q->cq_mask];
}

/* Hand n completions back to the device. */
static inline void npo_cq_advance(struct npo_queue *q, unsigned int n)
{
	q->cq_head_local += n;
	/*
	 * We are done reading the entries before they are reused.  A queue
	 * that found no completion room sets CQ_FULL, then reads CQ_HEAD
	 * again; we store CQ_HEAD, then read CQ_FULL.  Sequentially
	 * consistent on both sides (xchg on x86, stlr/ldar on arm64), so
	 * either the device sees the room or we see the flag and ring.
	 */
	__atomic_store_n(q->cq_head, q->cq_head_local, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(q->status, __ATOMIC_SEQ_CST) & NPO_QSTAT_CQ_FULL)
		npo_db_write(q, NPO_DB_CQ_HEAD, q->cq_head_local);
}

/*
 * Post a receive buffer for one SEND: length bytes at addr in the region
 * of key (with NPO_ACCESS_LOCAL_WRITE).  -ENOSPC if the receive ring is
 * full.  The device sees it at once; a RECV completion reports its use.
 */
static inline int npo_post_recv(struct npo_queue *q, uint64_t wr_id,
				uint32_t key, void *addr, uint32_t length)
{
	struct npo_rqe *rqe;

	if (q->rq_tail - npo_load_acquire(q->rq_head) > q->rq_mask)
		return -ENOSPC;
	rqe = &q->rqes[q->rq_tail & q->rq_mask];
	rqe->wr_id = wr_id;
	rqe->key = key;
	rqe->length = length;
	rqe->addr = (uintptr_t)addr;
	rqe->rsvd = 0;
	q->rq_tail++;
	npo_db_write(q, NPO_DB_RQ_TAIL, q->rq_tail);
	return 0;
}

/*
 * Interrupt mode: ask for one interrupt, signalled on q->event_fd, once a
 * completion beyond those consumed so far exists (at once if one does).
 */
static inline void npo_arm_cq(struct npo_queue *q)
{
	npo_db_write(q, NPO_DB_CQ_ARM, q->cq_head_local);
}

/* The queue hit an error; later descriptors complete as FLUSHED. */
static inline int npo_queue_in_error(const struct npo_queue *q)
{
	return !!(npo_load_acquire(q->status) & NPO_QSTAT_ERROR);
}

/*
 * The queue is gone from the device (destroyed, the device reset or
 * removed): nothing posted on it will complete; create a new one.
 */
static inline int npo_queue_revoked(const struct npo_queue *q)
{
	return !!(npo_load_acquire(q->status) & NPO_QSTAT_REVOKED);
}

/* Descriptor preparation.  dest_node is q->node_id for loopback. */
static inline void npo_prep_nop(struct npo_sqe *sqe, uint64_t wr_id)
{
	sqe->opcode = NPO_OP_NOP;
	sqe->wr_id = wr_id;
}

static inline void npo_prep_rdma(struct npo_sqe *sqe, uint8_t opcode,
				 uint64_t wr_id, uint32_t local_key,
				 const void *local_addr, uint32_t length,
				 uint32_t dest_node, uint64_t remote_key,
				 uint64_t remote_addr)
{
	sqe->opcode = opcode;
	sqe->wr_id = wr_id;
	sqe->local_key = local_key;
	sqe->local_addr = (uintptr_t)local_addr;
	sqe->length = length;
	sqe->dest_node = dest_node;
	sqe->remote_key = remote_key;
	sqe->remote_addr = remote_addr;
}

static inline void npo_prep_write(struct npo_sqe *sqe, uint64_t wr_id,
				  uint32_t local_key, const void *local_addr,
				  uint32_t length, uint32_t dest_node,
				  uint64_t remote_key, uint64_t remote_addr)
{
	npo_prep_rdma(sqe, NPO_OP_WRITE, wr_id, local_key, local_addr, length,
		      dest_node, remote_key, remote_addr);
}

static inline void npo_prep_read(struct npo_sqe *sqe, uint64_t wr_id,
				 uint32_t local_key, void *local_addr,
				 uint32_t length, uint32_t dest_node,
				 uint64_t remote_key, uint64_t remote_addr)
{
	npo_prep_rdma(sqe, NPO_OP_READ, wr_id, local_key, local_addr, length,
		      dest_node, remote_key, remote_addr);
}

/* As a write; imm arrives in a RECV_IMM completion on dest_queue. */
static inline void npo_prep_write_imm(struct npo_sqe *sqe, uint64_t wr_id,
				      uint32_t local_key, const void *local_addr,
				      uint32_t length, uint32_t dest_node,
				      uint16_t dest_queue, uint64_t remote_key,
				      uint64_t remote_addr, uint32_t imm)
{
	npo_prep_rdma(sqe, NPO_OP_WRITE_IMM, wr_id, local_key, local_addr,
		      length, dest_node, remote_key, remote_addr);
	sqe->dest_queue = dest_queue;
	sqe->imm = imm;
}

/* Two-sided: fills the next receive buffer of dest_queue on dest_node. */
static inline void npo_prep_send(struct npo_sqe *sqe, uint64_t wr_id,
				 uint32_t local_key, const void *local_addr,
				 uint32_t length, uint32_t dest_node,
				 uint16_t dest_queue)
{
	npo_prep_rdma(sqe, NPO_OP_SEND, wr_id, local_key, local_addr, length,
		      dest_node, 0, 0);
	sqe->dest_queue = dest_queue;
}

/* The old 64-bit value lands at result (8 bytes of local_key's region). */
static inline void npo_prep_fetch_add(struct npo_sqe *sqe, uint64_t wr_id,
				      uint32_t local_key, uint64_t *result,
				      uint32_t dest_node, uint64_t remote_key,
				      uint64_t remote_addr, uint64_t add)
{
	npo_prep_rdma(sqe, NPO_OP_FETCH_ADD, wr_id, local_key, result, 8,
		      dest_node, remote_key, remote_addr);
	sqe->compare_add = add;
}

static inline void npo_prep_cmp_swap(struct npo_sqe *sqe, uint64_t wr_id,
				     uint32_t local_key, uint64_t *result,
				     uint32_t dest_node, uint64_t remote_key,
				     uint64_t remote_addr, uint64_t compare,
				     uint64_t swap)
{
	npo_prep_rdma(sqe, NPO_OP_CMP_SWAP, wr_id, local_key, result, 8,
		      dest_node, remote_key, remote_addr);
	sqe->compare_add = compare;
	sqe->swap = swap;
}

#ifdef __cplusplus
}
#endif

#endif /* LIBNPO_NPO_DATAPATH_H */
