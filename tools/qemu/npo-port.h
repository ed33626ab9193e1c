/*
 * NPO device model: a port and its lanes.
 *
 * Training and the state machine (npo-link.c), the ports' registers and
 * mailbox commands (npo-port-regs.c), fault injection (npo-faults.c),
 * framing (npo-port.c), the lanes' physics (npo-phy.c) and traffic
 * counts (npo-traffic.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_PORT_H
#define HW_MISC_NPO_PORT_H

#include "chardev/char-fe.h"
#include "qemu/queue.h"
#include "qemu/timer.h"

#include "npo-regs.h"
#include "npo-wire.h"

typedef struct NpoShmRing NpoShmRing;
typedef struct NpoState NpoState;
typedef struct NpoWireRead NpoWireRead;

/* The slow-training fault: at most this late, this many in flight. */
#define NPO_TS_LAG_MAX_US       100000
#define NPO_TS_LAG_DEPTH        64

typedef struct NpoLane {
    /* faults */
    double fault_ber;           /* 0: none */
    bool dead;
    double rx_drop_db;
    double tx_drop_db;          /* this lane launches weaker (1.15) */
    double peer_tx_drop_db;     /* the far end's lane does (WIRE_LIGHT) */
    /* slow degradation: the BER floor or the loss grows from *_since */
    double ber_ramp_dps;        /* decades per second, 0: none */
    double ber_ramp_from;       /* the lane's BER when the ramp began */
    int64_t ber_ramp_since;
    double rx_drift_dbps;       /* dB per second, 0: none */
    int64_t rx_drift_since;
    /* physical state */
    double tx_power_dbm;
    double base_loss_db;
    double temp_c;
    double bias_ma;
    uint8_t best_preset;        /* preset that suits this lane's channel */
    uint8_t preset;             /* preset chosen by equalization */
    /* counters */
    uint64_t fec_corrected;
    uint64_t fec_uncorrectable;
    uint64_t symbol_errors;
    uint64_t prbs_bits;
    uint64_t prbs_errors;
} NpoLane;

typedef struct NpoPort {
    struct NpoState *dev;
    unsigned int index;
    CharBackend chr;
    QEMUTimer *timer;           /* training steps and the active-link tick */
    uint8_t rxbuf[sizeof(WireHdr) + WIRE_MAX_PAYLOAD];
    unsigned int rxlen;
    GByteArray *tx;             /* frames the socket has not taken yet */
    guint tx_off;
    guint tx_watch;
    bool tx_blocked;            /* a data sender waits for room */

    /* shared memory with the peer, when the socket passes descriptors */
    NpoShmRing *shm_tx;         /* ours, the peer reads it */
    NpoShmRing *shm_rx;         /* the peer's, we read it */
    bool shm_tx_on;             /* our frames go on shm_tx */
    bool shm_rx_on;             /* the peer's frames come on shm_rx */
    size_t shm_reserved;        /* written to shm_tx, not yet published */
    GByteArray *shm_backlog;    /* frames shm_tx had no room for */
    QEMUBH *shm_rx_bh;          /* more frames than one pass takes */
    QEMUBH *shm_fail_bh;        /* the peer broke the ring: disconnect */
    int shm_fds[3];             /* the peer's offer, until it is read */
    int shm_nfds;
    bool shm_peer_offered;      /* this connection brought a first offer */
    uint32_t shm_gen;           /* our offers so far; shm_tx is the last */
    uint32_t shm_rx_gen;        /* the peer's offer shm_rx came from */

    /* the wire, as the target of a peer's requests */
    GHashTable *rx_sends;       /* request id -> NpoWireRecv arriving */
    QSIMPLEQ_HEAD(, NpoWireRead) reads;  /* READ answers still to send */
    GHashTable *rx_naks;        /* requester queue + 1 -> request refused */

    uint32_t control;
    NpoPortState state;
    bool listen;                /* DETECT waits for the peer to start */
    bool cut;
    bool light_lost;            /* the far end's light went out (WIRE_DARK) */
    uint8_t fail_reason;
    uint8_t down_reason;        /* why the link last went down, latched */
    uint64_t down_time;         /* device clock then, latched (1.10) */
    uint32_t events;
    uint32_t prbs_ctl;
    bool prbs_hold;             /* the test's HOLD: stay held after it */
    bool held;                  /* out of service until RETRAIN (1.12) */
    bool prbs_dark;             /* the test lost the light: cut, pulled */
    int64_t state_deadline;     /* virtual ns when this state times out */
    int64_t last_rx;            /* virtual ns of the last frame received */
    int64_t last_tick;
    int64_t los_grace;          /* a host stall forgave silence until here */
    bool was_active;            /* for RECOVERED vs UP */
    bool high_ber;
    uint16_t ber_lanes;         /* lanes above the BER warning threshold */
    uint16_t fault_lanes;       /* lanes that failed the last negotiation */
    uint32_t pending_burst;
    /* Fault: training sequences acted on this late, in arrival order. */
    int64_t ts_lag_ns;
    QEMUTimer *ts_lag_timer;
    struct {
        int64_t due;
        uint8_t type;
        WireTs ts;
    } ts_lag_q[NPO_TS_LAG_DEPTH];
    unsigned int ts_lag_head, ts_lag_count;

    /* negotiated */
    unsigned int rate;          /* 1..NPO_NUM_RATES, 0 none */
    unsigned int width;
    uint16_t local_rx_ok[NPO_NUM_RATES];

    /* peer, as learned from its training sequences */
    bool peer_known;
    struct NpoState *local_peer; /* last found by npo_route_local_peer() */
    bool peer_ts2;
    uint32_t peer_node;
    uint8_t peer_port;
    uint8_t peer_rates;
    uint8_t peer_lanes;
    uint8_t peer_max_rate;
    uint8_t peer_max_width;
    uint8_t epoch;              /* our configuration attempts, wraps */
    bool epoch_responds;        /* it answers the peer's, not our own */
    uint8_t peer_epoch;         /* the peer's, from its last new TS2 */
    uint16_t peer_rx_ok[NPO_NUM_RATES];

    uint64_t counter[NPO_NUM_PORT_STATS];
    uint64_t traffic[NPO_NUM_TRAFFIC_STATS];    /* npo-traffic.c */
    /*
     * Transport frames that crossed between processes, by how they
     * came: only a frame read from the socket or the peer's ring counts,
     * never one a device of this process handed over in memory (the
     * QOM property wire_stats, for tests that the transport was used).
     */
    uint64_t wire_rx_sock;
    uint64_t wire_rx_shm;
    uint64_t wire_shm_wraps;    /* times the peer's ring wrapped */
    NpoLane lane[NPO_MAX_LANES];
} NpoPort;

/* npo-link.c: training, the state machine of each port */
typedef enum NpoLinkReady {
    NPO_LINK_DOWN,
    NPO_LINK_PAUSED,            /* recovering: data waits */
    NPO_LINK_UP,
} NpoLinkReady;

void npo_link_realize(NpoState *s, Error **errp);
void npo_link_exit(NpoState *s);
void npo_link_reset(NpoState *s);
void npo_link_fw_changed(NpoState *s);
bool npo_link_port_enabled(NpoPort *p);
NpoLinkReady npo_link_ready(NpoPort *p);
void npo_link_rx(NpoPort *p, uint8_t type, const uint8_t *payload,
                 uint16_t len);
void npo_link_cable(NpoPort *p, bool connected);
void npo_link_cut(NpoPort *p, bool cut);
void npo_link_write_control(NpoPort *p, uint32_t val);
void npo_link_start_prbs(NpoPort *p, uint32_t val);
uint32_t npo_link_status(NpoPort *p);
void npo_link_clear_counters(NpoPort *p);

/* npo-port-regs.c: the ports' registers and mailbox commands */
bool npo_port_regs_read(NpoState *s, hwaddr addr, uint64_t *val);
bool npo_port_regs_write(NpoState *s, hwaddr addr, uint64_t val);
uint32_t npo_port_regs_event_ports(NpoState *s);
uint32_t npo_port_regs_mbox(NpoState *s, uint32_t op);

/* npo-faults.c: fault injection, by the FAULT command or over QMP */
uint32_t npo_fault_apply(NpoState *s, unsigned int kind, unsigned int port,
                         unsigned int lane, uint32_t value);
void npo_fault_add_properties(Object *obj);
/* npo-inject.c */
void npo_inject_add_properties(Object *obj);
void npo_port_add_properties(Object *obj);

/* npo-port.c: framing, transmit and receive */
void npo_port_realize(NpoPort *p);
void npo_port_exit(NpoPort *p);
bool npo_port_connected(NpoPort *p);
uint8_t *npo_port_frame(NpoPort *p, uint8_t type, uint16_t len);
void npo_port_send(NpoPort *p, uint8_t type, const void *payload,
                   uint16_t len);
void npo_port_flush(NpoPort *p);
void npo_port_tx_drop(NpoPort *p);
bool npo_port_tx_full(NpoPort *p);
size_t npo_port_tx_backlog(NpoPort *p);
bool npo_port_shared(NpoPort *p);

/* npo-phy.c: the lanes' physical layer */
typedef struct NpoPhyTick {
    uint64_t uncorrectable;     /* codewords FEC could not correct */
    uint16_t ber_lanes;         /* lanes above the BER warning threshold */
    bool lane_failed;           /* a lane at or beyond the BER limit */
} NpoPhyTick;

double npo_phy_rate_gbps(unsigned int rate);
void npo_phy_init_lanes(NpoPort *p);
void npo_phy_compute_rx_ok(NpoPort *p);
void npo_phy_tick(NpoPort *p, double secs, NpoPhyTick *t);
void npo_phy_prbs(NpoPort *p, unsigned int rate, double secs, bool dark);
void npo_phy_lane_diag(NpoPort *p, unsigned int lane, NpoHwLaneStats *ls);
void npo_phy_ber_ramp(NpoPort *p, unsigned int lane, double dps);
void npo_phy_rx_drift(NpoPort *p, unsigned int lane, double dbps);
void npo_phy_tx_drop(NpoPort *p, unsigned int lane, double db);
void npo_phy_send_light(NpoPort *p);
void npo_phy_rx_light(NpoPort *p, const uint8_t *payload, uint16_t len);
void npo_phy_peer_gone(NpoPort *p);
uint32_t npo_phy_module_info(NpoState *s);

/* npo-traffic.c: what each port carried */
void npo_traffic_frame(NpoPort *p, bool tx, uint8_t type, uint16_t len);
void npo_traffic_local(NpoPort *const *hops, unsigned int nhops,
                       uint8_t opcode, uint64_t off, uint64_t n, bool last);

#endif
