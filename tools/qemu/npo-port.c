/*
 * NPO device model: a port's framing, transmit and receive.
 *
 * Each port talks to exactly one peer port through a chardev (a socket),
 * whether the peer is in this QEMU process or another.  The byte stream
 * carries frames (npo-wire.h): this file queues outgoing frames without
 * ever blocking the VM, reassembles incoming ones and hands each to the
 * part of the device it is for: training to the link (npo-link.c), data to
 * the wire (npo-wire.c), time-sync messages to the clock.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qemu/main-loop.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "chardev/char-fe.h"
#include "chardev/char.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-clock.h"
#include "npo-port.h"
#include "npo-route.h"
#include "npo-shm.h"
#include "npo-wire.h"

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
 * process or two, cannot deadlock on full socket buffers.  Once the peer
 * has mapped our ring (npo-shm.c), frames go there instead, written in
 * place; those it has no room for wait in shm_backlog, in order.
 */
static gboolean port_tx_ready(void *do_not_use, GIOCondition cond,
                              void *opaque);
static void port_shm_broken(NpoPort *p, const char *why);

/* A peer that reads nothing while we queue this much is broken. */
#define SHM_BACKLOG_MAX         (16 * 1024 * 1024)

static void port_sock_drop(NpoPort *p)
{
    if (p->tx_watch) {
        g_source_remove(p->tx_watch);
        p->tx_watch = 0;
    }
    g_byte_array_set_size(p->tx, 0);
    p->tx_off = 0;
}

static void port_tx_room(NpoPort *p)
{
    if (p->tx_blocked && !npo_port_tx_full(p)) {
        p->tx_blocked = false;
        npo_wire_tx_room(p);
    }
}

static void port_sock_flush(NpoPort *p)
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
    port_sock_drop(p);
    if (p->shm_tx) {
        npo_shm_sent(p->shm_tx);      /* an offer's descriptors went out */
    }
}

/* Move what waits into the ring, whole frames in order, and publish. */
static void port_shm_flush(NpoPort *p)
{
    NpoShmRing *r = p->shm_tx;
    GByteArray *b = p->shm_backlog;
    guint off = 0;

    while (off < b->len) {
        WireHdr h;
        size_t n;
        int64_t room;

        memcpy(&h, b->data + off, sizeof(h));
        n = sizeof(h) + le16_to_cpu(h.len);
        room = npo_shm_room(r, p->shm_reserved);
        if (room >= 0 && room < (int64_t)n) {
            room = npo_shm_want_room(r, p->shm_reserved);
        }
        if (room < 0) {
            port_shm_broken(p, "the peer's index into our ring is corrupt");
            return;
        }
        if (room < (int64_t)n) {
            break;
        }
        memcpy(npo_shm_tx_at(r, p->shm_reserved), b->data + off, n);
        p->shm_reserved += n;
        off += n;
    }
    g_byte_array_remove_range(b, 0, off);
    if (npo_shm_room(r, p->shm_reserved) < 0) {
        port_shm_broken(p, "the peer's index into our ring is corrupt");
        return;
    }
    npo_shm_publish(r, p->shm_reserved);
    p->shm_reserved = 0;
    if (b->len > SHM_BACKLOG_MAX) {
        port_shm_broken(p, "the peer reads nothing from our ring");
    }
}

/* Drop every frame not yet sent: the cable is gone. */
void npo_port_tx_drop(NpoPort *p)
{
    port_sock_drop(p);
    p->shm_reserved = 0;
    g_byte_array_set_size(p->shm_backlog, 0);
}

void npo_port_flush(NpoPort *p)
{
    port_sock_flush(p);
    if (p->shm_tx_on) {
        port_shm_flush(p);
    }
    port_tx_room(p);
}

static gboolean port_tx_ready(void *do_not_use, GIOCondition cond,
                              void *opaque)
{
    NpoPort *p = opaque;

    p->tx_watch = 0;
    npo_port_flush(p);
    return G_SOURCE_REMOVE;
}

static uint8_t *port_sock_frame(NpoPort *p, uint8_t type, uint16_t len)
{
    WireHdr h = { .magic = WIRE_MAGIC, .type = type, .len = cpu_to_le16(len) };
    guint at = p->tx->len;

    g_byte_array_set_size(p->tx, at + sizeof(h) + len);
    memcpy(p->tx->data + at, &h, sizeof(h));
    return p->tx->data + at + sizeof(h);
}

static uint8_t *port_shm_frame(NpoPort *p, uint8_t type, uint16_t len)
{
    WireHdr h = { .magic = WIRE_MAGIC, .type = type, .len = cpu_to_le16(len) };
    size_t n = sizeof(h) + len;
    uint8_t *f;

    int64_t room = npo_shm_room(p->shm_tx, p->shm_reserved);

    if (room < 0) {
        port_shm_broken(p, "the peer's index into our ring is corrupt");
        room = 0;
    }
    if (!p->shm_backlog->len && room >= (int64_t)n) {
        f = npo_shm_tx_at(p->shm_tx, p->shm_reserved);
        p->shm_reserved += n;
    } else {
        guint at = p->shm_backlog->len;

        g_byte_array_set_size(p->shm_backlog, at + n);
        f = p->shm_backlog->data + at;
    }
    memcpy(f, &h, sizeof(h));
    return f + sizeof(h);
}

/*
 * Queue a frame with len payload bytes for the caller to fill before the
 * next npo_port_frame() or npo_port_flush(); NULL when no peer is
 * connected (a cut cable carries nothing).
 */
uint8_t *npo_port_frame(NpoPort *p, uint8_t type, uint16_t len)
{
    if (!npo_port_connected(p)) {
        return NULL;
    }
    npo_traffic_frame(p, true, type, len);
    return p->shm_tx_on ? port_shm_frame(p, type, len) :
                          port_sock_frame(p, type, len);
}

/*
 * True when a data frame of the largest size must wait: the caller waits
 * for npo_wire_tx_room().
 */
bool npo_port_tx_full(NpoPort *p)
{
    if (p->shm_tx_on) {
        int64_t max = sizeof(WireHdr) + WIRE_MAX_PAYLOAD;

        if (!p->shm_backlog->len &&
            (npo_shm_room(p->shm_tx, p->shm_reserved) >= max ||
             npo_shm_want_room(p->shm_tx, p->shm_reserved) >= max)) {
            return false;
        }
    } else if (p->tx->len - p->tx_off < TX_LIMIT) {
        return false;
    }
    p->tx_blocked = true;
    return true;
}

/* Bytes of frames queued on p that neither the socket nor the ring took. */
size_t npo_port_tx_backlog(NpoPort *p)
{
    return p->shm_tx_on ? p->shm_backlog->len : p->tx->len - p->tx_off;
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

/* A frame setting up the ring: on the socket, whatever the light does. */
static void port_sock_send(NpoPort *p, uint8_t type, const void *payload,
                           uint16_t len)
{
    uint8_t *f = port_sock_frame(p, type, len);

    if (len) {
        memcpy(f, payload, len);
    }
    port_sock_flush(p);
}

/* --- shared memory ---------------------------------------------------------- */

/*
 * At cable-up each end offers the ring it will send on, with descriptors
 * on the socket.  The receiver maps it and says READY; the sender then
 * puts SWITCH on the socket, its last frame there, and every frame after
 * it on the ring.  The receiver reads the ring only once it has read
 * SWITCH, so frames still in the socket come first.  The directions are
 * independent: an end that cannot share (a TCP socket, wire_shm=off, an
 * old model that ignores OFFER) keeps its direction on the socket.
 */
static void port_shm_rx(void *opaque);

static bool port_can_share(NpoPort *p)
{
    Chardev *chr = qemu_chr_fe_get_driver(&p->chr);

    return p->dev->wire_shm && chr &&
           qemu_chr_has_feature(chr, QEMU_CHAR_FEATURE_FD_PASS);
}

static void port_shm_close_fds(NpoPort *p)
{
    for (int i = 0; i < p->shm_nfds; i++) {
        close(p->shm_fds[i]);
    }
    p->shm_nfds = 0;
}

/* Back to the socket alone: the cable is gone or the ring was broken. */
static void port_shm_stop(NpoPort *p)
{
    if (p->shm_rx) {
        qemu_set_fd_handler(npo_shm_kick_fd(p->shm_rx), NULL, NULL, NULL);
        npo_shm_free(p->shm_rx);
        p->shm_rx = NULL;
    }
    if (p->shm_tx) {
        qemu_set_fd_handler(npo_shm_room_fd(p->shm_tx), NULL, NULL, NULL);
        npo_shm_free(p->shm_tx);
        p->shm_tx = NULL;
    }
    qemu_bh_cancel(p->shm_rx_bh);
    qemu_bh_cancel(p->shm_fail_bh);
    /* Descriptors of a freed ring must not go out with a later write. */
    if (qemu_chr_fe_backend_connected(&p->chr)) {
        qemu_chr_fe_set_msgfds(&p->chr, NULL, 0);
    }
    p->shm_tx_on = p->shm_rx_on = false;
    p->shm_reserved = 0;
    g_byte_array_set_size(p->shm_backlog, 0);
    port_shm_close_fds(p);
}

/*
 * The peer broke the ring's rules: drop the connection, as a receiver
 * that lost framing would; the peer reconnects and offers afresh.  Done
 * from a bottom half, since the caller may be in the middle of sending.
 */
static void port_shm_fail(void *opaque)
{
    NpoPort *p = opaque;

    port_shm_stop(p);
    qemu_chr_fe_disconnect(&p->chr);
}

static void port_shm_broken(NpoPort *p, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: %s: dropping the "
                  "connection\n", p->dev->node_id, p->index, why);
    p->shm_tx_on = p->shm_rx_on = false;
    qemu_bh_schedule(p->shm_fail_bh);
}

static void port_shm_room(void *opaque)
{
    NpoPort *p = opaque;

    npo_shm_drain_fd(npo_shm_room_fd(p->shm_tx));
    if (p->shm_tx_on) {
        npo_port_flush(p);
    }
}

static void port_shm_kick(void *opaque)
{
    NpoPort *p = opaque;

    npo_shm_drain_fd(npo_shm_kick_fd(p->shm_rx));
    port_shm_rx(p);
}

static void port_shm_offer(NpoPort *p, uint8_t flags)
{
    WireShmOffer o = { .flags = flags };
    Error *err = NULL;
    int fds[3];

    if (!port_can_share(p)) {
        return;
    }
    p->shm_tx = npo_shm_create((size_t)p->dev->wire_ring_kib * KiB, &err);
    if (!p->shm_tx) {
        warn_reportf_err(err, "npo%u: port %u: the link stays on its socket: ",
                         p->dev->node_id, p->index);
        return;
    }
    qemu_set_fd_handler(npo_shm_room_fd(p->shm_tx), port_shm_room, NULL, p);
    o.size = cpu_to_le64(npo_shm_size(p->shm_tx));
    o.gen = cpu_to_le32(++p->shm_gen);
    npo_shm_fds(p->shm_tx, fds);
    /*
     * The descriptors ride with the next bytes the socket takes; the
     * peer's ends are closed here once the socket took them.
     */
    qemu_chr_fe_set_msgfds(&p->chr, fds, ARRAY_SIZE(fds));
    port_sock_send(p, WIRE_SHM_OFFER, &o, sizeof(o));
}

/* Map the peer's ring: drop the one it replaces, say READY. */
static void port_shm_map(NpoPort *p, const int fds[3], const WireShmOffer *o)
{
    WireShmGen g = { .gen = o->gen };
    Error *err = NULL;

    if (p->shm_rx) {
        qemu_set_fd_handler(npo_shm_kick_fd(p->shm_rx), NULL, NULL, NULL);
        npo_shm_free(p->shm_rx);
        p->shm_rx_on = false;
        qemu_bh_cancel(p->shm_rx_bh);
    }
    /* The ring owns the descriptors from here, or has closed them. */
    p->shm_rx = npo_shm_attach(fds, le64_to_cpu(o->size), &err);
    if (!p->shm_rx) {
        warn_reportf_err(err, "npo%u: port %u: the peer's ring: ",
                         p->dev->node_id, p->index);
        return;
    }
    p->shm_rx_gen = le32_to_cpu(o->gen);
    qemu_set_fd_handler(npo_shm_kick_fd(p->shm_rx), port_shm_kick, NULL, p);
    port_sock_send(p, WIRE_SHM_READY, &g, sizeof(g));
}

static void port_shm_take_offer(NpoPort *p, const uint8_t *payload,
                                uint16_t len)
{
    WireShmOffer o;
    int fds[3];

    if (!port_can_share(p) || p->shm_nfds != 3 || len != sizeof(o)) {
        if (p->dev->wire_shm) {
            qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: the peer's ring "
                          "offer is unusable, its frames stay on the socket\n",
                          p->dev->node_id, p->index);
        }
        port_shm_close_fds(p);
        return;
    }
    memcpy(&o, payload, sizeof(o));
    memcpy(fds, p->shm_fds, sizeof(fds));
    p->shm_nfds = 0;
    if (!(o.flags & WIRE_SHM_RESPONSE)) {
        if (p->shm_peer_offered) {
            /*
             * A second first offer on one connection comes from a new
             * device behind the same socket (hot-plugged in the peer's
             * process): what went to the old one is gone, as on a cable
             * plugged anew.  Our new ring answers it, as a response.
             */
            port_shm_stop(p);
            port_shm_offer(p, WIRE_SHM_RESPONSE);
        }
        p->shm_peer_offered = true;
    }
    port_shm_map(p, fds, &o);
}

/* The offer a READY or SWITCH names; false if the frame is malformed. */
static bool port_shm_gen_of(const uint8_t *payload, uint16_t len,
                            WireShmGen *g)
{
    if (len != sizeof(*g)) {
        return false;
    }
    memcpy(g, payload, sizeof(*g));
    return true;
}

static void port_shm_peer_ready(NpoPort *p, const uint8_t *payload,
                                uint16_t len)
{
    WireShmGen g;

    /* A READY for a ring we since replaced is stale. */
    if (port_shm_gen_of(payload, len, &g) && p->shm_tx && !p->shm_tx_on &&
        le32_to_cpu(g.gen) == p->shm_gen) {
        port_sock_send(p, WIRE_SHM_SWITCH, &g, sizeof(g));
        /* Sending may have found the connection gone, and the ring. */
        if (p->shm_tx) {
            p->shm_tx_on = true;
            trace_npo_port_shm(p->dev->node_id, p->index, "tx");
        }
    }
}

static void port_shm_peer_switched(NpoPort *p, const uint8_t *payload,
                                   uint16_t len)
{
    WireShmGen g;

    if (port_shm_gen_of(payload, len, &g) && p->shm_rx && !p->shm_rx_on &&
        le32_to_cpu(g.gen) == p->shm_rx_gen) {
        p->shm_rx_on = true;
        trace_npo_port_shm(p->dev->node_id, p->index, "rx");
        port_shm_rx(p);
    }
}

bool npo_port_shared(NpoPort *p)
{
    return p->shm_tx_on && p->shm_rx_on;
}

/* --- receiving ------------------------------------------------------------ */

static void port_rx_frame(NpoPort *p, uint8_t type, const uint8_t *payload,
                          uint16_t len)
{
    switch (type) {
    case WIRE_SHM_OFFER:
        port_shm_take_offer(p, payload, len);
        return;
    case WIRE_SHM_READY:
        port_shm_peer_ready(p, payload, len);
        return;
    case WIRE_SHM_SWITCH:
        port_shm_peer_switched(p, payload, len);
        return;
    case WIRE_LIGHT:
        /* Physics: the light arrives whether this port is on or not. */
        npo_phy_rx_light(p, payload, len);
        return;
    }
    p->last_rx = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (type == WIRE_DARK) {
        p->light_lost = true;   /* physics, whether the port is on or not */
    }
    if (!npo_link_port_enabled(p) || p->cut) {
        return;
    }
    if (wire_is_transport(type)) {
        if (npo_link_ready(p) != NPO_LINK_DOWN) {
            npo_traffic_frame(p, false, type, len);
            npo_wire_rx(p, type, payload, len);
        }
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
    case WIRE_TIME:
        if (npo_link_ready(p) == NPO_LINK_UP) {
            npo_clock_rx(p, payload, len);
        }
        break;
    case WIRE_LMSG:
        if (npo_link_ready(p) == NPO_LINK_UP) {
            npo_lmsg_rx(p, payload, len);
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

    if (!p->shm_nfds && p->dev->wire_shm) {
        /* Descriptors come with the bytes of a ring offer, or before. */
        int n = qemu_chr_fe_get_msgfds(&p->chr, p->shm_fds,
                                       ARRAY_SIZE(p->shm_fds));

        p->shm_nfds = MAX(n, 0);
    }
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
        if (wire_is_transport(h.type)) {
            p->wire_rx_sock++;
        }
        port_rx_frame(p, h.type, p->rxbuf + off + sizeof(h), len);
        off += sizeof(h) + len;
    }
    memmove(p->rxbuf, p->rxbuf + off, p->rxlen - off);
    p->rxlen -= off;
}

/*
 * Frames on the peer's ring, read where they lie: data bytes go straight
 * to their target, and what the device parses is copied out first, so
 * that a peer rewriting the ring meanwhile cannot change what was checked.
 * A pass takes at most SHM_RX_BUDGET bytes, then yields to the main loop.
 */
#define SHM_RX_BUDGET           (4 * 1024 * 1024)

static void port_shm_rx(void *opaque)
{
    NpoPort *p = opaque;
    size_t done = 0;

    while (p->shm_rx_on && done < SHM_RX_BUDGET) {
        NpoShmRing *r = p->shm_rx;
        int64_t avail = npo_shm_avail(r);
        union {                 /* every frame but data is one of these */
            WireTs ts;
            WireTime time;
            WireDark dark;
            WireRead read;
            WireAtomic atomic;
            WireAck ack;
            WireAbort abort;
            uint8_t lmsg[NPO_LMSG_MAX];
        } small;
        const uint8_t *payload;
        WireHdr h;
        size_t n;

        if (!avail && !npo_shm_sleep(r)) {
            done += sizeof(h);  /* a sender flipping its head is bounded */
            continue;
        }
        if (!avail) {
            npo_shm_give_room(r);
            return;
        }
        if (avail < (int64_t)sizeof(h)) {
            port_shm_broken(p, "the peer's ring index is corrupt");
            return;
        }
        memcpy(&h, npo_shm_rx_at(r, 0), sizeof(h));
        n = sizeof(h) + le16_to_cpu(h.len);
        if (h.magic != WIRE_MAGIC || n > sizeof(h) + WIRE_MAX_PAYLOAD ||
            n > avail) {
            port_shm_broken(p, "bad frame on the peer's ring");
            return;
        }
        payload = npo_shm_rx_at(r, sizeof(h));
        if (h.type == WIRE_SHM_OFFER || h.type == WIRE_SHM_READY ||
            h.type == WIRE_SHM_SWITCH) {
            /* Ring set-up belongs on the socket. */
            payload = NULL;
        } else if (h.type != WIRE_DATA && h.type != WIRE_READ_DATA &&
                   h.type != WIRE_ROUTED) {
            if (n - sizeof(h) > sizeof(small)) {
                payload = NULL;
            } else {
                memcpy(&small, payload, n - sizeof(h));
                payload = (const uint8_t *)&small;
            }
        }
        if (payload) {
            if (wire_is_transport(h.type)) {
                p->wire_rx_shm++;
            }
            port_rx_frame(p, h.type, payload, n - sizeof(h));
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: frame type %u "
                          "of %zu bytes on the ring, dropped\n",
                          p->dev->node_id, p->index, h.type, n - sizeof(h));
        }
        if (!p->shm_rx_on || p->shm_rx != r) {
            return;     /* the frame took the cable down */
        }
        if (npo_shm_consume(r, n)) {
            p->wire_shm_wraps++;
        }
        done += n;
    }
    if (p->shm_rx_on) {
        npo_shm_give_room(p->shm_rx);
        qemu_bh_schedule(p->shm_rx_bh);
    }
}

static void port_chr_event(void *opaque, QEMUChrEvent event)
{
    NpoPort *p = opaque;

    switch (event) {
    case CHR_EVENT_OPENED:
        trace_npo_port_cable(p->dev->node_id, p->index, 1);
        p->rxlen = 0;
        port_shm_stop(p);
        p->shm_peer_offered = false;
        port_shm_offer(p, 0);
        npo_link_cable(p, true);
        break;
    case CHR_EVENT_CLOSED:
        trace_npo_port_cable(p->dev->node_id, p->index, 0);
        npo_port_tx_drop(p);
        port_shm_stop(p);
        p->shm_peer_offered = false;
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
    p->shm_backlog = g_byte_array_new();
    p->shm_rx_bh = qemu_bh_new(port_shm_rx, p);
    p->shm_fail_bh = qemu_bh_new(port_shm_fail, p);
    if (qemu_chr_fe_backend_connected(&p->chr)) {
        qemu_chr_fe_set_handlers(&p->chr, port_can_read, port_read,
                                 port_chr_event, NULL, p, NULL, true);
    }
}

void npo_port_exit(NpoPort *p)
{
    port_shm_stop(p);
    npo_port_tx_drop(p);
    qemu_bh_delete(p->shm_rx_bh);
    qemu_bh_delete(p->shm_fail_bh);
    g_byte_array_free(p->shm_backlog, true);
    g_byte_array_free(p->tx, true);
    qemu_chr_fe_deinit(&p->chr, false);
}

/*
 * Transport frames that crossed between processes, over all ports: "sock
 * N shm N wraps N" (read from sockets, read from peers' rings, times
 * those rings wrapped), for a test that the transport carried its data.
 */
static char *npo_get_wire_stats(Object *obj, Error **errp)
{
    NpoState *s = NPO(obj);
    uint64_t sock = 0, shm = 0, wraps = 0;
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        sock += s->port[i].wire_rx_sock;
        shm += s->port[i].wire_rx_shm;
        wraps += s->port[i].wire_shm_wraps;
    }
    return g_strdup_printf("sock %" PRIu64 " shm %" PRIu64 " wraps %" PRIu64,
                           sock, shm, wraps);
}

void npo_port_add_properties(Object *obj)
{
    object_property_add_str(obj, "wire_stats", npo_get_wire_stats, NULL);
}
