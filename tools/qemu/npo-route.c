/*
 * NPO device model: routing, from a descriptor's destination node to a port.
 *
 * A device reaches the trained peers of its ports directly; the peer's
 * node id is learnt in training, so routes follow the fabric as it is
 * cabled.  Any other node is reached through the route table the driver
 * computes (interface 1.13): each device on the way passes the
 * descriptor on by its own table, as a switch does, up to
 * NPO_ROUTE_MAX_HOPS links.  A peer in this QEMU process is reached
 * directly, one in another process through the wire
 * (npo-wire.c).
 *
 * When a link on a path is down, the descriptor waits up to ROUTE_HOLD_MS
 * for the drivers to route around it, then fails; it fails at once when
 * the source's own table, set since, no longer reaches the node.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-port.h"
#include "npo-queue.h"
#include "npo-route.h"
#include "npo-wire.h"

/* Devices of this QEMU process, so that linked neighbours find each other. */
static NpoDeviceList npo_local_devices =
    QTAILQ_HEAD_INITIALIZER(npo_local_devices);

NpoDeviceList *npo_route_devices(void)
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
    /* No request of another device may keep going out of its ports. */
    npo_wire_forget_device(s);
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

static int route_cmp(const void *key, const void *entry)
{
    uint32_t node = *(const uint32_t *)key;
    uint32_t e = le32_to_cpu(((const NpoHwRoute *)entry)->node);

    return node < e ? -1 : node > e;
}

static const NpoHwRoute *route_find(NpoState *s, uint32_t node)
{
    if (!s->num_routes) {
        return NULL;
    }
    return bsearch(&node, s->routes, s->num_routes, sizeof(*s->routes),
                   route_cmp);
}

/* A quarantined port (1.16) carries no fabric data out. */
static bool port_quarantined(const NpoPort *p)
{
    return p->control & R_P_CONTROL_QUARANTINE_MASK;
}

/*
 * Whether data may go out of p now: its link's readiness, a quarantined
 * port's as a link that is down, so that what its route table sends
 * there waits for new routes as for a cut (hardware.rst "Quarantine").
 */
NpoLinkReady npo_route_ready(NpoPort *p)
{
    return port_quarantined(p) ? NPO_LINK_DOWN : npo_link_ready(p);
}

/*
 * The port that leads to node: a port whose trained peer it is and that
 * carries traffic now, else the route table's, else a port that once
 * reached it.  The peer shortcut and the last never take a quarantined
 * port; a table entry may name one (npo_route_ready() says it is down).
 * NULL if nothing leads there.
 */
NpoPort *npo_route_first_hop(NpoState *s, uint32_t node)
{
    const NpoHwRoute *r;
    NpoPort *found = NULL;
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        if (!p->peer_known || p->peer_node != node || port_quarantined(p)) {
            continue;
        }
        if (p->state == PORT_ACTIVE) {
            return p;
        }
        found = found ? found : p;
    }
    r = route_find(s, node);
    return r ? &s->port[r->port] : found;
}

/*
 * From next, the far end of the source's first hop via, each device of
 * this process passes the descriptor on by its own table until it reaches
 * node.  count: the descriptor starts, count it as forwarded.  path, if
 * not NULL, gets the ports it leaves by towards devices of this process
 * (*npath of them, at most NPO_ROUTE_MAX_HOPS).
 */
NpoPathEnd npo_route_follow(NpoState *next, NpoPort *via, uint32_t node,
                            bool count, NpoState **target, uint8_t *rx_port,
                            NpoPort **wire, NpoPort **path,
                            unsigned int *npath)
{
    NpoState *t = next;
    unsigned int hops = 1;

    *rx_port = via->peer_port;
    while (t->node_id != node) {
        NpoPort *p;

        if (++hops > NPO_ROUTE_MAX_HOPS) {
            t->route_loops++;
            return NPO_PATH_UNROUTED;
        }
        p = npo_route_first_hop(t, node);
        if (!p) {
            return NPO_PATH_UNROUTED;
        }
        switch (npo_route_ready(p)) {
        case NPO_LINK_DOWN:
            return NPO_PATH_DOWN;
        case NPO_LINK_PAUSED:
            return NPO_PATH_PAUSED;
        case NPO_LINK_UP:
            break;
        }
        if (count) {
            t->route_forwarded++;
        }
        *rx_port = p->peer_port;
        t = npo_route_local_peer(p);
        if (!t) {
            *wire = p;
            return NPO_PATH_REMOTE;
        }
        /* The in-process hops, for their traffic counters. */
        if (path && *npath < NPO_ROUTE_MAX_HOPS) {
            path[(*npath)++] = p;
        }
    }
    *target = t;
    return NPO_PATH_ARRIVED;
}

/*
 * The port out of which a descriptor from s to node goes on the wire:
 * s's first hop or a port of a device further on in this process.  NULL
 * if the path stays in this process or is not whole now.
 */
NpoPort *npo_route_wire_port(NpoState *s, uint32_t node)
{
    NpoPort *p = npo_route_first_hop(s, node), *wire = NULL;
    NpoState *next, *t;
    uint8_t rx_port;

    if (!p || npo_route_ready(p) != NPO_LINK_UP) {
        return NULL;
    }
    next = npo_route_local_peer(p);
    if (!next) {
        return p;
    }
    return npo_route_follow(next, p, node, false, &t, &rx_port, &wire,
                            NULL, NULL) ==
           NPO_PATH_REMOTE ? wire : NULL;
}

/*
 * The head of q cannot reach node now; status is what it fails with.
 * With routes set it waits while the drivers may yet route around the
 * fault: until the hold runs out, or until the source's table, set since
 * it began waiting, has no way there.  Each new table with a way there
 * starts the hold again.  Returns 0 with *wait set while it waits, else
 * status.
 */
uint32_t npo_route_hold(NpoState *s, NpoQueue *q, uint32_t node,
                        uint32_t status, bool *wait)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (!s->num_routes || !s->route_hold_ms) {
        return status;
    }
    if (!q->route_since) {
        q->route_since = now;
        q->route_gen = s->route_gen;
        s->route_held++;
        trace_npo_route_hold(s->node_id, q->id, node);
        *wait = true;
        return NPO_STATUS_OK;
    }
    if (q->route_gen != s->route_gen && route_find(s, node)) {
        /*
         * The drivers routed around something since it began to wait,
         * and it failed on the new way too (an answer lost on a path
         * still settling): the new way gets a hold of its own.
         */
        q->route_since = now;
        q->route_gen = s->route_gen;
        *wait = true;
        return NPO_STATUS_OK;
    }
    if (now - q->route_since >= (int64_t)s->route_hold_ms * SCALE_MS) {
        s->route_expired++;
    } else if (q->route_gen == s->route_gen) {
        *wait = true;
        return NPO_STATUS_OK;
    }
    q->route_since = 0;
    trace_npo_route_give_up(s->node_id, q->id, node, status);
    return status;
}

/*
 * ROUTE_SET: ARG0 the number of entries (0 clears the table), ARG2/3 the
 * table.  A table with an entry out of order, a node twice, this device's
 * own node, a port beyond the device's or a hop count out of range is
 * refused whole, and the old one stays.
 */
static uint32_t mbox_route_set(NpoState *s)
{
    uint32_t n = FIELD_EX32(s->mbox_arg[0], ROUTE_SET_ARG0, COUNT);
    g_autofree NpoHwRoute *t = NULL;
    NpoState *d;
    uint32_t i;

    if (n > NPO_ROUTE_MAX ||
        (s->mbox_arg[0] & ~R_ROUTE_SET_ARG0_COUNT_MASK)) {
        return MBOX_ERR_ARG;
    }
    if (n) {
        t = g_new(NpoHwRoute, n);
        if (pci_dma_read(PCI_DEVICE(s), npo_mbox_addr(s, 2), t,
                         n * sizeof(*t)) != MEMTX_OK) {
            return MBOX_ERR_DMA;
        }
    }
    for (i = 0; i < n; i++) {
        uint32_t node = le32_to_cpu(t[i].node);

        if (node == s->node_id || t[i].port >= s->num_ports ||
            !t[i].hops || t[i].hops > NPO_ROUTE_MAX_HOPS || t[i].rsvd ||
            (i && node <= le32_to_cpu(t[i - 1].node))) {
            qemu_log_mask(LOG_GUEST_ERROR, "npo%u: ROUTE_SET: entry %u "
                          "(node %u port %u hops %u) refused\n", s->node_id,
                          i, node, t[i].port, t[i].hops);
            return MBOX_ERR_ARG;
        }
    }
    g_free(s->routes);
    s->routes = g_steal_pointer(&t);
    s->num_routes = n;
    s->route_gen++;
    trace_npo_route_set(s->node_id, n, s->route_gen);
    /* Paths through this device changed for every device's queues. */
    QTAILQ_FOREACH(d, npo_route_devices(), next) {
        npo_dma_kick(d);
    }
    return MBOX_OK;
}

uint32_t npo_route_mbox(NpoState *s, uint32_t op)
{
    return op == MBOX_OP_ROUTE_SET ? mbox_route_set(s) : MBOX_ERR_OPCODE;
}

bool npo_route_reg_read(NpoState *s, hwaddr addr, uint64_t *val)
{
    switch (addr) {
    case A_ROUTE_ENTRIES:
        *val = s->num_routes;
        return true;
    case A_ROUTE_HOLD_MS:
        *val = s->route_hold_ms;
        return true;
    case A_ROUTE_FORWARDED:
        *val = s->route_forwarded;
        return true;
    case A_ROUTE_HELD:
        *val = s->route_held;
        return true;
    case A_ROUTE_EXPIRED:
        *val = s->route_expired;
        return true;
    case A_ROUTE_LOOPS:
        *val = s->route_loops;
        return true;
    }
    return false;
}

bool npo_route_reg_write(NpoState *s, hwaddr addr, uint64_t val)
{
    if (addr != A_ROUTE_HOLD_MS) {
        return false;
    }
    s->route_hold_ms = MIN(val, NPO_ROUTE_HOLD_MS_MAX);
    return true;
}

void npo_route_reset(NpoState *s)
{
    g_free(s->routes);
    s->routes = NULL;
    s->num_routes = 0;
    s->route_gen++;
    s->route_hold_ms = NPO_ROUTE_HOLD_MS;
    s->route_forwarded = s->route_held = 0;
    s->route_expired = s->route_loops = 0;
    npo_lmsg_reset(s);
}

void npo_route_exit(NpoState *s)
{
    g_free(s->routes);
    s->routes = NULL;
    s->num_routes = 0;
}

/*
 * Property routes, read-only over QMP: the table as the device holds it,
 * "node:port:hops" entries, so that a test sees what the driver set
 * without asking the driver.
 */
static char *npo_get_routes(Object *obj, Error **errp)
{
    NpoState *s = NPO(obj);
    GString *out = g_string_new(NULL);
    uint32_t i;

    for (i = 0; i < s->num_routes; i++) {
        g_string_append_printf(out, "%s%u:%u:%u", i ? " " : "",
                               le32_to_cpu(s->routes[i].node),
                               s->routes[i].port, s->routes[i].hops);
    }
    return g_string_free(out, false);
}

void npo_route_add_properties(Object *obj)
{
    NpoState *s = NPO(obj);

    object_property_add_str(obj, "routes", npo_get_routes, NULL);
    object_property_add_uint32_ptr(obj, "route_forwarded",
                                   &s->route_forwarded, OBJ_PROP_FLAG_READ);
}

/*
 * The device at the far end of an active port, if it lives in this QEMU
 * process and its port names us back; NULL if it is elsewhere, or if this
 * device sends all its data over the wire (property wire_data).
 */
NpoState *npo_route_local_peer(NpoPort *p)
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
