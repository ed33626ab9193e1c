/*
 * NPO supernode interconnect: device model state shared by its parts.
 *
 * Register offsets and fields are specified in Documentation/hardware.rst
 * of the NPO project; this file names them for the model.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_H
#define HW_MISC_NPO_H

#include "hw/pci/pci.h"
#include "chardev/char-fe.h"
#include "qom/object.h"

#include "npo_fw_validate.h"
#include <linux/npo_queue.h>

#define TYPE_NPO "npo"
OBJECT_DECLARE_SIMPLE_TYPE(NpoState, NPO)

#define NPO_VENDOR_ID           0x1234
#define NPO_DEVICE_ID           0x4e50
#define NPO_REVISION            0x01

#define NPO_REGS_SIZE           (16 * KiB)
#define NPO_DB_STRIDE_SHIFT     12
#define NPO_MAX_QUEUES          1024
#define NPO_MAX_PORTS           16
#define NPO_MAX_LANES           16
#define NPO_NUM_RATES           3

#define NPO_MAGIC               0x314f504e   /* "NPO1" */

#include "npo-wire.h"
#define NPO_IF_VERSION          ((1 << 16) | 5)

/* Identity, control, status */
#define R_MAGIC                 0x000
#define R_IF_VERSION            0x004
#define R_CAPS                  0x008
#define   CAPS_FW_MAILBOX       BIT(0)
#define   CAPS_AER              BIT(1)
#define   CAPS_LINK             BIT(2)
#define   CAPS_FAULT_INJECT     BIT(3)
#define   CAPS_QUEUES           BIT(4)
#define   CAPS_CLOCK            BIT(5)
#define R_GEOMETRY              0x00c
#define R_QUEUES                0x010
#define R_DB_LAYOUT             0x014
#define R_NODE_ID               0x018
#define R_MEM_REGIONS           0x01c
#define R_SERIAL_LO             0x020
#define R_SERIAL_HI             0x024
#define R_SCRATCH               0x030
#define R_CONTROL               0x040
#define   CONTROL_RESET         BIT(0)
#define R_STATUS                0x044
#define   STATUS_READY          BIT(0)
#define   STATUS_FW_RUNNING     BIT(1)
#define   STATUS_FATAL          BIT(2)
#define R_FW_VERSION            0x048
#define R_FW_ERROR              0x04c

/* Mailbox */
#define R_MBOX_CMD              0x100
#define R_MBOX_STATUS           0x104
#define   MBOX_STATUS_BUSY      BIT(0)
#define   MBOX_RESULT_SHIFT     8
#define R_MBOX_ARG0             0x108
#define R_MBOX_ARG3             0x114
#define R_MBOX_RET0             0x118
#define R_MBOX_RET1             0x11c

enum {
    MBOX_OP_NOP = 0x01,
    MBOX_OP_FW_LOAD = 0x02,
    MBOX_OP_PORT_STATS = 0x10,
    MBOX_OP_CLEAR_COUNTERS = 0x11,
    MBOX_OP_FAULT = 0x20,
    MBOX_OP_QUEUE_CREATE = 0x30,
    MBOX_OP_QUEUE_DESTROY = 0x31,
    MBOX_OP_MR_CREATE = 0x32,
    MBOX_OP_MR_PAGES = 0x33,
    MBOX_OP_MR_DESTROY = 0x34,
    MBOX_OP_TIME_SEND = 0x40,
    MBOX_OP_TIME_RECV = 0x41,
};

enum {
    MBOX_OK = 0,
    MBOX_ERR_OPCODE = 1,
    MBOX_ERR_BUSY = 2,
    MBOX_ERR_DMA = 3,
    MBOX_ERR_FW_SIZE = 4,
    MBOX_ERR_FW_MAGIC = 5,
    MBOX_ERR_FW_FORMAT = 6,
    MBOX_ERR_FW_CRC = 7,
    MBOX_ERR_FW_SECTION = 8,
    MBOX_ERR_FW_MISSING = 9,
    MBOX_ERR_STATE = 10,
    MBOX_ERR_ARG = 11,
    MBOX_ERR_PERM = 12,
    MBOX_ERR_EXISTS = 13,
    MBOX_ERR_NOENT = 14,
    MBOX_ERR_NOMEM = 15,
};

/* Interrupts */
#define R_IRQ_STATUS            0x200
#define R_IRQ_MASK              0x204
#define   IRQ_MBOX_DONE         BIT(0)
#define   IRQ_FATAL             BIT(1)
#define   IRQ_LINK              BIT(2)
#define   IRQ_TIME              BIT(3)
#define   IRQ_ALL               (IRQ_MBOX_DONE | IRQ_FATAL | IRQ_LINK | IRQ_TIME)
#define R_LINK_EVENT_PORTS      0x208

/* Clock */
#define R_CLK_MAX_ADJ           0x300
#define R_CLK_TIME_LO           0x304
#define R_CLK_TIME_HI           0x308
#define R_CLK_ADJ_FINE          0x30c
#define R_CLK_ARG_LO            0x310
#define R_CLK_ARG_HI            0x314
#define R_CLK_CMD               0x318
#define   CLK_CMD_SET           1
#define   CLK_CMD_STEP          2
#define   CLK_CMD_LATCH         3
#define R_CLK_LATCH_TIME_LO     0x320
#define R_CLK_LATCH_TIME_HI     0x324
#define R_CLK_LATCH_REF_LO      0x328
#define R_CLK_LATCH_REF_HI      0x32c
#define R_CLK_RX_DROPS          0x330

#define NPO_CLOCK_MAX_ADJ_PPB   500000
#define NPO_CLOCK_ANCHORS       16
#define NPO_TIME_RX_DEPTH       64
#define TIME_SEND_ONE_STEP      BIT(0)  /* stamp bytes 8..15 on the way out */
#define NPO_CLOCK_DERIVED_PPB   INT32_MIN
#define NPO_CLOCK_DERIVED_OFFSET INT64_MIN

/* TIME_RECV's block: one received message, little endian. */
typedef struct QEMU_PACKED NpoHwTimeMsg {
    uint64_t rx_time;           /* device ns at arrival */
    uint8_t port;
    uint8_t len;
    uint8_t rsvd[6];
    uint8_t payload[NPO_TIME_MSG_MAX];
} NpoHwTimeMsg;

/* A segment of the clock: device time at a true instant, and the rate. */
typedef struct NpoClockAnchor {
    bool valid;
    int64_t true_ns;
    int64_t dev_ns;
    double frac;                /* of dev_ns */
    double rate;                /* d(device)/d(true) - 1 from true_ns on */
} NpoClockAnchor;

typedef struct NpoClock {
    NpoClockAnchor anchor[NPO_CLOCK_ANCHORS];
    unsigned int cur;           /* the newest anchor */
    int32_t adj_scaled_ppm;     /* ppm x 2^16 */
    uint32_t time_hi;           /* TIME_HI as latched by TIME_LO */
    uint64_t arg;
    uint64_t latch_time;
    uint64_t latch_ref;
    NpoHwTimeMsg rx[NPO_TIME_RX_DEPTH];
    unsigned int rx_head;
    unsigned int rx_count;
    uint32_t rx_drops;
    GRand *rand;                /* stamping noise */
} NpoClock;

/* Ports: 0x40 bytes each from R_PORT_BASE */
#define R_PORT_BASE             0x1000
#define R_PORT_STRIDE           0x40
#define P_CONTROL               0x00
#define   PCTL_ENABLE           BIT(0)
#define   PCTL_RETRAIN          BIT(1)
#define   PCTL_MAX_RATE_SHIFT   4       /* [6:4] 0: any, n: rate n at most */
#define   PCTL_MAX_WIDTH_SHIFT  8       /* [12:8] 0: any, n: n lanes at most */
#define P_STATUS                0x04
#define   PST_STATE_MASK        0xf
#define   PST_RATE_SHIFT        4       /* [6:4] 0: none, 1..3 */
#define   PST_WIDTH_SHIFT       8       /* [12:8] */
#define   PST_DEGRADED          BIT(13)
#define   PST_PEER_PRESENT      BIT(14)
#define   PST_HIGH_BER          BIT(15)
#define   PST_FAIL_SHIFT        16      /* [23:16] last training failure */
#define   PST_LISTEN            BIT(24)
#define P_CAPS                  0x08
#define P_PEER_NODE             0x0c
#define P_PEER_PORT             0x10
#define P_EVENTS                0x14
#define   PEV_UP                BIT(0)
#define   PEV_DOWN              BIT(1)
#define   PEV_DEGRADED          BIT(2)
#define   PEV_RECOVERED         BIT(3)
#define   PEV_RETRAIN           BIT(4)
#define   PEV_TRAIN_FAIL        BIT(5)
#define   PEV_ERR_THRESHOLD     BIT(6)
#define   PEV_PRBS_DONE         BIT(7)
#define P_PRBS                  0x18
#define   PRBS_START            BIT(31)
#define P_ACTIVE_LANES          0x1c
#define P_FAULT_LANES           0x20
#define P_BER_LANES             0x24
#define P_DOWN_REASON           0x28

enum npo_port_state {
    PORT_DISABLED = 0,
    PORT_DETECT = 1,
    PORT_POLLING = 2,
    PORT_CONFIG = 3,
    PORT_EQUALIZE = 4,
    PORT_ACTIVE = 5,
    PORT_RECOVERY = 6,
    PORT_TEST = 7,
    PORT_LOOPBACK = 8,
};

enum npo_train_fail {
    FAIL_NONE = 0,
    FAIL_POLLING_TIMEOUT = 1,   /* peer present but silent */
    FAIL_CONFIG_TIMEOUT = 2,
    FAIL_NO_COMMON_RATE = 3,
    FAIL_NO_USABLE_LANES = 4,   /* lane 0 unusable at every rate */
    FAIL_LOSS_OF_SIGNAL = 5,    /* link lost while active */
    FAIL_PEER_DISABLED = 6,
    FAIL_ADMIN_DISABLED = 7,   /* this port was disabled */
    FAIL_TEST = 8,              /* taken out of service for a PRBS test */
    FAIL_PEER_TEST = 9,         /* looping back for the peer's PRBS test */
    FAIL_NO_FIRMWARE = 10,      /* firmware stopped under an enabled port */
};

enum npo_fault_kind {
    FAULT_CLEAR_ALL = 0,
    FAULT_LANE_BER = 1,     /* value: -log10(BER) x 100, 0 clears */
    FAULT_LANE_DEAD = 2,    /* value: 0/1 */
    FAULT_RX_DROP = 3,      /* value: extra loss in 1/100 dB */
    FAULT_CUT = 4,          /* value: 0 restore / 1 cut */
    FAULT_BURST = 5,        /* value: uncorrectable codewords */
};

/* Port statistics block written by MBOX_OP_PORT_STATS, little endian. */
#define NPO_STAT_CRC_ERRORS         0
#define NPO_STAT_REPLAYS            1
#define NPO_STAT_RECOVERIES         2
#define NPO_STAT_LINK_DOWNS         3
#define NPO_STAT_TRAIN_FAILURES     4
#define NPO_STAT_FEC_CORRECTED      5
#define NPO_STAT_FEC_UNCORRECTABLE  6
#define NPO_STAT_SYMBOL_ERRORS      7
#define NPO_NUM_PORT_STATS          8

typedef struct QEMU_PACKED NpoHwLaneStats {
    uint64_t fec_corrected;
    uint64_t fec_uncorrectable;
    uint64_t symbol_errors;
    uint64_t prbs_bits;
    uint64_t prbs_errors;
    int16_t rx_power_cdbm;
    int16_t tx_power_cdbm;
    uint16_t bias_cma;
    int16_t temp_cdeg;
    uint16_t ber_nlog_c;        /* -log10(pre-FEC BER) x 100 */
    uint16_t eye_height_mv;
    uint16_t eye_width_mui;
    uint8_t preset;
    uint8_t flags;
    uint64_t rsvd;
} NpoHwLaneStats;

#define LANE_FLAG_LOS           BIT(0)
#define LANE_FLAG_CDR_LOCK      BIT(1)
#define LANE_FLAG_ACTIVE        BIT(2)
#define LANE_FLAG_TX_FAULT      BIT(3)

typedef struct QEMU_PACKED NpoHwPortStats {
    uint64_t counter[NPO_NUM_PORT_STATS];
    uint32_t supported;         /* bit n: counter[n] is counted */
    uint32_t num_lanes;
    uint64_t rsvd[3];
    NpoHwLaneStats lane[];
} NpoHwPortStats;

typedef struct NpoLane {
    /* faults */
    double fault_ber;           /* 0: none */
    bool dead;
    double rx_drop_db;
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

struct NpoState;

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

    /* fabric transport, as the target of a peer's requests */
    GHashTable *rx_sends;       /* request id -> NpoWireRecv arriving */
    QSIMPLEQ_HEAD(, NpoWireRead) reads;  /* READ answers still to send */
    uint64_t rx_nak_req;        /* last request refused: drop its frames */

    uint32_t control;
    enum npo_port_state state;
    bool listen;                /* DETECT waits for the peer to start */
    bool cut;
    uint8_t fail_reason;
    uint8_t down_reason;        /* why the link last went down, latched */
    uint32_t events;
    uint32_t prbs_ctl;
    int64_t state_deadline;     /* virtual ns when this state times out */
    int64_t last_rx;            /* virtual ns of the last frame received */
    int64_t last_tick;
    bool was_active;            /* for RECOVERED vs UP */
    bool high_ber;
    uint16_t ber_lanes;         /* lanes above the BER warning threshold */
    uint16_t fault_lanes;       /* lanes that failed the last negotiation */
    uint32_t pending_burst;

    /* negotiated */
    unsigned int rate;          /* 1..NPO_NUM_RATES, 0 none */
    unsigned int width;
    uint16_t local_rx_ok[NPO_NUM_RATES];

    /* peer, as learned from its training sequences */
    bool peer_known;
    bool peer_ts2;
    uint32_t peer_node;
    uint8_t peer_port;
    uint8_t peer_rates;
    uint8_t peer_lanes;
    uint8_t peer_max_rate;
    uint8_t peer_max_width;
    uint8_t epoch;              /* our configuration attempts, wraps */
    uint8_t peer_epoch;         /* the peer's, from its last new TS2 */
    uint16_t peer_rx_ok[NPO_NUM_RATES];

    uint64_t counter[NPO_NUM_PORT_STATS];
    NpoLane lane[NPO_MAX_LANES];
} NpoPort;

/* Memory table and queues */
#define NPO_MR_INDEX_MASK       0xffff      /* key = tag << 16 | index */
#define NPO_MAX_MRS             65536
#define NPO_MAX_MR_PAGES        (1u << 24)
#define NPO_MAX_RING_LOG2       15

/* MR_CREATE command block, little endian. */
typedef struct QEMU_PACKED NpoHwMrCreate {
    uint32_t key;
    uint32_t pd;
    uint32_t access;
    uint32_t page_shift;
    uint64_t iova;
    uint64_t length;
} NpoHwMrCreate;

/* MR_PAGES command block: this header, then count 64-bit page addresses. */
typedef struct QEMU_PACKED NpoHwMrPages {
    uint32_t key;
    uint32_t count;
    uint64_t first;
} NpoHwMrPages;

#define NPO_MR_PAGES_PER_CMD    510

typedef struct NpoMr {
    uint32_t key;
    uint32_t pd;
    uint32_t access;
    uint32_t page_shift;
    uint64_t iova;
    uint64_t length;
    uint64_t npages;
    uint64_t pages_set;         /* usable once all pages are known */
    uint64_t *pages;            /* bus address of each page */
    uint8_t **hva;              /* each page mapped, NULL until given */
} NpoMr;

typedef struct NpoQueue {
    bool live;
    bool error;                 /* the rest of the ring is flushed */
    bool stalled;               /* no CQ room; resumes on a doorbell */
    bool armed;                 /* interrupt once cq_tail != arm_head */
    uint16_t id;
    uint32_t pd;
    dma_addr_t ring;
    dma_addr_t sq_ring;         /* where each ring starts, from ring */
    dma_addr_t cq_ring;
    dma_addr_t rq_ring;
    uint32_t sq_entries;
    uint32_t cq_entries;
    uint32_t sq_head;
    uint32_t sq_tail;
    uint32_t cq_tail;
    uint32_t cq_head;           /* last value read from the ring header */
    uint32_t arm_head;
    uint32_t rq_entries;
    uint32_t rq_head;
    uint32_t rq_tail;
    uint32_t rnr_tries;         /* the head SEND found no receive buffer */
    uint64_t progress;          /* bytes of the head descriptor done */
    bool link_wait;             /* head descriptor waits for a link */
    uint32_t gen;               /* tells a re-created queue from the old */

    /* The head descriptor's request to a peer in another QEMU process. */
    uint64_t wire_req;          /* its id, 0 when there is none */
    NpoPort *wire_port;
    uint32_t wire_lkey;         /* where a READ's answer lands */
    uint64_t wire_laddr;
    uint32_t wire_len;
    bool wire_sent;             /* every frame of it is queued */
    bool wire_tx_wait;          /* waits for room on the port */
    bool wire_done;             /* its outcome is known: wire_status */
    bool wire_acked;            /* the target answered: no abort owed */
    uint32_t wire_status;
    uint64_t wire_value;        /* an atomic's original word */
} NpoQueue;

struct NpoState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion doorbells;
    QEMUTimer *reset_timer;
    QEMUTimer *mbox_timer;

    /* properties */
    uint32_t node_id;
    uint64_t serial;
    uint8_t num_ports;
    uint8_t lanes_per_port;
    uint16_t num_queues;
    uint8_t rates;              /* supported lane rates, bit n = rate n+1 */
    bool test_mode;             /* fault injection registers present */
    bool count_symbol_errors;   /* the symbol error counter exists */
    bool wire_data;             /* data to local peers goes over the wire too */
    int32_t clock_ppb;          /* the clock's rate error */
    int64_t clock_offset_ns;    /* its time at power-on less the time base */
    uint32_t link_delay_ns;     /* propagation delay; 0: per link, 50-500 */
    int32_t link_asym_ps;       /* the two directions' difference */
    uint32_t ts_noise_ps;       /* RMS noise of each timestamp */
    uint32_t link_loss_cdb;     /* fibre and connector loss, 1/100 dB */
    uint32_t num_mrs;           /* memory table entries */

    /* registers */
    uint32_t scratch;
    uint32_t status;
    uint32_t fw_version;
    uint32_t fw_error;
    uint32_t mbox_cmd;
    uint32_t mbox_status;
    uint32_t mbox_arg[4];
    uint32_t mbox_ret[2];
    uint32_t irq_status;
    uint32_t irq_mask;

    /* what the running firmware configured */
    struct npo_fw_link_params fw_link;
    uint32_t fw_num_presets;
    uint8_t fw_preset_ids[64];

    GRand *rand;
    NpoPort port[NPO_MAX_PORTS];

    NpoClock clk;

    NpoQueue *queue;
    NpoMr **mr;
    QEMUBH *dma_bh;
    QEMUTimer *dma_retry;       /* resumes queues waiting for a link */
    unsigned int dma_next;      /* queue the next engine run starts at */
    uint32_t queue_gen;
    uint64_t wire_seq;          /* last fabric request id issued */
    QTAILQ_ENTRY(NpoState) next;
};

/* npo.c */
void npo_irq_update(NpoState *s, uint32_t raised);
dma_addr_t npo_mbox_addr(NpoState *s, unsigned int lo);
int npo_mbox_read_block(NpoState *s, dma_addr_t off, void *buf, size_t len);

/* npo-dma.c */
void npo_dma_realize(NpoState *s, Error **errp);
void npo_dma_exit(NpoState *s);
void npo_dma_reset(NpoState *s);
void npo_dma_doorbell(NpoState *s, unsigned int qid, hwaddr off, uint32_t val);
uint32_t npo_dma_mbox(NpoState *s, uint32_t op);
void npo_dma_kick(NpoState *s);

/* Bytes moved per bottom-half run, over all queues. */
#define NPO_DMA_BUDGET          (16 * MiB)
/* A SEND is never split between a device's engine runs. */
#define NPO_MAX_SEND            (16 * 1024 * 1024)
/* Looks for a receive buffer before a SEND fails as RNR: about 1 s. */
#define NPO_RNR_TRIES           1000

/* Who a completion on a receiving queue names as the other end. */
typedef struct NpoSender {
    uint8_t port;               /* the receiving port, or NPO_CQE_PORT_NONE */
    uint32_t node;
    uint16_t queue;
} NpoSender;

NpoQueue *npo_queue_get(NpoState *s, unsigned int qid);
void npo_queue_fail(NpoState *s, NpoQueue *q, uint32_t status);
void npo_deliver(NpoState *t, NpoQueue *dq, const NpoSender *from,
                 struct npo_cqe *c);
int npo_rq_take(NpoState *t, NpoQueue *tq, uint32_t len,
                const NpoSender *from, struct npo_rqe *r, NpoMr **rmr);

/* npo-mr.c: the memory table */
void npo_mr_realize(NpoState *s);
void npo_mr_exit(NpoState *s);
void npo_mr_reset(NpoState *s);
uint32_t npo_mr_mbox(NpoState *s, uint32_t op);
uint32_t npo_mr_check(NpoState *s, NpoMr **out, uint32_t key, uint64_t addr,
                      uint64_t len, uint32_t need, uint32_t pd, bool local);
void npo_mr_read(NpoMr *mr, uint64_t addr, void *buf, uint64_t len);
void npo_mr_write(NpoMr *mr, uint64_t addr, const void *buf, uint64_t len);
void npo_mr_copy(NpoMr *dst, uint64_t daddr, NpoMr *src, uint64_t saddr,
                 uint64_t len);
uint64_t npo_mr_atomic(NpoMr *mr, uint64_t addr, uint8_t opcode,
                       uint64_t compare_add, uint64_t swap);

/* npo-clock.c */
void npo_clock_realize(NpoState *s);
void npo_clock_exit(NpoState *s);
void npo_clock_reset(NpoState *s);
void npo_clock_add_properties(Object *obj);
bool npo_clock_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
bool npo_clock_reg_write(NpoState *s, hwaddr addr, uint64_t val);
uint32_t npo_clock_mbox(NpoState *s, uint32_t op);
void npo_clock_rx(NpoPort *p, const uint8_t *payload, uint16_t len);

/* npo-fabric.c */
void npo_fabric_realize(NpoState *s);
void npo_fabric_exit(NpoState *s);
void npo_fabric_reset(NpoState *s);
uint64_t npo_fabric_run(NpoState *s, NpoQueue *q, const struct npo_sqe *d,
                        NpoMr *lmr, NpoPort *p, uint64_t budget, bool *done,
                        uint32_t *status);
void npo_fabric_finish(NpoState *s, NpoQueue *q);
uint64_t npo_fabric_answer_reads(NpoState *s, uint64_t budget, bool *more);
void npo_fabric_rx(NpoPort *p, uint8_t type, const uint8_t *payload,
                   uint16_t len);
void npo_fabric_port_down(NpoPort *p);
void npo_fabric_tx_room(NpoPort *p);

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

/* npo-port-regs.c: the ports' registers, mailbox commands and faults */
bool npo_link_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
bool npo_link_reg_write(NpoState *s, hwaddr addr, uint64_t val);
uint32_t npo_link_event_ports(NpoState *s);
uint32_t npo_link_mbox(NpoState *s, uint32_t op);
void npo_link_add_properties(Object *obj);

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
void npo_phy_prbs(NpoPort *p, unsigned int rate, double secs);
void npo_phy_lane_diag(NpoPort *p, unsigned int lane, NpoHwLaneStats *ls);

/* npo-route.c: which port leads to a node */
typedef QTAILQ_HEAD(NpoDeviceList, NpoState) NpoDeviceList;
void npo_route_add(NpoState *s);
void npo_route_remove(NpoState *s);
NpoDeviceList *npo_link_devices(void);
NpoPort *npo_link_route(NpoState *s, uint32_t node);
NpoState *npo_link_local_peer(NpoPort *p);

#endif
