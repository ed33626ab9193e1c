/*
 * NPO device model: DMA queues and the engine that runs their
 * descriptors (npo-dma.c), and the queue error log.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_QUEUE_H
#define HW_MISC_NPO_QUEUE_H

#include "qemu/units.h"
#include "sysemu/dma.h"
#include <linux/npo_queue.h>

#include "npo-wire.h"

typedef struct NpoPort NpoPort;
typedef struct NpoState NpoState;

#define NPO_MAX_QUEUES          1024
#define NPO_MAX_RING_LOG2       15

/*
 * Why the queue engine leaves a live queue with work alone, one bit a
 * reason (NpoQueue.wait); npo_queue_runnable() is the one test.
 */
enum {
    /* No completion ring room: the host's CQ_HEAD doorbell resumes it. */
    NPO_QUEUE_WAIT_CQ = 1 << 0,
    /*
     * The head waits for a link that retrains, for a path, or for a
     * receive buffer (RNR): looked at again every NPO_LINK_RETRY_NS.
     */
    NPO_QUEUE_WAIT_LINK = 1 << 1,
    /* The head's frames wait for room on the port (npo_wire_tx_room()). */
    NPO_QUEUE_WAIT_TX = 1 << 2,
    /* The next descriptor waits for answers to the WRITEs on the wire. */
    NPO_QUEUE_WAIT_WINDOW = 1 << 3,
};

typedef struct NpoQueue {
    bool live;
    bool error;                 /* the rest of the ring is flushed */
    uint8_t wait;               /* NPO_QUEUE_WAIT_*: why the engine leaves it */
    bool armed;                 /* interrupt once cq_tail != arm_head */
    uint16_t id;
    uint32_t pd;
    uint32_t job;               /* its protection domain's, at creation */
    dma_addr_t ring;
    uint8_t *ring_hva;          /* the ring memory mapped, NULL if not RAM */
    dma_addr_t ring_len;
    dma_addr_t sq_ring;         /* where each ring starts, from ring */
    dma_addr_t cq_ring;
    dma_addr_t rq_ring;
    uint32_t sq_entries;
    uint32_t cq_entries;
    uint32_t sq_head;
    uint32_t sq_tail;
    uint32_t cq_tail;
    uint32_t cq_head;           /* last value read from the ring header */
    uint32_t arm_head;
    uint32_t rq_entries;
    uint32_t rq_head;
    uint32_t rq_tail;
    uint32_t rnr_tries;         /* the head SEND found no receive buffer */
    uint64_t progress;          /* bytes of the head descriptor done */
    int64_t head_since;         /* QEMU_CLOCK_VIRTUAL: the head's since */
    uint32_t gen;               /* tells a re-created queue from the old */
    int64_t route_since;        /* QEMU_CLOCK_VIRTUAL: the head waits for a
                                   path since, 0 when it does not */
    uint64_t route_gen;         /* the route table it started waiting on */
    uint32_t tx_ports;          /* ports its work went out of, bit n port n */
    uint32_t rx_ports;          /* ports messages to it came in through */

    NpoWireRequest wire;        /* its head's request to another process */

    /*
     * Descriptors sq_head up to sq_issue are WRITEs sent whole and not yet
     * completed (waiting for their answers, or done and waiting for the
     * ones before them), each in posted[index % NPO_WIRE_WINDOW]; the one
     * at sq_issue is the request above (or the next to run).
     */
    uint32_t sq_issue;
    NpoWirePosted posted[NPO_WIRE_WINDOW];
} NpoQueue;

/*
 * Whether the engine runs q when it has work: it exists, nothing holds
 * it, and its head is not a request sent whole and waiting for its answer.
 */
static inline bool npo_queue_runnable(const NpoQueue *q)
{
    return q->live && !q->wait && !(q->wire.sent && !q->wire.done);
}

/* WRITEs of q sent whole and not yet completed: sq_head up to sq_issue. */
static inline uint32_t npo_wire_posted(const NpoQueue *q)
{
    return q->sq_issue - q->sq_head;
}

/* npo-dma.c: the queue engine */
void npo_dma_realize(NpoState *s, Error **errp);
void npo_dma_exit(NpoState *s);
void npo_dma_reset(NpoState *s);
void npo_dma_doorbell(NpoState *s, unsigned int qid, hwaddr off, uint32_t val);
uint32_t npo_dma_mbox(NpoState *s, uint32_t op);
void npo_dma_kick(NpoState *s);
void *npo_dma_map_ram(NpoState *s, dma_addr_t addr, dma_addr_t len);
void npo_dma_unmap_ram(NpoState *s, void *p, dma_addr_t len);

/* Bytes moved per bottom-half run, over all queues. */
#define NPO_DMA_BUDGET          (16 * MiB)
/* What a doorbell may run in the vCPU that rang it, before the engine. */
#define NPO_DMA_INLINE_BUDGET   (1 * MiB)
/* A SEND is never split between a device's engine runs. */
#define NPO_MAX_SEND            (16 * 1024 * 1024)
/* Looks for a receive buffer before a SEND fails as RNR: about 1 s. */
#define NPO_RNR_TRIES           1000

/* Who a completion on a receiving queue names as the other end. */
typedef struct NpoSender {
    uint8_t port;               /* the receiving port, or NPO_CQE_PORT_NONE */
    uint32_t node;
    uint16_t queue;
} NpoSender;

NpoQueue *npo_queue_get(NpoState *s, unsigned int qid);
void npo_queue_fail(NpoState *s, NpoQueue *q, uint32_t status,
                    const struct npo_cqe *why);
void npo_deliver(NpoState *t, NpoQueue *dq, const NpoSender *from,
                 struct npo_cqe *c);
bool npo_queue_rq_next(NpoState *s, NpoQueue *q, struct npo_rqe *r);

/* npo-queue-errors.c: the queue error log */
void npo_queue_error_log(NpoState *s, NpoQueue *q, uint32_t status,
                         const struct npo_cqe *why);
uint32_t npo_queue_error_mbox(NpoState *s, uint32_t op);
void npo_queue_error_reset(NpoState *s);

#endif
