/*
 * NPO supernode interconnect: the refusal log.
 *
 * A remote request the target refused for want of a region, or of a
 * receiving queue of the requester's job, is what a process guessing keys
 * produces; the requester sees one status whatever the reason, but the
 * firmware records each refusal, at both ends, for the driver to name the
 * offender to the administrator and throttle it.  Records that differ only
 * in count merge, so a burst from one queue takes one slot; when the log
 * is full, refusals are counted as lost.  Documentation/hardware.rst,
 * "Jobs and refusals", is the specification.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "npo.h"

void npo_refusal_log(NpoState *s, uint8_t side, uint32_t job,
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

uint32_t npo_refusal_mbox(NpoState *s, uint32_t op)
{
    if (op != MBOX_OP_REFUSALS) {
        return MBOX_ERR_OPCODE;
    }
    if (!(s->status & R_STATUS_FW_RUNNING_MASK)) {
        return MBOX_ERR_STATE;
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
