/*
 * NPO device model: a port's framing, transmit and receive.
 *
 * Each port talks to exactly one peer port through a chardev (a socket),
 * whether the peer is in this QEMU process or another.  The byte stream
 * carries frames (npo-wire.h): this file queues outgoing frames without
 * ever blocking the VM, reassembles incoming ones and hands each to the
 * part of the device it is for: training to the link (npo-link.c), data to
 * the fabric transport (npo-fabric.c), time-sync messages to the clock.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "chardev/char-fe.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "npo.h"

/* Frames a port may hold before a data sender must wait for the socket. */
#define TX_LIMIT                (1024 * 1024)

/* A cut fibre carries nothing, whatever the socket says. */
bool npo_port_connected(NpoPort *p)
{
    return !p->cut && qemu_chr_fe_backend_connected(&p->chr) &&
           qemu_chr_fe_backend_open(&p->chr);
}

/* --- transmitting ----------------------------------------------------------- */

/*
 * Frames queue on the port and leave as fast as the socket takes them.  A
 * writer never blocks: two devices streaming at each other, in one QEMU
 * process or two, cannot deadlock on full socket buffers.
 */
static gboolean port_tx_ready(void *do_not_use, GIOCondition cond,
                              void *opaque);

void npo_port_tx_drop(NpoPort *p)
{
    if (p->tx_watch) {
        g_source_remove(p->tx_watch);
        p->tx_watch = 0;
    }
    g_byte_array_set_size(p->tx, 0);
    p->tx_off = 0;
}

void npo_port_flush(NpoPort *p)
{
    while (p->tx_off < p->tx->len) {
        int n = qemu_chr_fe_write(&p->chr, p->tx->data + p->tx_off,
                                  MIN(p->tx->len - p->tx_off, INT_MAX));

        if (n < 0 && errno == EAGAIN) {
            /* Keep what is unsent at the front; whole frames only follow. */
            if (p->tx_off >= p->tx->len / 2) {
                g_byte_array_remove_range(p->tx, 0, p->tx_off);
                p->tx_off = 0;
            }
            if (!p->tx_watch) {
                p->tx_watch = qemu_chr_fe_add_watch(&p->chr,
                                                    G_IO_OUT | G_IO_HUP,
                                                    port_tx_ready, p);
            }
            return;
        }
        if (n <= 0) {
            /* The connection is gone: queued frames go with the cable. */
            break;
        }
        p->tx_off += n;
    }
    npo_port_tx_drop(p);
    if (p->tx_blocked) {
        p->tx_blocked = false;
        npo_fabric_tx_room(p);
    }
}

static gboolean port_tx_ready(void *do_not_use, GIOCondition cond,
                              void *opaque)
{
    NpoPort *p = opaque;

    p->tx_watch = 0;
    npo_port_flush(p);
    if (p->tx_blocked && p->tx->len - p->tx_off < TX_LIMIT) {
        p->tx_blocked = false;
        npo_fabric_tx_room(p);
    }
    return G_SOURCE_REMOVE;
}

/*
 * Queue a frame with len payload bytes for the caller to fill before the
 * next npo_port_flush(); NULL when no peer is connected (a cut cable
 * carries nothing).
 */
uint8_t *npo_port_frame(NpoPort *p, uint8_t type, uint16_t len)
{
    WireHdr h = { .magic = WIRE_MAGIC, .type = type, .len = cpu_to_le16(len) };
    guint at = p->tx->len;

    if (!npo_port_connected(p)) {
        return NULL;
    }
    g_byte_array_set_size(p->tx, at + sizeof(h) + len);
    memcpy(p->tx->data + at, &h, sizeof(h));
    return p->tx->data + at + sizeof(h);
}

/*
 * True when the port holds TX_LIMIT bytes or more: the caller waits for
 * npo_fabric_tx_room().
 */
bool npo_port_tx_full(NpoPort *p)
{
    if (p->tx->len - p->tx_off < TX_LIMIT) {
        return false;
    }
    p->tx_blocked = true;
    return true;
}

/* Queue a whole frame and send what the socket takes. */
void npo_port_send(NpoPort *p, uint8_t type, const void *payload,
                   uint16_t len)
{
    uint8_t *f = npo_port_frame(p, type, len);

    if (f) {
        if (len) {
            memcpy(f, payload, len);
        }
        npo_port_flush(p);
    }
}

/* --- receiving ------------------------------------------------------------ */

static void port_rx_frame(NpoPort *p, uint8_t type, const uint8_t *payload,
                          uint16_t len)
{
    p->last_rx = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (!npo_link_port_enabled(p) || p->cut) {
        return;
    }
    switch (type) {
    case WIRE_TS1:
    case WIRE_TS2:
    case WIRE_IDLE:
    case WIRE_DOWN:
    case WIRE_DARK:
    case WIRE_LOOPBACK:
        npo_link_rx(p, type, payload, len);
        break;
    case WIRE_DATA:
    case WIRE_READ:
    case WIRE_READ_DATA:
    case WIRE_ATOMIC:
    case WIRE_ACK:
    case WIRE_ABORT:
        if (npo_link_ready(p) != NPO_LINK_DOWN) {
            npo_fabric_rx(p, type, payload, len);
        }
        break;
    case WIRE_TIME:
        if (npo_link_ready(p) == NPO_LINK_UP) {
            npo_clock_rx(p, payload, len);
        }
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "npo%u: port %u: unknown frame type %u\n",
                      p->dev->node_id, p->index, type);
        break;
    }
}

static int port_can_read(void *opaque)
{
    NpoPort *p = opaque;

    return sizeof(p->rxbuf) - p->rxlen;
}

static void port_read(void *opaque, const uint8_t *buf, int size)
{
    NpoPort *p = opaque;
    unsigned int off = 0;

    size = MIN((unsigned int)size, sizeof(p->rxbuf) - p->rxlen);
    memcpy(p->rxbuf + p->rxlen, buf, size);
    p->rxlen += size;
    while (p->rxlen - off >= sizeof(WireHdr)) {
        WireHdr h;
        uint16_t len;

        memcpy(&h, p->rxbuf + off, sizeof(h));
        len = le16_to_cpu(h.len);
        if (h.magic != WIRE_MAGIC || len > sizeof(p->rxbuf) - sizeof(h)) {
            /* Lost framing: drop everything, training resynchronises. */
            qemu_log_mask(LOG_GUEST_ERROR,
                          "npo%u: port %u: bad frame, resynchronising\n",
                          p->dev->node_id, p->index);
            p->rxlen = 0;
            return;
        }
        if (p->rxlen - off < sizeof(h) + len) {
            break;
        }
        port_rx_frame(p, h.type, p->rxbuf + off + sizeof(h), len);
        off += sizeof(h) + len;
    }
    memmove(p->rxbuf, p->rxbuf + off, p->rxlen - off);
    p->rxlen -= off;
}

static void port_chr_event(void *opaque, QEMUChrEvent event)
{
    NpoPort *p = opaque;

    switch (event) {
    case CHR_EVENT_OPENED:
        trace_npo_port_cable(p->dev->node_id, p->index, 1);
        p->rxlen = 0;
        npo_link_cable(p, true);
        break;
    case CHR_EVENT_CLOSED:
        trace_npo_port_cable(p->dev->node_id, p->index, 0);
        npo_port_tx_drop(p);
        npo_link_cable(p, false);
        break;
    default:
        break;
    }
}

/* --- life cycle ------------------------------------------------------------- */

void npo_port_realize(NpoPort *p)
{
    p->tx = g_byte_array_new();
    if (qemu_chr_fe_backend_connected(&p->chr)) {
        qemu_chr_fe_set_handlers(&p->chr, port_can_read, port_read,
                                 port_chr_event, NULL, p, NULL, true);
    }
}

void npo_port_exit(NpoPort *p)
{
    npo_port_tx_drop(p);
    g_byte_array_free(p->tx, true);
    qemu_chr_fe_deinit(&p->chr, false);
}
