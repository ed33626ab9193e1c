/*
 * NPO supernode interconnect: the device model's device.
 *
 * The register interface is npo-regs.h.  This header holds the device
 * (NpoState), its properties and registers, and the calls of npo.c, the
 * PCI device, register dispatch and mailbox engine.  Each part has a
 * header of its own: npo-port.h, npo-clock.h, npo-queue.h, npo-mr.h,
 * npo-wire.h, npo-route.h, npo-shm.h, npo-fw.h and npo-target.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_STATE_H
#define HW_MISC_NPO_STATE_H

#include "hw/pci/pci.h"
#include "qom/object.h"

#include "npo-clock.h"
#include "npo-fw.h"
#include "npo-port.h"
#include "npo-regs.h"

#define TYPE_NPO "npo"
OBJECT_DECLARE_SIMPLE_TYPE(NpoState, NPO)

#define NPO_DB_STRIDE_SHIFT     12
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

typedef struct NpoMr NpoMr;
typedef struct NpoQueue NpoQueue;

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
    bool vanished;              /* fault: off the bus until removed */
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

    /* test equipment on the cable (npo-inject.c) */
    uint64_t inject_delivered;
    uint64_t inject_refused;
    QTAILQ_ENTRY(NpoState) next;
};

/* npo.c */
void npo_irq_update(NpoState *s, uint32_t raised);
dma_addr_t npo_mbox_addr(NpoState *s, unsigned int lo);
uint32_t npo_mbox_drain_log(NpoState *s, void *log, size_t rec_size,
                            unsigned int *count, uint32_t *lost,
                            uint32_t irq);
int npo_mbox_read_block(NpoState *s, dma_addr_t off, void *buf, size_t len);

#endif
