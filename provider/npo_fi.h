/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnpo-fi: the libfabric provider "npo", on libnpo's public API.
 *
 * An FI_EP_RDM endpoint is one receiving queue of an NPO device (its
 * address: the 16-byte libnpo endpoint blob) with provider-owned receive
 * buffers, and one sending queue per peer it talks to, so that one peer's
 * failure (a link down, a peer that stopped receiving) never stops the
 * traffic to another.  Messages up to NPO_FI_EAGER_MAX go as one SEND
 * into a receive buffer; larger ones send a request to send (RTS) naming
 * a region, which the receiver READs into the posted buffer before it
 * tells the sender (FIN).  Tag matching, unexpected messages, FI_PEEK and
 * FI_CLAIM are done here, in software.  Progress is manual: every CQ read
 * and every data call moves the endpoint on.
 */
#ifndef NPO_FI_H
#define NPO_FI_H

#include <pthread.h>
#include <time.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include <npo.h>

#define NPO_FI_VERSION		FI_VERSION(1, 0)
#define NPO_FI_API		FI_VERSION(1, 17)

/*
 * A receive buffer: a header and up to NPO_FI_EAGER_MAX bytes.  64 KiB, as
 * Open MPI's TCP transport sends eagerly: below that a rendezvous' three
 * legs and two registrations cost more than the copy they save.
 */
#define NPO_FI_BUF_SIZE		65536
#define NPO_FI_RX_BUFS		128	/* per endpoint, power of two */
#define NPO_FI_TX_BUFS		128	/* per endpoint */
#define NPO_FI_RX_CQ		4096	/* room for RECV and WRITE_IMM */
#define NPO_FI_TX_DEPTH		128	/* per peer queue, power of two */
#define NPO_FI_MAX_MSG		(1ULL << 30)
/* A rendezvous receive READs at most this much per descriptor. */
#define NPO_FI_READ_CHUNK	(4u << 20)
/* Sends and RMA leave this many transmit buffers for the FINs owed. */
#define NPO_FI_TX_RESERVE	32
/*
 * Transmit buffers one peer's operations may hold: a stuck peer leaves
 * the rest to the others.
 */
#define NPO_FI_PEER_BUFS	(NPO_FI_TX_BUFS / 4)
/*
 * Memory an endpoint spends on unexpected messages before it stops
 * copying them out: past it they stay in their receive buffers.
 */
#define NPO_FI_UNEXP_MAX	(256u << 20)
/*
 * A rendezvous send unanswered this long has its receiver probed (a PING
 * to its receiving queue) this often, so that a receiver that is gone, or
 * can no longer reach us to send the FIN, does not leave the send
 * waiting for ever.
 */
#define NPO_FI_PROBE_MS		1000

extern struct fi_provider npo_fi_prov;

#define NPO_FI_WARN(subsys, ...) FI_WARN(&npo_fi_prov, subsys, __VA_ARGS__)

/* ---- the wire: what a SEND between two endpoints carries ---------- */

enum npo_fi_msg_type {
	NPO_FI_EAGER = 1,	/* the message itself follows */
	NPO_FI_RTS = 2,		/* READ it from rkey/addr, then FIN */
	NPO_FI_FIN = 3,		/* the receiver is done with rendezvous id */
	NPO_FI_PING = 4,	/* are you there? dropped on arrival */
};

#define NPO_FI_HDR_TAGGED	0x01
#define NPO_FI_HDR_DATA		0x02	/* data is remote CQ data */
#define NPO_FI_HDR_MAGIC	0x4e

struct npo_fi_hdr {
	uint8_t magic;		/* NPO_FI_HDR_MAGIC */
	uint8_t type;		/* enum npo_fi_msg_type */
	uint8_t flags;		/* NPO_FI_HDR_* */
	uint8_t rsvd;
	uint16_t src_queue;	/* the sender's receiving queue */
	uint16_t rsvd2;
	uint64_t len;		/* bytes of the message */
	uint64_t tag;
	uint64_t data;
	uint64_t id;		/* RTS, FIN: the sender's rendezvous */
	uint64_t rkey;		/* RTS: where to READ it from */
	uint64_t addr;
	uint64_t rsvd3;
};

#define NPO_FI_EAGER_MAX	(NPO_FI_BUF_SIZE - sizeof(struct npo_fi_hdr))

/* ---- objects ------------------------------------------------------ */

struct npo_fi_list {
	struct npo_fi_list *next, *prev;
};

static inline void npo_fi_list_init(struct npo_fi_list *l)
{
	l->next = l->prev = l;
}

static inline bool npo_fi_list_empty(const struct npo_fi_list *l)
{
	return l->next == l;
}

static inline void npo_fi_list_add_tail(struct npo_fi_list *l,
					struct npo_fi_list *e)
{
	e->prev = l->prev;
	e->next = l;
	l->prev->next = e;
	l->prev = e;
}

static inline void npo_fi_list_del(struct npo_fi_list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = e->prev = e;
}

#define npo_fi_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct npo_fi_fabric {
	struct fid_fabric fabric;
};

struct npo_fi_domain {
	struct fid_domain domain;
	struct npo_device *dev;
	uint32_t node_id;
	uint32_t job;
	uint64_t caps;
	/* One lock for everything under the domain: FI_THREAD_SAFE. */
	pthread_mutex_t lock;
	int refs;		/* endpoints, CQs, AVs and regions open on it */
};

struct npo_fi_mr {
	struct fid_mr mr;
	struct npo_fi_domain *dom;
	struct npo_mr *nmr;
};

struct npo_fi_av_entry {
	struct npo_endpoint ep;
	uint8_t blob[NPO_ENDPOINT_BLOB_SIZE];	/* as inserted */
	bool used;
};

struct npo_fi_av {
	struct fid_av av;
	struct npo_fi_domain *dom;
	struct npo_fi_av_entry *tab;	/* by fi_addr_t */
	size_t count, cap;
	int refs;
};

/* A completion as kept until read, with its error if any. */
struct npo_fi_cqe {
	struct fi_cq_tagged_entry e;
	fi_addr_t src;
	int err;		/* 0, or a positive FI_E* */
	int prov_errno;		/* NPO_STATUS_* */
	size_t olen;
	char what[96];		/* names peer and operation */
};

struct npo_fi_cq {
	struct fid_cq cq;
	struct npo_fi_domain *dom;
	enum fi_cq_format format;
	struct npo_fi_cqe *ring;	/* successes */
	size_t head, count, cap;
	struct npo_fi_cqe *errs;	/* errors, read first */
	size_t ehead, ecount, ecap;
	struct npo_fi_ep *eps[8];	/* endpoints bound: progressed on read */
	int nep;
	struct npo_fi_cqe last_err;	/* kept for fi_cq_strerror */
	char err_buf[160];
	bool signalled;
};

struct npo_fi_eq {
	struct fid_eq eq;
};

/* A send or a posted receive, tracked until its completion. */
enum npo_fi_op_kind {
	NPO_FI_OP_SEND,		/* eager SEND of a message */
	NPO_FI_OP_RTS,		/* rendezvous: RTS sent, waits for FIN */
	NPO_FI_OP_FIN,		/* rendezvous: FIN to the sender */
	NPO_FI_OP_READ,		/* rendezvous: a chunk READ */
	NPO_FI_OP_WRITE,	/* fi_write */
	NPO_FI_OP_RMA_READ,	/* fi_read */
	NPO_FI_OP_ATOMIC,	/* fi_atomic and friends */
	NPO_FI_OP_PROBE,	/* PING: is a receiver that owes a FIN there? */
};

struct npo_fi_peer;
struct npo_fi_recv;

struct npo_fi_op {
	struct npo_fi_list link;	/* its peer's waiting or posted list */
	struct npo_fi_list rdv_link;	/* RTS: on ep->rdv until its FIN */
	enum npo_fi_op_kind kind;
	struct npo_fi_peer *peer;
	struct npo_sqe sqe;		/* kept, to post again */
	void *context;
	uint64_t cq_flags;		/* FI_SEND|FI_TAGGED ... */
	bool complete;			/* a completion is wanted */
	bool inject;			/* an fi_*inject* call: none ever */
	bool rts_sent;			/* RTS: its SEND completed */
	bool fin_seen;			/* RTS: the FIN came first */
	unsigned int rnr_tries;		/* posted again after RNR */
	uint64_t tag, data, len;
	int buf;			/* tx buffer slot or -1 */
	struct npo_mr *tmp_mr;		/* registered for this op alone */
	struct npo_fi_recv *recv;	/* READ: the receive it fills */
	void *result;			/* ATOMIC: where the old value goes */
	uint64_t id;			/* RTS: rendezvous id */
	struct timespec sent_at;	/* RTS: when its SEND completed */
};

struct npo_fi_peer {
	struct npo_endpoint addr;
	struct npo_queue *txq;
	struct npo_fi_list waiting;	/* ops not yet on the queue */
	struct npo_fi_list posted;	/* on the queue, in order */
	struct npo_fi_list retry;	/* failed with the queue: again, first */
	unsigned int nposted;
	bool broken;			/* the queue failed: make a new one */
	struct npo_fi_peer *hnext;
	struct timespec repair_since;	/* failing to get a new queue since */
	struct timespec probed_at;	/* the last NPO_FI_OP_PROBE posted */
	unsigned int nbufs;		/* transmit buffers its ops hold */
};

/* A posted receive, or a message that came before its receive. */
struct npo_fi_recv {
	struct npo_fi_list link;
	void *context;
	uint64_t flags;		/* FI_TAGGED, FI_COMPLETION, FI_CLAIM ... */
	void *buf;
	size_t len;
	fi_addr_t src;		/* FI_ADDR_UNSPEC: any */
	uint64_t tag, ignore;
	/* Once matched, or for an unexpected message: */
	uint32_t src_node;
	uint16_t src_queue;
	struct npo_fi_hdr hdr;
	void *payload;		/* unexpected eager: a copy, or in rx_buf */
	int rx_buf;		/* parked in this receive buffer, or -1 */
	size_t charged;		/* what it counts in ep->unexp_bytes */
	void *claim;		/* FI_CLAIM: the context that claimed it */
	struct npo_mr *mr;	/* rendezvous: the posted buffer */
	uint64_t done;
	unsigned int reads;	/* READs in flight */
	int status;		/* first NPO status that failed it */
	bool discarded;		/* FI_DISCARD: no completion, FIN only */
};

struct npo_fi_ep {
	struct fid_ep ep;
	struct npo_fi_domain *dom;
	struct npo_fi_av *av;
	struct npo_fi_cq *tx_cq, *rx_cq;
	bool tx_selective, rx_selective;
	uint64_t tx_op_flags, rx_op_flags;
	bool enabled;
	struct npo_queue *rxq;
	void *rx_bufs, *tx_bufs;
	struct npo_mr *rx_mr, *tx_mr;
	int tx_free[NPO_FI_TX_BUFS];
	int ntx_free;
	struct npo_fi_peer *peers[64];	/* hash of (node, queue) */
	unsigned int npeers;
	size_t unexp_bytes;		/* memory unexpected messages hold */
	size_t unexp_max;		/* FI_NPO_UNEXP_MAX */
	struct npo_fi_list recvs[2];	/* posted: [0] messages, [1] tagged */
	struct npo_fi_list unexp[2];	/* unexpected: same */
	struct npo_fi_list rdv;		/* sends waiting for their FIN */
	struct npo_fi_list fin_wait;	/* receives owing a FIN, no buffer yet */
	struct timespec probe_check;	/* rdv last looked over for probes */
	uint64_t next_rdv;
	uint32_t recv_failed;		/* status that broke the receiving queue */
	bool rx_dead;			/* the receiving queue is gone */
};

/* ---- functions between the files ----------------------------------- */

/* npo_fi.c */
int npo_fi_status_to_errno(uint32_t status);
int npo_fi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int npo_fi_no_control(struct fid *fid, int command, void *arg);
int npo_fi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		       void **ops, void *context);
int npo_fi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		   struct fid_eq **eq, void *context);

/* npo_fi_info.c */
int npo_fi_getinfo(uint32_t version, const char *node, const char *service,
		   uint64_t flags, const struct fi_info *hints,
		   struct fi_info **info);

/* npo_fi_domain.c */
int npo_fi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_domain **domain, void *context);
struct npo_mr *npo_fi_mr_desc(void *desc);

/* npo_fi_av.c */
int npo_fi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		   struct fid_av **av, void *context);
int npo_fi_av_get(struct npo_fi_av *av, fi_addr_t addr,
		  struct npo_endpoint *ep);
fi_addr_t npo_fi_av_find(struct npo_fi_av *av, uint32_t node,
			 uint16_t queue);

/* npo_fi_cq.c */
int npo_fi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		   struct fid_cq **cq, void *context);
int npo_fi_cq_push(struct npo_fi_cq *cq, void *context, uint64_t flags,
		   size_t len, void *buf, uint64_t data, uint64_t tag,
		   fi_addr_t src);
int npo_fi_cq_push_err(struct npo_fi_cq *cq, void *context, uint64_t flags,
		       int err, uint32_t status, size_t len, size_t olen,
		       uint64_t data, uint64_t tag, const char *what);
void npo_fi_cq_progress(struct npo_fi_cq *cq);

/* npo_fi_ep.c */
int npo_fi_endpoint(struct fid_domain *domain, struct fi_info *info,
		    struct fid_ep **ep, void *context);
void npo_fi_ep_progress(struct npo_fi_ep *ep);
struct npo_fi_peer *npo_fi_peer_get(struct npo_fi_ep *ep, fi_addr_t addr,
				    int *err);
struct npo_fi_peer *npo_fi_peer_at(struct npo_fi_ep *ep, uint32_t node,
				   uint16_t queue, int *err);
struct npo_fi_op *npo_fi_op_new(struct npo_fi_ep *ep, enum npo_fi_op_kind k,
				struct npo_fi_peer *peer, void *context);
void npo_fi_op_post(struct npo_fi_ep *ep, struct npo_fi_op *op);
void npo_fi_op_free(struct npo_fi_ep *ep, struct npo_fi_op *op);
int npo_fi_op_take_buf(struct npo_fi_ep *ep, struct npo_fi_op *op);
void *npo_fi_tx_addr(struct npo_fi_ep *ep, int slot);
int npo_fi_local_key(struct npo_fi_ep *ep, void *desc, void *buf, size_t len,
		     uint32_t access, struct npo_fi_op *op, uint32_t *lkey);

/* npo_fi_msg.c */
extern struct fi_ops_msg npo_fi_msg_ops;
extern struct fi_ops_tagged npo_fi_tagged_ops;
bool npo_fi_msg_rx(struct npo_fi_ep *ep, const struct npo_cqe *c,
		   void *buf);
void npo_fi_rx_repost(struct npo_fi_ep *ep, uint64_t idx);
void npo_fi_msg_peer_lost(struct npo_fi_ep *ep, struct npo_fi_peer *p,
			  uint32_t status);
void npo_fi_msg_tx_done(struct npo_fi_ep *ep, struct npo_fi_op *op,
			uint32_t status);
int npo_fi_msg_cancel(struct npo_fi_ep *ep, void *context);
void npo_fi_msg_progress(struct npo_fi_ep *ep);
void npo_fi_msg_fail_recvs(struct npo_fi_ep *ep);
void npo_fi_msg_op_drop(struct npo_fi_ep *ep, struct npo_fi_op *op);
void npo_fi_msg_close(struct npo_fi_ep *ep);

/* npo_fi_rma.c */
extern struct fi_ops_rma npo_fi_rma_ops;
extern struct fi_ops_atomic npo_fi_atomic_ops;
int npo_fi_query_atomic(struct fid_domain *domain, enum fi_datatype datatype,
			enum fi_op op, struct fi_atomic_attr *attr,
			uint64_t flags);
void npo_fi_rma_tx_done(struct npo_fi_ep *ep, struct npo_fi_op *op,
			uint32_t status);
void npo_fi_rma_rx_imm(struct npo_fi_ep *ep, const struct npo_cqe *c);

#endif /* NPO_FI_H */
