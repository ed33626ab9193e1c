/*
 * NPO device model: the wire between two ports, its frames and the
 * engine that carries requests over it (npo-wire.c).
 *
 * A port's chardev carries a byte stream of frames: a 4-byte header, then
 * the payload.  Training frames are the link layer's own; data frames
 * carry the requests and answers of the fabric transport (npo-fabric.c)
 * between devices in different QEMU processes.  Documentation/hardware.rst
 * ("Fabric transport") describes what a real device puts on the link.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_WIRE_H
#define HW_MISC_NPO_WIRE_H

#include <linux/npo_queue.h>

#include "npo-regs.h"

#define WIRE_MAGIC              0x4e

enum {
    /* link layer */
    WIRE_TS1 = 1,       /* polling: who I am */
    WIRE_TS2 = 2,       /* configuration: what I can receive */
    WIRE_IDLE = 3,      /* keep-alive while active */
    WIRE_DOWN = 4,      /* going down: port disabled or retraining */
    WIRE_LOOPBACK = 5,  /* enter loopback for a PRBS test */
    /* fabric transport */
    WIRE_DATA = 6,      /* WRITE, WRITE_IMM or SEND bytes: WireData, bytes */
    WIRE_READ = 7,      /* READ request: WireRead */
    WIRE_READ_DATA = 8, /* bytes answering a READ: WireData, bytes */
    WIRE_ATOMIC = 9,    /* FETCH_ADD or CMP_SWAP: WireAtomic */
    WIRE_ACK = 10,      /* a request is finished: WireAck */
    WIRE_ABORT = 11,    /* the requester gave a request up: WireAbort */
    /* time sync */
    WIRE_TIME = 12,     /* a time-sync message: WireTime */
    /* physics */
    WIRE_DARK = 13,     /* the light went out (a cut): WireDark */
    /* shared memory, on the socket only (npo-shm.c) */
    WIRE_SHM_OFFER = 14, /* map my ring: WireShmOffer, 3 descriptors */
    WIRE_SHM_READY = 15, /* your ring is mapped: WireShmGen */
    WIRE_SHM_SWITCH = 16, /* my frames after this are on the ring: WireShmGen */
    /* management */
    WIRE_LMSG = 17,     /* a link message: its bytes, NPO_LMSG_MAX at most */
    /* fabric transport beyond the peer */
    WIRE_ROUTED = 18,   /* WireRouted, then a DATA..ABORT frame's payload */
    /* physics */
    WIRE_LIGHT = 19,    /* how much weaker each lane launches: WireLight */
};

typedef struct QEMU_PACKED WireHdr {
    uint8_t magic;
    uint8_t type;
    uint16_t len;       /* of the payload */
} WireHdr;

/*
 * TS1 and TS2: a port's training sequences.  Fields are little endian;
 * rx_ok[r] is the mask of lanes that receive well at rate r + 1.  A TS2
 * names its sender's configuration (epoch) and the last of the peer's it
 * heard (ack); WIRE_TS_WAITING says the sender has not negotiated yet and
 * needs a TS2 acknowledging its epoch, WIRE_TS_RESPONSE that its epoch
 * was started by the peer's (ack), not by the sender.  Only a waiting TS2
 * is answered and only a TS2 that is no response starts a configuration,
 * so neither answers nor configurations echo back and forth.
 */
typedef struct QEMU_PACKED WireTs {
    uint32_t node_id;
    uint8_t port;
    uint8_t rates;
    uint8_t lanes;
    uint8_t max_rate;
    uint8_t max_width;
    uint8_t epoch;      /* TS2: which configuration attempt this is */
    uint8_t ack;        /* TS2: the peer's epoch the sender last heard */
    uint8_t flags;      /* TS2: WIRE_TS_* */
    uint16_t rx_ok[NPO_NUM_RATES];
    uint16_t pad2;
} WireTs;

#define WIRE_TS_WAITING         0x01
#define WIRE_TS_RESPONSE        0x02

/* Bytes of data in one frame: a large transfer is a train of them. */
#define WIRE_CHUNK              (32 * 1024)

/*
 * Every request names the requesting queue, its job and a request id,
 * unique per requesting device; answers carry the queue and id back.  The
 * target serves a request only from its job's regions and queues.  Fields
 * are little endian.
 */
typedef struct QEMU_PACKED WireData {
    uint64_t req;
    uint64_t addr;      /* start of the whole transfer at the target */
    uint64_t key;       /* the remote key */
    uint32_t job;
    uint32_t total;     /* bytes in the whole transfer */
    uint32_t offset;    /* of this frame's bytes in it */
    uint32_t imm;
    uint16_t src_queue;
    uint16_t dest_queue;
    uint8_t opcode;     /* NPO_OP_* */
    uint8_t last;       /* the final frame of the transfer */
    uint16_t flags;     /* WIRE_DATA_* */
} WireData;

/*
 * Sent while earlier requests of the same queue were still unanswered: a
 * target that refused one of those drops it, answering FLUSHED, as the
 * requester completes everything after an error as flushed.
 */
#define WIRE_DATA_CHAINED       0x0001

typedef struct QEMU_PACKED WireRead {
    uint64_t req;
    uint64_t addr;
    uint64_t key;
    uint32_t job;
    uint32_t len;
    uint16_t src_queue;
    uint16_t pad[3];
} WireRead;

typedef struct QEMU_PACKED WireAtomic {
    uint64_t req;
    uint64_t addr;
    uint64_t compare_add;
    uint64_t swap;
    uint64_t key;
    uint32_t job;
    uint16_t src_queue;
    uint8_t opcode;
    uint8_t pad;
} WireAtomic;

typedef struct QEMU_PACKED WireAck {
    uint64_t req;
    uint64_t value;     /* an atomic's original word */
    uint32_t status;    /* NPO_STATUS_* */
    uint16_t src_queue;
    uint16_t pad;
} WireAck;

typedef struct QEMU_PACKED WireAbort {
    uint64_t req;
} WireAbort;

/*
 * Not a message a device sends but the simulation of a cut fibre: both
 * receivers lose light at the same instant, host monotonic ns, and the
 * far one latches it as when its link went down.
 */
typedef struct QEMU_PACKED WireDark {
    uint64_t true_ns;
} WireDark;

/*
 * LIGHT: the sender's lanes launch this much below nominal (a failing
 * transmitter), 1/100 dB each, so that the receiver's power follows; sent
 * when it changes and when the cable is plugged in.
 */
typedef struct QEMU_PACKED WireLight {
    uint16_t tx_drop_cdb[NPO_MAX_LANES];
} WireLight;

/*
 * The sender's ring, offered with its memfd and the receiver's ends of
 * its kick and room doorbells (SCM_RIGHTS on the same socket).  gen
 * numbers the sender's offers; READY and SWITCH name the ring they mean.
 * An offer made in answer to a new device's (WIRE_SHM_RESPONSE) never
 * starts another round.
 */
typedef struct QEMU_PACKED WireShmOffer {
    uint64_t size;      /* of the data area, a power of two */
    uint32_t gen;
    uint8_t flags;      /* WIRE_SHM_* */
    uint8_t pad[3];
} WireShmOffer;

#define WIRE_SHM_RESPONSE       0x01

typedef struct QEMU_PACKED WireShmGen {
    uint32_t gen;
} WireShmGen;

/*
 * A transport frame (DATA, READ, READ_DATA, ATOMIC, ACK or ABORT) between
 * nodes that are not the two ends of one link, or from a device behind
 * the sending one: each device on the way passes it on by its route
 * table, to_node's takes it.  Requests name their requester in
 * from_node, answers their target; an answer goes back the way its
 * request came.
 */
typedef struct QEMU_PACKED WireRouted {
    uint32_t from_node;
    uint32_t to_node;
    uint8_t type;       /* of the frame inside */
    uint8_t hops;       /* links it crossed so far */
    uint8_t pad[2];
} WireRouted;

#define WIRE_MAX_PAYLOAD        (sizeof(WireRouted) + sizeof(WireData) + \
                                 WIRE_CHUNK)

/*
 * A time-sync message, with the instant it left in the common time base
 * (host monotonic ns) and the propagation delay of this direction of the
 * link: the receiver stamps the arrival instant, whenever it gets to it.
 */
typedef struct QEMU_PACKED WireTime {
    uint64_t true_tx_ns;
    int64_t delay_ps;
    uint8_t len;
    uint8_t pad[7];
    uint8_t payload[NPO_TIME_MSG_MAX];
} WireTime;

/*
 * A frame of the fabric transport (DATA..ABORT, or one of them ROUTED):
 * what the data path carries, as against training, time sync and link
 * messages.
 */
static inline bool wire_is_transport(uint8_t type)
{
    return (type >= WIRE_DATA && type <= WIRE_ABORT) || type == WIRE_ROUTED;
}

/* --- the wire engine (npo-wire.c) ---------------------------------------- */

typedef struct NpoMr NpoMr;
typedef struct NpoPort NpoPort;
typedef struct NpoQueue NpoQueue;
typedef struct NpoState NpoState;

/*
 * A WRITE or WRITE_IMM whose frames are all on the wire, waiting for its
 * answer behind the queue's head: what its completion will say.
 */
typedef struct NpoWirePosted {
    uint64_t req;
    NpoPort *port;              /* it went on the wire out of */
    NpoPort *first;             /* its first hop, which its completion names */
    bool routed;                /* behind a WireRouted: answered by id alone */
    struct npo_sqe d;           /* as it was sent */
    bool done;                  /* answered, or its link went down */
    uint32_t status;
} NpoWirePosted;

/* Requests of one queue a port may carry at once (hardware.rst). */
#define NPO_WIRE_WINDOW         16

/*
 * The head descriptor's request to a peer in another QEMU process
 * (npo-wire.c); the queue engine (npo-dma.c) reads whether there is one
 * and where it stands, the wire file does the rest.
 */
typedef struct NpoWireRequest {
    uint64_t req;               /* its id, 0 when there is none */
    NpoPort *port;              /* out of which it goes on the wire */
    NpoPort *first;             /* its first hop: port, or a port of this
                                   device towards port's device */
    uint32_t dest;              /* its destination node */
    bool routed;                /* its frames go behind a WireRouted */
    int64_t heard;              /* QEMU_CLOCK_VIRTUAL: it last made progress */
    uint64_t retry;             /* the id to send the head again with */
    uint32_t lost;              /* times the head went unanswered */
    uint32_t lkey;              /* where a READ's answer lands */
    uint64_t laddr;
    uint32_t len;
    bool sent;                  /* every frame of it is queued */
    bool done;                  /* its outcome is known: status */
    bool acked;                 /* the target answered: no abort owed */
    bool chained;               /* sent behind unanswered WRITEs */
    uint32_t status;
    uint64_t value;             /* an atomic's original word */
} NpoWireRequest;

void npo_wire_realize(NpoState *s);
void npo_wire_exit(NpoState *s);
void npo_wire_reset(NpoState *s);
uint64_t npo_wire_run(NpoState *s, NpoQueue *q, const struct npo_sqe *d,
                      NpoMr *lmr, NpoPort *first, NpoPort *p,
                      uint64_t budget, bool *done, uint32_t *status);
void npo_wire_finish(NpoState *s, NpoQueue *q);
bool npo_wire_postable(NpoState *s, NpoQueue *q, const struct npo_sqe *d);
bool npo_wire_sent(NpoQueue *q, const struct npo_sqe *d);
void npo_wire_post(NpoQueue *q, const struct npo_sqe *d, bool done,
                   uint32_t status);
uint64_t npo_wire_answer_reads(NpoState *s, uint64_t budget, bool *more);
void npo_wire_rx(NpoPort *p, uint8_t type, const uint8_t *payload,
                 uint16_t len);
void npo_wire_port_down(NpoPort *p);
void npo_wire_tx_room(NpoPort *p);
void npo_wire_forget_device(NpoState *gone);

#endif
