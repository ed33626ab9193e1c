/*
 * NPO device model: which port leads to a node, forwarding and the
 * route hold (npo-route.c), and link messages (npo-lmsg.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_ROUTE_H
#define HW_MISC_NPO_ROUTE_H

#include "qemu/queue.h"

#include "npo-port.h"

typedef struct NpoPort NpoPort;
typedef struct NpoQueue NpoQueue;
typedef struct NpoState NpoState;

/* npo-route.c: which port leads to a node, and forwarding */
typedef QTAILQ_HEAD(NpoDeviceList, NpoState) NpoDeviceList;
void npo_route_add(NpoState *s);
void npo_route_remove(NpoState *s);
NpoDeviceList *npo_route_devices(void);
NpoPort *npo_route_first_hop(NpoState *s, uint32_t node);
NpoLinkReady npo_route_ready(NpoPort *p);
NpoState *npo_route_local_peer(NpoPort *p);
void npo_route_reset(NpoState *s);
void npo_route_exit(NpoState *s);
uint32_t npo_route_mbox(NpoState *s, uint32_t op);
bool npo_route_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
bool npo_route_reg_write(NpoState *s, hwaddr addr, uint64_t val);
void npo_route_add_properties(Object *obj);
NpoPort *npo_route_wire_port(NpoState *s, uint32_t node);
uint32_t npo_route_hold(NpoState *s, NpoQueue *q, uint32_t node,
                        uint32_t status, bool *wait);

/* How a path beyond the first hop ended (npo_route_follow()). */
typedef enum NpoPathEnd {
    NPO_PATH_ARRIVED,           /* at the destination: *target */
    NPO_PATH_PAUSED,            /* a link on the way retrains: wait */
    NPO_PATH_DOWN,              /* a link on the way is down */
    NPO_PATH_UNROUTED,          /* no entry on the way, or a loop */
    NPO_PATH_REMOTE,            /* beyond a device of another process */
} NpoPathEnd;

NpoPathEnd npo_route_follow(NpoState *next, NpoPort *via, uint32_t node,
                            bool count, NpoState **target, uint8_t *rx_port,
                            NpoPort **wire, NpoPort **path,
                            unsigned int *npath);

/* npo-lmsg.c: link messages, the driver's own traffic between devices */
uint32_t npo_lmsg_mbox(NpoState *s, uint32_t op);
void npo_lmsg_rx(NpoPort *p, const uint8_t *payload, uint16_t len);
void npo_lmsg_reset(NpoState *s);
bool npo_lmsg_reg_read(NpoState *s, hwaddr addr, uint64_t *val);

#endif
