/*
 * NPO device model: link messages (interface 1.13).
 *
 * A link message is the driver's own traffic with the device at the far
 * end of a link: a datagram of up to NPO_LMSG_MAX bytes that the device
 * puts on the link as it is and the peer's device queues for its driver,
 * naming the port it came in through.  The device reads nothing in it;
 * the driver uses it for routing (its link-state adverts) and may for
 * anything else it needs to say to its neighbours.  Like a MAD on its own
 * virtual lane, it needs an active link but no queue, region or job, and
 * a full receive queue drops it, counted in LMSG_RX_DROPS.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-port.h"
#include "npo-route.h"
#include "npo-wire.h"

/* LMSG_SEND: ARG0 the port, ARG1 the length, ARG2/3 the payload. */
static uint32_t mbox_lmsg_send(NpoState *s)
{
    unsigned int port = FIELD_EX32(s->mbox_arg[0], LMSG_SEND_ARG0, PORT);
    uint32_t len = s->mbox_arg[1];
    uint8_t payload[NPO_LMSG_MAX];
    NpoPort *p;

    if (port >= s->num_ports || !len || len > NPO_LMSG_MAX ||
        (s->mbox_arg[0] & ~R_LMSG_SEND_ARG0_PORT_MASK)) {
        return MBOX_ERR_ARG;
    }
    p = &s->port[port];
    if (npo_link_ready(p) != NPO_LINK_UP) {
        return MBOX_ERR_STATE;
    }
    if (pci_dma_read(PCI_DEVICE(s), npo_mbox_addr(s, 2), payload, len) !=
        MEMTX_OK) {
        return MBOX_ERR_DMA;
    }
    npo_port_send(p, WIRE_LMSG, payload, len);
    /* The first byte, the driver's type, as an analyser on the cable sees. */
    trace_npo_lmsg_send(s->node_id, port, len, payload[0]);
    return MBOX_OK;
}

/* LMSG_RECV: ARG0/1 the address of an NpoHwLinkMsg; RET0 what is left. */
static uint32_t mbox_lmsg_recv(NpoState *s)
{
    NpoHwLinkMsg *m;

    if (!s->lmsg_rx_count) {
        return MBOX_ERR_NOENT;
    }
    m = &s->lmsg_rx[s->lmsg_rx_head];
    if (pci_dma_write(PCI_DEVICE(s), npo_mbox_addr(s, 0), m, sizeof(*m)) !=
        MEMTX_OK) {
        return MBOX_ERR_DMA;
    }
    s->lmsg_rx_head = (s->lmsg_rx_head + 1) % NPO_LMSG_RX_DEPTH;
    s->lmsg_rx_count--;
    s->mbox_ret[0] = s->lmsg_rx_count;
    return MBOX_OK;
}

uint32_t npo_lmsg_mbox(NpoState *s, uint32_t op)
{
    switch (op) {
    case MBOX_OP_LMSG_SEND:
        return mbox_lmsg_send(s);
    case MBOX_OP_LMSG_RECV:
        return mbox_lmsg_recv(s);
    }
    return MBOX_ERR_OPCODE;
}

/* A link message arrived on p, which is up. */
void npo_lmsg_rx(NpoPort *p, const uint8_t *payload, uint16_t len)
{
    NpoState *s = p->dev;
    NpoHwLinkMsg *m;

    if (!len || len > NPO_LMSG_MAX) {
        return;
    }
    if (s->lmsg_rx_count == NPO_LMSG_RX_DEPTH) {
        s->lmsg_rx_drops++;
        return;
    }
    m = &s->lmsg_rx[(s->lmsg_rx_head + s->lmsg_rx_count) % NPO_LMSG_RX_DEPTH];
    memset(m, 0, sizeof(*m));
    m->port = p->index;
    m->len = cpu_to_le16(len);
    memcpy(m->payload, payload, len);
    s->lmsg_rx_count++;
    trace_npo_lmsg_recv(s->node_id, p->index, len, payload[0]);
    npo_irq_update(s, R_IRQ_STATUS_LMSG_MASK);
}

void npo_lmsg_reset(NpoState *s)
{
    s->lmsg_rx_head = 0;
    s->lmsg_rx_count = 0;
    s->lmsg_rx_drops = 0;
}

bool npo_lmsg_reg_read(NpoState *s, hwaddr addr, uint64_t *val)
{
    if (addr != A_LMSG_RX_DROPS) {
        return false;
    }
    *val = s->lmsg_rx_drops;
    return true;
}
