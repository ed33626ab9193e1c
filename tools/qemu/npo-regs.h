/*
 * NPO supernode interconnect: the register interface, version 1.14, as the
 * device model names it.
 *
 * Documentation/hardware.rst of the NPO project is the specification.  The
 * driver names the same facts in driver/npo_regs.h; the host test
 * tools/qemu/tests/qemu_regs_agree_test.c includes both and checks at build
 * time that every offset, field, code and block layout agrees.  Queue
 * formats and doorbell offsets are the UAPI's (linux/npo_queue.h), which
 * both sides include.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_REGS_H
#define HW_MISC_NPO_REGS_H

#include "hw/registerfields.h"

#define NPO_VENDOR_ID           0x1234
#define NPO_DEVICE_ID           0x4e50
#define NPO_REVISION            0x01

#define NPO_BAR_REGS            0
#define NPO_BAR_DOORBELL        2
#define NPO_BAR_MSIX            4
#define NPO_REGS_SIZE           0x4000
#define NPO_VECTOR_ADMIN        0

#define NPO_MAGIC               0x314f504e   /* "NPO1" */
#define NPO_IF_MAJOR            1
#define NPO_IF_MINOR            18

#define NPO_MAX_PORTS           16
#define NPO_MAX_LANES           16
#define NPO_NUM_RATES           3

/* Identity */
REG32(MAGIC, 0x000)
REG32(IF_VERSION, 0x004)
    FIELD(IF_VERSION, MINOR, 0, 16)
    FIELD(IF_VERSION, MAJOR, 16, 16)
REG32(CAPS, 0x008)
    FIELD(CAPS, FW_MAILBOX, 0, 1)
    FIELD(CAPS, AER, 1, 1)
    FIELD(CAPS, LINK, 2, 1)
    FIELD(CAPS, FAULT_INJECT, 3, 1)
    FIELD(CAPS, QUEUES, 4, 1)
    FIELD(CAPS, CLOCK, 5, 1)            /* 1.4 */
    FIELD(CAPS, FLASH, 6, 1)            /* 1.14 */
    FIELD(CAPS, MODULE, 7, 1)           /* 1.15 */
REG32(GEOMETRY, 0x00c)
    FIELD(GEOMETRY, PORTS, 0, 8)
    FIELD(GEOMETRY, LANES, 8, 8)
REG32(QUEUES, 0x010)
    FIELD(QUEUES, COUNT, 0, 16)
REG32(DB_LAYOUT, 0x014)
    FIELD(DB_LAYOUT, STRIDE_SHIFT, 0, 8)
REG32(NODE_ID, 0x018)
REG32(MEM_REGIONS, 0x01c)               /* 1.3 */
REG32(SERIAL_LO, 0x020)
REG32(SERIAL_HI, 0x024)
REG32(SCRATCH, 0x030)

/* Control and status */
REG32(CONTROL, 0x040)
    FIELD(CONTROL, RESET, 0, 1)
REG32(STATUS, 0x044)
    FIELD(STATUS, READY, 0, 1)
    FIELD(STATUS, FW_RUNNING, 1, 1)
    FIELD(STATUS, FATAL, 2, 1)
REG32(FW_VERSION, 0x048)
REG32(FW_ERROR, 0x04c)
REG32(RESET_COUNT, 0x050)               /* 1.6 */
REG32(FW_HEARTBEAT, 0x054)              /* 1.8 */
REG32(FATAL_CAUSE, 0x058)               /* 1.8 */
REG32(FLASH_STATE, 0x05c)               /* 1.14 */
    FIELD(FLASH_STATE, RUNNING, 0, 2)   /* NPO_FW_FROM_* */
    FIELD(FLASH_STATE, ACTIVE, 2, 2)    /* NPO_SLOT_* */
    FIELD(FLASH_STATE, PENDING, 4, 2)
    FIELD(FLASH_STATE, FAILED, 6, 2)    /* the slot that did not boot */
    FIELD(FLASH_STATE, FELL_BACK, 8, 1)
    FIELD(FLASH_STATE, BOOT_ERROR, 16, 8)
REG32(SLOT_A_VERSION, 0x060)            /* 1.14 */
REG32(SLOT_B_VERSION, 0x064)            /* 1.14 */

/* Flash slots (1.14): FLASH_STATE's ACTIVE and PENDING, FLASH_* arguments */
enum {
    SLOT_NONE = 0,
    SLOT_A = 1,
    SLOT_B = 2,
};
/* FLASH_STATE.RUNNING: where the running firmware came from */
enum {
    FW_FROM_NONE = 0,
    FW_FROM_SLOT_A = 1,
    FW_FROM_SLOT_B = 2,
    FW_FROM_HOST = 3,       /* FW_LOAD */
};
#define FLASH_CHUNK_MAX     (64 * 1024)     /* FLASH_DATA's length */

/* The firmware's crash record (1.8): kept across resets until the next. */
REG32(CRASH_REASON, 0x800)
REG32(CRASH_PC, 0x804)
REG32(CRASH_TIME_LO, 0x808)             /* ns since power-on */
REG32(CRASH_TIME_HI, 0x80c)
REG32(CRASH_LOG_LEN, 0x810)
REG32(CRASH_LOG, 0x840)                 /* NPO_CRASH_LOG_SIZE bytes of text */
#define NPO_CRASH_LOG_SIZE      192
#define NPO_HEARTBEAT_NS        (100 * 1000 * 1000)

/* FATAL_CAUSE: why STATUS.FATAL is set */
enum {
    NPO_FATAL_NONE = 0,
    NPO_FATAL_FW_ASSERT = 1,    /* the firmware asserted: crash record */
    NPO_FATAL_PARITY = 2,       /* uncorrectable parity error, queue engine */
};

/* Firmware mailbox */
REG32(MBOX_CMD, 0x100)
    FIELD(MBOX_CMD, OPCODE, 0, 8)
REG32(MBOX_STATUS, 0x104)
    FIELD(MBOX_STATUS, BUSY, 0, 1)
    FIELD(MBOX_STATUS, RESULT, 8, 8)
REG32(MBOX_ARG0, 0x108)
REG32(MBOX_ARG3, 0x114)
REG32(MBOX_RET0, 0x118)
REG32(MBOX_RET1, 0x11c)
#define NPO_MBOX_NUM_ARGS       4
#define NPO_MBOX_NUM_RETS       2

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
    MBOX_OP_PD_JOB = 0x35,              /* 1.6 */
    MBOX_OP_REFUSALS = 0x36,            /* 1.6 */
    MBOX_OP_QUEUE_ERRORS = 0x37,        /* 1.11 */
    MBOX_OP_QUEUE_QUERY = 0x38,         /* 1.11 */
    MBOX_OP_QUEUE_PORTS = 0x39,         /* 1.12 */
    MBOX_OP_ROUTE_SET = 0x3a,           /* 1.13 */
    MBOX_OP_TIME_SEND = 0x40,
    MBOX_OP_TIME_RECV = 0x41,
    MBOX_OP_LMSG_SEND = 0x42,           /* 1.13 */
    MBOX_OP_LMSG_RECV = 0x43,           /* 1.13 */
    MBOX_OP_FLASH_BEGIN = 0x50,         /* 1.14 */
    MBOX_OP_FLASH_DATA = 0x51,          /* 1.14 */
    MBOX_OP_FLASH_COMMIT = 0x52,        /* 1.14 */
    MBOX_OP_FLASH_ERASE = 0x53,         /* 1.14 */
    MBOX_OP_MODULE_INFO = 0x54,         /* 1.15 */
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
    MBOX_ERR_FW_TARGET = 16,            /* 1.14 */
    MBOX_ERR_FW_BOOT = 17,              /* 1.14, FLASH_STATE only */
};

/* Argument words of mailbox commands, named as registers are. */
FIELD(CLEAR_ARG0, PORT, 0, 8)           /* CLEAR_COUNTERS */
#define NPO_CLEAR_ALL_PORTS     0xff
FIELD(FAULT_ARG0, KIND, 0, 8)           /* FAULT; ARG1 the value */
FIELD(FAULT_ARG0, PORT, 8, 8)
FIELD(FAULT_ARG0, LANE, 16, 8)
FIELD(QC_ARG0, QUEUE, 0, 16)            /* QUEUE_CREATE; ARG2/3 the ring */
FIELD(QC_ARG0, SQ_LOG2, 16, 8)
FIELD(QC_ARG0, CQ_LOG2, 24, 8)
FIELD(QC_ARG1, PD, 0, 16)
FIELD(QC_ARG1, RQ_LOG2, 16, 8)
FIELD(PD_JOB_ARG0, PD, 0, 16)           /* PD_JOB; ARG1 the job */
FIELD(REFUSALS_ARG2, MAX, 0, 16)        /* REFUSALS; ARG0/1 the buffer */
FIELD(QUEUE_ERRORS_ARG2, MAX, 0, 16)    /* QUEUE_ERRORS; ARG0/1 the buffer */
FIELD(QQ_RET0, OUTSTANDING, 0, 16)      /* QUEUE_QUERY; RET1 the age, ms */
FIELD(QQ_RET0, PORT, 16, 8)             /* the head's port */
FIELD(QQ_RET0, WAIT, 24, 8)             /* what the head waits for */
/* QUEUE_QUERY: what a queue's oldest outstanding descriptor waits for. */
#define NPO_QWAIT_NONE          0       /* nothing outstanding, or running */
#define NPO_QWAIT_CQ_FULL       1       /* room in the completion ring */
#define NPO_QWAIT_LINK          2       /* its link to finish retraining */
#define NPO_QWAIT_REMOTE        3       /* the peer's answer */
#define NPO_QWAIT_RNR           4       /* a receive buffer at the peer */
#define NPO_QWAIT_TX            5       /* room on its port */
FIELD(TIME_SEND_ARG0, PORT, 0, 8)       /* TIME_SEND */
FIELD(TIME_SEND_ARG0, FLAGS, 8, 8)
#define TIME_SEND_ONE_STEP      BIT(0)  /* stamp bytes 8..15 on the way out */
#define NPO_TIME_ONE_STEP_OFFSET 8
FIELD(ROUTE_SET_ARG0, COUNT, 0, 16)     /* ROUTE_SET; ARG2/3 the table */
FIELD(LMSG_SEND_ARG0, PORT, 0, 8)       /* LMSG_SEND; ARG1 length, ARG2/3 */

/*
 * Memory region keys: a random tag above the memory table index.  The
 * local key is 32 bits wide, the remote key (1.6) 64.
 */
FIELD(MR_KEY, INDEX, 0, 16)
FIELD(MR_KEY, TAG, 16, 16)
#define NPO_MR_RKEY_INDEX_MASK  0xffffULL
#define NPO_MR_RKEY_TAG_SHIFT   16
#define NPO_MAX_PDS             65536
#define NPO_MAX_MRS             65536
#define NPO_MAX_MR_PAGES        (1u << 24)
#define NPO_MR_PAGES_PER_CMD    510

/* Interrupts: MSI-X vector 0 carries every source. */
REG32(IRQ_STATUS, 0x200)                /* write 1 to clear */
    FIELD(IRQ_STATUS, MBOX_DONE, 0, 1)
    FIELD(IRQ_STATUS, FATAL, 1, 1)
    FIELD(IRQ_STATUS, LINK, 2, 1)
    FIELD(IRQ_STATUS, TIME, 3, 1)       /* 1.4: a time-sync message came */
    FIELD(IRQ_STATUS, REFUSED, 4, 1)    /* 1.6: a remote request refused */
    FIELD(IRQ_STATUS, QUEUE_ERROR, 5, 1) /* 1.11: a queue went into error */
    FIELD(IRQ_STATUS, LMSG, 6, 1)       /* 1.13: a link message came */
REG32(IRQ_MASK, 0x204)                  /* the same bits, 1 = enabled */
REG32(LINK_EVENT_PORTS, 0x208)
#define NPO_IRQ_ALL             (R_IRQ_STATUS_MBOX_DONE_MASK | \
                                 R_IRQ_STATUS_FATAL_MASK | \
                                 R_IRQ_STATUS_LINK_MASK | \
                                 R_IRQ_STATUS_TIME_MASK | \
                                 R_IRQ_STATUS_REFUSED_MASK | \
                                 R_IRQ_STATUS_QUEUE_ERROR_MASK | \
                                 R_IRQ_STATUS_LMSG_MASK)

/* Device clock (1.4) */
REG32(CLK_MAX_ADJ, 0x300)
REG32(CLK_TIME_LO, 0x304)               /* reading it latches TIME_HI */
REG32(CLK_TIME_HI, 0x308)
REG32(CLK_ADJ_FINE, 0x30c)              /* ppm << 16, signed */
REG32(CLK_ARG_LO, 0x310)
REG32(CLK_ARG_HI, 0x314)
REG32(CLK_CMD, 0x318)
REG32(CLK_LATCH_TIME_LO, 0x320)
REG32(CLK_LATCH_TIME_HI, 0x324)
REG32(CLK_LATCH_REF_LO, 0x328)
REG32(CLK_LATCH_REF_HI, 0x32c)
REG32(CLK_RX_DROPS, 0x330)
REG32(CLK_RX_RATE, 0x334)               /* per port, messages/s; 0 none */
REG32(CLK_RX_POLICED, 0x338)

enum {
    CLK_CMD_SET = 1,
    CLK_CMD_STEP = 2,
    CLK_CMD_LATCH = 3,
};

#define NPO_CLOCK_MAX_ADJ_PPB   32000000
#define NPO_TIME_MSG_MAX        64
#define NPO_TIME_RX_BURST       16
#define NPO_TIME_RX_DEPTH       64

/*
 * Routing (1.13): the route table the driver computes, how long a
 * descriptor whose path is broken waits for a new one, and what the
 * forwarding did.  The counters wrap.
 */
REG32(ROUTE_ENTRIES, 0x400)             /* entries in the table */
REG32(ROUTE_HOLD_MS, 0x404)             /* read-write; 0: fail at once */
REG32(ROUTE_FORWARDED, 0x408)           /* descriptors passed on for others */
REG32(ROUTE_HELD, 0x40c)                /* descriptors that waited for a path */
REG32(ROUTE_EXPIRED, 0x410)             /* and failed when no path came */
REG32(ROUTE_LOOPS, 0x414)               /* paths cut at the hop limit */
REG32(LMSG_RX_DROPS, 0x418)             /* link messages with no room */

#define NPO_ROUTE_MAX           4096
#define NPO_ROUTE_MAX_HOPS      16
#define NPO_ROUTE_HOLD_MS       1000    /* ROUTE_HOLD_MS after reset */
#define NPO_ROUTE_HOLD_MS_MAX   60000
#define NPO_LMSG_MAX            256
#define NPO_LMSG_RX_DEPTH       64

/* Ports: NPO_PORT_STRIDE bytes each from NPO_PORT_BASE; offsets within. */
#define NPO_PORT_BASE           0x1000
#define NPO_PORT_STRIDE         0x40
REG32(P_CONTROL, 0x00)
    FIELD(P_CONTROL, ENABLE, 0, 1)
    FIELD(P_CONTROL, RETRAIN, 1, 1)
    FIELD(P_CONTROL, MAX_RATE, 4, 3)    /* 0: any, n: rate n at most */
    FIELD(P_CONTROL, MAX_WIDTH, 8, 5)   /* 0: any, n: n lanes at most */
    FIELD(P_CONTROL, QUARANTINE, 16, 1) /* 1.16: carries no fabric data */
REG32(P_STATUS, 0x04)
    FIELD(P_STATUS, STATE, 0, 4)
    FIELD(P_STATUS, RATE, 4, 3)         /* 0: none, 1..3 */
    FIELD(P_STATUS, WIDTH, 8, 5)
    FIELD(P_STATUS, DEGRADED, 13, 1)
    FIELD(P_STATUS, PEER_PRESENT, 14, 1)
    FIELD(P_STATUS, HIGH_BER, 15, 1)
    FIELD(P_STATUS, FAIL, 16, 8)        /* last training failure */
    FIELD(P_STATUS, LISTEN, 24, 1)
REG32(P_CAPS, 0x08)
    FIELD(P_CAPS, RATES, 0, 3)
    FIELD(P_CAPS, LANES, 8, 5)
REG32(P_PEER_NODE, 0x0c)
REG32(P_PEER_PORT, 0x10)
    FIELD(P_PEER_PORT, PORT, 0, 8)
    FIELD(P_PEER_PORT, RATES, 8, 3)
    FIELD(P_PEER_PORT, LANES, 16, 5)
    FIELD(P_PEER_PORT, VALID, 31, 1)
REG32(P_EVENTS, 0x14)                   /* write 1 to clear */
    FIELD(P_EVENTS, UP, 0, 1)
    FIELD(P_EVENTS, DOWN, 1, 1)
    FIELD(P_EVENTS, DEGRADED, 2, 1)
    FIELD(P_EVENTS, RECOVERED, 3, 1)
    FIELD(P_EVENTS, RETRAIN, 4, 1)
    FIELD(P_EVENTS, TRAIN_FAIL, 5, 1)
    FIELD(P_EVENTS, ERR_THRESHOLD, 6, 1)
    FIELD(P_EVENTS, PRBS_DONE, 7, 1)
REG32(P_PRBS, 0x18)
    FIELD(P_PRBS, DURATION_MS, 0, 16)
    FIELD(P_PRBS, HOLD, 30, 1)          /* 1.12: held after the test */
    FIELD(P_PRBS, START, 31, 1)
REG32(P_ACTIVE_LANES, 0x1c)
REG32(P_FAULT_LANES, 0x20)              /* 1.2 */
REG32(P_BER_LANES, 0x24)                /* 1.2 */
REG32(P_DOWN_REASON, 0x28)              /* 1.2 */
REG32(P_DOWN_TIME_LO, 0x2c)             /* 1.10 */
REG32(P_DOWN_TIME_HI, 0x30)             /* 1.10 */

/* P_STATUS.STATE; the driver reports it as enum npo_port_state. */
typedef enum NpoPortState {
    PORT_DISABLED = 0,
    PORT_DETECT = 1,
    PORT_POLLING = 2,
    PORT_CONFIG = 3,
    PORT_EQUALIZE = 4,
    PORT_ACTIVE = 5,
    PORT_RECOVERY = 6,
    PORT_TEST = 7,
    PORT_LOOPBACK = 8,
} NpoPortState;

/* P_STATUS.FAIL and P_DOWN_REASON */
enum npo_train_fail {
    FAIL_NONE = 0,
    FAIL_POLLING_TIMEOUT = 1,   /* peer present but silent */
    FAIL_CONFIG_TIMEOUT = 2,
    FAIL_NO_COMMON_RATE = 3,
    FAIL_NO_USABLE_LANES = 4,   /* lane 0 unusable at every rate */
    FAIL_LOSS_OF_SIGNAL = 5,    /* link lost while active */
    FAIL_PEER_DISABLED = 6,
    FAIL_ADMIN_DISABLED = 7,    /* this port was disabled */
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
    FAULT_SLOW_TRAINING = 6, /* value: us to act on a training sequence */
    FAULT_MBOX_FAIL = 7,    /* value: opcode | count << 8 (1.7) */
    FAULT_FW_HANG = 8,      /* the firmware stops (1.8) */
    FAULT_FW_ASSERT = 9,    /* value: the assert's reason code (1.8) */
    FAULT_PARITY = 10,      /* the queue engine fails (1.8) */
    FAULT_BER_RAMP = 11,    /* value: 1/100 decades of BER per second (1.9) */
    FAULT_RX_DRIFT = 12,    /* value: extra loss, 1/1000 dB per second (1.9) */
    FAULT_FW_BOOT_FAIL = 13, /* the next pending image fails to boot (1.14) */
    FAULT_FLASH_CORRUPT = 14, /* value: slot; a bit of it flips (1.14) */
    FAULT_TX_DROP = 15,     /* value: weaker launch in 1/100 dB (1.15) */
    FAULT_VANISH = 16,      /* the card leaves the bus (1.17) */
    FAULT_CLOCK_JUMP = 17,  /* value: s the clock jumps forward (1.18) */
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
/*
 * Traffic counters (1.14): supported bits 8..11, their values in a block
 * after the lanes, written when the buffer has room for it.
 */
#define NPO_STAT_TX_BYTES           8
#define NPO_STAT_TX_FRAMES          9
#define NPO_STAT_RX_BYTES           10
#define NPO_STAT_RX_FRAMES          11
#define NPO_NUM_TRAFFIC_STATS       4

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
    uint8_t flags;              /* LANE_FLAGS */
    /* thresholds at the link's rate (1.9; 0 before) */
    int16_t rx_low_alarm_cdbm;  /* the lane fails training below it */
    int16_t rx_low_warn_cdbm;
    uint16_t ber_alarm_nlog_c;  /* the training threshold */
    uint16_t ber_warn_nlog_c;   /* HIGH_BER above it */
} NpoHwLaneStats;

FIELD(LANE_FLAGS, LOS, 0, 1)
FIELD(LANE_FLAGS, CDR_LOCK, 1, 1)
FIELD(LANE_FLAGS, ACTIVE, 2, 1)
FIELD(LANE_FLAGS, TX_FAULT, 3, 1)

typedef struct QEMU_PACKED NpoHwPortStats {
    uint64_t counter[NPO_NUM_PORT_STATS];
    uint32_t supported;         /* bit n: counter[n] is counted */
    uint32_t num_lanes;
    uint64_t rsvd[3];
    NpoHwLaneStats lane[];
} NpoHwPortStats;

/*
 * MODULE_INFO block (1.15), little endian: the optical module of a port,
 * its identity (ASCII, NUL padded) and the limits it publishes.
 */
#define NPO_MODULE_ID_LEN           16
typedef struct QEMU_PACKED NpoHwModuleInfo {
    char vendor[NPO_MODULE_ID_LEN];
    char part[NPO_MODULE_ID_LEN];
    char serial[NPO_MODULE_ID_LEN];
    int16_t tx_high_alarm_cdbm;
    int16_t tx_high_warn_cdbm;
    int16_t tx_low_warn_cdbm;
    int16_t tx_low_alarm_cdbm;
    int16_t temp_high_alarm_cdeg;
    int16_t temp_high_warn_cdeg;
    uint16_t bias_high_alarm_cma;
    uint16_t bias_high_warn_cma;
} NpoHwModuleInfo;

/* MR_CREATE command block, little endian. */
typedef struct QEMU_PACKED NpoHwMrCreate {
    uint32_t key;               /* the local key */
    uint32_t pd;
    uint32_t access;
    uint32_t page_shift;
    uint64_t iova;
    uint64_t length;
    uint64_t rkey;              /* 1.6: the remote key, same index */
} NpoHwMrCreate;

/*
 * One record of the refusal log (1.6), read with REFUSALS: a remote
 * request refused for want of a region (REMOTE_ACCESS) or of a receiving
 * queue of its job (REMOTE_QUEUE), seen from either end.  Records that
 * differ only in count are merged.
 */
typedef struct QEMU_PACKED NpoHwRefusal {
    uint32_t job;               /* the requesting queue's job */
    uint32_t peer_node;         /* SIDE_REQUESTER: the destination node;
                                   SIDE_TARGET: the requesting node */
    uint16_t queue;             /* the requesting queue, on peer_node for
                                   SIDE_TARGET */
    uint8_t side;               /* NPO_REFUSAL_SIDE_* */
    uint8_t opcode;             /* NPO_OP_* of the request */
    uint32_t status;            /* NPO_STATUS_* the requester saw */
    uint32_t count;             /* refusals merged into this record */
    uint32_t rsvd;
} NpoHwRefusal;

#define NPO_REFUSAL_SIDE_REQUESTER  0   /* one of this device's queues */
#define NPO_REFUSAL_SIDE_TARGET     1   /* a peer's queue, refused here */
#define NPO_REFUSAL_DEPTH           64

/*
 * One record of the queue error log (1.11), read with QUEUE_ERRORS: a
 * queue went into error, and the work that put it there.
 */
typedef struct QEMU_PACKED NpoHwQueueError {
    uint64_t wr_id;             /* the descriptor or receive buffer */
    uint32_t status;            /* NPO_STATUS_* it completed with */
    uint32_t peer_node;         /* its destination, or a receive's sender */
    uint16_t queue;
    uint8_t opcode;             /* NPO_OP_*; NPO_QERR_OP_NONE: no descriptor */
    uint8_t port;               /* NPO_CQE_PORT_NONE: loopback or none */
    uint32_t rsvd;
} NpoHwQueueError;

#define NPO_QERR_OP_NONE            0xff    /* a tail beyond the ring */
#define NPO_QUEUE_ERROR_DEPTH       64

/* MR_PAGES command block: this header, then count 64-bit page addresses. */
typedef struct QEMU_PACKED NpoHwMrPages {
    uint32_t key;
    uint32_t count;
    uint64_t first;
} NpoHwMrPages;

/*
 * One entry of the route table (1.13), as ROUTE_SET reads it: entries in
 * ascending node order, each node once, little endian.
 */
typedef struct QEMU_PACKED NpoHwRoute {
    uint32_t node;              /* the destination */
    uint8_t port;               /* the first hop */
    uint8_t hops;               /* links on the path, 1..NPO_ROUTE_MAX_HOPS */
    uint16_t rsvd;
} NpoHwRoute;

/* LMSG_RECV's block: one link message, little endian. */
typedef struct QEMU_PACKED NpoHwLinkMsg {
    uint8_t port;               /* it came in through */
    uint8_t rsvd;
    uint16_t len;
    uint32_t rsvd2;
    uint8_t payload[NPO_LMSG_MAX];
} NpoHwLinkMsg;

/* TIME_RECV's block: one received message, little endian. */
typedef struct QEMU_PACKED NpoHwTimeMsg {
    uint64_t rx_time;           /* device ns at arrival */
    uint8_t port;
    uint8_t len;
    uint8_t rsvd[6];
    uint8_t payload[NPO_TIME_MSG_MAX];
} NpoHwTimeMsg;

#endif
