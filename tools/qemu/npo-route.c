/*
 * NPO device model: routing, from a descriptor's destination node to a port.
 *
 * A device reaches the trained peers of its ports; the peer's node id is
 * learnt in training, so routes follow the fabric as it is cabled.  A peer
 * in this QEMU process is reached directly, one in another process through
 * the fabric transport (npo-fabric.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/pci/pci.h"

#include "npo.h"

/* Devices of this QEMU process, so that linked neighbours find each other. */
static NpoDeviceList npo_local_devices =
    QTAILQ_HEAD_INITIALIZER(npo_local_devices);

NpoDeviceList *npo_link_devices(void)
{
    return &npo_local_devices;
}

void npo_route_add(NpoState *s)
{
    QTAILQ_INSERT_TAIL(&npo_local_devices, s, next);
}

void npo_route_remove(NpoState *s)
{
    NpoState *t;
    unsigned int i;

    QTAILQ_REMOVE(&npo_local_devices, s, next);
    /* No port may keep a device that is gone as its cached peer. */
    QTAILQ_FOREACH(t, &npo_local_devices, next) {
        for (i = 0; i < t->num_ports; i++) {
            if (t->port[i].local_peer == s) {
                t->port[i].local_peer = NULL;
            }
        }
    }
}

/* Is t, a device of this process, the far end of p's active link? */
static bool is_local_peer(NpoPort *p, NpoState *t)
{
    NpoPort *tp;

    if (t == p->dev || t->node_id != p->peer_node ||
        p->peer_port >= t->num_ports) {
        return false;
    }
    tp = &t->port[p->peer_port];
    return tp->peer_known && tp->peer_node == p->dev->node_id &&
           tp->peer_port == p->index && tp->state == PORT_ACTIVE;
}

/*
 * The port that leads to node: one whose trained peer it is, preferring one
 * that carries traffic now.  NULL if no port has ever reached it.
 */
NpoPort *npo_link_route(NpoState *s, uint32_t node)
{
    NpoPort *found = NULL;
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        if (!p->peer_known || p->peer_node != node) {
            continue;
        }
        if (p->state == PORT_ACTIVE) {
            return p;
        }
        found = found ? found : p;
    }
    return found;
}

/*
 * The device at the far end of an active port, if it lives in this QEMU
 * process and its port names us back; NULL if it is elsewhere, or if this
 * device sends all its data over the wire (property wire-data).
 */
NpoState *npo_link_local_peer(NpoPort *p)
{
    NpoState *t;

    if (p->dev->wire_data) {
        return NULL;
    }
    /* The last one found, checked again: no walk per descriptor. */
    if (p->local_peer && is_local_peer(p, p->local_peer)) {
        return p->local_peer;
    }
    p->local_peer = NULL;
    QTAILQ_FOREACH(t, &npo_local_devices, next) {
        if (is_local_peer(p, t)) {
            p->local_peer = t;
            return t;
        }
    }
    return NULL;
}
