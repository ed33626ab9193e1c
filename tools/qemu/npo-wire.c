/*
 * NPO device model: the wire, requests to a peer device in another QEMU
 * process, framed, windowed and answered.
 *
 * A linked peer in this process is reached directly (npo-dma.c).  One in
 * another process is reached as the silicon reaches any peer: requests go
 * out on the link as frames (npo-wire.h) and the peer's device carries
 * them out against its own memory table and answers.  WRITE, WRITE_IMM
 * and SEND travel as trains of WIRE_CHUNK data frames; a READ is one
 * request answered by data frames; an atomic is one request.  Every
 * request ends with one ACK carrying its status, so the requester
 * completes its descriptor exactly once; the link going down ends it as
 * LINK_DOWN instead.
 *
 * A queue keeps up to NPO_WIRE_WINDOW WRITEs (and WRITE_IMMs) on the wire
 * through one port, each sent whole before the next starts and completed
 * in order as the answers come; a READ, an atomic, a SEND, a FENCE or
 * another port waits until they are answered and then goes alone, so
 * completions stay in posting order and fences hold.  A target that
 * refuses a request drops the ones its queue chained behind it, as the
 * requester flushes them.  A sender puts at most a port's transmit limit
 * on the wire before it waits for the socket, and READ answers share the
 * engine's budget, so a large transfer holds up neither the VM nor the
 * other queues.
 *
 * A request for a node beyond the peer, or from a device behind this one,
 * goes behind a WireRouted naming both ends; each device on the way
 * passes the frame on by its route table and the destination's device
 * answers the same way back.  A device that cannot pass a request on
 * answers it itself, LINK_DOWN or UNREACHABLE.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-mr.h"
#include "npo-port.h"
#include "npo-queue.h"
#include "npo-route.h"
#include "npo-target.h"
#include "npo-wire.h"

/*
 * What a port keeps per request or per requesting queue: several nodes'
 * requests come in through one port once frames are routed, and request
 * ids are unique per requesting device only.
 */
typedef struct NpoWireKey {
    uint64_t id;                /* a request id, or a queue */
    uint32_t node;              /* of the requester */
} NpoWireKey;

static guint wire_key_hash(gconstpointer k)
{
    const NpoWireKey *w = k;

    return g_int64_hash(&w->id) ^ (w->node * 0x9e3779b1u);
}

static gboolean wire_key_equal(gconstpointer a, gconstpointer b)
{
    const NpoWireKey *x = a, *y = b;

    return x->id == y->id && x->node == y->node;
}

/*
 * Where a transport frame that came in on a port is for: the device it
 * concerns (the target of a request, the requester of an answer; NULL for
 * a request this device refuses to pass on), and the node at the other
 * end.  Answers go back out of the port it came in on.
 */
typedef struct NpoWireEnd {
    NpoPort *p;
    NpoState *dev;
    uint32_t node;              /* the node the frame is for */
    uint32_t peer;              /* the node at the other end */
    uint8_t in_port;            /* dev's port it came in through */
    bool routed;                /* it came behind a WireRouted */
} NpoWireEnd;

/*
 * A routed request whose frames crossed a link that went down (lost in a
 * device's transmit queue there) is never answered: given up after this
 * long without progress, and sent again by the new routes.
 */
#define NPO_WIRE_ROUTED_TIMEOUT_NS  (2 * NANOSECONDS_PER_SECOND)

/*
 * A request lost (or its answer lost: tables further on still settling)
 * had a path: that many times it gets a hold of its own again, longer
 * than NPO_WIRE_ROUTED_TIMEOUT_NS would leave of the first.
 */
#define NPO_WIRE_ROUTED_RESENDS 3

/* Frames a device holds for one port while it forwards to it, at most. */
#define NPO_FORWARD_BACKLOG_MAX (64 * MiB)

/* A SEND arriving on a port: where its bytes go. */
typedef struct NpoWireRecv {
    NpoWireKey id;              /* its request id and sender */
    NpoState *dev;              /* the receiving device */
    uint8_t in_port;            /* the port it names as the sender's */
    uint16_t src_queue;         /* the sender's */
    uint16_t queue;             /* the receiving queue, and its generation */
    uint32_t gen;
    uint64_t wr_id;
    uint32_t key;
    uint64_t addr;
} NpoWireRecv;

/* A peer's READ this device is still answering. */
typedef struct NpoWireRead {
    QSIMPLEQ_ENTRY(NpoWireRead) next;
    uint64_t req;
    uint32_t peer;              /* the requester */
    NpoState *dev;              /* the target, whose memory is read */
    bool routed;                /* answered behind a WireRouted */
    uint16_t src_queue;
    uint32_t job;
    uint64_t key;
    uint64_t addr;
    uint32_t len;
    uint32_t sent;
} NpoWireRead;

/*
 * Room for a transport frame of len bytes on p, behind a WireRouted from
 * node from to node to when routed.  NULL when the link carries nothing.
 */
static uint8_t *wire_frame(NpoPort *p, bool routed, uint32_t from,
                           uint32_t to, uint8_t type, uint16_t len)
{
    WireRouted *h;

    if (!routed) {
        return npo_port_frame(p, type, len);
    }
    h = (WireRouted *)npo_port_frame(p, WIRE_ROUTED, sizeof(*h) + len);
    if (!h) {
        return NULL;
    }
    *h = (WireRouted) {
        .from_node = cpu_to_le32(from),
        .to_node = cpu_to_le32(to),
        .type = type,
    };
    return (uint8_t *)(h + 1);
}

/*
 * A routed request this device answered, the last of its queue: a
 * request sent again with the same id (its answer was lost) is answered
 * from this instead of being carried out twice.
 */
typedef struct NpoWireDone {
    uint64_t req;
    uint32_t status;
    uint64_t value;
} NpoWireDone;

/* --- requester ----------------------------------------------------------- */

static void request_clear(NpoQueue *q)
{
    q->wire.req = 0;
    q->wire.port = NULL;
    q->wire.first = NULL;
    q->wire.dest = 0;
    q->wire.routed = false;
    q->wire.sent = q->wire.done = q->wire.acked = false;
    q->wait &= ~NPO_QUEUE_WAIT_TX;
    q->wire.chained = false;
    q->wire.status = 0;
    q->wire.value = 0;
    q->progress = 0;
}

static int64_t wire_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* A routed request made progress: it is not given up for a while. */
static void request_heard(NpoState *s, NpoQueue *q)
{
    q->wire.heard = wire_now();
    if (q->wire.routed && !timer_pending(s->wire_timer)) {
        timer_mod(s->wire_timer, q->wire.heard + NPO_WIRE_ROUTED_TIMEOUT_NS);
    }
}

/* The request's outcome is known; the engine completes it on its next run. */
static void request_done(NpoState *s, NpoQueue *q, uint32_t status)
{
    if (!q->wire.done) {
        q->wire.done = true;
        q->wire.status = status;
        trace_npo_wire_done(s->node_id, q->id, q->wire.req, status);
    }
    q->wait &= ~NPO_QUEUE_WAIT_TX;
    npo_dma_kick(s);
}

/* Send the data frames of a WRITE, WRITE_IMM or SEND, as room allows. */
static uint64_t request_send_data(NpoState *s, NpoQueue *q,
                                  const struct npo_sqe *d, NpoMr *lmr,
                                  NpoPort *p, uint64_t budget)
{
    uint32_t len = le32_to_cpu(d->length);
    uint64_t moved = 0;

    while (!q->wire.sent && moved < budget) {
        uint32_t n = MIN(len - q->progress, WIRE_CHUNK);
        WireData *w;

        if (npo_port_tx_full(p)) {
            /* Waiting for room is no silence of the fabric. */
            q->wait |= NPO_QUEUE_WAIT_TX;
            q->wire.heard = wire_now();
            break;
        }
        w = (WireData *)wire_frame(p, q->wire.routed, s->node_id, q->wire.dest,
                                   WIRE_DATA, sizeof(*w) + n);
        if (!w) {
            request_done(s, q, NPO_STATUS_LINK_DOWN);
            break;
        }
        *w = (WireData) {
            .req = cpu_to_le64(q->wire.req),
            .addr = d->remote_addr,
            .key = d->remote_key,
            .job = cpu_to_le32(q->job),
            .total = d->length,
            .offset = cpu_to_le32(q->progress),
            .imm = d->imm,
            .src_queue = cpu_to_le16(q->id),
            .dest_queue = d->dest_queue,
            .opcode = d->opcode,
            .last = q->progress + n == len,
            .flags = cpu_to_le16(q->wire.chained ? WIRE_DATA_CHAINED : 0),
        };
        if (n) {
            npo_mr_read(lmr, le64_to_cpu(d->local_addr) + q->progress,
                        w + 1, n);
        }
        q->progress += n;
        moved += n;
        q->wire.sent = q->progress == len;
    }
    npo_port_flush(p);
    if (moved) {
        request_heard(s, q);
    }
    return moved;
}

/* Send a READ or atomic request: one frame. */
static void request_send_one(NpoState *s, NpoQueue *q,
                             const struct npo_sqe *d, NpoPort *p)
{
    uint8_t *f;

    if (d->opcode == NPO_OP_READ) {
        WireRead r = {
            .req = cpu_to_le64(q->wire.req),
            .addr = d->remote_addr,
            .key = d->remote_key,
            .job = cpu_to_le32(q->job),
            .len = d->length,
            .src_queue = cpu_to_le16(q->id),
        };

        f = wire_frame(p, q->wire.routed, s->node_id, q->wire.dest,
                       WIRE_READ, sizeof(r));
        if (f) {
            memcpy(f, &r, sizeof(r));
        }
    } else {
        WireAtomic a = {
            .req = cpu_to_le64(q->wire.req),
            .addr = d->remote_addr,
            .compare_add = d->compare_add,
            .swap = d->swap,
            .key = d->remote_key,
            .job = cpu_to_le32(q->job),
            .src_queue = cpu_to_le16(q->id),
            .opcode = d->opcode,
        };

        f = wire_frame(p, q->wire.routed, s->node_id, q->wire.dest,
                       WIRE_ATOMIC, sizeof(a));
        if (f) {
            memcpy(f, &a, sizeof(a));
        }
    }
    if (!f) {
        request_done(s, q, NPO_STATUS_LINK_DOWN);
        return;
    }
    q->wire.sent = true;
    npo_port_flush(p);
    request_heard(s, q);
}

/*
 * Carry descriptor d of q (at sq_issue) out of p, a port of s or of a
 * device further on in this process (first is s's port towards it), to
 * its destination.  The local side (lmr) was checked just now, on this
 * run.  Returns the bytes moved; sets *done and *status once the target
 * has answered.
 */
uint64_t npo_wire_run(NpoState *s, NpoQueue *q, const struct npo_sqe *d,
                      NpoMr *lmr, NpoPort *first, NpoPort *p,
                      uint64_t budget, bool *done, uint32_t *status)
{
    *done = false;
    *status = NPO_STATUS_OK;
    if (q->wire.done) {
        if (q->wire.status == NPO_STATUS_RNR &&
            q->rnr_tries++ < NPO_RNR_TRIES) {
            /* The receiver had no buffer: send it all again shortly. */
            request_clear(q);
            q->wait |= NPO_QUEUE_WAIT_LINK;
            return 0;
        }
        if (q->wire.routed && (q->wire.status == NPO_STATUS_LINK_DOWN ||
                               q->wire.status == NPO_STATUS_UNREACHABLE)) {
            bool wait = false;

            /*
             * The fabric could not carry it: a link down on the way, or
             * routes still settling.  Within the hold it goes again from
             * the start, by the new routes, the target told to drop
             * what part of it came.
             */
            q->wire.status = npo_route_hold(s, q, q->wire.dest,
                                            q->wire.status, &wait);
            if (wait) {
                /*
                 * The same id: a target that carried it out already
                 * answers again from what it kept, and does not do it
                 * twice; one that has part of it starts it afresh.
                 */
                uint64_t id = q->wire.req;

                request_clear(q);
                q->wire.retry = id;
                q->wait |= NPO_QUEUE_WAIT_LINK;
                return 0;
            }
        }
        *status = q->wire.status;
        *done = true;
        if (!*status && (d->opcode == NPO_OP_FETCH_ADD ||
                         d->opcode == NPO_OP_CMP_SWAP)) {
            npo_mr_write(lmr, le64_to_cpu(d->local_addr), &q->wire.value, 8);
        }
        return 0;
    }
    if (!q->wire.req) {
        q->wire.req = q->wire.retry ? q->wire.retry : ++s->wire_seq;
        q->wire.retry = 0;
        q->wire.port = p;
        q->wire.first = first;
        q->wire.dest = le32_to_cpu(d->dest_node);
        /* The far device names the sender by its link unless told. */
        q->wire.routed = p->dev != s || p->peer_node != q->wire.dest;
        q->wire.lkey = le32_to_cpu(d->local_key);
        q->wire.laddr = le64_to_cpu(d->local_addr);
        q->wire.len = le32_to_cpu(d->length);
        /* Every frame of a request says the same, whatever is answered. */
        q->wire.chained = npo_wire_posted(q) > 0;
        q->progress = 0;
        trace_npo_wire_request(s->node_id, q->id, q->wire.req, d->opcode,
                               p->index, q->wire.len);
        if (d->opcode == NPO_OP_READ || d->opcode == NPO_OP_FETCH_ADD ||
            d->opcode == NPO_OP_CMP_SWAP) {
            request_send_one(s, q, d, p);
            return 0;
        }
    }
    q->wait &= ~NPO_QUEUE_WAIT_TX;
    return request_send_data(s, q, d, lmr, p, budget);
}

/*
 * The head descriptor completed, or its queue goes away: forget its
 * request, telling the target to drop what it holds for it unless the
 * target already answered.
 */
void npo_wire_finish(NpoState *s, NpoQueue *q)
{
    NpoPort *p = q->wire.port;
    WireAbort *a;

    /* A routed request's way may have changed: the abort takes today's. */
    if (q->wire.routed) {
        p = npo_route_wire_port(s, q->wire.dest);
    }
    if (!q->wire.acked && p) {
        a = (WireAbort *)wire_frame(p, q->wire.routed, s->node_id,
                                    q->wire.dest, WIRE_ABORT, sizeof(*a));
        if (a) {
            a->req = cpu_to_le64(q->wire.req);
            npo_port_flush(p);
        }
    }
    request_clear(q);
}

/*
 * Whether d may follow the queue's unanswered WRITEs onto the wire: a
 * WRITE or WRITE_IMM without FENCE, through their port while it is up,
 * from a valid local range, with room in the window.  Anything else waits
 * for their answers, since it would complete before them or, failing its
 * local check at once, out of order.
 */
bool npo_wire_postable(NpoState *s, NpoQueue *q, const struct npo_sqe *d)
{
    NpoWirePosted *last = &q->posted[(q->sq_issue - 1) % NPO_WIRE_WINDOW];
    uint32_t len = le32_to_cpu(d->length);
    uint32_t node = le32_to_cpu(d->dest_node);
    NpoMr *lmr;

    /*
     * Only to the peer itself: a request routed on is sent again when the
     * fabric cannot carry it, which a window would reorder.
     */
    if (q->error || npo_wire_posted(q) >= NPO_WIRE_WINDOW || d->flags ||
        (d->opcode != NPO_OP_WRITE && d->opcode != NPO_OP_WRITE_IMM) ||
        last->routed || node != last->port->peer_node ||
        npo_route_first_hop(s, node) != last->port ||
        npo_route_ready(last->port) != NPO_LINK_UP) {
        return false;
    }
    return !len || !npo_mr_check_local(s, &lmr, le32_to_cpu(d->local_key),
                                       le64_to_cpu(d->local_addr), len, 0,
                                       q->pd);
}

/*
 * The WRITE being sent has all its frames on the wire, unanswered, and
 * may wait for its answer in the window (a routed one waits at the head,
 * to go again if the fabric cannot carry it).
 */
bool npo_wire_sent(NpoQueue *q, const struct npo_sqe *d)
{
    return q->wire.req && q->wire.sent && !q->wire.done && !q->wire.routed &&
           (d->opcode == NPO_OP_WRITE || d->opcode == NPO_OP_WRITE_IMM);
}

/*
 * Move the request being sent (descriptor d, at sq_issue) into the window,
 * to wait for its answer there, or with its outcome if done: the next
 * descriptor may go out meanwhile.
 */
void npo_wire_post(NpoQueue *q, const struct npo_sqe *d, bool done,
                   uint32_t status)
{
    q->posted[q->sq_issue % NPO_WIRE_WINDOW] = (NpoWirePosted) {
        .req = q->wire.req,
        .port = q->wire.port,
        .first = q->wire.first,
        .routed = q->wire.routed,
        .d = *d,
        .done = done,
        .status = status,
    };
    q->sq_issue++;
    request_clear(q);
}

/*
 * The window's WRITE an answer is for, if it still waits.  A direct
 * answer counts only from the port its request left on; a routed one
 * comes back by whichever way the routes say.
 */
static NpoWirePosted *answered_post(NpoQueue *q, const NpoWireEnd *e,
                                    uint64_t req)
{
    uint32_t i;

    for (i = 0; i < npo_wire_posted(q); i++) {
        NpoWirePosted *w = &q->posted[(q->sq_head + i) % NPO_WIRE_WINDOW];

        if (w->req == req && w->routed == e->routed &&
            (e->routed || w->port == e->p) && !w->done) {
            return w;
        }
    }
    return NULL;
}

/* A WRITE of the window is answered, or lost with its link. */
static void post_done(NpoState *s, NpoQueue *q, NpoWirePosted *w,
                      uint32_t status)
{
    w->done = true;
    w->status = status;
    q->wait &= ~NPO_QUEUE_WAIT_WINDOW;
    trace_npo_wire_done(s->node_id, q->id, w->req, status);
    npo_dma_kick(s);
}

/* The queue a peer's answer is for: still live and still waiting for it. */
static NpoQueue *answered_queue(const NpoWireEnd *e, uint16_t qid,
                                uint64_t req)
{
    NpoQueue *q = npo_queue_get(e->dev, qid);

    if (!q || !req || q->wire.req != req || q->wire.routed != e->routed ||
        (e->routed ? e->peer != q->wire.dest : q->wire.port != e->p) ||
        q->wire.acked) {
        return NULL;
    }
    return q;
}

static void rx_ack(const NpoWireEnd *e, const WireAck *a)
{
    uint64_t req = le64_to_cpu(a->req);
    NpoQueue *q = answered_queue(e, le16_to_cpu(a->src_queue), req);
    NpoWirePosted *w;

    if (q) {
        q->wire.acked = true;
        q->wire.value = le64_to_cpu(a->value);
        request_done(e->dev, q, le32_to_cpu(a->status));
        return;
    }
    q = npo_queue_get(e->dev, le16_to_cpu(a->src_queue));
    w = q ? answered_post(q, e, req) : NULL;
    if (w) {
        post_done(e->dev, q, w, le32_to_cpu(a->status));
    }
}

/* Bytes answering our READ: they land in the region the descriptor named. */
static void rx_read_data(const NpoWireEnd *e, const WireData *w,
                         const uint8_t *bytes, uint32_t n)
{
    NpoQueue *q = answered_queue(e, le16_to_cpu(w->src_queue),
                                 le64_to_cpu(w->req));
    uint32_t off = le32_to_cpu(w->offset), st;
    NpoMr *lmr;

    if (!q || q->wire.done) {
        return;
    }
    if (off > q->wire.len || n > q->wire.len - off) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: READ answer beyond "
                      "the request, dropped\n", e->p->dev->node_id,
                      e->p->index);
        return;
    }
    /* The region may have gone since the request left: look again. */
    st = npo_mr_check_local(e->dev, &lmr, q->wire.lkey, q->wire.laddr + off,
                            n, NPO_ACCESS_LOCAL_WRITE, q->pd);
    if (st) {
        request_done(e->dev, q, st);
        return;
    }
    npo_mr_write(lmr, q->wire.laddr + off, bytes, n);
    request_heard(e->dev, q);
}

/* --- target -------------------------------------------------------------- */

static void answer(const NpoWireEnd *e, uint64_t req, uint16_t src_queue,
                   uint32_t status, uint64_t value)
{
    WireAck *a = (WireAck *)wire_frame(e->p, e->routed, e->node, e->peer,
                                       WIRE_ACK, sizeof(*a));

    if (e->routed && e->dev) {
        NpoWireKey key = { .id = src_queue, .node = e->peer };
        NpoWireDone done = { .req = req, .status = status, .value = value };

        g_hash_table_insert(e->dev->wire_done, g_memdup2(&key, sizeof(key)),
                            g_memdup2(&done, sizeof(done)));
    }
    if (status) {
        NpoWireKey key = { .id = src_queue, .node = e->peer };

        g_hash_table_insert(e->p->rx_naks, g_memdup2(&key, sizeof(key)),
                            g_memdup2(&req, sizeof(req)));
    }
    if (!a) {
        return;
    }
    *a = (WireAck) {
        .req = cpu_to_le64(req),
        .value = cpu_to_le64(value),
        .status = cpu_to_le32(status),
        .src_queue = cpu_to_le16(src_queue),
    };
    npo_port_flush(e->p);
}

/* A peer's request as its target sees it. */
static NpoTargetReq target_req(const NpoWireEnd *e, uint16_t src_queue,
                               uint32_t job, uint8_t opcode)
{
    return (NpoTargetReq) {
        .from = {
            .port = e->in_port,
            .node = e->peer,
            .queue = src_queue,
        },
        .job = job,
        .opcode = opcode,
    };
}

/* WRITE or WRITE_IMM bytes: every frame is checked on its own. */
static uint32_t rx_write(const NpoWireEnd *e, const WireData *w,
                         const uint8_t *bytes, uint32_t n)
{
    NpoTargetReq rq = target_req(e, le16_to_cpu(w->src_queue),
                                 le32_to_cpu(w->job), w->opcode);
    uint64_t addr = le64_to_cpu(w->addr);
    uint32_t total = le32_to_cpu(w->total);
    NpoQueue *tq = NULL;
    NpoMr *mr = NULL;
    uint32_t st = 0;

    if (total) {
        st = npo_target_region(e->dev, &rq, &mr, le64_to_cpu(w->key), addr,
                               total, NPO_ACCESS_REMOTE_WRITE);
    }
    if (!st && w->opcode == NPO_OP_WRITE_IMM) {
        st = npo_target_queue(e->dev, &rq, le16_to_cpu(w->dest_queue), &tq);
    }
    if (st) {
        return st;
    }
    if (n) {
        npo_mr_write(mr, addr + le32_to_cpu(w->offset), bytes, n);
    }
    if (w->last && tq) {
        npo_target_imm(e->dev, tq, &rq.from, total, le32_to_cpu(w->imm));
    }
    return 0;
}

static NpoSender recv_sender(const NpoWireRecv *r)
{
    return (NpoSender) {
        .port = r->in_port,
        .node = r->id.node,
        .queue = r->src_queue,
    };
}

/* Complete an arriving SEND's receive buffer early, with status. */
static void recv_end(NpoPort *p, NpoWireRecv *r, uint32_t status)
{
    NpoQueue *tq = npo_queue_get(r->dev, r->queue);
    NpoSender from = recv_sender(r);

    if (tq && tq->gen == r->gen && !tq->error) {
        npo_target_recv_done(r->dev, tq, &from, r->wr_id, 0, status);
    }
    g_hash_table_remove(p->rx_sends, &r->id);
}

/*
 * SEND bytes.  The first frame takes a receive buffer; the rest follow it
 * in order, as a port's frames arrive; the last completes the buffer.
 * Returns 0 or the status that refuses the message.
 */
static uint32_t rx_send(const NpoWireEnd *e, const WireData *w,
                        const uint8_t *bytes, uint32_t n)
{
    NpoPort *p = e->p;
    NpoState *t = e->dev;
    NpoWireKey rkey = { .id = le64_to_cpu(w->req), .node = e->peer };
    uint16_t src = le16_to_cpu(w->src_queue);
    uint32_t total = le32_to_cpu(w->total), st;
    NpoWireRecv *r = g_hash_table_lookup(p->rx_sends, &rkey);
    NpoTargetReq rq = target_req(e, src, le32_to_cpu(w->job), w->opcode);
    NpoQueue *tq;
    NpoMr *rmr = NULL;
    unsigned int i;

    /*
     * A routed message sent again after part of it came through another
     * port: it goes on in the buffer it took, from its start.
     */
    for (i = 0; !r && e->routed && !w->offset && i < t->num_ports; i++) {
        NpoPort *o = &t->port[i];

        r = o == p ? NULL : g_hash_table_lookup(o->rx_sends, &rkey);
        if (r) {
            g_hash_table_steal(o->rx_sends, &rkey);
            g_hash_table_insert(p->rx_sends, &r->id, r);
        }
    }
    if (r && !w->offset && e->routed) {
        /* Sent again: its first frame starts over in the same buffer. */
    } else if (!w->offset) {
        struct npo_rqe rqe;
        int taken;

        if (npo_target_queue(t, &rq, le16_to_cpu(w->dest_queue), &tq) ||
            r || total > NPO_MAX_SEND) {
            return NPO_STATUS_REMOTE_QUEUE;
        }
        taken = npo_target_recv_take(t, tq, total, &rq.from, &rqe, &rmr);
        if (taken) {
            return taken < 0 ? NPO_STATUS_RNR : taken;
        }
        r = g_new(NpoWireRecv, 1);
        *r = (NpoWireRecv) {
            .id = rkey,
            .dev = t,
            .in_port = e->in_port,
            .src_queue = src,
            .queue = tq->id,
            .gen = tq->gen,
            .wr_id = rqe.wr_id,
            .key = le32_to_cpu(rqe.key),
            .addr = le64_to_cpu(rqe.addr),
        };
        g_hash_table_insert(p->rx_sends, &r->id, r);
    } else if (!r) {
        /* The rest of a message already refused. */
        return 0;
    }
    tq = npo_queue_get(t, r->queue);
    if (!tq || tq->gen != r->gen || tq->error) {
        g_hash_table_remove(p->rx_sends, &rkey);
        return NPO_STATUS_REMOTE_QUEUE;
    }
    if (total) {
        /* The buffer's region may have gone between frames. */
        st = npo_target_recv_buffer(t, tq, r->key, r->addr, total, &rmr);
        if (st) {
            NpoSender from = recv_sender(r);
            struct npo_cqe why = {
                .wr_id = r->wr_id,
                .opcode = NPO_OP_RECV,
                .port = from.port,
                .peer_node = cpu_to_le32(from.node),
            };

            recv_end(p, r, st);
            npo_queue_fail(t, tq, st, &why);
            return NPO_STATUS_REMOTE_QUEUE;
        }
    }
    if (n) {
        npo_mr_write(rmr, r->addr + le32_to_cpu(w->offset), bytes, n);
    }
    if (w->last) {
        uint64_t wr_id = r->wr_id;

        g_hash_table_remove(p->rx_sends, &rkey);
        npo_target_recv_done(t, tq, &rq.from, wr_id, total, NPO_STATUS_OK);
    }
    return 0;
}

/*
 * The rest of a refused request, or a request its queue chained behind a
 * refused one (answered FLUSHED once, on its last frame): dropped.  A
 * request sent unchained starts the queue afresh.
 */
static bool refused_or_chained(const NpoWireEnd *e, const WireData *w)
{
    uint16_t src = le16_to_cpu(w->src_queue);
    NpoWireKey key = { .id = src, .node = e->peer };
    uint64_t *refused = g_hash_table_lookup(e->p->rx_naks, &key);
    uint64_t req = le64_to_cpu(w->req);

    if (!refused || req < *refused) {
        return false;
    }
    if (req == *refused) {
        /*
         * The rest of it; but its first frame again is a routed request
         * sent again by its requester, the same id a new attempt.
         */
        if (e->routed && !w->offset) {
            g_hash_table_remove(e->p->rx_naks, &key);
            return false;
        }
        return true;
    }
    if (!(le16_to_cpu(w->flags) & WIRE_DATA_CHAINED)) {
        g_hash_table_remove(e->p->rx_naks, &key);
        return false;
    }
    if (w->last) {
        answer(e, req, src, NPO_STATUS_FLUSHED, 0);
    }
    return true;
}

/*
 * Whether a routed request that is not safe to carry out twice (an
 * immediate, a message, an atomic) was answered already: then the first
 * frame of it answers again from what was kept (*again), or, for one
 * older than the last answered, nothing.  Frames of such a request are
 * dropped.
 */
static bool already_done(const NpoWireEnd *e, uint16_t src_queue,
                         uint64_t req, bool answer_now)
{
    NpoWireKey key = { .id = src_queue, .node = e->peer };
    NpoWireDone *done;

    if (!e->routed || !e->dev) {
        return false;
    }
    done = g_hash_table_lookup(e->dev->wire_done, &key);
    if (!done || done->req < req) {
        return false;
    }
    if (answer_now && done->req == req) {
        answer(e, req, src_queue, done->status, done->value);
    }
    return true;
}

/*
 * DATA for e->dev, or, with no device, refused with status by a device
 * that cannot pass it on.
 */
static void rx_data(const NpoWireEnd *e, const WireData *w,
                    const uint8_t *bytes, uint32_t n, uint32_t status)
{
    uint64_t req = le64_to_cpu(w->req);
    uint32_t total = le32_to_cpu(w->total), off = le32_to_cpu(w->offset);
    uint32_t st;

    if (off > total || n > total - off || w->last != (off + n == total)) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: malformed data "
                      "frame, dropped\n", e->p->dev->node_id, e->p->index);
        return;
    }
    if (refused_or_chained(e, w)) {
        return;
    }
    if (w->opcode != NPO_OP_WRITE &&
        already_done(e, le16_to_cpu(w->src_queue), req, w->last)) {
        return;
    }
    if (status) {
        st = status;
    } else {
        switch (w->opcode) {
        case NPO_OP_WRITE:
        case NPO_OP_WRITE_IMM:
            st = rx_write(e, w, bytes, n);
            break;
        case NPO_OP_SEND:
            st = rx_send(e, w, bytes, n);
            break;
        default:
            st = NPO_STATUS_BAD_DESCRIPTOR;
            break;
        }
    }
    if (st || w->last) {
        answer(e, req, le16_to_cpu(w->src_queue), st, 0);
    }
}

static void rx_read(const NpoWireEnd *e, const WireRead *r, uint32_t status)
{
    uint64_t req = le64_to_cpu(r->req);
    uint32_t len = le32_to_cpu(r->len), st = status;
    NpoWireRead *rd;
    NpoMr *mr;

    if (!st && len) {
        NpoTargetReq rq = target_req(e, le16_to_cpu(r->src_queue),
                                     le32_to_cpu(r->job), NPO_OP_READ);

        st = npo_target_region(e->dev, &rq, &mr, le64_to_cpu(r->key),
                               le64_to_cpu(r->addr), len,
                               NPO_ACCESS_REMOTE_READ);
    }
    if (st || !len) {
        answer(e, req, le16_to_cpu(r->src_queue), st, 0);
        return;
    }
    rd = g_new0(NpoWireRead, 1);
    rd->req = req;
    rd->peer = e->peer;
    rd->dev = e->dev;
    rd->routed = e->routed;
    rd->src_queue = le16_to_cpu(r->src_queue);
    rd->job = le32_to_cpu(r->job);
    rd->key = le64_to_cpu(r->key);
    rd->addr = le64_to_cpu(r->addr);
    rd->len = len;
    QSIMPLEQ_INSERT_TAIL(&e->p->reads, rd, next);
    npo_dma_kick(e->p->dev);
}

static void rx_atomic(const NpoWireEnd *e, const WireAtomic *a,
                      uint32_t status)
{
    NpoTargetReq rq = target_req(e, le16_to_cpu(a->src_queue),
                                 le32_to_cpu(a->job), a->opcode);
    uint64_t old = 0;
    uint32_t st = status;

    if (already_done(e, rq.from.queue, le64_to_cpu(a->req), true)) {
        return;
    }
    if (!st) {
        st = npo_target_atomic(e->dev, &rq, le64_to_cpu(a->key),
                               le64_to_cpu(a->addr),
                               le64_to_cpu(a->compare_add),
                               le64_to_cpu(a->swap), &old);
    }
    answer(e, le64_to_cpu(a->req), rq.from.queue, st, old);
}

static void read_free(NpoPort *p, NpoWireRead *rd)
{
    QSIMPLEQ_REMOVE(&p->reads, rd, NpoWireRead, next);
    g_free(rd);
}

/* The requester gave up: drop what this device holds for the request. */
static void rx_abort(const NpoWireEnd *e, const WireAbort *a)
{
    NpoWireKey key = { .id = le64_to_cpu(a->req), .node = e->peer };
    unsigned int i;

    /* A routed request's frames may have come in through another port. */
    for (i = 0; i < e->dev->num_ports; i++) {
        NpoPort *p = e->routed ? &e->dev->port[i] : e->p;
        NpoWireRecv *r = g_hash_table_lookup(p->rx_sends, &key);
        NpoWireRead *rd;

        if (r) {
            /* A half-arrived message: its buffer completes, flushed. */
            recv_end(p, r, NPO_STATUS_FLUSHED);
        }
        QSIMPLEQ_FOREACH(rd, &p->reads, next) {
            if (rd->req == key.id && rd->peer == key.node) {
                read_free(p, rd);
                break;
            }
        }
        if (!e->routed) {
            break;
        }
    }
}

/* Send READ answers, up to budget bytes over all ports. */
uint64_t npo_wire_answer_reads(NpoState *s, uint64_t budget, bool *more)
{
    uint64_t moved = 0;
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];
        NpoWireRead *rd;

        while ((rd = QSIMPLEQ_FIRST(&p->reads)) && !npo_port_tx_full(p)) {
            uint32_t n = MIN(rd->len - rd->sent, WIRE_CHUNK), st;
            WireData *w;
            NpoMr *mr;

            if (moved >= budget) {
                *more = true;
                break;
            }
            NpoWireEnd e = {
                .p = p,
                .dev = rd->dev,
                .node = rd->dev->node_id,
                .peer = rd->peer,
                .routed = rd->routed,
            };

            /* The region may have gone since the request came: look again. */
            st = npo_target_region_still(rd->dev, &mr, rd->job, rd->key,
                                         rd->addr, rd->len,
                                         NPO_ACCESS_REMOTE_READ) ?
                 NPO_STATUS_OK : NPO_STATUS_REMOTE_ACCESS;
            w = st ? NULL : (WireData *)wire_frame(p, rd->routed, e.node,
                                                   rd->peer, WIRE_READ_DATA,
                                                   sizeof(*w) + n);
            if (w) {
                *w = (WireData) {
                    .req = cpu_to_le64(rd->req),
                    .total = cpu_to_le32(rd->len),
                    .offset = cpu_to_le32(rd->sent),
                    .src_queue = cpu_to_le16(rd->src_queue),
                    .opcode = NPO_OP_READ,
                    .last = rd->sent + n == rd->len,
                };
                npo_mr_read(mr, rd->addr + rd->sent, w + 1, n);
                rd->sent += n;
                moved += n;
            }
            if (!w || rd->sent == rd->len) {
                answer(&e, rd->req, rd->src_queue, st, 0);
                read_free(p, rd);
            }
        }
        npo_port_flush(p);
    }
    return moved;
}

/*
 * A frame of the transport for e->dev (or, with status, refused by a
 * device that cannot pass it on), its type and fixed part checked.
 */
static void wire_rx_frame(const NpoWireEnd *e, uint8_t type,
                            const uint8_t *payload, uint16_t len,
                            uint16_t min_len, uint32_t status)
{
    union {
        WireData data;
        WireRead read;
        WireAtomic atomic;
        WireAck ack;
        WireAbort abort;
    } h;

    /* Only the fixed part is copied out; data bytes follow it in place. */
    memcpy(&h, payload, min_len);
    switch (type) {
    case WIRE_DATA:
        rx_data(e, &h.data, payload + sizeof(WireData),
                len - sizeof(WireData), status);
        break;
    case WIRE_READ:
        rx_read(e, &h.read, status);
        break;
    case WIRE_ATOMIC:
        rx_atomic(e, &h.atomic, status);
        break;
    case WIRE_READ_DATA:
        if (!status) {
            rx_read_data(e, &h.data, payload + sizeof(WireData),
                         len - sizeof(WireData));
        }
        break;
    case WIRE_ACK:
        if (!status) {
            rx_ack(e, &h.ack);
        }
        break;
    case WIRE_ABORT:
        if (!status) {
            rx_abort(e, &h.abort);
        }
        break;
    }
}

/*
 * A routed frame for another node: on it goes out of the port this
 * device's routes name.  0, or why it cannot go.
 */
static uint32_t routed_forward(NpoPort *p, const WireRouted *h,
                               const uint8_t *inner, uint16_t len)
{
    NpoState *r = p->dev;
    NpoPort *out = npo_route_first_hop(r, le32_to_cpu(h->to_node));
    WireRouted *f;

    if (h->hops >= NPO_ROUTE_MAX_HOPS) {
        r->route_loops++;
        return NPO_STATUS_UNREACHABLE;
    }
    if (!out) {
        return NPO_STATUS_UNREACHABLE;
    }
    /*
     * No link-level credit stops the port it came in on: past this much
     * held for the next link, the request is refused, not queued.
     */
    if (npo_route_ready(out) == NPO_LINK_DOWN ||
        npo_port_tx_backlog(out) > NPO_FORWARD_BACKLOG_MAX) {
        return NPO_STATUS_LINK_DOWN;
    }
    f = (WireRouted *)npo_port_frame(out, WIRE_ROUTED, sizeof(*f) + len);
    if (!f) {
        return NPO_STATUS_LINK_DOWN;
    }
    *f = *h;
    f->hops++;
    memcpy(f + 1, inner, len);
    npo_port_flush(out);
    if (h->type == WIRE_READ || h->type == WIRE_ATOMIC ||
        (h->type == WIRE_DATA && !((const WireData *)inner)->offset)) {
        r->route_forwarded++;
    }
    return NPO_STATUS_OK;
}

/* A frame of the wire arrived on an up link. */
void npo_wire_rx(NpoPort *p, uint8_t type, const uint8_t *payload,
                 uint16_t len)
{
    static const uint16_t min_len[] = {
        [WIRE_DATA] = sizeof(WireData),
        [WIRE_READ] = sizeof(WireRead),
        [WIRE_READ_DATA] = sizeof(WireData),
        [WIRE_ATOMIC] = sizeof(WireAtomic),
        [WIRE_ACK] = sizeof(WireAck),
        [WIRE_ABORT] = sizeof(WireAbort),
    };
    NpoWireEnd e = {
        .p = p,
        .dev = p->dev,
        .node = p->dev->node_id,
        .peer = p->peer_node,
        .in_port = p->index,
    };
    uint32_t st = 0;
    WireRouted h;

    if (type == WIRE_ROUTED && len >= sizeof(h)) {
        memcpy(&h, payload, sizeof(h));
        type = h.type;
        payload += sizeof(h);
        len -= sizeof(h);
        e.routed = true;
        e.node = le32_to_cpu(h.to_node);
        e.peer = le32_to_cpu(h.from_node);
    } else if (type == WIRE_ROUTED) {
        type = 0;
    }
    if (type >= ARRAY_SIZE(min_len) || !min_len[type] ||
        len < min_len[type] ||
        ((type == WIRE_DATA || type == WIRE_READ_DATA) ?
         len - sizeof(WireData) > WIRE_CHUNK : len != min_len[type]) ||
        (e.routed && (!e.node || !e.peer))) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: bad fabric frame "
                      "type %u, %u bytes%s, dropped\n", p->dev->node_id,
                      p->index, type, len, e.routed ? ", routed" : "");
        return;
    }
    if (e.routed && e.node != p->dev->node_id) {
        WireData w;

        /* The rest of a request refused here goes no further. */
        if (type == WIRE_DATA) {
            memcpy(&w, payload, sizeof(w));
            if (refused_or_chained(&e, &w)) {
                return;
            }
        }
        st = routed_forward(p, &h, payload, len);
        if (!st) {
            return;
        }
        /* Refused here: requests are answered, on the target's behalf. */
        trace_npo_wire_unroutable(p->dev->node_id, type, e.peer, e.node, st);
        e.dev = NULL;
    }
    wire_rx_frame(&e, type, payload, len, min_len[type], st);
}

/* --- port and device life cycle ------------------------------------------- */

/* Forget what the port holds as a target; arriving messages end as status. */
static void port_forget(NpoPort *p, bool complete)
{
    GHashTableIter it;
    gpointer v;

    g_hash_table_iter_init(&it, p->rx_sends);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        NpoWireRecv *r = v;
        NpoQueue *tq = npo_queue_get(r->dev, r->queue);
        NpoSender from = recv_sender(r);

        if (complete && tq && tq->gen == r->gen && !tq->error) {
            npo_target_recv_done(r->dev, tq, &from, r->wr_id, 0,
                                 NPO_STATUS_LINK_DOWN);
        }
        g_hash_table_iter_remove(&it);
    }
    while (!QSIMPLEQ_EMPTY(&p->reads)) {
        read_free(p, QSIMPLEQ_FIRST(&p->reads));
    }
    g_hash_table_remove_all(p->rx_naks);
}

/*
 * The link went down: everything in flight through it ends now, the
 * requests of queues of devices behind this one too.
 */
void npo_wire_port_down(NpoPort *p)
{
    NpoState *s;
    unsigned int i;

    QTAILQ_FOREACH(s, npo_route_devices(), next) {
        for (i = 0; i < s->num_queues; i++) {
            NpoQueue *q = &s->queue[i];
            NpoWirePosted *w;
            uint32_t k;

            if (q->live && q->wire.req && q->wire.port == p) {
                /* Nothing will answer: no abort is owed either. */
                q->wire.acked = true;
                request_done(s, q, NPO_STATUS_LINK_DOWN);
            }
            for (k = 0; q->live && k < npo_wire_posted(q); k++) {
                w = &q->posted[(q->sq_head + k) % NPO_WIRE_WINDOW];
                if (w->port == p && !w->done) {
                    post_done(s, q, w, NPO_STATUS_LINK_DOWN);
                }
            }
        }
    }
    port_forget(p, true);
}

/*
 * A device of this process goes away: requests of the others that go on
 * the wire out of its ports, or name one as their first hop, end.
 */
void npo_wire_forget_device(NpoState *gone)
{
    NpoState *s;
    unsigned int i;

    QTAILQ_FOREACH(s, npo_route_devices(), next) {
        for (i = 0; s != gone && i < s->num_queues; i++) {
            NpoQueue *q = &s->queue[i];

            if (!q->live || !q->wire.req ||
                !((q->wire.port && q->wire.port->dev == gone) ||
                  (q->wire.first && q->wire.first->dev == gone))) {
                continue;
            }
            q->wire.acked = true;
            q->wire.port = NULL;
            q->wire.first = NULL;
            request_done(s, q, NPO_STATUS_LINK_DOWN);
        }
    }
}

/* The port's transmit queue has room again: senders waiting on it go on. */
void npo_wire_tx_room(NpoPort *p)
{
    NpoState *s;
    unsigned int i;

    QTAILQ_FOREACH(s, npo_route_devices(), next) {
        bool kick = false;

        for (i = 0; i < s->num_queues; i++) {
            if (s->queue[i].wire.port == p) {
                s->queue[i].wait &= ~NPO_QUEUE_WAIT_TX;
                kick = true;
            }
        }
        if (kick || s == p->dev) {
            npo_dma_kick(s);
        }
    }
}

/* Routed requests quiet for too long end LINK_DOWN, to go again. */
static void npo_wire_timeout(void *opaque)
{
    NpoState *s = opaque;
    int64_t now = wire_now(), next = INT64_MAX;
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        NpoQueue *q = &s->queue[i];

        if (!q->live || !q->wire.req || !q->wire.routed || q->wire.done) {
            continue;
        }
        if (now - q->wire.heard >= NPO_WIRE_ROUTED_TIMEOUT_NS &&
            !(q->wait & NPO_QUEUE_WAIT_TX)) {
            /* Lost, or only its answer was: it goes again, same id. */
            trace_npo_wire_timeout(s->node_id, q->id, q->wire.req);
            if (q->wire.lost++ < NPO_WIRE_ROUTED_RESENDS) {
                q->route_since = 0;
            }
            request_done(s, q, NPO_STATUS_LINK_DOWN);
        } else {
            next = MIN(next, q->wire.heard + NPO_WIRE_ROUTED_TIMEOUT_NS);
        }
    }
    if (next != INT64_MAX) {
        timer_mod(s->wire_timer, next);
    }
}

void npo_wire_reset(NpoState *s)
{
    unsigned int i;

    timer_del(s->wire_timer);
    g_hash_table_remove_all(s->wire_done);
    for (i = 0; i < s->num_ports; i++) {
        port_forget(&s->port[i], false);
    }
}

void npo_wire_realize(NpoState *s)
{
    unsigned int i;

    s->wire_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, npo_wire_timeout, s);
    s->wire_done = g_hash_table_new_full(wire_key_hash, wire_key_equal,
                                         g_free, g_free);
    for (i = 0; i < NPO_MAX_PORTS; i++) {
        NpoPort *p = &s->port[i];

        p->rx_sends = g_hash_table_new_full(wire_key_hash, wire_key_equal,
                                            NULL, g_free);
        p->rx_naks = g_hash_table_new_full(wire_key_hash, wire_key_equal,
                                           g_free, g_free);
        QSIMPLEQ_INIT(&p->reads);
    }
}

void npo_wire_exit(NpoState *s)
{
    unsigned int i;

    timer_free(s->wire_timer);
    g_hash_table_destroy(s->wire_done);
    for (i = 0; i < NPO_MAX_PORTS; i++) {
        port_forget(&s->port[i], false);
        g_hash_table_destroy(s->port[i].rx_sends);
        g_hash_table_destroy(s->port[i].rx_naks);
    }
}
