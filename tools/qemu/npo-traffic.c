/*
 * NPO device model: the ports' traffic counters (interface 1.14).
 *
 * Each port counts the wire's frames it sends and receives
 * (requests, data, answers, routed frames; not training, idle, time-sync
 * or link messages) and their bytes, header included.  Frames on a link to
 * another process are counted as they pass the port.  Between devices of
 * one QEMU process the model moves data without frames, so it counts the
 * frames the transport would have carried (npo-wire.c): data in frames
 * of at most WIRE_CHUNK bytes, a request frame for READ and atomics, and
 * an ACK back when the request is done, each behind a WireRouted header
 * when the path is longer than one link.  Requests the target refuses and
 * SENDs retried for want of a receive buffer are counted only where they
 * cross to another process.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"

#include "npo-state.h"
#include "npo-port.h"
#include "npo-route.h"
#include "npo-wire.h"

enum { TX_BYTES, TX_FRAMES, RX_BYTES, RX_FRAMES };

static void count(NpoPort *p, bool tx, uint64_t bytes, uint64_t frames)
{
    p->traffic[tx ? TX_BYTES : RX_BYTES] += bytes;
    p->traffic[tx ? TX_FRAMES : RX_FRAMES] += frames;
}

/* A frame of type with len payload bytes passed p (tx: out, else in). */
void npo_traffic_frame(NpoPort *p, bool tx, uint8_t type, uint16_t len)
{
    if (wire_is_transport(type)) {
        count(p, tx, sizeof(WireHdr) + len, 1);
    }
}

/* The port at the other end of an in-process link. */
static NpoPort *far_end(NpoPort *p)
{
    NpoState *t = npo_route_local_peer(p);

    return t && p->peer_port < t->num_ports ? &t->port[p->peer_port] : NULL;
}

/*
 * Part of a descriptor went the in-process way over hops (the ports it
 * left by, in order): n bytes of its data from offset off moved, last
 * says whether it is done.  A frame is counted when the first byte of its
 * chunk moves, so however the engine splits the work, a transfer counts
 * as many frames as the transport would send.
 */
void npo_traffic_local(NpoPort *const *hops, unsigned int nhops,
                       uint8_t opcode, uint64_t off, uint64_t n, bool last)
{
    /* Beyond the first link's peer every frame travels routed. */
    const uint64_t hdr = sizeof(WireHdr) +
                         (nhops > 1 ? sizeof(WireRouted) : 0);
    bool first = off == 0;
    uint64_t chunks = n ? DIV_ROUND_UP(off + n, WIRE_CHUNK) -
                          DIV_ROUND_UP(off, WIRE_CHUNK) : first;
    uint64_t fwd = 0, fwd_frames = 0, back = 0, back_frames = 0;

    switch (opcode) {
    case NPO_OP_WRITE:
    case NPO_OP_WRITE_IMM:
    case NPO_OP_SEND:
        fwd = chunks * (hdr + sizeof(WireData)) + n;
        fwd_frames = chunks;
        break;
    case NPO_OP_READ:
        if (first) {
            fwd = hdr + sizeof(WireRead);
            fwd_frames = 1;
        }
        back = chunks * (hdr + sizeof(WireData)) + n;
        back_frames = chunks;
        if (!n) {
            /* A zero-length READ is answered by its ACK alone. */
            back = back_frames = 0;
        }
        break;
    case NPO_OP_FETCH_ADD:
    case NPO_OP_CMP_SWAP:
        fwd = hdr + sizeof(WireAtomic);
        fwd_frames = 1;
        break;
    default:
        return;
    }
    if (last) {
        back += hdr + sizeof(WireAck);
        back_frames++;
    }
    for (unsigned int i = 0; i < nhops; i++) {
        NpoPort *in = far_end(hops[i]);

        if (!in) {
            continue;
        }
        count(hops[i], true, fwd, fwd_frames);
        count(in, false, fwd, fwd_frames);
        count(in, true, back, back_frames);
        count(hops[i], false, back, back_frames);
    }
}
