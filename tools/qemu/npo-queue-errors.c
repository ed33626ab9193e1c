/*
 * NPO supernode interconnect: the queue error log.
 *
 * A queue that fails stops: the rest of its ring is flushed until its
 * owner destroys it.  The process sees that in its completions, but the
 * administrator should see it too, named down to the queue, the work
 * that failed and where it was going, even when the process never reads
 * its completion ring.  The firmware logs each queue's first error, before
 * the completion that reports it, for the driver to read.
 * Documentation/hardware.rst, "Queue errors", is the specification.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-queue.h"

void npo_queue_error_log(NpoState *s, NpoQueue *q, uint32_t status,
                         const struct npo_cqe *why)
{
    NpoHwQueueError e = {
        .status = cpu_to_le32(status),
        .queue = cpu_to_le16(q->id),
        .opcode = NPO_QERR_OP_NONE,
        .port = NPO_CQE_PORT_NONE,
    };

    if (why) {
        e.wr_id = why->wr_id;
        e.peer_node = why->peer_node;
        e.opcode = why->opcode;
        e.port = why->port;
    }
    if (s->qerr_count < NPO_QUEUE_ERROR_DEPTH) {
        s->qerr[s->qerr_count++] = e;
    } else {
        s->qerr_lost++;
    }
    npo_irq_update(s, R_IRQ_STATUS_QUEUE_ERROR_MASK);
}

uint32_t npo_queue_error_mbox(NpoState *s, uint32_t op)
{
    if (op != MBOX_OP_QUEUE_ERRORS) {
        return MBOX_ERR_OPCODE;
    }
    return npo_mbox_drain_log(s, s->qerr, sizeof(s->qerr[0]), &s->qerr_count,
                              &s->qerr_lost, R_IRQ_STATUS_QUEUE_ERROR_MASK);
}

void npo_queue_error_reset(NpoState *s)
{
    s->qerr_count = 0;
    s->qerr_lost = 0;
}
