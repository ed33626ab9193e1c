/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO register interface, version 1.13.  Documentation/hardware.rst is the
 * specification; this header only names what it defines.  The driver runs
 * any 1.x device; what a later minor version added says so where defined.
 *
 * BAR0: control registers, 16 KiB, 32-bit accesses only.
 * BAR2: doorbells, one 4 KiB page per queue.
 * BAR4: MSI-X table and PBA.
 */
#ifndef _NPO_REGS_H
#define _NPO_REGS_H

#include <linux/bits.h>

#define NPO_PCI_VENDOR_ID		0x1234
#define NPO_PCI_DEVICE_ID		0x4e50

#define NPO_BAR_REGS			0
#define NPO_BAR_DOORBELL		2
#define NPO_BAR_MSIX			4
#define NPO_REGS_SIZE			0x4000

/* Identity */
#define NPO_REG_MAGIC			0x000
#define   NPO_MAGIC			0x314f504e	/* "NPO1" */
#define NPO_REG_IF_VERSION		0x004
#define   NPO_IF_VERSION_MAJOR		GENMASK(31, 16)
#define   NPO_IF_VERSION_MINOR		GENMASK(15, 0)
#define   NPO_IF_VERSION_SUPPORTED	1
#define   NPO_IF_MINOR_QUEUES		6	/* 64-bit remote keys, jobs */
#define   NPO_IF_MINOR_FW_HEALTH	8	/* heartbeat, crash record */
#define   NPO_IF_MINOR_LANE_LIMITS	9	/* lane thresholds, slow faults */
#define   NPO_IF_MINOR_DOWN_TIME	10	/* when a link went down */
#define   NPO_IF_MINOR_QUEUE_ERRORS	11	/* the queue error log */
#define   NPO_IF_MINOR_QUEUE_PORTS	12	/* the ports a queue uses */
#define   NPO_IF_MINOR_SELF_TEST	12	/* PRBS.HOLD */
#define   NPO_IF_MINOR_ROUTING		13	/* route table, link messages */
#define   NPO_IF_MINOR_FLASH		14	/* firmware flash, A/B slots */
#define   NPO_IF_MINOR_MODULE		15	/* module identity, TX_DROP fault */
#define   NPO_IF_MINOR_QUARANTINE	16	/* P_CONTROL.QUARANTINE */
#define   NPO_IF_MINOR_VANISH		17	/* the VANISH fault */
#define   NPO_IF_MINOR_TIME_AUTH	18	/* signed time messages, CLK_RX_RATE */
#define NPO_REG_CAPS			0x008
#define   NPO_CAPS_FW_MAILBOX		BIT(0)
#define   NPO_CAPS_AER			BIT(1)
#define   NPO_CAPS_LINK			BIT(2)
#define   NPO_CAPS_FAULT_INJECT		BIT(3)
#define   NPO_CAPS_QUEUES		BIT(4)
#define   NPO_CAPS_CLOCK		BIT(5)	/* interface 1.4 */
#define   NPO_CAPS_FLASH		BIT(6)	/* interface 1.14 */
#define   NPO_CAPS_MODULE		BIT(7)	/* interface 1.15 */
#define NPO_REG_GEOMETRY		0x00c
#define   NPO_GEOMETRY_PORTS		GENMASK(7, 0)
#define   NPO_GEOMETRY_LANES		GENMASK(15, 8)
#define NPO_REG_QUEUES			0x010
#define   NPO_QUEUES_COUNT		GENMASK(15, 0)
#define NPO_REG_DB_LAYOUT		0x014
#define   NPO_DB_LAYOUT_STRIDE_SHIFT	GENMASK(7, 0)
#define NPO_REG_NODE_ID			0x018
#define NPO_REG_MEM_REGIONS		0x01c	/* interface 1.3 */
#define NPO_REG_SERIAL_LO		0x020
#define NPO_REG_SERIAL_HI		0x024
#define NPO_REG_SCRATCH			0x030

/* Control and status */
#define NPO_REG_CONTROL			0x040
#define   NPO_CONTROL_RESET		BIT(0)
#define NPO_REG_STATUS			0x044
#define   NPO_STATUS_READY		BIT(0)
#define   NPO_STATUS_FW_RUNNING		BIT(1)
#define   NPO_STATUS_FATAL		BIT(2)
#define NPO_REG_FW_VERSION		0x048
#define NPO_REG_FW_ERROR		0x04c
#define NPO_REG_RESET_COUNT		0x050	/* interface 1.6 */
#define NPO_REG_FW_HEARTBEAT		0x054	/* interface 1.8 */
#define NPO_REG_FATAL_CAUSE		0x058	/* interface 1.8 */
#define   NPO_FATAL_NONE		0
#define   NPO_FATAL_FW_ASSERT		1	/* crash record filled */
#define   NPO_FATAL_PARITY		2	/* queue engine */
#define NPO_REG_FLASH_STATE		0x05c	/* interface 1.14 */
#define   NPO_FLASH_STATE_RUNNING	GENMASK(1, 0)	/* NPO_FW_FROM_* */
#define   NPO_FLASH_STATE_ACTIVE	GENMASK(3, 2)	/* NPO_SLOT_* */
#define   NPO_FLASH_STATE_PENDING	GENMASK(5, 4)	/* NPO_SLOT_* */
#define   NPO_FLASH_STATE_FAILED	GENMASK(7, 6)	/* did not boot */
#define   NPO_FLASH_STATE_FELL_BACK	BIT(8)
#define   NPO_FLASH_STATE_BOOT_ERROR	GENMASK(23, 16)	/* a result code */
#define NPO_REG_SLOT_A_VERSION		0x060	/* interface 1.14 */
#define NPO_REG_SLOT_B_VERSION		0x064	/* interface 1.14 */

/* Flash slots: FLASH_STATE's ACTIVE and PENDING, FLASH_ERASE's argument. */
enum npo_flash_slot {
	NPO_SLOT_NONE = 0,
	NPO_SLOT_A = 1,
	NPO_SLOT_B = 2,
};

/* FLASH_STATE.RUNNING: where the running firmware came from. */
enum npo_fw_from {
	NPO_FW_FROM_NONE = 0,
	NPO_FW_FROM_SLOT_A = 1,
	NPO_FW_FROM_SLOT_B = 2,
	NPO_FW_FROM_HOST = 3,		/* FW_LOAD */
};

/* FLASH_DATA moves at most this much at a time. */
#define NPO_FLASH_CHUNK_MAX		(64 * 1024)
/* Advances at least this often while the firmware runs. */
#define NPO_HEARTBEAT_PERIOD_MS		100

/* The firmware's last crash record (interface 1.8), kept across resets. */
#define NPO_REG_CRASH_REASON		0x800
#define NPO_REG_CRASH_PC		0x804
#define NPO_REG_CRASH_TIME_LO		0x808	/* ns since power-on */
#define NPO_REG_CRASH_TIME_HI		0x80c
#define NPO_REG_CRASH_LOG_LEN		0x810
#define NPO_REG_CRASH_LOG		0x840
#define   NPO_CRASH_LOG_SIZE		192

/* Firmware mailbox */
#define NPO_REG_MBOX_CMD		0x100
#define   NPO_MBOX_CMD_OPCODE		GENMASK(7, 0)
#define NPO_REG_MBOX_STATUS		0x104
#define   NPO_MBOX_STATUS_BUSY		BIT(0)
#define   NPO_MBOX_STATUS_RESULT	GENMASK(15, 8)
#define NPO_REG_MBOX_ARG(n)		(0x108 + 4 * (n))	/* n = 0..3 */
#define NPO_REG_MBOX_RET(n)		(0x118 + 4 * (n))	/* n = 0..1 */
#define NPO_MBOX_NUM_ARGS		4
#define NPO_MBOX_NUM_RETS		2

enum npo_mbox_opcode {
	NPO_MBOX_OP_NOP = 0x01,
	NPO_MBOX_OP_FW_LOAD = 0x02,
	NPO_MBOX_OP_PORT_STATS = 0x10,
	NPO_MBOX_OP_CLEAR_COUNTERS = 0x11,
	NPO_MBOX_OP_FAULT = 0x20,
	NPO_MBOX_OP_QUEUE_CREATE = 0x30,
	NPO_MBOX_OP_QUEUE_DESTROY = 0x31,
	NPO_MBOX_OP_MR_CREATE = 0x32,
	NPO_MBOX_OP_MR_PAGES = 0x33,
	NPO_MBOX_OP_MR_DESTROY = 0x34,
	NPO_MBOX_OP_PD_JOB = 0x35,		/* interface 1.6 */
	NPO_MBOX_OP_REFUSALS = 0x36,		/* interface 1.6 */
	NPO_MBOX_OP_QUEUE_ERRORS = 0x37,	/* interface 1.11 */
	NPO_MBOX_OP_QUEUE_QUERY = 0x38,		/* interface 1.11 */
	NPO_MBOX_OP_QUEUE_PORTS = 0x39,		/* interface 1.12 */
	NPO_MBOX_OP_ROUTE_SET = 0x3a,		/* interface 1.13 */
	NPO_MBOX_OP_TIME_SEND = 0x40,
	NPO_MBOX_OP_TIME_RECV = 0x41,
	NPO_MBOX_OP_LMSG_SEND = 0x42,		/* interface 1.13 */
	NPO_MBOX_OP_LMSG_RECV = 0x43,		/* interface 1.13 */
	NPO_MBOX_OP_FLASH_BEGIN = 0x50,		/* interface 1.14 */
	NPO_MBOX_OP_FLASH_DATA = 0x51,		/* interface 1.14 */
	NPO_MBOX_OP_FLASH_COMMIT = 0x52,	/* interface 1.14 */
	NPO_MBOX_OP_FLASH_ERASE = 0x53,		/* interface 1.14 */
	NPO_MBOX_OP_MODULE_INFO = 0x54,		/* interface 1.15 */
};

/* Mailbox results; FW_LOAD rejections are also latched in NPO_REG_FW_ERROR. */
enum npo_mbox_result {
	NPO_MBOX_OK = 0,
	NPO_MBOX_ERR_OPCODE = 1,
	NPO_MBOX_ERR_BUSY = 2,
	NPO_MBOX_ERR_DMA = 3,
	NPO_MBOX_ERR_FW_SIZE = 4,
	NPO_MBOX_ERR_FW_MAGIC = 5,
	NPO_MBOX_ERR_FW_FORMAT = 6,
	NPO_MBOX_ERR_FW_CRC = 7,
	NPO_MBOX_ERR_FW_SECTION = 8,
	NPO_MBOX_ERR_FW_MISSING = 9,
	NPO_MBOX_ERR_STATE = 10,
	NPO_MBOX_ERR_ARG = 11,
	NPO_MBOX_ERR_PERM = 12,
	NPO_MBOX_ERR_EXISTS = 13,
	NPO_MBOX_ERR_NOENT = 14,
	NPO_MBOX_ERR_NOMEM = 15,
	NPO_MBOX_ERR_FW_TARGET = 16,		/* interface 1.14 */
	NPO_MBOX_ERR_FW_BOOT = 17,		/* 1.14, FLASH_STATE only */
};

/* Interrupts: MSI-X vector 0 carries every source below. */
#define NPO_REG_IRQ_STATUS		0x200	/* write 1 to clear */
#define NPO_REG_IRQ_MASK		0x204	/* 1 = enabled */
#define   NPO_IRQ_MBOX_DONE		BIT(0)
#define   NPO_IRQ_FATAL			BIT(1)
#define   NPO_IRQ_LINK			BIT(2)
#define   NPO_IRQ_TIME			BIT(3)	/* a time-sync message came */
#define   NPO_IRQ_REFUSED		BIT(4)	/* 1.6: the refusal log grew */
#define   NPO_IRQ_QUEUE_ERROR		BIT(5)	/* 1.11: a queue went into error */
#define   NPO_IRQ_LMSG			BIT(6)	/* 1.13: a link message came */
#define NPO_REG_LINK_EVENT_PORTS	0x208	/* ports with pending events */

/* Device clock (interface 1.4) */
#define NPO_REG_CLK_MAX_ADJ		0x300	/* ppb */
#define NPO_REG_CLK_TIME_LO		0x304	/* latches TIME_HI */
#define NPO_REG_CLK_TIME_HI		0x308
#define NPO_REG_CLK_ADJ_FINE		0x30c	/* ppm << 16, signed */
#define NPO_REG_CLK_ARG_LO		0x310
#define NPO_REG_CLK_ARG_HI		0x314
#define NPO_REG_CLK_CMD			0x318
#define   NPO_CLK_CMD_SET		1
#define   NPO_CLK_CMD_STEP		2
#define   NPO_CLK_CMD_LATCH		3
#define NPO_REG_CLK_LATCH_TIME_LO	0x320
#define NPO_REG_CLK_LATCH_TIME_HI	0x324
#define NPO_REG_CLK_LATCH_REF_LO	0x328	/* the CPU's TSC */
#define NPO_REG_CLK_LATCH_REF_HI	0x32c
#define NPO_REG_CLK_RX_DROPS		0x330
#define NPO_REG_CLK_RX_RATE		0x334	/* interface 1.18 */
#define NPO_REG_CLK_RX_POLICED		0x338

/* Routing (interface 1.13); the counters wrap. */
#define NPO_REG_ROUTE_ENTRIES		0x400
#define NPO_REG_ROUTE_HOLD_MS		0x404	/* read-write */
#define NPO_REG_ROUTE_FORWARDED		0x408
#define NPO_REG_ROUTE_HELD		0x40c
#define NPO_REG_ROUTE_EXPIRED		0x410
#define NPO_REG_ROUTE_LOOPS		0x414
#define NPO_REG_LMSG_RX_DROPS		0x418
#define NPO_ROUTE_MAX			4096
#define NPO_ROUTE_MAX_HOPS		16
#define NPO_ROUTE_HOLD_MS_MAX		60000
#define NPO_LMSG_MAX			256
#define NPO_LMSG_RX_DEPTH		64

/* Ports: NPO_PORT_STRIDE bytes each from NPO_PORT_BASE. */
#define NPO_PORT_BASE			0x1000
#define NPO_PORT_STRIDE			0x40
#define NPO_PORT_REG(p, r)		(NPO_PORT_BASE + (p) * NPO_PORT_STRIDE + (r))
#define NPO_P_CONTROL			0x00
#define   NPO_PCTL_ENABLE		BIT(0)
#define   NPO_PCTL_RETRAIN		BIT(1)
#define   NPO_PCTL_MAX_RATE		GENMASK(6, 4)
#define   NPO_PCTL_MAX_WIDTH		GENMASK(12, 8)
#define   NPO_PCTL_QUARANTINE		BIT(16)
#define NPO_P_STATUS			0x04
#define   NPO_PST_STATE			GENMASK(3, 0)
#define   NPO_PST_RATE			GENMASK(6, 4)
#define   NPO_PST_WIDTH			GENMASK(12, 8)
#define   NPO_PST_DEGRADED		BIT(13)
#define   NPO_PST_PEER_PRESENT		BIT(14)
#define   NPO_PST_HIGH_BER		BIT(15)
#define   NPO_PST_FAIL			GENMASK(23, 16)
#define   NPO_PST_LISTEN		BIT(24)
#define NPO_P_CAPS			0x08
#define   NPO_PCAPS_RATES		GENMASK(2, 0)
#define   NPO_PCAPS_LANES		GENMASK(12, 8)
#define NPO_P_PEER_NODE			0x0c
#define NPO_P_PEER_PORT			0x10
#define   NPO_PPEER_PORT		GENMASK(7, 0)
#define   NPO_PPEER_RATES		GENMASK(10, 8)
#define   NPO_PPEER_LANES		GENMASK(20, 16)
#define   NPO_PPEER_VALID		BIT(31)
#define NPO_P_EVENTS			0x14	/* write 1 to clear */
#define   NPO_PEV_UP			BIT(0)
#define   NPO_PEV_DOWN			BIT(1)
#define   NPO_PEV_DEGRADED		BIT(2)
#define   NPO_PEV_RECOVERED		BIT(3)
#define   NPO_PEV_RETRAIN		BIT(4)
#define   NPO_PEV_TRAIN_FAIL		BIT(5)
#define   NPO_PEV_ERR_THRESHOLD		BIT(6)
#define   NPO_PEV_PRBS_DONE		BIT(7)
#define NPO_P_PRBS			0x18
#define   NPO_PRBS_DURATION_MS		GENMASK(15, 0)
#define   NPO_PRBS_HOLD			BIT(30)	/* interface 1.12 */
#define   NPO_PRBS_START		BIT(31)
#define NPO_P_ACTIVE_LANES		0x1c
/* Interface 1.2 and later */
#define NPO_P_FAULT_LANES		0x20
#define NPO_P_BER_LANES			0x24
#define NPO_P_DOWN_REASON		0x28
#define NPO_P_DOWN_TIME_LO		0x2c	/* device clock at the loss */
#define NPO_P_DOWN_TIME_HI		0x30

#define NPO_NUM_RATES			3
#define NPO_MAX_LANES			16

/* Lane rates, as PST_RATE, PCTL_MAX_RATE and the rate bit masks number them. */
enum npo_hw_rate {
	NPO_HW_RATE_NONE = 0,
	NPO_HW_RATE_53G = 1,		/* 53.125 Gb/s */
	NPO_HW_RATE_106G = 2,		/* 106.25 Gb/s */
	NPO_HW_RATE_212G = 3,		/* 212.5 Gb/s */
};

/* Why training failed or the link went down: PST_FAIL and DOWN_REASON. */
enum npo_hw_link_fail {
	NPO_HW_FAIL_NONE = 0,
	NPO_HW_FAIL_POLLING_TIMEOUT = 1,
	NPO_HW_FAIL_CONFIG_TIMEOUT = 2,
	NPO_HW_FAIL_NO_COMMON_RATE = 3,
	NPO_HW_FAIL_NO_USABLE_LANES = 4,
	NPO_HW_FAIL_LOSS_OF_SIGNAL = 5,
	NPO_HW_FAIL_PEER_DISABLED = 6,
	NPO_HW_FAIL_ADMIN_DISABLED = 7,
	NPO_HW_FAIL_TEST = 8,
	NPO_HW_FAIL_PEER_TEST = 9,
	NPO_HW_FAIL_NO_FIRMWARE = 10,
};

/* Port statistics block written by NPO_MBOX_OP_PORT_STATS. */
enum npo_hw_port_counter {
	NPO_HW_CNT_CRC_ERRORS,
	NPO_HW_CNT_REPLAYS,
	NPO_HW_CNT_RECOVERIES,
	NPO_HW_CNT_LINK_DOWNS,
	NPO_HW_CNT_TRAIN_FAILURES,
	NPO_HW_CNT_FEC_CORRECTED,
	NPO_HW_CNT_FEC_UNCORRECTABLE,
	NPO_HW_CNT_SYMBOL_ERRORS,
	NPO_HW_NUM_COUNTERS
};

/*
 * Traffic counters (interface 1.14): supported bits 8..11, the values in
 * a block after the lanes, written when the buffer has room for it.
 */
enum npo_hw_traffic_counter {
	NPO_HW_TRAFFIC_TX_BYTES,
	NPO_HW_TRAFFIC_TX_FRAMES,
	NPO_HW_TRAFFIC_RX_BYTES,
	NPO_HW_TRAFFIC_RX_FRAMES,
	NPO_HW_NUM_TRAFFIC
};

#define NPO_HW_TRAFFIC_SUPPORTED(i)	BIT(NPO_HW_NUM_COUNTERS + (i))

/**
 * struct npo_hw_lane_stats - one lane in the statistics block
 * @fec_corrected: FEC codewords corrected.
 * @fec_uncorrectable: FEC codewords not correctable.
 * @symbol_errors: FEC symbol errors.
 * @prbs_bits: bits checked by PRBS tests.
 * @prbs_errors: bit errors seen by PRBS tests.
 * @rx_power_cdbm: received power, 1/100 dBm.
 * @tx_power_cdbm: transmitted power, 1/100 dBm.
 * @bias_cma: laser bias, 1/100 mA.
 * @temp_cdeg: temperature, 1/100 degC.
 * @ber_nlog_c: -log10(pre-FEC BER) x 100.
 * @eye_height_mv: eye height, mV.
 * @eye_width_mui: eye width, milli-UI.
 * @preset: equalization preset in use.
 * @flags: NPO_HW_LANE_*.
 * @rx_low_alarm_cdbm: received power below which the lane fails training
 *	at the link's rate, 1/100 dBm (interface 1.9; 0 before, or without
 *	firmware).
 * @rx_low_warn_cdbm: received power warning threshold, 1/100 dBm.
 * @ber_alarm_nlog_c: the training BER threshold, -log10 x 100.
 * @ber_warn_nlog_c: the BER warning threshold (HIGH_BER), -log10 x 100.
 */
struct npo_hw_lane_stats {
	__le64 fec_corrected;
	__le64 fec_uncorrectable;
	__le64 symbol_errors;
	__le64 prbs_bits;
	__le64 prbs_errors;
	__le16 rx_power_cdbm;
	__le16 tx_power_cdbm;
	__le16 bias_cma;
	__le16 temp_cdeg;
	__le16 ber_nlog_c;
	__le16 eye_height_mv;
	__le16 eye_width_mui;
	u8 preset;
	u8 flags;
	__le16 rx_low_alarm_cdbm;
	__le16 rx_low_warn_cdbm;
	__le16 ber_alarm_nlog_c;
	__le16 ber_warn_nlog_c;
} __packed;

#define NPO_HW_MODULE_ID_LEN		16

/**
 * struct npo_hw_module_info - MODULE_INFO block: a port's optical module
 * @vendor: vendor name, ASCII, NUL padded.
 * @part: part number, likewise.
 * @serial: serial number, likewise.
 * @tx_high_alarm_cdbm: transmit power high alarm, 1/100 dBm.
 * @tx_high_warn_cdbm: transmit power high warning, 1/100 dBm.
 * @tx_low_warn_cdbm: transmit power low warning, 1/100 dBm.
 * @tx_low_alarm_cdbm: transmit power low alarm, 1/100 dBm.
 * @temp_high_alarm_cdeg: temperature high alarm, 1/100 degC.
 * @temp_high_warn_cdeg: temperature high warning, 1/100 degC.
 * @bias_high_alarm_cma: laser bias high alarm, 1/100 mA.
 * @bias_high_warn_cma: laser bias high warning, 1/100 mA.
 */
struct npo_hw_module_info {
	char vendor[NPO_HW_MODULE_ID_LEN];
	char part[NPO_HW_MODULE_ID_LEN];
	char serial[NPO_HW_MODULE_ID_LEN];
	__le16 tx_high_alarm_cdbm;
	__le16 tx_high_warn_cdbm;
	__le16 tx_low_warn_cdbm;
	__le16 tx_low_alarm_cdbm;
	__le16 temp_high_alarm_cdeg;
	__le16 temp_high_warn_cdeg;
	__le16 bias_high_alarm_cma;
	__le16 bias_high_warn_cma;
} __packed;

#define NPO_HW_LANE_LOS			BIT(0)
#define NPO_HW_LANE_CDR_LOCK		BIT(1)
#define NPO_HW_LANE_ACTIVE		BIT(2)
#define NPO_HW_LANE_TX_FAULT		BIT(3)

/**
 * struct npo_hw_port_stats - statistics block of one port
 * @counter: &enum npo_hw_port_counter values.
 * @supported: bit n set if the device implements counter n.
 * @num_lanes: lanes that follow.
 * @rsvd: reserved.
 * @lane: per-lane statistics.
 */
struct npo_hw_port_stats {
	__le64 counter[NPO_HW_NUM_COUNTERS];
	__le32 supported;
	__le32 num_lanes;
	__le64 rsvd[3];
	struct npo_hw_lane_stats lane[];
} __packed;

/* The block PORT_STATS writes for @lanes lanes, traffic included. */
#define npo_hw_port_stats_size(lanes)					\
	(struct_size_t(struct npo_hw_port_stats, lane, (lanes)) +	\
	 NPO_HW_NUM_TRAFFIC * sizeof(__le64))

/* The traffic block of @st, a block for @lanes lanes. */
static inline const __le64 *npo_hw_port_traffic(const struct npo_hw_port_stats *st,
						unsigned int lanes)
{
	return (const __le64 *)&st->lane[lanes];
}

enum npo_hw_port_state {
	NPO_HW_PORT_DISABLED = 0,
	NPO_HW_PORT_DETECT = 1,
	NPO_HW_PORT_POLLING = 2,
	NPO_HW_PORT_CONFIG = 3,
	NPO_HW_PORT_EQUALIZE = 4,
	NPO_HW_PORT_ACTIVE = 5,
	NPO_HW_PORT_RECOVERY = 6,
	NPO_HW_PORT_TEST = 7,
	NPO_HW_PORT_LOOPBACK = 8,
};

#define NPO_IRQ_VECTOR_ADMIN		0

/* Timings the driver may rely on (Documentation/hardware.rst). */
#define NPO_RESET_TIMEOUT_MS		100
#define NPO_MBOX_TIMEOUT_MS		2000

/* FAULT (test devices only): ARG0 fields; ARG1 the value. */
#define NPO_FAULT_KIND			GENMASK(7, 0)
#define NPO_FAULT_PORT			GENMASK(15, 8)
#define NPO_FAULT_LANE			GENMASK(23, 16)

enum npo_hw_fault_kind {
	NPO_HW_FAULT_CLEAR_ALL = 0,
	NPO_HW_FAULT_LANE_BER = 1,	/* -log10(BER) x 100, 0 clears */
	NPO_HW_FAULT_LANE_DEAD = 2,	/* 0/1 */
	NPO_HW_FAULT_RX_DROP = 3,	/* extra loss, 1/100 dB */
	NPO_HW_FAULT_CUT = 4,		/* 0 restore, 1 cut */
	NPO_HW_FAULT_BURST = 5,		/* uncorrectable codewords */
	NPO_HW_FAULT_SLOW_TRAINING = 6,	/* us to act on a training sequence */
	NPO_HW_FAULT_MBOX_FAIL = 7,	/* opcode | count << 8 (interface 1.7) */
	NPO_HW_FAULT_FW_HANG = 8,	/* the firmware stops (interface 1.8) */
	NPO_HW_FAULT_FW_ASSERT = 9,	/* it asserts with this reason code */
	NPO_HW_FAULT_PARITY = 10,	/* the queue engine fails */
	NPO_HW_FAULT_BER_RAMP = 11,	/* 1/100 decades/s (interface 1.9) */
	NPO_HW_FAULT_RX_DRIFT = 12,	/* 1/1000 dB/s of extra loss */
	NPO_HW_FAULT_FW_BOOT_FAIL = 13,	/* next pending image (interface 1.14) */
	NPO_HW_FAULT_FLASH_CORRUPT = 14, /* a bit of this slot flips */
	NPO_HW_FAULT_TX_DROP = 15,	/* 1/100 dB weaker launch (interface 1.15) */
	NPO_HW_FAULT_VANISH = 16,	/* the card leaves the bus (interface 1.17) */
	NPO_HW_FAULT_CLOCK_JUMP = 17,	/* s the clock jumps (interface 1.18) */
	NPO_HW_NUM_FAULTS
};

/* QUEUE_CREATE: ARG0 and ARG1 fields; ARG2/3 the ring address. */
#define NPO_QC_QUEUE			GENMASK(15, 0)
#define NPO_QC_SQ_LOG2			GENMASK(23, 16)
#define NPO_QC_CQ_LOG2			GENMASK(31, 24)
#define NPO_QC_PD			GENMASK(15, 0)
#define NPO_QC_RQ_LOG2			GENMASK(23, 16)

/*
 * Memory region keys: a random tag above the memory table index, 32 bits
 * in all for the local key and 64 for the remote key.
 */
#define NPO_MR_KEY_INDEX		GENMASK(15, 0)
#define NPO_MR_KEY_TAG			GENMASK(31, 16)
#define NPO_MR_RKEY_INDEX		GENMASK_ULL(15, 0)
#define NPO_MR_RKEY_TAG			GENMASK_ULL(63, 16)

/* PD_JOB: ARG0 the protection domain, ARG1 its job. */
#define NPO_PD_JOB_PD			GENMASK(15, 0)
#define NPO_MR_MAX_PAGES		BIT(24)

/**
 * struct npo_hw_mr_create - MR_CREATE command block
 * @key: the region's local key.
 * @pd: protection domain that may use it as a local key.
 * @access: NPO_ACCESS_* rights.
 * @page_shift: log2 of the page size of the page list.
 * @iova: address descriptors use for the region's first byte.
 * @length: bytes.
 * @rkey: the region's remote key, same index (interface 1.6).
 */
struct npo_hw_mr_create {
	__le32 key;
	__le32 pd;
	__le32 access;
	__le32 page_shift;
	__le64 iova;
	__le64 length;
	__le64 rkey;
} __packed;

/**
 * struct npo_hw_mr_pages - MR_PAGES command block, followed by @count
 *	little-endian 64-bit page bus addresses
 * @key: the region being created.
 * @count: addresses that follow, 1..NPO_MR_PAGES_PER_CMD.
 * @first: index of the first page they describe.
 */
struct npo_hw_mr_pages {
	__le32 key;
	__le32 count;
	__le64 first;
} __packed;

#define NPO_MR_PAGES_PER_CMD		510

/* REFUSALS: ARG0/1 the buffer, ARG2 how many records it holds. */
#define NPO_REFUSALS_MAX		GENMASK(15, 0)
#define NPO_REFUSAL_DEPTH		64

enum npo_hw_refusal_side {
	NPO_HW_REFUSAL_SIDE_REQUESTER = 0,	/* one of this device's queues */
	NPO_HW_REFUSAL_SIDE_TARGET = 1,		/* a peer's queue, refused here */
};

/**
 * struct npo_hw_refusal - one record of the refusal log (interface 1.6)
 * @job: the requesting queue's job.
 * @peer_node: REQUESTER: the destination node; TARGET: the requesting
 *	node.
 * @queue: the requesting queue (on @peer_node for TARGET).
 * @side: &enum npo_hw_refusal_side.
 * @opcode: NPO_OP_* of the request.
 * @status: NPO_STATUS_* the requester saw.
 * @count: refusals merged into this record.
 * @rsvd: zero.
 */
struct npo_hw_refusal {
	__le32 job;
	__le32 peer_node;
	__le16 queue;
	u8 side;
	u8 opcode;
	__le32 status;
	__le32 count;
	__le32 rsvd;
} __packed;

/*
 * QUEUE_QUERY: ARG0 the queue; RET0 its outstanding descriptors, the port
 * the oldest goes through and what it waits for, RET1 how long it has
 * been at the head, ms.
 */
#define NPO_QQ_OUTSTANDING		GENMASK(15, 0)
#define NPO_QQ_PORT			GENMASK(23, 16)
#define NPO_QQ_WAIT			GENMASK(31, 24)

/* What the oldest descriptor waits for (NPO_QQ_WAIT). */
enum npo_hw_queue_wait {
	NPO_HW_QWAIT_NONE = 0,
	NPO_HW_QWAIT_CQ_FULL = 1,
	NPO_HW_QWAIT_LINK = 2,
	NPO_HW_QWAIT_REMOTE = 3,
	NPO_HW_QWAIT_RNR = 4,
	NPO_HW_QWAIT_TX = 5,
};

/* QUEUE_ERRORS: ARG0/1 the buffer, ARG2 how many records it holds. */
#define NPO_QUEUE_ERRORS_MAX		GENMASK(15, 0)
#define NPO_QUEUE_ERROR_DEPTH		64
#define NPO_QERR_OP_NONE		0xff	/* a tail beyond the ring */

/**
 * struct npo_hw_queue_error - one record of the queue error log (1.11)
 * @wr_id: the descriptor's or receive buffer's wr_id.
 * @status: NPO_STATUS_* it completed with.
 * @peer_node: its destination node, or the sender of a receive.
 * @queue: the queue that went into error.
 * @opcode: NPO_OP_* of the work; NPO_QERR_OP_NONE if no descriptor was
 *	at fault (a tail beyond the ring).
 * @port: the port it went through; NPO_CQE_PORT_NONE in loopback.
 * @rsvd: zero.
 */
struct npo_hw_queue_error {
	__le64 wr_id;
	__le32 status;
	__le32 peer_node;
	__le16 queue;
	u8 opcode;
	u8 port;
	__le32 rsvd;
} __packed;

/* TIME_SEND: ARG0 fields; the one-step stamp goes at byte 8. */
#define NPO_TIME_SEND_PORT		GENMASK(7, 0)
#define NPO_TIME_SEND_FLAGS		GENMASK(15, 8)
#define   NPO_TIME_SEND_ONE_STEP	BIT(0)
#define NPO_TIME_ONE_STEP_OFFSET	8
#define NPO_TIME_MSG_MAX		64	/* 48 before interface 1.18 */
#define NPO_TIME_RX_BURST		16
#define NPO_TIME_RX_DEPTH		64

/* ROUTE_SET: ARG0 the entry count, ARG2/3 the table. */
#define NPO_ROUTE_SET_COUNT		GENMASK(15, 0)

/**
 * struct npo_hw_route - ROUTE_SET table entry, in ascending node order
 * @node: the destination node, each once, never the device's own.
 * @port: the first hop.
 * @hops: links on the path, 1..%NPO_ROUTE_MAX_HOPS.
 * @rsvd: zero.
 */
struct npo_hw_route {
	__le32 node;
	u8 port;
	u8 hops;
	__le16 rsvd;
} __packed;

/* LMSG_SEND: ARG0 the port, ARG1 the length, ARG2/3 the payload. */
#define NPO_LMSG_SEND_PORT		GENMASK(7, 0)

/**
 * struct npo_hw_link_msg - LMSG_RECV block: one link message
 * @port: the port it came in through.
 * @rsvd: zero.
 * @len: payload bytes, 1..%NPO_LMSG_MAX.
 * @rsvd2: zero.
 * @payload: the message, as the peer's driver sent it.
 */
struct npo_hw_link_msg {
	u8 port;
	u8 rsvd;
	__le16 len;
	__le32 rsvd2;
	u8 payload[NPO_LMSG_MAX];
} __packed;

/**
 * struct npo_hw_time_msg - TIME_RECV block: one received message
 * @rx_time: device time at its arrival, stamped by the device.
 * @port: the port it arrived on.
 * @len: payload bytes.
 * @rsvd: zero.
 * @payload: the message.
 */
struct npo_hw_time_msg {
	__le64 rx_time;
	u8 port;
	u8 len;
	u8 rsvd[6];
	u8 payload[NPO_TIME_MSG_MAX];
} __packed;

#endif /* _NPO_REGS_H */
