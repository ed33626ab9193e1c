/*
 * NPO supernode interconnect: device model state shared by its parts.
 *
 * The register interface is npo-regs.h; this file holds the state of a
 * device and its parts, and what each part offers the others.
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

#include "npo-regs.h"
#include "npo-wire.h"

#define TYPE_NPO "npo"
OBJECT_DECLARE_SIMPLE_TYPE(NpoState, NPO)

#define NPO_DB_STRIDE_SHIFT     12
#define NPO_MAX_QUEUES          1024
#define NPO_CLOCK_ANCHORS       16
#define NPO_CLOCK_DERIVED_PPB   INT32_MIN
#define NPO_CLOCK_DERIVED_OFFSET INT64_MIN
/*
 * A device that lies about its geometry, for the driver's probe to refuse
 * (property ``hostile``); the model itself keeps its real geometry.
 */
enum npo_hostile {
    NPO_HOSTILE_NONE = 0,
    NPO_HOSTILE_PORTS = 1,          /* 200 ports: beyond any BAR */
    NPO_HOSTILE_LANES = 2,          /* 40 lanes per port */
    NPO_HOSTILE_NO_QUEUES = 3,      /* DMA queues, but 0 of them */
    NPO_HOSTILE_STRIDE = 4,         /* doorbell stride 2^40 */
    NPO_HOSTILE_MAX_ADJ = 5,        /* clock max_adj 2^31 ppb */
    NPO_HOSTILE_MAX
};

/* The slow-training fault: at most this late, this many in flight. */
#define NPO_TS_LAG_MAX_US       100000
#define NPO_TS_LAG_DEPTH        64

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
    GRand *rand;                /* stamping noise, wander */
    double wander_ppb;          /* the rate error's walk so far */
    QEMUTimer *wander_timer;
} NpoClock;

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

struct NpoState;
typedef struct NpoShmRing NpoShmRing;

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

    /* fabric transport, as the target of a peer's requests */
    GHashTable *rx_sends;       /* request id -> NpoWireRecv arriving */
    QSIMPLEQ_HEAD(, NpoWireRead) reads;  /* READ answers still to send */
    GHashTable *rx_naks;        /* requester queue + 1 -> request refused */

    uint32_t control;
    enum npo_port_state state;
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
    struct NpoState *local_peer; /* last found by npo_link_local_peer() */
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
    NpoLane lane[NPO_MAX_LANES];
} NpoPort;

/* Shared-memory rings (npo-shm.c) */
#define NPO_SHM_MIN_SIZE        (128 * 1024)
#define NPO_SHM_MAX_SIZE        (64 * 1024 * 1024)

NpoShmRing *npo_shm_create(size_t size, Error **errp);
NpoShmRing *npo_shm_attach(const int fds[3], uint64_t size, Error **errp);
void npo_shm_free(NpoShmRing *r);
void npo_shm_fds(NpoShmRing *r, int fds[3]);
void npo_shm_sent(NpoShmRing *r);
int npo_shm_kick_fd(NpoShmRing *r);
int npo_shm_room_fd(NpoShmRing *r);
uint64_t npo_shm_size(NpoShmRing *r);
void npo_shm_drain_fd(int fd);
int64_t npo_shm_room(NpoShmRing *r, size_t reserved);
uint8_t *npo_shm_tx_at(NpoShmRing *r, size_t off);
void npo_shm_publish(NpoShmRing *r, size_t n);
int64_t npo_shm_want_room(NpoShmRing *r, size_t reserved);
int64_t npo_shm_avail(NpoShmRing *r);
bool npo_shm_sleep(NpoShmRing *r);
const uint8_t *npo_shm_rx_at(NpoShmRing *r, size_t off);
void npo_shm_consume(NpoShmRing *r, size_t n);
void npo_shm_give_room(NpoShmRing *r);

/* Memory table and queues */
#define NPO_MAX_RING_LOG2       15

/* One firmware slot of the flash (npo-flash.c). */
typedef struct NpoFlashSlot {
    uint8_t *image;             /* NULL: erased */
    uint32_t len;
    uint32_t version;           /* of a valid image for this device, else 0 */
} NpoFlashSlot;

typedef struct NpoMr {
    uint32_t key;               /* the local key */
    uint64_t rkey;              /* the remote key */
    uint32_t pd;
    uint32_t job;               /* its protection domain's, at creation */
    uint32_t access;
    uint32_t page_shift;
    uint64_t iova;
    uint64_t length;
    uint64_t npages;
    uint64_t pages_set;         /* usable once all pages are known */
    uint64_t *pages;            /* bus address of each page */
    uint8_t **hva;              /* each page mapped, NULL until given */
} NpoMr;

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

typedef struct NpoQueue {
    bool live;
    bool error;                 /* the rest of the ring is flushed */
    bool stalled;               /* no CQ room; resumes on CQ_HEAD */
    bool armed;                 /* interrupt once cq_tail != arm_head */
    uint16_t id;
    uint32_t pd;
    uint32_t job;               /* its protection domain's, at creation */
    dma_addr_t ring;
    uint8_t *ring_hva;          /* the ring memory mapped, NULL if not RAM */
    dma_addr_t ring_len;
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
    int64_t head_since;         /* QEMU_CLOCK_VIRTUAL: the head's since */
    uint32_t gen;               /* tells a re-created queue from the old */
    int64_t route_since;        /* QEMU_CLOCK_VIRTUAL: the head waits for a
                                   path since, 0 when it does not */
    uint64_t route_gen;         /* the route table it started waiting on */
    uint32_t tx_ports;          /* ports its work went out of, bit n port n */
    uint32_t rx_ports;          /* ports messages to it came in through */

    /* The head descriptor's request to a peer in another QEMU process. */
    uint64_t wire_req;          /* its id, 0 when there is none */
    NpoPort *wire_port;         /* out of which it goes on the wire */
    NpoPort *wire_first;        /* its first hop: wire_port, or a port of this
                                   device towards wire_port's device */
    uint32_t wire_dest;         /* its destination node */
    bool wire_routed;           /* its frames go behind a WireRouted */
    int64_t wire_heard;         /* QEMU_CLOCK_VIRTUAL: it last made progress */
    uint64_t wire_retry;        /* the id to send the head again with */
    uint32_t wire_lost;         /* times the head went unanswered */
    uint32_t wire_lkey;         /* where a READ's answer lands */
    uint64_t wire_laddr;
    uint32_t wire_len;
    bool wire_sent;             /* every frame of it is queued */
    bool wire_tx_wait;          /* waits for room on the port */
    bool wire_done;             /* its outcome is known: wire_status */
    bool wire_acked;            /* the target answered: no abort owed */
    bool wire_chained;          /* sent behind unanswered WRITEs */
    uint32_t wire_status;
    uint64_t wire_value;        /* an atomic's original word */

    /*
     * Descriptors sq_head up to sq_issue are WRITEs sent whole and not yet
     * completed (waiting for their answers, or done and waiting for the
     * ones before them), each in posted[index % NPO_WIRE_WINDOW]; the one
     * at sq_issue is the request above (or the next to run).
     */
    uint32_t sq_issue;
    bool posted_wait;           /* the next waits for answers, not work */
    NpoWirePosted posted[NPO_WIRE_WINDOW];
} NpoQueue;

/* WRITEs of q sent whole and not yet completed: sq_head up to sq_issue. */
static inline uint32_t npo_wire_posted(const NpoQueue *q)
{
    return q->sq_issue - q->sq_head;
}

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
    uint8_t hostile;            /* NPO_HOSTILE_*: a geometry register lies */
    bool count_symbol_errors;   /* the symbol error counter exists */
    bool wire_data;             /* data to local peers goes over the wire too */
    bool wire_shm;              /* links share memory where they can */
    uint32_t wire_ring_kib;     /* each direction's ring */
    int32_t clock_ppb;          /* the clock's rate error */
    uint32_t clock_wander_ppb;  /* its random walk, RMS ppb per sqrt(s) */
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
    uint32_t reset_count;       /* resets since power-on */
    uint32_t mbox_cmd;
    uint32_t mbox_status;
    uint8_t mbox_fail_op;       /* fault: commands with this opcode fail */
    uint8_t mbox_fail_count;    /* this many more times */
    uint32_t mbox_arg[4];
    uint32_t mbox_ret[2];
    uint32_t irq_status;
    uint32_t irq_mask;
    uint32_t fatal_cause;       /* NPO_FATAL_*, with STATUS.FATAL */

    /* the firmware's health (npo-fw-health.c) */
    bool fw_hung;               /* fault: it stopped */
    int64_t fw_heartbeat_base;  /* when it started */
    uint32_t fw_heartbeat_frozen;
    char fw_log[NPO_CRASH_LOG_SIZE];
    size_t fw_log_len;
    struct {
        uint32_t reason, pc;
        int64_t time_ns;
        char log[NPO_CRASH_LOG_SIZE];
        uint32_t log_len;
    } crash;                    /* survives resets */

    /* the firmware flash (npo-flash.c, 1.14) */
    char *flash_path;           /* property: the file that keeps it */
    struct {
        NpoFlashSlot slot[2];   /* A, B */
        uint8_t active;         /* NPO_SLOT_*: last booted */
        uint8_t pending;        /* written, to be tried at the next reset */
        bool fell_back;         /* the last boot's first choice failed */
        uint8_t failed;         /* that slot */
        uint8_t boot_error;     /* its result code */
        bool boot_fail_armed;   /* fault: the next pending image fails */
        uint8_t *stage;         /* FLASH_BEGIN's image in device memory */
        uint32_t stage_len, stage_done;
    } flash;
    uint8_t fw_from;            /* NPO_FW_FROM_*: what runs came from */

    /* what the running firmware configured */
    struct npo_fw_link_params fw_link;
    uint32_t fw_num_presets;
    uint8_t fw_preset_ids[64];

    GRand *rand;
    NpoPort port[NPO_MAX_PORTS];

    NpoClock clk;

    NpoQueue *queue;
    NpoMr **mr;
    uint32_t *pd_job;           /* each protection domain's job */
    NpoHwRefusal refusal[NPO_REFUSAL_DEPTH];    /* the refusal log */
    unsigned int refusal_count;
    uint32_t refusal_lost;      /* records that found the log full */
    NpoHwQueueError qerr[NPO_QUEUE_ERROR_DEPTH];  /* the queue error log */
    unsigned int qerr_count;
    uint32_t qerr_lost;
    QEMUBH *dma_bh;
    QEMUTimer *dma_retry;       /* resumes queues waiting for a link */
    unsigned int dma_next;      /* queue the next engine run starts at */
    bool dma_inline;            /* a doorbell's work runs where it landed */
    uint32_t queue_gen;
    uint64_t wire_seq;          /* last fabric request id issued */
    QEMUTimer *wire_timer;      /* gives up routed requests gone quiet */
    GHashTable *wire_done;      /* requester queue -> last routed answer */

    /* routing (npo-route.c) */
    NpoHwRoute *routes;         /* the driver's table, by node */
    uint32_t num_routes;
    uint64_t route_gen;         /* tables set since power-on */
    uint32_t route_hold_ms;
    uint32_t route_forwarded;
    uint32_t route_held;
    uint32_t route_expired;
    uint32_t route_loops;

    /* link messages (npo-lmsg.c) */
    NpoHwLinkMsg lmsg_rx[NPO_LMSG_RX_DEPTH];
    unsigned int lmsg_rx_head;
    unsigned int lmsg_rx_count;
    uint32_t lmsg_rx_drops;
    QTAILQ_ENTRY(NpoState) next;
};

/* npo.c */
void npo_irq_update(NpoState *s, uint32_t raised);
dma_addr_t npo_mbox_addr(NpoState *s, unsigned int lo);
uint32_t npo_mbox_drain_log(NpoState *s, void *log, size_t rec_size,
                            unsigned int *count, uint32_t *lost,
                            uint32_t irq);
int npo_mbox_read_block(NpoState *s, dma_addr_t off, void *buf, size_t len);

/* npo-fw-health.c */
void npo_fw_log(NpoState *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void npo_fw_health_started(NpoState *s);
uint32_t npo_fw_heartbeat(NpoState *s);
bool npo_fw_halted(NpoState *s);
bool npo_fw_health_fault(NpoState *s, unsigned int kind, uint32_t value);
bool npo_fw_health_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
void npo_fw_health_reset(NpoState *s);

/* npo.c: running an image */
uint32_t npo_fw_check(NpoState *s, const uint8_t *image, uint32_t len,
                      bool need_target, struct npo_fw_contents *fw);
uint32_t npo_fw_start(NpoState *s, const uint8_t *image, uint32_t len,
                      unsigned int from);

/* npo-flash.c */
bool npo_flash_realize(NpoState *s, Error **errp);
void npo_flash_exit(NpoState *s);
void npo_flash_boot(NpoState *s);
uint32_t npo_flash_mbox(NpoState *s, uint32_t op);
int64_t npo_flash_mbox_delay(NpoState *s, uint32_t op);
bool npo_flash_fault(NpoState *s, unsigned int kind, uint32_t value,
                     uint32_t *res);
bool npo_flash_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
void npo_flash_add_properties(Object *obj);

/* npo-dma.c */
void npo_dma_realize(NpoState *s, Error **errp);
void npo_dma_exit(NpoState *s);
void npo_dma_reset(NpoState *s);
void npo_dma_doorbell(NpoState *s, unsigned int qid, hwaddr off, uint32_t val);
uint32_t npo_dma_mbox(NpoState *s, uint32_t op);
void npo_dma_kick(NpoState *s);
void *npo_map_ram(NpoState *s, dma_addr_t addr, dma_addr_t len);
void npo_unmap_ram(NpoState *s, void *p, dma_addr_t len);

/* Bytes moved per bottom-half run, over all queues. */
#define NPO_DMA_BUDGET          (16 * MiB)
/* What a doorbell may run in the vCPU that rang it, before the engine. */
#define NPO_DMA_INLINE_BUDGET   (1 * MiB)
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
void npo_queue_fail(NpoState *s, NpoQueue *q, uint32_t status,
                    const struct npo_cqe *why);
void npo_deliver(NpoState *t, NpoQueue *dq, const NpoSender *from,
                 struct npo_cqe *c);
int npo_rq_take(NpoState *t, NpoQueue *tq, uint32_t len,
                const NpoSender *from, struct npo_rqe *r, NpoMr **rmr);

/* npo-mr.c: the memory table */
void npo_mr_realize(NpoState *s);
void npo_mr_exit(NpoState *s);
void npo_mr_reset(NpoState *s);
uint32_t npo_mr_mbox(NpoState *s, uint32_t op);
uint32_t npo_mr_check_local(NpoState *s, NpoMr **out, uint32_t key,
                            uint64_t addr, uint64_t len, uint32_t need,
                            uint32_t pd);
bool npo_mr_check_remote(NpoState *s, NpoMr **out, uint64_t rkey,
                         uint32_t job, uint64_t addr, uint64_t len,
                         uint32_t need);
void npo_mr_read(NpoMr *mr, uint64_t addr, void *buf, uint64_t len);
void npo_mr_write(NpoMr *mr, uint64_t addr, const void *buf, uint64_t len);
void npo_mr_copy(NpoMr *dst, uint64_t daddr, NpoMr *src, uint64_t saddr,
                 uint64_t len);
uint64_t npo_mr_atomic(NpoMr *mr, uint64_t addr, uint8_t opcode,
                       uint64_t compare_add, uint64_t swap);

/* npo-refusal.c: the refusal log */
void npo_refusal_log(NpoState *s, uint8_t side, uint32_t job,
                     uint32_t peer_node, uint16_t queue, uint8_t opcode,
                     uint32_t status);
uint32_t npo_refusal_mbox(NpoState *s, uint32_t op);
void npo_refusal_reset(NpoState *s);

/* npo-queue-errors.c: the queue error log */
void npo_queue_error_log(NpoState *s, NpoQueue *q, uint32_t status,
                         const struct npo_cqe *why);
uint32_t npo_queue_error_mbox(NpoState *s, uint32_t op);
void npo_queue_error_reset(NpoState *s);

/* npo-clock.c */
void npo_clock_realize(NpoState *s);
void npo_clock_exit(NpoState *s);
void npo_clock_reset(NpoState *s);
void npo_clock_add_properties(Object *obj);
bool npo_clock_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
bool npo_clock_reg_write(NpoState *s, hwaddr addr, uint64_t val);
uint32_t npo_clock_mbox(NpoState *s, uint32_t op);
void npo_clock_rx(NpoPort *p, const uint8_t *payload, uint16_t len);
int64_t npo_clock_true_ns(void);
uint64_t npo_clock_read_at(NpoState *s, int64_t true_ns);

/* npo-fabric.c */
void npo_fabric_realize(NpoState *s);
void npo_fabric_exit(NpoState *s);
void npo_fabric_reset(NpoState *s);
uint64_t npo_fabric_run(NpoState *s, NpoQueue *q, const struct npo_sqe *d,
                        NpoMr *lmr, NpoPort *first, NpoPort *p,
                        uint64_t budget, bool *done, uint32_t *status);
void npo_fabric_finish(NpoState *s, NpoQueue *q);
bool npo_fabric_postable(NpoState *s, NpoQueue *q, const struct npo_sqe *d);
bool npo_fabric_sent(NpoQueue *q, const struct npo_sqe *d);
void npo_fabric_post(NpoQueue *q, const struct npo_sqe *d, bool done,
                     uint32_t status);
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

/* npo-route.c: which port leads to a node, and forwarding */
typedef QTAILQ_HEAD(NpoDeviceList, NpoState) NpoDeviceList;
void npo_route_add(NpoState *s);
void npo_route_remove(NpoState *s);
void npo_fabric_forget_device(NpoState *gone);
NpoDeviceList *npo_link_devices(void);
NpoPort *npo_link_route(NpoState *s, uint32_t node);
NpoLinkReady npo_route_ready(NpoPort *p);
NpoState *npo_link_local_peer(NpoPort *p);
void npo_route_reset(NpoState *s);
void npo_route_exit(NpoState *s);
uint32_t npo_route_mbox(NpoState *s, uint32_t op);
bool npo_route_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
bool npo_route_reg_write(NpoState *s, hwaddr addr, uint64_t val);
void npo_route_add_properties(Object *obj);

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

/* npo-traffic.c */
void npo_traffic_frame(NpoPort *p, bool tx, uint8_t type, uint16_t len);
void npo_traffic_local(NpoPort *const *hops, unsigned int nhops,
                       uint8_t opcode, uint64_t off, uint64_t n, bool last);
NpoPort *npo_route_wire_port(NpoState *s, uint32_t node);
uint32_t npo_route_hold(NpoState *s, NpoQueue *q, uint32_t node,
                        uint32_t status, bool *wait);

/* npo-lmsg.c: link messages, the driver's own traffic between devices */
uint32_t npo_lmsg_mbox(NpoState *s, uint32_t op);
void npo_lmsg_rx(NpoPort *p, const uint8_t *payload, uint16_t len);
void npo_lmsg_reset(NpoState *s);
bool npo_lmsg_reg_read(NpoState *s, hwaddr addr, uint64_t *val);

#endif
