/*
 * NPO supernode interconnect: DMA queues and the memory table.
 *
 * Queues live in guest memory (a header, a submission ring and a
 * completion ring, Documentation/hardware.rst "DMA queues"); the driver
 * creates them through the mailbox.  Every descriptor is checked against
 * the memory table (npo-mr.c: key, bounds, access, protection domain,
 * job) before a byte moves; a violation fails that descriptor and puts
 * only its queue in error.  A request another job's region or queue
 * refuses is logged at both ends (npo-refusal.c).
 *
 * Descriptors run where the doorbell lands, in the vCPU that rang it, up
 * to NPO_DMA_INLINE_BUDGET bytes (small work completes without waiting
 * for the main loop, as e1000 sends on a TDT write); the rest in a bottom
 * half, in slices of at most NPO_DMA_BUDGET bytes so that a large
 * transfer never holds up the VM or the other queues for its whole length.
 * A linked peer in this QEMU process is reached directly; one in another
 * process through the wire (npo-wire.c).  Either way the target's rules
 * are npo-target.c's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "exec/cpu-common.h"
#include "hw/core/cpu.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-fw.h"
#include "npo-mr.h"
#include "npo-port.h"
#include "npo-queue.h"
#include "npo-route.h"
#include "npo-target.h"
#include "npo-wire.h"

QEMU_BUILD_BUG_ON(NPO_MAX_SEND > NPO_DMA_BUDGET);
/*
 * Queue engines running in this process now (bottom halves and doorbell
 * runs): a doorbell rung by a device's DMA, not a vCPU, never runs work
 * nested inside another run.
 */
static unsigned int npo_engine_depth;

/* How often a queue waiting for a link or a receive buffer looks again. */
#define NPO_LINK_RETRY_NS       (1 * SCALE_MS)

static dma_addr_t q_ring(NpoQueue *q, uint32_t off)
{
    return q->ring + off;
}

/*
 * The ring memory's layout (hardware.rst, "DMA queues"): the header, then
 * the submission, completion and receive rings, each right after the last.
 */
static void q_layout(NpoQueue *q)
{
    q->sq_ring = q_ring(q, NPO_RING_HEADER_SIZE);
    q->cq_ring = q->sq_ring + (dma_addr_t)q->sq_entries * sizeof(struct npo_sqe);
    q->rq_ring = q->cq_ring + (dma_addr_t)q->cq_entries * sizeof(struct npo_cqe);
}

/* The entry of a ring that index idx names. */
static dma_addr_t q_slot(dma_addr_t ring, uint32_t entries, uint32_t idx,
                         size_t entry_size)
{
    return ring + (dma_addr_t)(idx & (entries - 1)) * entry_size;
}

/*
 * The host address of len bytes at addr of q's ring memory, if they lie in
 * its mapping: the rings are touched for every descriptor, and a mapped
 * pointer spares each touch a walk through the address space.
 */
static void *q_direct(NpoQueue *q, dma_addr_t addr, dma_addr_t len)
{
    if (!q->ring_hva || addr < q->ring || addr - q->ring > q->ring_len ||
        len > q->ring_len - (addr - q->ring)) {
        return NULL;
    }
    return q->ring_hva + (addr - q->ring);
}

static MemTxResult q_dma_read(NpoState *s, NpoQueue *q, dma_addr_t addr,
                              void *buf, dma_addr_t len)
{
    void *p = q_direct(q, addr, len);

    if (!p) {
        return pci_dma_read(PCI_DEVICE(s), addr, buf, len);
    }
    memcpy(buf, p, len);
    return MEMTX_OK;
}

static void q_dma_write(NpoState *s, NpoQueue *q, dma_addr_t addr,
                        const void *buf, dma_addr_t len)
{
    void *p = q_direct(q, addr, len);

    if (!p) {
        pci_dma_write(PCI_DEVICE(s), addr, buf, len);
        return;
    }
    memcpy(p, buf, len);
}

/* Header words are aligned: one store or load each, as the host's are. */
static void q_write32(NpoState *s, NpoQueue *q, uint32_t off, uint32_t v)
{
    uint32_t *p = q_direct(q, q_ring(q, off), sizeof(v));

    if (!p) {
        stl_le_pci_dma(PCI_DEVICE(s), q_ring(q, off), v,
                       MEMTXATTRS_UNSPECIFIED);
        return;
    }
    qatomic_set(p, cpu_to_le32(v));
}

static uint32_t q_read32(NpoState *s, NpoQueue *q, uint32_t off)
{
    uint32_t *p = q_direct(q, q_ring(q, off), sizeof(uint32_t));
    uint32_t v = 0;

    if (!p) {
        ldl_le_pci_dma(PCI_DEVICE(s), q_ring(q, off), &v,
                       MEMTXATTRS_UNSPECIFIED);
        return v;
    }
    return le32_to_cpu(qatomic_read(p));
}

/*
 * Map len bytes of guest memory at addr for the device to touch directly,
 * as it caches a translation: NULL unless all of it is guest RAM.  Memory
 * that is not (a BAR) would come back as QEMU's one bounce buffer, which
 * neither reaches the BAR nor holds its contents.
 */
void *npo_dma_map_ram(NpoState *s, dma_addr_t addr, dma_addr_t len)
{
    dma_addr_t got = len;
    ram_addr_t offset;
    void *p = pci_dma_map(PCI_DEVICE(s), addr, &got,
                          DMA_DIRECTION_FROM_DEVICE);

    if (p && (got < len || !qemu_ram_block_from_host(p, false, &offset))) {
        pci_dma_unmap(PCI_DEVICE(s), p, got, DMA_DIRECTION_FROM_DEVICE, 0);
        p = NULL;
    }
    return p;
}

void npo_dma_unmap_ram(NpoState *s, void *p, dma_addr_t len)
{
    pci_dma_unmap(PCI_DEVICE(s), p, len, DMA_DIRECTION_FROM_DEVICE, len);
}

/*
 * Map the queue's ring memory once; rings that are not in guest RAM (on
 * a BAR) go through the address space on each access, as MMIO.
 */
static void q_map(NpoState *s, NpoQueue *q)
{
    q->ring_len = q->rq_ring - q->ring +
                  (dma_addr_t)q->rq_entries * sizeof(struct npo_rqe);
    q->ring_hva = npo_dma_map_ram(s, q->ring, q->ring_len);
}

static void q_unmap(NpoState *s, NpoQueue *q)
{
    if (q->ring_hva) {
        npo_dma_unmap_ram(s, q->ring_hva, q->ring_len);
        q->ring_hva = NULL;
    }
}

NpoQueue *npo_queue_get(NpoState *s, unsigned int qid)
{
    return qid < s->num_queues && s->queue[qid].live ? &s->queue[qid] : NULL;
}

static void queue_irq(NpoState *s, NpoQueue *q)
{
    if (q->armed && q->cq_tail != q->arm_head) {
        q->armed = false;
        if (msix_enabled(PCI_DEVICE(s)) && !s->vanished) {
            trace_npo_queue_irq(s->node_id, q->id);
            msix_notify(PCI_DEVICE(s), 1 + q->id);
        }
    }
}

/* Room in the completion ring, re-reading the host's head when it looks full. */
static bool cq_has_room(NpoState *s, NpoQueue *q)
{
    if (q->cq_tail - q->cq_head < q->cq_entries) {
        return true;
    }
    q->cq_head = q_read32(s, q, NPO_RING_CQ_HEAD);
    return q->cq_tail - q->cq_head < q->cq_entries;
}

/* The ring header's STATUS mirrors the queue's error and stall flags. */
static void queue_sync_status(NpoState *s, NpoQueue *q)
{
    uint32_t st = (q->error ? NPO_QSTAT_ERROR : 0) |
                  (q->wait & NPO_QUEUE_WAIT_CQ ? NPO_QSTAT_CQ_FULL : 0);

    q_write32(s, q, NPO_RING_STATUS, st);
}

/*
 * Pause a queue whose completion ring is full until the host frees room
 * and rings CQ_HEAD.  The host stores CQ_HEAD and then reads STATUS; we
 * publish CQ_FULL and then read CQ_HEAD once more, so that one of the two
 * sides always sees the other and no queue sleeps with room in its ring.
 * Returns false if room appeared meanwhile.
 */
static bool queue_stall(NpoState *s, NpoQueue *q)
{
    q->wait |= NPO_QUEUE_WAIT_CQ;
    queue_sync_status(s, q);
    smp_mb();
    if (!cq_has_room(s, q)) {
        return true;
    }
    q->wait &= ~NPO_QUEUE_WAIT_CQ;
    queue_sync_status(s, q);
    return false;
}

static void cq_post(NpoState *s, NpoQueue *q, const struct npo_cqe *cqe)
{
    dma_addr_t slot = q_slot(q->cq_ring, q->cq_entries, q->cq_tail,
                             sizeof(*cqe));

    /* Its rings stay mapped, but a card off the bus writes nothing. */
    if (s->vanished) {
        return;
    }
    q_dma_write(s, q, slot, cqe, sizeof(*cqe));
    /* The entry is in memory before the tail that publishes it. */
    smp_wmb();
    q->cq_tail++;
    q_write32(s, q, NPO_RING_CQ_TAIL, q->cq_tail);
    queue_irq(s, q);
}

/* --- descriptors --------------------------------------------------------- */

/* Where a descriptor goes: this device, or the peer at the end of a link. */
typedef struct NpoDest {
    NpoState *dev;              /* the device whose memory table applies */
    NpoPort *port;              /* the first hop, NULL for loopback */
    NpoPort *wire;              /* to another process: out of this port */
    uint8_t rx_port;            /* the target's port the data comes in by */
    NpoPort *hops[NPO_ROUTE_MAX_HOPS];  /* in-process links it crosses */
    unsigned int nhops;
} NpoDest;

/*
 * Put q in error for the work why describes (NULL: none, the poster broke
 * the ring).  The first error is logged for the driver, before the
 * completion that reports it is written.
 */
void npo_queue_fail(NpoState *s, NpoQueue *q, uint32_t status,
                    const struct npo_cqe *why)
{
    if (!q->error) {
        q->error = true;
        queue_sync_status(s, q);
        trace_npo_queue_error(s->node_id, q->id, status);
        npo_queue_error_log(s, q, status, why);
    }
}

/*
 * A completion on the receiving queue dq of device t for a message from
 * the sender.  The receiver was checked before the data moved; if its
 * completion ring filled since, it goes to error rather than lose the
 * completion silently, as a CQ overrun does in RDMA.
 */
void npo_deliver(NpoState *t, NpoQueue *dq, const NpoSender *from,
                 struct npo_cqe *c)
{
    c->port = from->port;
    if (from->port < NPO_MAX_PORTS) {
        dq->rx_ports |= BIT(from->port);
    }
    c->peer_node = cpu_to_le32(from->node);
    c->peer_queue = cpu_to_le16(from->queue);
    if (!cq_has_room(t, dq)) {
        npo_queue_fail(t, dq, NPO_STATUS_REMOTE_QUEUE, c);
        return;
    }
    cq_post(t, dq, c);
}

/* The sender of a message from queue src of s, as the receiver names it. */
static NpoSender sender_of(NpoState *s, NpoQueue *src, const NpoDest *dest)
{
    return (NpoSender) {
        .port = dest->port ? dest->rx_port : NPO_CQE_PORT_NONE,
        .node = s->node_id,
        .queue = src->id,
    };
}

static void deliver_imm(NpoState *s, NpoQueue *src, const struct npo_sqe *d,
                        const NpoDest *dest)
{
    NpoSender from = sender_of(s, src, dest);

    npo_target_imm(dest->dev, npo_queue_get(dest->dev,
                                            le16_to_cpu(d->dest_queue)),
                   &from, le32_to_cpu(d->length), le32_to_cpu(d->imm));
}

/* Take the next receive buffer of q into *r: false if none is posted. */
bool npo_queue_rq_next(NpoState *s, NpoQueue *q, struct npo_rqe *r)
{
    if (q->rq_head == q->rq_tail) {
        return false;
    }
    if (q_dma_read(s, q, q_slot(q->rq_ring, q->rq_entries, q->rq_head,
                                sizeof(*r)), r, sizeof(*r)) != MEMTX_OK) {
        memset(r, 0, sizeof(*r));
    }
    q->rq_head++;
    q_write32(s, q, NPO_RING_RQ_HEAD, q->rq_head);
    return true;
}

/*
 * SEND: the next receive buffer of the destination queue takes the whole
 * message (at most NPO_MAX_SEND bytes, so it is never split).  Returns the
 * sender's status, or -1 to wait for a buffer.
 */
static int send_run(NpoState *s, NpoQueue *q, const struct npo_sqe *d,
                    NpoMr *lmr, NpoQueue *tq, const NpoDest *dest)
{
    NpoState *t = dest->dev;
    NpoSender from = sender_of(s, q, dest);
    uint32_t len = le32_to_cpu(d->length);
    struct npo_rqe r;
    NpoMr *rmr;
    int st;

    st = npo_target_recv_take(t, tq, len, &from, &r, &rmr);
    if (st < 0) {
        /* Receiver not ready: retry for a while, as RDMA's RNR retry. */
        return q->rnr_tries++ < NPO_RNR_TRIES ? -1 : NPO_STATUS_RNR;
    }
    if (st) {
        return st;
    }
    if (len) {
        npo_mr_copy(rmr, le64_to_cpu(r.addr), lmr, le64_to_cpu(d->local_addr), len);
    }
    npo_target_recv_done(t, tq, &from, r.wr_id, len, NPO_STATUS_OK);
    return NPO_STATUS_OK;
}

/*
 * Resolve the destination; 0 or the status to complete with.  *wait is
 * set when a link on the way is retraining, or when the path is broken
 * and the drivers may yet route around it: the descriptor waits, it does
 * not fail.  dest->dev is NULL for a peer in another QEMU process.
 */
static uint32_t sqe_dest(NpoState *s, NpoQueue *q, const struct npo_sqe *d,
                         NpoDest *dest, bool *wait)
{
    uint32_t node = le32_to_cpu(d->dest_node);
    NpoState *next;
    NpoPort *p;

    *wait = false;
    dest->dev = s;
    dest->port = NULL;
    dest->wire = NULL;
    dest->nhops = 0;
    if (q->wire.req) {
        /* A request already on the wire finishes on its own port. */
        p = q->wire.port;
        dest->dev = NULL;
        dest->port = q->wire.first;
        dest->wire = p;
        if (q->wire.done) {
            return NPO_STATUS_OK;
        }
    } else if (node == s->node_id) {
        return NPO_STATUS_OK;
    } else {
        p = npo_route_first_hop(s, node);
        if (!p) {
            return NPO_STATUS_UNREACHABLE;
        }
        dest->port = p;
    }
    dest->rx_port = p->peer_port;
    /* One on the wire finishes there, quarantined since or not. */
    switch (q->wire.req ? npo_link_ready(p) : npo_route_ready(p)) {
    case NPO_LINK_PAUSED:
        *wait = true;
        break;
    case NPO_LINK_DOWN:
        return q->wire.req ? NPO_STATUS_LINK_DOWN :
               npo_route_hold(s, q, node, NPO_STATUS_LINK_DOWN, wait);
    case NPO_LINK_UP:
        break;
    }
    /* Work that failed LINK_DOWN never went out of the port. */
    q->tx_ports |= BIT(p->index);
    if (*wait || q->wire.req) {
        return NPO_STATUS_OK;
    }
    next = npo_route_local_peer(p);
    if (!next) {
        /* The wire carries it to the peer's process. */
        dest->dev = NULL;
        dest->wire = p;
        return NPO_STATUS_OK;
    }
    dest->hops[dest->nhops++] = p;
    switch (npo_route_follow(next, p, node, !q->progress, &dest->dev,
                             &dest->rx_port, &dest->wire, dest->hops,
                             &dest->nhops)) {
    case NPO_PATH_ARRIVED:
        return NPO_STATUS_OK;
    case NPO_PATH_REMOTE:
        /* On from a device further on, by the wire. */
        dest->dev = NULL;
        return NPO_STATUS_OK;
    case NPO_PATH_PAUSED:
        *wait = true;
        return NPO_STATUS_OK;
    case NPO_PATH_DOWN:
        return npo_route_hold(s, q, node, NPO_STATUS_LINK_DOWN, wait);
    case NPO_PATH_UNROUTED:
        break;
    }
    return npo_route_hold(s, q, node, NPO_STATUS_UNREACHABLE, wait);
}

/*
 * Run (part of) the descriptor at sq_issue, the head of q unless WRITEs
 * wait on the wire before it.  Returns the bytes moved
 * and sets *done with the status once the descriptor is finished; a
 * descriptor left undone either has more to move or waits for its link
 * (NPO_QUEUE_WAIT_LINK).
 */
static uint64_t sqe_run(NpoState *s, NpoQueue *q, const struct npo_sqe *d,
                        uint64_t budget, NpoDest *dest, bool *done,
                        uint32_t *status)
{
    uint32_t len = le32_to_cpu(d->length);
    uint64_t laddr = le64_to_cpu(d->local_addr);
    uint64_t raddr = le64_to_cpu(d->remote_addr);
    uint32_t lkey = le32_to_cpu(d->local_key);
    uint64_t rkey = le64_to_cpu(d->remote_key);
    bool atomic = d->opcode == NPO_OP_FETCH_ADD || d->opcode == NPO_OP_CMP_SWAP;
    uint32_t lneed = 0, rneed = 0, st;
    NpoMr *lmr = NULL, *rmr = NULL;
    NpoQueue *tq = NULL;
    NpoTargetReq rq;
    NpoState *t;
    uint64_t n = 0;
    bool wait;

    *done = true;
    dest->port = NULL;
    if (d->flags & ~NPO_SQE_FENCE) {
        *status = NPO_STATUS_BAD_DESCRIPTOR;
        return 0;
    }
    switch (d->opcode) {
    case NPO_OP_NOP:
        *status = NPO_STATUS_OK;
        return 0;
    case NPO_OP_WRITE:
    case NPO_OP_WRITE_IMM:
        rneed = NPO_ACCESS_REMOTE_WRITE;
        break;
    case NPO_OP_READ:
        lneed = NPO_ACCESS_LOCAL_WRITE;
        rneed = NPO_ACCESS_REMOTE_READ;
        break;
    case NPO_OP_FETCH_ADD:
    case NPO_OP_CMP_SWAP:
        /* The target checks its word itself (npo_target_atomic()). */
        lneed = NPO_ACCESS_LOCAL_WRITE;
        /* Aligned words never straddle a page on either side. */
        if (len != 8 || (raddr & 7) || (laddr & 7)) {
            *status = NPO_STATUS_BAD_DESCRIPTOR;
            return 0;
        }
        break;
    case NPO_OP_SEND:
        if (len > NPO_MAX_SEND) {
            *status = NPO_STATUS_BAD_DESCRIPTOR;
            return 0;
        }
        break;
    default:
        *status = NPO_STATUS_BAD_DESCRIPTOR;
        return 0;
    }
    *status = sqe_dest(s, q, d, dest, &wait);
    if (*status) {
        return 0;
    }
    if (wait) {
        q->wait |= NPO_QUEUE_WAIT_LINK;
        *done = false;
        return 0;
    }
    t = dest->dev;
    /* A zero-length transfer touches no memory, so no key is checked. */
    if (len) {
        st = npo_mr_check_local(s, &lmr, lkey, laddr, len, lneed, q->pd);
        if (st) {
            *status = st;
            return 0;
        }
    }
    if (!t) {
        /*
         * The peer's device checks the remote side when the request lands.
         * The request goes straight out of the link that leaves the
         * process: in-process links before it carry (and count) only the
         * answers, which come back as frames (hardware.rst).
         */
        return npo_wire_run(s, q, d, lmr, dest->port, dest->wire, budget,
                            done, status);
    }
    rq = (NpoTargetReq) {
        .from = sender_of(s, q, dest),
        .job = q->job,
        .opcode = d->opcode,
    };
    /* The region first, then the queue, as a peer across the wire does. */
    if (len && rneed) {
        *status = npo_target_region(t, &rq, &rmr, rkey, raddr, len, rneed);
        if (*status) {
            return 0;
        }
    }
    if (d->opcode == NPO_OP_WRITE_IMM || d->opcode == NPO_OP_SEND) {
        *status = npo_target_queue(t, &rq, le16_to_cpu(d->dest_queue), &tq);
        if (*status) {
            return 0;
        }
    }
    if (d->opcode == NPO_OP_SEND) {
        int r = send_run(s, q, d, lmr, tq, dest);

        if (r < 0) {
            q->wait |= NPO_QUEUE_WAIT_LINK;
            *done = false;
            return 0;
        }
        q->rnr_tries = 0;
        *status = r;
        npo_traffic_local(dest->hops, dest->nhops, d->opcode, 0, len, true);
        return len;
    }
    if (atomic) {
        uint64_t old;

        *status = npo_target_atomic(t, &rq, rkey, raddr,
                                    le64_to_cpu(d->compare_add),
                                    le64_to_cpu(d->swap), &old);
        if (*status) {
            return 0;
        }
        old = cpu_to_le64(old);
        npo_mr_write(lmr, laddr, &old, 8);
        npo_traffic_local(dest->hops, dest->nhops, d->opcode, 0, 8, true);
        return 8;
    }
    if (!len) {
        npo_traffic_local(dest->hops, dest->nhops, d->opcode, 0, 0, true);
    } else {
        uint64_t off = q->progress;

        n = MIN((uint64_t)len - q->progress, budget);
        if (d->opcode == NPO_OP_READ) {
            npo_mr_copy(lmr, laddr + q->progress, rmr, raddr + q->progress, n);
        } else {
            npo_mr_copy(rmr, raddr + q->progress, lmr, laddr + q->progress, n);
        }
        q->progress += n;
        npo_traffic_local(dest->hops, dest->nhops, d->opcode, off, n,
                          q->progress == len);
        if (q->progress < len) {
            *done = false;
            return n;
        }
        q->progress = 0;
    }
    return n;
}

/*
 * Complete the head descriptor d, which went to port (NULL: none), with
 * status; its completion ring has room.
 */
static void head_complete(NpoState *s, NpoQueue *q, const struct npo_sqe *d,
                          NpoPort *port, uint32_t status)
{
    struct npo_cqe c = {
        .wr_id = d->wr_id,
        .status = cpu_to_le32(status),
        .length = status ? 0 : d->length,
        .opcode = d->opcode,
        .port = port ? port->index : NPO_CQE_PORT_NONE,
        .peer_node = d->dest_node,
    };

    if (d->opcode == NPO_OP_SEND || d->opcode == NPO_OP_WRITE_IMM) {
        c.peer_queue = d->dest_queue;
    }
    trace_npo_sqe(s->node_id, q->id, d->opcode, le32_to_cpu(d->length),
                  status);
    if (status) {
        npo_queue_fail(s, q, status, &c);
    }
    if (status == NPO_STATUS_REMOTE_ACCESS ||
        status == NPO_STATUS_REMOTE_QUEUE) {
        npo_target_refused_at_requester(s, q, le32_to_cpu(d->dest_node),
                                        d->opcode, status);
    }
    /*
     * The completion first: a host that finds the queue stopped takes
     * every descriptor before SQ_HEAD as completed in the CQ.
     */
    cq_post(s, q, &c);
    q->sq_head++;
}

/*
 * Complete the answered WRITEs at the head of the wire window, in order.
 * Returns false if the completion ring is full.
 */
static bool posted_retire(NpoState *s, NpoQueue *q, uint64_t *moved)
{
    while (npo_wire_posted(q)) {
        NpoWirePosted *w = &q->posted[q->sq_head % NPO_WIRE_WINDOW];

        if (!w->done) {
            break;
        }
        if (!cq_has_room(s, q) && queue_stall(s, q)) {
            return false;
        }
        head_complete(s, q, &w->d, w->first, w->status);
        *w = (NpoWirePosted) { 0 };
                *moved += sizeof(w->d);
    }
    return true;
}

/*
 * The descriptors of one queue, in order, within budget.  sq_issue runs
 * ahead of sq_head by the WRITEs on the wire awaiting their answers; any
 * other descriptor runs at the head.
 */
static uint64_t queue_run(NpoState *s, NpoQueue *q, uint64_t budget,
                          bool *idle)
{
    uint64_t moved = 0;

    *idle = false;
    q->wait &= ~NPO_QUEUE_WAIT_WINDOW;
    for (;;) {
        struct npo_sqe d;
        NpoDest dest;
        dma_addr_t slot = q_slot(q->sq_ring, q->sq_entries, q->sq_issue,
                                 sizeof(d));
        uint32_t status;
        bool done;

        if (!posted_retire(s, q, &moved)) {
            return moved;
        }
        if (q->sq_issue == q->sq_tail) {
            break;
        }
        if (!npo_wire_posted(q) && !cq_has_room(s, q) && queue_stall(s, q)) {
            return moved;
        }
        if (budget <= moved) {
            return moved;
        }
        if (q_dma_read(s, q, slot, &d, sizeof(d)) != MEMTX_OK) {
            memset(&d, 0, sizeof(d));
            d.opcode = 0xff;
        }
        /*
         * Behind unanswered WRITEs only more WRITEs to their port start;
         * one already started finishes sending.
         */
        if (npo_wire_posted(q) && !q->wire.req &&
            !npo_wire_postable(s, q, &d)) {
            q->wait |= NPO_QUEUE_WAIT_WINDOW;
            return moved;
        }
        /* A SEND moves all at once: a doorbell's run leaves a large one. */
        if (s->dma_inline && !q->error && d.opcode == NPO_OP_SEND &&
            le32_to_cpu(d.length) > budget - moved) {
            return moved;
        }
        dest = (NpoDest) { 0 };
        if (q->error && npo_wire_posted(q)) {
            /*
             * A WRITE half sent behind the window when the queue failed:
             * given up, and completed in its turn.
             */
            npo_wire_finish(s, q);
            npo_wire_post(q, &d, true, NPO_STATUS_FLUSHED);
            moved += sizeof(d);
            continue;
        }
        if (q->error) {
            status = NPO_STATUS_FLUSHED;
        } else {
            moved += sqe_run(s, q, &d, budget - moved, &dest, &done, &status);
            if (!done && !npo_wire_sent(q, &d)) {
                return moved;
            }
            /* Sent whole, or failed behind the window: it waits there. */
            if (!done || npo_wire_posted(q)) {
                npo_wire_post(q, &d, done, status);
                moved += sizeof(d);
                continue;
            }
        }
        q->rnr_tries = 0;
        if (q->wire.req) {
            npo_wire_finish(s, q);
        }
        assert(!npo_wire_posted(q));
        /*
         * Its wait for a path, if any, ends with it, and its request id
         * kept for sending it again: the next starts anew.
         */
        q->route_since = 0;
        q->wire.retry = 0;
        q->wire.lost = 0;
        head_complete(s, q, &d, dest.port, status);
        q->sq_issue = q->sq_head;
        /* Each costs its own size at least: empty ones are bounded too. */
        moved += sizeof(d);
        /* Over the wire, the target delivered the immediate itself. */
        if (!status && d.opcode == NPO_OP_WRITE_IMM && dest.dev) {
            deliver_imm(s, q, &d, &dest);
        }
    }
    *idle = !npo_wire_posted(q);
    if (npo_wire_posted(q)) {
        q->wait |= NPO_QUEUE_WAIT_WINDOW;
    }
    return moved;
}

/*
 * Work one queue within budget; returns bytes moved, *idle if caught up.
 * SQ_HEAD is published once per run, after the completions it covers (a
 * host that finds the queue stopped takes every descriptor before it as
 * completed), and the new head's age starts with it.
 */
static uint64_t queue_work(NpoState *s, NpoQueue *q, uint64_t budget,
                           bool *idle)
{
    uint32_t head = q->sq_head;
    uint64_t moved = queue_run(s, q, budget, idle);

    if (q->sq_head != head) {
        q->head_since = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        /* After the CQ_TAIL of the completions it covers. */
        smp_wmb();
        q_write32(s, q, NPO_RING_SQ_HEAD, q->sq_head);
    }
    return moved;
}

/*
 * A device-fatal error stops the queue engine until a reset; a card off
 * the bus, for good.
 */
static bool engine_stopped(NpoState *s)
{
    return npo_fw_halted(s) || s->vanished;
}

static void npo_dma_bh(void *opaque)
{
    NpoState *s = opaque;
    uint64_t budget = NPO_DMA_BUDGET;
    bool more = false, wait = false;
    unsigned int i, last = s->dma_next;

    if (engine_stopped(s)) {
        return;
    }
    npo_engine_depth++;
    /* Answers to peers' READs share the run with the queues. */
    budget -= npo_wire_answer_reads(s, budget / 2, &more);

    /*
     * Round robin: the next run starts after the last queue served, so a
     * queue with long transfers cannot starve the others.
     */
    for (i = 0; i < s->num_queues; i++) {
        unsigned int qid = (s->dma_next + i) % s->num_queues;
        NpoQueue *q = &s->queue[qid];
        bool idle;

        if (!npo_queue_runnable(q) || q->sq_head == q->sq_tail) {
            continue;
        }
        if (!budget) {
            more = true;
            break;
        }
        budget -= MIN(budget, queue_work(s, q, budget, &idle));
        last = qid;
        if (q->wait & NPO_QUEUE_WAIT_LINK) {
            wait = true;
        } else if (!idle && npo_queue_runnable(q)) {
            more = true;
        }
    }
    if (more) {
        s->dma_next = (last + 1) % s->num_queues;
        qemu_bh_schedule(s->dma_bh);
    }
    if (wait && !timer_pending(s->dma_retry)) {
        timer_mod(s->dma_retry, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                                NPO_LINK_RETRY_NS);
    }
    npo_engine_depth--;
}

/*
 * Run a queue's new work in the vCPU that rang its doorbell, which holds
 * the BQL as the bottom half would: the same descriptors, in the same
 * order, through the same checks, within a small budget.  Only for a
 * vCPU's write while no engine runs: a doorbell rung by DMA (a ring or a
 * target placed on a BAR) leaves its work to the bottom half, never
 * nested in the run that rang it.  Returns whether the engine still has
 * this queue's work to do.
 */
static bool dma_inline(NpoState *s, NpoQueue *q)
{
    bool idle;

    if (!current_cpu || npo_engine_depth || engine_stopped(s) ||
        !npo_queue_runnable(q)) {
        return true;
    }
    npo_engine_depth++;
    s->dma_inline = true;
    queue_work(s, q, NPO_DMA_INLINE_BUDGET, &idle);
    s->dma_inline = false;
    npo_engine_depth--;
    if (q->wait & NPO_QUEUE_WAIT_LINK) {
        if (!timer_pending(s->dma_retry)) {
            timer_mod(s->dma_retry, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                                    NPO_LINK_RETRY_NS);
        }
        return false;
    }
    return !idle && npo_queue_runnable(q);
}

/* A link that was retraining may carry data again: look. */
static void npo_dma_retry(void *opaque)
{
    NpoState *s = opaque;
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        s->queue[i].wait &= ~NPO_QUEUE_WAIT_LINK;
    }
    qemu_bh_schedule(s->dma_bh);
}

/* --- doorbells ----------------------------------------------------------- */

/*
 * A tail more than the ring size ahead of the device's head: the poster is
 * broken, and its queue fails.
 */
static bool tail_fits(NpoState *s, NpoQueue *q, const char *ring,
                      uint32_t tail, uint32_t head, uint32_t entries)
{
    if (tail - head <= entries) {
        return true;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "npo%u: queue %u: %s tail %u is beyond "
                  "head %u + %u entries\n", s->node_id, q->id, ring, tail,
                  head, entries);
    npo_queue_fail(s, q, NPO_STATUS_BAD_DESCRIPTOR, NULL);
    return false;
}

/*
 * A tail may not take back descriptors the device started (on the wire,
 * or part moved): the poster is broken, and its queue fails.
 */
static bool tail_keeps_started(NpoState *s, NpoQueue *q, uint32_t tail)
{
    uint32_t started = q->sq_issue - q->sq_head +
                       (q->wire.req || q->progress ? 1 : 0);

    if (tail - q->sq_head >= started) {
        return true;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "npo%u: queue %u: SQ tail %u takes back "
                  "descriptors the device started (from %u)\n", s->node_id,
                  q->id, tail, q->sq_head);
    npo_queue_fail(s, q, NPO_STATUS_BAD_DESCRIPTOR, NULL);
    return false;
}

void npo_dma_doorbell(NpoState *s, unsigned int qid, hwaddr off, uint32_t val)
{
    NpoQueue *q = npo_queue_get(s, qid);

    if (!q) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: doorbell of queue %u, which "
                      "does not exist\n", s->node_id, qid);
        return;
    }
    switch (off) {
    case NPO_DB_SQ_TAIL:
        if (!tail_fits(s, q, "SQ", val, q->sq_head, q->sq_entries) ||
            !tail_keeps_started(s, q, val)) {
            return;
        }
        if (q->sq_head == q->sq_tail) {
            /* The first descriptor of an idle queue: its age starts. */
            q->head_since = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        }
        q->sq_tail = val;
        /* New work may go on the wire behind unanswered WRITEs. */
        q->wait &= ~NPO_QUEUE_WAIT_WINDOW;
        if (!dma_inline(s, q)) {
            return;
        }
        break;
    case NPO_DB_RQ_TAIL:
        if (!tail_fits(s, q, "RQ", val, q->rq_head, q->rq_entries)) {
            return;
        }
        q->rq_tail = val;
        /* Senders waiting for a buffer may go on. */
        break;
    case NPO_DB_CQ_ARM:
        q->armed = true;
        q->arm_head = val;
        queue_irq(s, q);
        return;
    case NPO_DB_CQ_HEAD:
        /* A head beyond the tail is a broken consumer: ignore it. */
        if (val - q->cq_head > q->cq_tail - q->cq_head) {
            qemu_log_mask(LOG_GUEST_ERROR, "npo%u: queue %u: CQ head %u is "
                          "beyond tail %u\n", s->node_id, q->id, val,
                          q->cq_tail);
            return;
        }
        q->cq_head = val;
        if ((q->wait & NPO_QUEUE_WAIT_CQ) && cq_has_room(s, q)) {
            q->wait &= ~NPO_QUEUE_WAIT_CQ;
            queue_sync_status(s, q);
        }
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: queue %u: no doorbell at "
                      "offset 0x%" HWADDR_PRIx "\n", s->node_id, qid, off);
        return;
    }
    qemu_bh_schedule(s->dma_bh);
}

/* --- mailbox ------------------------------------------------------------- */

static void queue_destroy(NpoState *s, NpoQueue *q)
{
    if (q->wire.req) {
        npo_wire_finish(s, q);
    }
    q_unmap(s, q);
    memset(q, 0, sizeof(*q));
}

static uint32_t mbox_queue_create(NpoState *s)
{
    unsigned int qid = FIELD_EX32(s->mbox_arg[0], QC_ARG0, QUEUE);
    unsigned int sq_log2 = FIELD_EX32(s->mbox_arg[0], QC_ARG0, SQ_LOG2);
    unsigned int cq_log2 = FIELD_EX32(s->mbox_arg[0], QC_ARG0, CQ_LOG2);
    unsigned int rq_log2 = FIELD_EX32(s->mbox_arg[1], QC_ARG1, RQ_LOG2);
    dma_addr_t ring = npo_mbox_addr(s, 2);
    NpoQueue *q;

    if (qid >= s->num_queues || sq_log2 > NPO_MAX_RING_LOG2 ||
        cq_log2 > NPO_MAX_RING_LOG2 || rq_log2 > NPO_MAX_RING_LOG2 ||
        (s->mbox_arg[1] & ~(R_QC_ARG1_PD_MASK | R_QC_ARG1_RQ_LOG2_MASK)) ||
        (ring & (NPO_RING_HEADER_SIZE - 1))) {
        return MBOX_ERR_ARG;
    }
    q = &s->queue[qid];
    if (q->live) {
        return MBOX_ERR_EXISTS;
    }
    /* A domain given no job since the last reset gets no queue. */
    if (!s->pd_job[FIELD_EX32(s->mbox_arg[1], QC_ARG1, PD)]) {
        return MBOX_ERR_STATE;
    }
    queue_destroy(s, q);
    q->id = qid;
    q->gen = ++s->queue_gen;
    q->pd = FIELD_EX32(s->mbox_arg[1], QC_ARG1, PD);
    q->job = s->pd_job[q->pd];
    q->ring = ring;
    q->sq_entries = 1u << sq_log2;
    q->cq_entries = 1u << cq_log2;
    q->rq_entries = 1u << rq_log2;
    q_layout(q);
    q_map(s, q);
    q->live = true;
    q_write32(s, q, NPO_RING_SQ_HEAD, 0);
    q_write32(s, q, NPO_RING_RQ_HEAD, 0);
    q_write32(s, q, NPO_RING_CQ_TAIL, 0);
    q_write32(s, q, NPO_RING_STATUS, 0);
    trace_npo_queue_create(s->node_id, qid, q->pd, q->sq_entries,
                           q->cq_entries);
    return MBOX_OK;
}

/*
 * Once this returns, the device never touches the queue's rings again:
 * a slice in progress is abandoned with the queue.
 */
static uint32_t mbox_queue_destroy(NpoState *s)
{
    NpoQueue *q = npo_queue_get(s, s->mbox_arg[0]);

    if (!q) {
        return MBOX_ERR_NOENT;
    }
    trace_npo_queue_destroy(s->node_id, q->id);
    queue_destroy(s, q);
    return MBOX_OK;
}

/* What the head descriptor of q, outstanding, waits for. */
static unsigned int queue_wait(const NpoQueue *q)
{
    if (q->wait & NPO_QUEUE_WAIT_CQ) {
        return NPO_QWAIT_CQ_FULL;
    }
    if (q->wait & NPO_QUEUE_WAIT_LINK) {
        return NPO_QWAIT_LINK;
    }
    if (q->wait & NPO_QUEUE_WAIT_TX) {
        return NPO_QWAIT_TX;
    }
    if (q->rnr_tries) {
        return NPO_QWAIT_RNR;
    }
    if (npo_wire_posted(q) || (q->wire.req && !q->wire.done)) {
        return NPO_QWAIT_REMOTE;
    }
    return NPO_QWAIT_NONE;
}

/*
 * QUEUE_QUERY: the queue's outstanding descriptors, the port the oldest
 * goes through and what it waits for (RET0), and how long it has been at
 * the head, in ms (RET1): for a driver to say why a queue makes no
 * progress.  The descriptor itself is in the host's memory.
 */
static uint32_t mbox_queue_query(NpoState *s)
{
    NpoQueue *q = npo_queue_get(s, s->mbox_arg[0]);
    uint32_t outstanding, node;
    NpoPort *port = NULL;
    struct npo_sqe d;
    int64_t age = 0;

    if (!q) {
        return MBOX_ERR_NOENT;
    }
    outstanding = q->sq_tail - q->sq_head;
    if (outstanding) {
        age = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) - q->head_since;
        port = npo_wire_posted(q) ? q->posted[q->sq_head % NPO_WIRE_WINDOW].first :
               q->wire.first;
        if (!port && q_dma_read(s, q, q_slot(q->sq_ring, q->sq_entries,
                                             q->sq_head, sizeof(d)),
                                &d, sizeof(d)) == MEMTX_OK) {
            node = le32_to_cpu(d.dest_node);
            port = node == s->node_id ? NULL : npo_route_first_hop(s, node);
        }
    }
    s->mbox_ret[0] = FIELD_DP32(0, QQ_RET0, OUTSTANDING, outstanding);
    s->mbox_ret[0] = FIELD_DP32(s->mbox_ret[0], QQ_RET0, PORT,
                                port ? port->index : NPO_CQE_PORT_NONE);
    s->mbox_ret[0] = FIELD_DP32(s->mbox_ret[0], QQ_RET0, WAIT,
                                outstanding ? queue_wait(q) : NPO_QWAIT_NONE);
    s->mbox_ret[1] = MIN(MAX(age, 0) / SCALE_MS, UINT32_MAX);
    return MBOX_OK;
}

/*
 * QUEUE_PORTS: the ports the queue's work has gone out of (RET0) and the
 * ports messages to it came in through (RET1) since it was created: what
 * it loses if one of them fails.
 */
static uint32_t mbox_queue_ports(NpoState *s)
{
    NpoQueue *q = npo_queue_get(s, s->mbox_arg[0]);

    if (!q) {
        return MBOX_ERR_NOENT;
    }
    s->mbox_ret[0] = q->tx_ports;
    s->mbox_ret[1] = q->rx_ports;
    return MBOX_OK;
}

/* The queues' commands; they belong to the firmware (npo.c checks). */
uint32_t npo_dma_mbox(NpoState *s, uint32_t op)
{
    switch (op) {
    case MBOX_OP_QUEUE_CREATE:
        return mbox_queue_create(s);
    case MBOX_OP_QUEUE_DESTROY:
        return mbox_queue_destroy(s);
    case MBOX_OP_QUEUE_PORTS:
        return mbox_queue_ports(s);
    case MBOX_OP_QUEUE_QUERY:
        return mbox_queue_query(s);
    }
    return MBOX_ERR_OPCODE;
}

/* --- life cycle ---------------------------------------------------------- */

void npo_dma_reset(NpoState *s)
{
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        queue_destroy(s, &s->queue[i]);
    }
    npo_mr_reset(s);
    timer_del(s->dma_retry);
    s->dma_next = 0;
    npo_wire_reset(s);
}

void npo_dma_realize(NpoState *s, Error **errp)
{
    s->queue = g_new0(NpoQueue, s->num_queues);
    npo_mr_realize(s);
    s->dma_bh = qemu_bh_new_guarded(npo_dma_bh, s,
                                    &DEVICE(s)->mem_reentrancy_guard);
    s->dma_retry = timer_new_ns(QEMU_CLOCK_VIRTUAL, npo_dma_retry, s);
    npo_wire_realize(s);
}

void npo_dma_kick(NpoState *s)
{
    qemu_bh_schedule(s->dma_bh);
}

void npo_dma_exit(NpoState *s)
{
    npo_dma_reset(s);
    npo_wire_exit(s);
    qemu_bh_delete(s->dma_bh);
    timer_free(s->dma_retry);
    g_free(s->queue);
    npo_mr_exit(s);
}
