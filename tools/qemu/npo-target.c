/*
 * NPO device model: the target, what a peer's request may reach.
 *
 * A request reaches its target by one of two paths: from a queue of a
 * device in this QEMU process, run by the queue engine (npo-dma.c), or
 * over the wire from another process (npo-wire.c); a switch on the way
 * will be a third.  Whatever the path, the target applies the same rules,
 * here: a remote key is honoured only for the job that registered it, a
 * message or an immediate goes only to a queue of the requester's job,
 * a receive buffer must hold the whole message, and an atomic works on
 * one aligned word.  The paths differ only in how the bytes travel.
 *
 * The refusal log lives here too.  A remote request the target refused
 * for want of a region, or of a receiving queue of the requester's job,
 * is what a process guessing keys produces; the requester sees one
 * status whatever the reason, but the firmware records each refusal, at
 * both ends, for the driver to name the offender to the administrator
 * and throttle it.  Records that differ only in count merge, so a burst
 * from one queue takes one slot; when the log is full, refusals are
 * counted as lost.  Documentation/hardware.rst, "Jobs and refusals", is
 * the specification.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-mr.h"
#include "npo-queue.h"
#include "npo-target.h"

static void refusal_log(NpoState *s, uint8_t side, uint32_t job,
                        uint32_t peer_node, uint16_t queue, uint8_t opcode,
                        uint32_t status)
{
    NpoHwRefusal r = {
        .job = cpu_to_le32(job),
        .peer_node = cpu_to_le32(peer_node),
        .queue = cpu_to_le16(queue),
        .side = side,
        .opcode = opcode,
        .status = cpu_to_le32(status),
        .count = cpu_to_le32(1),
    };
    NpoHwRefusal *last = s->refusal_count ?
                         &s->refusal[s->refusal_count - 1] : NULL;

    trace_npo_refusal(s->node_id, side, job, peer_node, queue, status);
    if (last && last->job == r.job && last->peer_node == r.peer_node &&
        last->queue == r.queue && last->side == r.side &&
        last->opcode == r.opcode && last->status == r.status &&
        le32_to_cpu(last->count) < UINT32_MAX) {
        last->count = cpu_to_le32(le32_to_cpu(last->count) + 1);
    } else if (s->refusal_count < NPO_REFUSAL_DEPTH) {
        s->refusal[s->refusal_count++] = r;
    } else {
        s->refusal_lost++;
    }
    npo_irq_update(s, R_IRQ_STATUS_REFUSED_MASK);
}

static void target_refused(NpoState *t, const NpoTargetReq *rq,
                           uint32_t status)
{
    refusal_log(t, NPO_REFUSAL_SIDE_TARGET, rq->job, rq->from.node,
                rq->from.queue, rq->opcode, status);
}

/*
 * The region rkey names, if rq's job may reach addr..addr+len in it with
 * need; a refusal is logged, and reported as one status whatever the
 * reason.
 */
uint32_t npo_target_region(NpoState *t, const NpoTargetReq *rq, NpoMr **mr,
                           uint64_t rkey, uint64_t addr, uint64_t len,
                           uint32_t need)
{
    /*
     * A card off the bus reaches no memory: a peer that has not yet seen
     * its links go dark finds it as if they had.
     */
    if (t->vanished) {
        return NPO_STATUS_LINK_DOWN;
    }
    if (npo_mr_check_remote(t, mr, rkey, rq->job, addr, len, need)) {
        return NPO_STATUS_OK;
    }
    target_refused(t, rq, NPO_STATUS_REMOTE_ACCESS);
    return NPO_STATUS_REMOTE_ACCESS;
}

/*
 * A region a request was granted may go while the request is carried
 * out (a READ answered frame by frame): whether it still may be reached.
 * Not a new refusal: the request was let in.
 */
bool npo_target_region_still(NpoState *t, NpoMr **mr, uint32_t job,
                             uint64_t rkey, uint64_t addr, uint64_t len,
                             uint32_t need)
{
    return !t->vanished &&
           npo_mr_check_remote(t, mr, rkey, job, addr, len, need);
}

/*
 * The queue a WRITE_IMM or SEND names, if it is of rq's job and not in
 * error.  Another job's queue is no queue for this one; a queue number
 * with no queue behind it is logged as a refusal too, so that a sweep for
 * queue numbers counts like a sweep for keys (1.18).
 */
uint32_t npo_target_queue(NpoState *t, const NpoTargetReq *rq, uint16_t qid,
                          NpoQueue **out)
{
    NpoQueue *tq = npo_queue_get(t, qid);

    *out = NULL;
    if (t->vanished) {
        return NPO_STATUS_LINK_DOWN;
    }
    if (tq && tq->job != rq->job) {
        target_refused(t, rq, NPO_STATUS_REMOTE_QUEUE);
        return NPO_STATUS_REMOTE_QUEUE;
    }
    if (!tq || tq->error) {
        /*
         * A queue in error is a peer's trouble, not a probe: a sender
         * of the job is not to be charged for it.
         */
        if (!tq) {
            target_refused(t, rq, NPO_STATUS_REMOTE_QUEUE);
        }
        return NPO_STATUS_REMOTE_QUEUE;
    }
    *out = tq;
    return NPO_STATUS_OK;
}

/* A WRITE_IMM's immediate arrived on tq: its RECV_IMM completion. */
void npo_target_imm(NpoState *t, NpoQueue *tq, const NpoSender *from,
                    uint32_t len, uint32_t imm)
{
    struct npo_cqe c = {
        .status = cpu_to_le32(NPO_STATUS_OK),
        .length = cpu_to_le32(len),
        .imm = cpu_to_le32(imm),
        .opcode = NPO_OP_RECV_IMM,
    };

    if (tq && !tq->error) {
        npo_deliver(t, tq, from, &c);
    }
}

/*
 * Whether a receive buffer of tq at key, addr takes len bytes: 0 with its
 * region in *rmr (NULL for an empty message), or the status.
 */
uint32_t npo_target_recv_buffer(NpoState *t, NpoQueue *tq, uint32_t key,
                                uint64_t addr, uint32_t len, NpoMr **rmr)
{
    *rmr = NULL;
    return len ? npo_mr_check_local(t, rmr, key, addr, len,
                                    NPO_ACCESS_LOCAL_WRITE, tq->pd) : 0;
}

/*
 * Take the next receive buffer of tq for a message of len bytes.  Returns
 * 0 with the buffer in *r and its region in *rmr (NULL for an empty
 * message), -1 when no buffer is posted, or the status for the sender
 * when the buffer cannot take the message: the buffer then completes
 * with the reason and the receiving queue fails, since it is at fault.
 */
int npo_target_recv_take(NpoState *t, NpoQueue *tq, uint32_t len,
                         const NpoSender *from, struct npo_rqe *r,
                         NpoMr **rmr)
{
    struct npo_cqe c = { .opcode = NPO_OP_RECV };
    uint32_t st;

    *rmr = NULL;
    if (!npo_queue_rq_next(t, tq, r)) {
        return -1;
    }
    st = le32_to_cpu(r->length) < len ? NPO_STATUS_REMOTE_LENGTH :
         npo_target_recv_buffer(t, tq, le32_to_cpu(r->key),
                                le64_to_cpu(r->addr), len, rmr);
    if (!st) {
        return 0;
    }
    c.wr_id = r->wr_id;
    c.status = cpu_to_le32(st);
    npo_deliver(t, tq, from, &c);
    npo_queue_fail(t, tq, st, &c);
    return st == NPO_STATUS_REMOTE_LENGTH ? st : NPO_STATUS_REMOTE_QUEUE;
}

/*
 * A message into the receive buffer wr_id (as the buffer holds it, little
 * endian) of tq ended: arrived whole (status 0, len bytes), or cut short
 * with status.
 */
void npo_target_recv_done(NpoState *t, NpoQueue *tq, const NpoSender *from,
                          uint64_t wr_id, uint32_t len, uint32_t status)
{
    struct npo_cqe c = {
        .wr_id = wr_id,
        .status = cpu_to_le32(status),
        .length = status ? 0 : cpu_to_le32(len),
        .opcode = NPO_OP_RECV,
    };

    npo_deliver(t, tq, from, &c);
}

/*
 * FETCH_ADD or CMP_SWAP on the word at addr of the region rkey names:
 * its original value in *old, or the status that refuses it.
 */
uint32_t npo_target_atomic(NpoState *t, const NpoTargetReq *rq,
                           uint64_t rkey, uint64_t addr,
                           uint64_t compare_add, uint64_t swap,
                           uint64_t *old)
{
    uint32_t st;
    NpoMr *mr;

    *old = 0;
    st = npo_target_region(t, rq, &mr, rkey, addr, 8,
                           NPO_ACCESS_REMOTE_ATOMIC);
    if (st) {
        return st;
    }
    /* Aligned words never straddle a page. */
    if ((addr & 7) || (rq->opcode != NPO_OP_FETCH_ADD &&
                       rq->opcode != NPO_OP_CMP_SWAP)) {
        return NPO_STATUS_BAD_DESCRIPTOR;
    }
    *old = npo_mr_atomic(mr, addr, rq->opcode, compare_add, swap);
    return NPO_STATUS_OK;
}

/*
 * A target refused a request of q to dest_node: the requester's firmware
 * logs it too, so that either end's driver can name the offender.
 */
void npo_target_refused_at_requester(NpoState *s, NpoQueue *q,
                                     uint32_t dest_node, uint8_t opcode,
                                     uint32_t status)
{
    refusal_log(s, NPO_REFUSAL_SIDE_REQUESTER, q->job, dest_node, q->id,
                opcode, status);
}

uint32_t npo_refusal_mbox(NpoState *s, uint32_t op)
{
    if (op != MBOX_OP_REFUSALS) {
        return MBOX_ERR_OPCODE;
    }
    return npo_mbox_drain_log(s, s->refusal, sizeof(s->refusal[0]),
                              &s->refusal_count, &s->refusal_lost,
                              R_IRQ_STATUS_REFUSED_MASK);
}

void npo_refusal_reset(NpoState *s)
{
    s->refusal_count = 0;
    s->refusal_lost = 0;
}
