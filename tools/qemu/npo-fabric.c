/*
 * NPO device model: the fabric transport, data to a peer device in
 * another QEMU process.
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
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "trace.h"

#include "npo.h"

/* A SEND arriving on a port: where its bytes go. */
typedef struct NpoWireRecv {
    uint64_t req;
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
    uint16_t src_queue;
    uint32_t job;
    uint64_t key;
    uint64_t addr;
    uint32_t len;
    uint32_t sent;
} NpoWireRead;

/* --- requester ----------------------------------------------------------- */

static void request_clear(NpoQueue *q)
{
    q->wire_req = 0;
    q->wire_port = NULL;
    q->wire_sent = q->wire_tx_wait = q->wire_done = q->wire_acked = false;
    q->wire_chained = false;
    q->wire_status = 0;
    q->wire_value = 0;
    q->progress = 0;
}

/* The request's outcome is known; the engine completes it on its next run. */
static void request_done(NpoState *s, NpoQueue *q, uint32_t status)
{
    if (!q->wire_done) {
        q->wire_done = true;
        q->wire_status = status;
        trace_npo_wire_done(s->node_id, q->id, q->wire_req, status);
    }
    q->wire_tx_wait = false;
    npo_dma_kick(s);
}

/* Send the data frames of a WRITE, WRITE_IMM or SEND, as room allows. */
static uint64_t request_send_data(NpoState *s, NpoQueue *q,
                                  const struct npo_sqe *d, NpoMr *lmr,
                                  NpoPort *p, uint64_t budget)
{
    uint32_t len = le32_to_cpu(d->length);
    uint64_t moved = 0;

    while (!q->wire_sent && moved < budget) {
        uint32_t n = MIN(len - q->progress, WIRE_CHUNK);
        WireData *w;

        if (npo_port_tx_full(p)) {
            q->wire_tx_wait = true;
            break;
        }
        w = (WireData *)npo_port_frame(p, WIRE_DATA, sizeof(*w) + n);
        if (!w) {
            request_done(s, q, NPO_STATUS_LINK_DOWN);
            break;
        }
        *w = (WireData) {
            .req = cpu_to_le64(q->wire_req),
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
            .flags = cpu_to_le16(q->wire_chained ? WIRE_DATA_CHAINED : 0),
        };
        if (n) {
            npo_mr_read(lmr, le64_to_cpu(d->local_addr) + q->progress,
                        w + 1, n);
        }
        q->progress += n;
        moved += n;
        q->wire_sent = q->progress == len;
    }
    npo_port_flush(p);
    return moved;
}

/* Send a READ or atomic request: one frame. */
static void request_send_one(NpoState *s, NpoQueue *q,
                             const struct npo_sqe *d, NpoPort *p)
{
    uint8_t *f;

    if (d->opcode == NPO_OP_READ) {
        WireRead r = {
            .req = cpu_to_le64(q->wire_req),
            .addr = d->remote_addr,
            .key = d->remote_key,
            .job = cpu_to_le32(q->job),
            .len = d->length,
            .src_queue = cpu_to_le16(q->id),
        };

        f = npo_port_frame(p, WIRE_READ, sizeof(r));
        if (f) {
            memcpy(f, &r, sizeof(r));
        }
    } else {
        WireAtomic a = {
            .req = cpu_to_le64(q->wire_req),
            .addr = d->remote_addr,
            .compare_add = d->compare_add,
            .swap = d->swap,
            .key = d->remote_key,
            .job = cpu_to_le32(q->job),
            .src_queue = cpu_to_le16(q->id),
            .opcode = d->opcode,
        };

        f = npo_port_frame(p, WIRE_ATOMIC, sizeof(a));
        if (f) {
            memcpy(f, &a, sizeof(a));
        }
    }
    if (!f) {
        request_done(s, q, NPO_STATUS_LINK_DOWN);
        return;
    }
    q->wire_sent = true;
    npo_port_flush(p);
}

/*
 * Carry descriptor d of q (at sq_issue) to the peer behind p.  The local side
 * (lmr) was checked just now, on this run.  Returns the bytes moved; sets
 * *done and *status once the target has answered.
 */
uint64_t npo_fabric_run(NpoState *s, NpoQueue *q, const struct npo_sqe *d,
                        NpoMr *lmr, NpoPort *p, uint64_t budget, bool *done,
                        uint32_t *status)
{
    *done = false;
    *status = NPO_STATUS_OK;
    if (q->wire_done) {
        if (q->wire_status == NPO_STATUS_RNR &&
            q->rnr_tries++ < NPO_RNR_TRIES) {
            /* The receiver had no buffer: send it all again shortly. */
            request_clear(q);
            q->link_wait = true;
            return 0;
        }
        *status = q->wire_status;
        *done = true;
        if (!*status && (d->opcode == NPO_OP_FETCH_ADD ||
                         d->opcode == NPO_OP_CMP_SWAP)) {
            npo_mr_write(lmr, le64_to_cpu(d->local_addr), &q->wire_value, 8);
        }
        return 0;
    }
    if (!q->wire_req) {
        q->wire_req = ++s->wire_seq;
        q->wire_port = p;
        q->wire_lkey = le32_to_cpu(d->local_key);
        q->wire_laddr = le64_to_cpu(d->local_addr);
        q->wire_len = le32_to_cpu(d->length);
        /* Every frame of a request says the same, whatever is answered. */
        q->wire_chained = npo_wire_posted(q) > 0;
        q->progress = 0;
        trace_npo_wire_request(s->node_id, q->id, q->wire_req, d->opcode,
                               p->index, q->wire_len);
        if (d->opcode == NPO_OP_READ || d->opcode == NPO_OP_FETCH_ADD ||
            d->opcode == NPO_OP_CMP_SWAP) {
            request_send_one(s, q, d, p);
            return 0;
        }
    }
    q->wire_tx_wait = false;
    return request_send_data(s, q, d, lmr, p, budget);
}

/*
 * The head descriptor completed, or its queue goes away: forget its
 * request, telling the target to drop what it holds for it unless the
 * target already answered.
 */
void npo_fabric_finish(NpoState *s, NpoQueue *q)
{
    WireAbort *a;

    if (!q->wire_acked && q->wire_port) {
        a = (WireAbort *)npo_port_frame(q->wire_port, WIRE_ABORT, sizeof(*a));
        if (a) {
            a->req = cpu_to_le64(q->wire_req);
            npo_port_flush(q->wire_port);
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
bool npo_fabric_postable(NpoState *s, NpoQueue *q, const struct npo_sqe *d)
{
    NpoPort *p = q->posted[(q->sq_issue - 1) % NPO_WIRE_WINDOW].port;
    uint32_t len = le32_to_cpu(d->length);
    NpoMr *lmr;

    if (q->error || npo_wire_posted(q) >= NPO_WIRE_WINDOW || d->flags ||
        (d->opcode != NPO_OP_WRITE && d->opcode != NPO_OP_WRITE_IMM) ||
        le32_to_cpu(d->dest_node) == s->node_id ||
        npo_link_route(s, le32_to_cpu(d->dest_node)) != p ||
        npo_link_ready(p) != NPO_LINK_UP) {
        return false;
    }
    return !len || !npo_mr_check_local(s, &lmr, le32_to_cpu(d->local_key),
                                       le64_to_cpu(d->local_addr), len, 0,
                                       q->pd);
}

/* The WRITE being sent has all its frames on the wire, unanswered. */
bool npo_fabric_sent(NpoQueue *q, const struct npo_sqe *d)
{
    return q->wire_req && q->wire_sent && !q->wire_done &&
           (d->opcode == NPO_OP_WRITE || d->opcode == NPO_OP_WRITE_IMM);
}

/*
 * Move the request being sent (descriptor d, at sq_issue) into the window,
 * to wait for its answer there, or with its outcome if done: the next
 * descriptor may go out meanwhile.
 */
void npo_fabric_post(NpoQueue *q, const struct npo_sqe *d, bool done,
                     uint32_t status)
{
    q->posted[q->sq_issue % NPO_WIRE_WINDOW] = (NpoWirePosted) {
        .req = q->wire_req,
        .port = q->wire_port,
        .d = *d,
        .done = done,
        .status = status,
    };
    q->sq_issue++;
    request_clear(q);
}

/* The window's WRITE a peer's answer is for, if it still waits. */
static NpoWirePosted *answered_post(NpoQueue *q, NpoPort *p, uint64_t req)
{
    uint32_t i;

    for (i = 0; i < npo_wire_posted(q); i++) {
        NpoWirePosted *w = &q->posted[(q->sq_head + i) % NPO_WIRE_WINDOW];

        if (w->req == req && w->port == p && !w->done) {
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
    q->posted_wait = false;
    trace_npo_wire_done(s->node_id, q->id, w->req, status);
    npo_dma_kick(s);
}

/* The queue a peer's answer is for: still live and still waiting for it. */
static NpoQueue *answered_queue(NpoPort *p, uint16_t qid, uint64_t req)
{
    NpoQueue *q = npo_queue_get(p->dev, qid);

    if (!q || !req || q->wire_req != req || q->wire_port != p ||
        q->wire_acked) {
        return NULL;
    }
    return q;
}

static void rx_ack(NpoPort *p, const WireAck *a)
{
    uint64_t req = le64_to_cpu(a->req);
    NpoQueue *q = answered_queue(p, le16_to_cpu(a->src_queue), req);
    NpoWirePosted *w;

    if (q) {
        q->wire_acked = true;
        q->wire_value = le64_to_cpu(a->value);
        request_done(p->dev, q, le32_to_cpu(a->status));
        return;
    }
    q = npo_queue_get(p->dev, le16_to_cpu(a->src_queue));
    w = q ? answered_post(q, p, req) : NULL;
    if (w) {
        post_done(p->dev, q, w, le32_to_cpu(a->status));
    }
}

/* Bytes answering our READ: they land in the region the descriptor named. */
static void rx_read_data(NpoPort *p, const WireData *w,
                         const uint8_t *bytes, uint32_t n)
{
    NpoQueue *q = answered_queue(p, le16_to_cpu(w->src_queue),
                                 le64_to_cpu(w->req));
    uint32_t off = le32_to_cpu(w->offset), st;
    NpoMr *lmr;

    if (!q || q->wire_done) {
        return;
    }
    if (off > q->wire_len || n > q->wire_len - off) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: READ answer beyond "
                      "the request, dropped\n", p->dev->node_id, p->index);
        return;
    }
    /* The region may have gone since the request left: look again. */
    st = npo_mr_check_local(p->dev, &lmr, q->wire_lkey, q->wire_laddr + off,
                            n, NPO_ACCESS_LOCAL_WRITE, q->pd);
    if (st) {
        request_done(p->dev, q, st);
        return;
    }
    npo_mr_write(lmr, q->wire_laddr + off, bytes, n);
}

/* --- target -------------------------------------------------------------- */

static void answer(NpoPort *p, uint64_t req, uint16_t src_queue,
                   uint32_t status, uint64_t value)
{
    WireAck *a = (WireAck *)npo_port_frame(p, WIRE_ACK, sizeof(*a));

    if (status) {
        g_hash_table_insert(p->rx_naks, GUINT_TO_POINTER(src_queue + 1u),
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
    npo_port_flush(p);
}

/*
 * The region a peer's request names by remote key, if its job may reach
 * it; a refusal is logged, and reported as one status whatever the reason.
 */
static uint32_t target_region(NpoPort *p, NpoMr **mr, uint64_t key,
                              uint32_t job, uint16_t src_queue,
                              uint8_t opcode, uint64_t addr, uint64_t len,
                              uint32_t need)
{
    if (npo_mr_check_remote(p->dev, mr, key, job, addr, len, need)) {
        return NPO_STATUS_OK;
    }
    npo_refusal_log(p->dev, NPO_REFUSAL_SIDE_TARGET, job, p->peer_node,
                    src_queue, opcode, NPO_STATUS_REMOTE_ACCESS);
    return NPO_STATUS_REMOTE_ACCESS;
}

/* The queue a peer's WRITE_IMM or SEND names, if it is of the same job. */
static NpoQueue *target_queue(NpoPort *p, const WireData *w)
{
    NpoQueue *tq = npo_queue_get(p->dev, le16_to_cpu(w->dest_queue));
    uint32_t job = le32_to_cpu(w->job);

    if (tq && tq->job != job) {
        npo_refusal_log(p->dev, NPO_REFUSAL_SIDE_TARGET, job, p->peer_node,
                        le16_to_cpu(w->src_queue), w->opcode,
                        NPO_STATUS_REMOTE_QUEUE);
        return NULL;
    }
    return tq;
}

static NpoSender sender_on(NpoPort *p, uint16_t queue)
{
    return (NpoSender) {
        .port = p->index,
        .node = p->peer_node,
        .queue = queue,
    };
}

/* WRITE or WRITE_IMM bytes: every frame is checked on its own. */
static uint32_t rx_write(NpoPort *p, const WireData *w,
                         const uint8_t *bytes, uint32_t n)
{
    NpoState *t = p->dev;
    uint64_t addr = le64_to_cpu(w->addr);
    uint32_t total = le32_to_cpu(w->total);
    NpoQueue *tq = NULL;
    NpoMr *mr = NULL;
    uint32_t st = 0;

    if (total) {
        st = target_region(p, &mr, le64_to_cpu(w->key), le32_to_cpu(w->job),
                           le16_to_cpu(w->src_queue), w->opcode, addr, total,
                           NPO_ACCESS_REMOTE_WRITE);
    }
    if (!st && w->opcode == NPO_OP_WRITE_IMM) {
        tq = target_queue(p, w);
        st = !tq || tq->error ? NPO_STATUS_REMOTE_QUEUE : 0;
    }
    if (st) {
        return st;
    }
    if (n) {
        npo_mr_write(mr, addr + le32_to_cpu(w->offset), bytes, n);
    }
    if (w->last && tq) {
        NpoSender from = sender_on(p, le16_to_cpu(w->src_queue));
        struct npo_cqe c = {
            .status = cpu_to_le32(NPO_STATUS_OK),
            .length = w->total,
            .imm = w->imm,
            .opcode = NPO_OP_RECV_IMM,
        };

        npo_deliver(t, tq, &from, &c);
    }
    return 0;
}

/* Complete an arriving SEND's receive buffer early, with status. */
static void recv_end(NpoPort *p, NpoWireRecv *r, uint32_t status)
{
    NpoQueue *tq = npo_queue_get(p->dev, r->queue);
    NpoSender from = sender_on(p, r->src_queue);
    struct npo_cqe c = {
        .wr_id = r->wr_id,
        .status = cpu_to_le32(status),
        .opcode = NPO_OP_RECV,
    };

    if (tq && tq->gen == r->gen && !tq->error) {
        npo_deliver(p->dev, tq, &from, &c);
    }
    g_hash_table_remove(p->rx_sends, &r->req);
}

/*
 * SEND bytes.  The first frame takes a receive buffer; the rest follow it
 * in order, as a port's frames arrive; the last completes the buffer.
 * Returns 0 or the status that refuses the message.
 */
static uint32_t rx_send(NpoPort *p, const WireData *w,
                        const uint8_t *bytes, uint32_t n)
{
    NpoState *t = p->dev;
    uint64_t req = le64_to_cpu(w->req);
    uint16_t src = le16_to_cpu(w->src_queue);
    uint32_t total = le32_to_cpu(w->total), st;
    NpoWireRecv *r = g_hash_table_lookup(p->rx_sends, &req);
    NpoSender from = sender_on(p, src);
    NpoQueue *tq;
    NpoMr *rmr = NULL;

    if (!w->offset) {
        struct npo_rqe rqe;
        int taken;

        tq = target_queue(p, w);
        if (!tq || tq->error || r || total > NPO_MAX_SEND) {
            return NPO_STATUS_REMOTE_QUEUE;
        }
        taken = npo_rq_take(t, tq, total, &from, &rqe, &rmr);
        if (taken) {
            return taken < 0 ? NPO_STATUS_RNR : taken;
        }
        r = g_new(NpoWireRecv, 1);
        *r = (NpoWireRecv) {
            .req = req,
            .src_queue = src,
            .queue = tq->id,
            .gen = tq->gen,
            .wr_id = rqe.wr_id,
            .key = le32_to_cpu(rqe.key),
            .addr = le64_to_cpu(rqe.addr),
        };
        g_hash_table_insert(p->rx_sends, &r->req, r);
    } else if (!r) {
        /* The rest of a message already refused. */
        return 0;
    }
    tq = npo_queue_get(t, r->queue);
    if (!tq || tq->gen != r->gen || tq->error) {
        g_hash_table_remove(p->rx_sends, &req);
        return NPO_STATUS_REMOTE_QUEUE;
    }
    if (total) {
        /* The buffer's region may have gone between frames. */
        st = npo_mr_check_local(t, &rmr, r->key, r->addr, total,
                                NPO_ACCESS_LOCAL_WRITE, tq->pd);
        if (st) {
            NpoSender from = sender_on(p, r->src_queue);
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
        struct npo_cqe c = {
            .wr_id = r->wr_id,
            .status = cpu_to_le32(NPO_STATUS_OK),
            .length = w->total,
            .opcode = NPO_OP_RECV,
        };

        g_hash_table_remove(p->rx_sends, &req);
        npo_deliver(t, tq, &from, &c);
    }
    return 0;
}

/*
 * The rest of a refused request, or a request its queue chained behind a
 * refused one (answered FLUSHED once, on its last frame): dropped.  A
 * request sent unchained starts the queue afresh.
 */
static bool refused_or_chained(NpoPort *p, const WireData *w)
{
    uint16_t src = le16_to_cpu(w->src_queue);
    gpointer key = GUINT_TO_POINTER(src + 1u);
    uint64_t *refused = g_hash_table_lookup(p->rx_naks, key);
    uint64_t req = le64_to_cpu(w->req);

    if (!refused || req < *refused) {
        return false;
    }
    if (req == *refused) {
        return true;
    }
    if (!(le16_to_cpu(w->flags) & WIRE_DATA_CHAINED)) {
        g_hash_table_remove(p->rx_naks, key);
        return false;
    }
    if (w->last) {
        answer(p, req, src, NPO_STATUS_FLUSHED, 0);
    }
    return true;
}

static void rx_data(NpoPort *p, const WireData *w,
                    const uint8_t *bytes, uint32_t n)
{
    uint64_t req = le64_to_cpu(w->req);
    uint32_t total = le32_to_cpu(w->total), off = le32_to_cpu(w->offset);
    uint32_t st;

    if (off > total || n > total - off || w->last != (off + n == total)) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: malformed data "
                      "frame, dropped\n", p->dev->node_id, p->index);
        return;
    }
    if (refused_or_chained(p, w)) {
        return;
    }
    switch (w->opcode) {
    case NPO_OP_WRITE:
    case NPO_OP_WRITE_IMM:
        st = rx_write(p, w, bytes, n);
        break;
    case NPO_OP_SEND:
        st = rx_send(p, w, bytes, n);
        break;
    default:
        st = NPO_STATUS_BAD_DESCRIPTOR;
        break;
    }
    if (st || w->last) {
        answer(p, req, le16_to_cpu(w->src_queue), st, 0);
    }
}

static void rx_read(NpoPort *p, const WireRead *r)
{
    uint64_t req = le64_to_cpu(r->req);
    uint32_t len = le32_to_cpu(r->len), st = 0;
    NpoWireRead *rd;
    NpoMr *mr;

    if (len) {
        st = target_region(p, &mr, le64_to_cpu(r->key), le32_to_cpu(r->job),
                           le16_to_cpu(r->src_queue), NPO_OP_READ,
                           le64_to_cpu(r->addr), len, NPO_ACCESS_REMOTE_READ);
    }
    if (st || !len) {
        answer(p, req, le16_to_cpu(r->src_queue), st, 0);
        return;
    }
    rd = g_new0(NpoWireRead, 1);
    rd->req = req;
    rd->src_queue = le16_to_cpu(r->src_queue);
    rd->job = le32_to_cpu(r->job);
    rd->key = le64_to_cpu(r->key);
    rd->addr = le64_to_cpu(r->addr);
    rd->len = len;
    QSIMPLEQ_INSERT_TAIL(&p->reads, rd, next);
    npo_dma_kick(p->dev);
}

static void rx_atomic(NpoPort *p, const WireAtomic *a)
{
    uint64_t addr = le64_to_cpu(a->addr), old = 0;
    uint32_t st;
    NpoMr *mr;

    st = target_region(p, &mr, le64_to_cpu(a->key), le32_to_cpu(a->job),
                       le16_to_cpu(a->src_queue), a->opcode, addr, 8,
                       NPO_ACCESS_REMOTE_ATOMIC);
    if (!st && ((addr & 7) || (a->opcode != NPO_OP_FETCH_ADD &&
                               a->opcode != NPO_OP_CMP_SWAP))) {
        st = NPO_STATUS_BAD_DESCRIPTOR;
    }
    if (!st) {
        old = npo_mr_atomic(mr, addr, a->opcode, le64_to_cpu(a->compare_add),
                            le64_to_cpu(a->swap));
    }
    answer(p, le64_to_cpu(a->req), le16_to_cpu(a->src_queue), st, old);
}

static void read_free(NpoPort *p, NpoWireRead *rd)
{
    QSIMPLEQ_REMOVE(&p->reads, rd, NpoWireRead, next);
    g_free(rd);
}

/* The requester gave up: drop what this device holds for the request. */
static void rx_abort(NpoPort *p, const WireAbort *a)
{
    uint64_t req = le64_to_cpu(a->req);
    NpoWireRecv *r = g_hash_table_lookup(p->rx_sends, &req);
    NpoWireRead *rd;

    if (r) {
        /* A half-arrived message: its buffer completes, flushed. */
        recv_end(p, r, NPO_STATUS_FLUSHED);
    }
    QSIMPLEQ_FOREACH(rd, &p->reads, next) {
        if (rd->req == req) {
            read_free(p, rd);
            break;
        }
    }
}

/* Send READ answers, up to budget bytes over all ports. */
uint64_t npo_fabric_answer_reads(NpoState *s, uint64_t budget, bool *more)
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
            /* The region may have gone since the request came: look again. */
            st = npo_mr_check_remote(s, &mr, rd->key, rd->job, rd->addr,
                                     rd->len, NPO_ACCESS_REMOTE_READ) ?
                 NPO_STATUS_OK : NPO_STATUS_REMOTE_ACCESS;
            w = st ? NULL : (WireData *)npo_port_frame(p, WIRE_READ_DATA,
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
                answer(p, rd->req, rd->src_queue, st, 0);
                read_free(p, rd);
            }
        }
        npo_port_flush(p);
    }
    return moved;
}

/* A frame of the fabric transport arrived on an up link. */
void npo_fabric_rx(NpoPort *p, uint8_t type, const uint8_t *payload,
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
    union {
        WireData data;
        WireRead read;
        WireAtomic atomic;
        WireAck ack;
        WireAbort abort;
    } h;

    if (type >= ARRAY_SIZE(min_len) || !min_len[type] ||
        len < min_len[type] ||
        ((type == WIRE_DATA || type == WIRE_READ_DATA) ?
         len - sizeof(WireData) > WIRE_CHUNK : len != min_len[type])) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: bad fabric frame "
                      "type %u, %u bytes, dropped\n", p->dev->node_id,
                      p->index, type, len);
        return;
    }
    /* Only the fixed part is copied out; data bytes follow it in place. */
    memcpy(&h, payload, min_len[type]);
    switch (type) {
    case WIRE_DATA:
        rx_data(p, &h.data, payload + sizeof(WireData),
                len - sizeof(WireData));
        break;
    case WIRE_READ_DATA:
        rx_read_data(p, &h.data, payload + sizeof(WireData),
                     len - sizeof(WireData));
        break;
    case WIRE_READ:
        rx_read(p, &h.read);
        break;
    case WIRE_ATOMIC:
        rx_atomic(p, &h.atomic);
        break;
    case WIRE_ACK:
        rx_ack(p, &h.ack);
        break;
    case WIRE_ABORT:
        rx_abort(p, &h.abort);
        break;
    }
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
        NpoQueue *tq = npo_queue_get(p->dev, r->queue);
        NpoSender from = sender_on(p, r->src_queue);
        struct npo_cqe c = {
            .wr_id = r->wr_id,
            .status = cpu_to_le32(NPO_STATUS_LINK_DOWN),
            .opcode = NPO_OP_RECV,
        };

        if (complete && tq && tq->gen == r->gen && !tq->error) {
            npo_deliver(p->dev, tq, &from, &c);
        }
        g_hash_table_iter_remove(&it);
    }
    while (!QSIMPLEQ_EMPTY(&p->reads)) {
        read_free(p, QSIMPLEQ_FIRST(&p->reads));
    }
    g_hash_table_remove_all(p->rx_naks);
}

/* The link went down: everything in flight through it ends now. */
void npo_fabric_port_down(NpoPort *p)
{
    NpoState *s = p->dev;
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        NpoQueue *q = &s->queue[i];
        NpoWirePosted *w;
        uint32_t k;

        if (q->live && q->wire_req && q->wire_port == p) {
            /* Nothing will answer: no abort is owed either. */
            q->wire_acked = true;
            request_done(s, q, NPO_STATUS_LINK_DOWN);
        }
        for (k = 0; q->live && k < npo_wire_posted(q); k++) {
            w = &q->posted[(q->sq_head + k) % NPO_WIRE_WINDOW];
            if (w->port == p && !w->done) {
                post_done(s, q, w, NPO_STATUS_LINK_DOWN);
            }
        }
    }
    port_forget(p, true);
}

/* The port's transmit queue has room again: senders waiting on it go on. */
void npo_fabric_tx_room(NpoPort *p)
{
    NpoState *s = p->dev;
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        if (s->queue[i].wire_port == p) {
            s->queue[i].wire_tx_wait = false;
        }
    }
    npo_dma_kick(s);
}

void npo_fabric_reset(NpoState *s)
{
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        port_forget(&s->port[i], false);
    }
}

void npo_fabric_realize(NpoState *s)
{
    unsigned int i;

    for (i = 0; i < NPO_MAX_PORTS; i++) {
        NpoPort *p = &s->port[i];

        p->rx_sends = g_hash_table_new_full(g_int64_hash, g_int64_equal,
                                            NULL, g_free);
        p->rx_naks = g_hash_table_new_full(g_direct_hash, g_direct_equal,
                                           NULL, g_free);
        QSIMPLEQ_INIT(&p->reads);
    }
}

void npo_fabric_exit(NpoState *s)
{
    unsigned int i;

    for (i = 0; i < NPO_MAX_PORTS; i++) {
        port_forget(&s->port[i], false);
        g_hash_table_destroy(s->port[i].rx_sends);
        g_hash_table_destroy(s->port[i].rx_naks);
    }
}
