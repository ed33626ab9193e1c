// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The register interface is written twice: driver/npo_regs.h for the driver
 * and tools/qemu/npo-regs.h for the device model.  This test includes both
 * and checks that every offset, field, code, constant and block layout they
 * share agrees: at build time (a static assertion per fact), and again at
 * run time, to report each fact in the TAP output.
 */
#include "qemu/osdep.h"
#include <ctype.h>
#include "npo-regs.h"

/*
 * Names both headers define: keep the model's values, then take the
 * driver's under the same names.
 */
enum {
	MODEL_MAGIC = NPO_MAGIC,
	MODEL_REGS_SIZE = NPO_REGS_SIZE,
	MODEL_BAR_REGS = NPO_BAR_REGS,
	MODEL_BAR_DOORBELL = NPO_BAR_DOORBELL,
	MODEL_BAR_MSIX = NPO_BAR_MSIX,
	MODEL_NUM_RATES = NPO_NUM_RATES,
	MODEL_MAX_LANES = NPO_MAX_LANES,
	MODEL_MR_PAGES_PER_CMD = NPO_MR_PAGES_PER_CMD,
	MODEL_TIME_MSG_MAX = NPO_TIME_MSG_MAX,
	MODEL_TIME_RX_DEPTH = NPO_TIME_RX_DEPTH,
	MODEL_TIME_RX_BURST = NPO_TIME_RX_BURST,
	MODEL_TIME_ONE_STEP_OFFSET = NPO_TIME_ONE_STEP_OFFSET,
	MODEL_MBOX_NUM_ARGS = NPO_MBOX_NUM_ARGS,
	MODEL_MBOX_NUM_RETS = NPO_MBOX_NUM_RETS,
	MODEL_PORT_BASE = NPO_PORT_BASE,
	MODEL_PORT_STRIDE = NPO_PORT_STRIDE,
	MODEL_REFUSAL_DEPTH = NPO_REFUSAL_DEPTH,
	MODEL_QUEUE_ERROR_DEPTH = NPO_QUEUE_ERROR_DEPTH,
	MODEL_QERR_OP_NONE = NPO_QERR_OP_NONE,
	MODEL_ROUTE_MAX = NPO_ROUTE_MAX,
	MODEL_ROUTE_MAX_HOPS = NPO_ROUTE_MAX_HOPS,
	MODEL_ROUTE_HOLD_MS_MAX = NPO_ROUTE_HOLD_MS_MAX,
	MODEL_LMSG_MAX = NPO_LMSG_MAX,
	MODEL_LMSG_RX_DEPTH = NPO_LMSG_RX_DEPTH,
	MODEL_CRASH_LOG_SIZE = NPO_CRASH_LOG_SIZE,
	/* An enum in the model, macros of the same names in the driver. */
	MODEL_FATAL_NONE = NPO_FATAL_NONE,
	MODEL_FATAL_FW_ASSERT = NPO_FATAL_FW_ASSERT,
	MODEL_FATAL_PARITY = NPO_FATAL_PARITY,
};
#undef NPO_MAGIC
#undef NPO_REGS_SIZE
#undef NPO_BAR_REGS
#undef NPO_BAR_DOORBELL
#undef NPO_BAR_MSIX
#undef NPO_NUM_RATES
#undef NPO_MAX_LANES
#undef NPO_MR_PAGES_PER_CMD
#undef NPO_TIME_MSG_MAX
#undef NPO_TIME_RX_DEPTH
#undef NPO_TIME_RX_BURST
#undef NPO_TIME_ONE_STEP_OFFSET
#undef NPO_MBOX_NUM_ARGS
#undef NPO_MBOX_NUM_RETS
#undef NPO_PORT_BASE
#undef NPO_PORT_STRIDE
#undef NPO_REFUSAL_DEPTH
#undef NPO_QUEUE_ERROR_DEPTH
#undef NPO_QERR_OP_NONE
#undef NPO_ROUTE_MAX
#undef NPO_ROUTE_MAX_HOPS
#undef NPO_ROUTE_HOLD_MS_MAX
#undef NPO_LMSG_MAX
#undef NPO_LMSG_RX_DEPTH
#undef NPO_CRASH_LOG_SIZE

#include "driver/npo_regs.h"
#include "kselftest_harness.h"

#define LANE(f)	offsetof(struct npo_hw_lane_stats, f), offsetof(NpoHwLaneStats, f)
#define PORTST(f) offsetof(struct npo_hw_port_stats, f), offsetof(NpoHwPortStats, f)
#define MRC(f)	offsetof(struct npo_hw_mr_create, f), offsetof(NpoHwMrCreate, f)
#define MRP(f)	offsetof(struct npo_hw_mr_pages, f), offsetof(NpoHwMrPages, f)
#define TMSG(f)	offsetof(struct npo_hw_time_msg, f), offsetof(NpoHwTimeMsg, f)
#define REFUSAL(f) offsetof(struct npo_hw_refusal, f), offsetof(NpoHwRefusal, f)
#define QERR(f)	offsetof(struct npo_hw_queue_error, f), offsetof(NpoHwQueueError, f)
#define ROUTE(f) offsetof(struct npo_hw_route, f), offsetof(NpoHwRoute, f)
#define LMSG(f)	offsetof(struct npo_hw_link_msg, f), offsetof(NpoHwLinkMsg, f)
#define MODULE(f) offsetof(struct npo_hw_module_info, f), offsetof(NpoHwModuleInfo, f)

/* X(what, the driver's value, the model's value) for every shared fact. */
#define FACTS(X)							\
	/* identity and BARs */						\
	X(vendor, NPO_PCI_VENDOR_ID, NPO_VENDOR_ID)			\
	X(device, NPO_PCI_DEVICE_ID, NPO_DEVICE_ID)			\
	X(magic, NPO_MAGIC, MODEL_MAGIC)				\
	X(regs_size, NPO_REGS_SIZE, MODEL_REGS_SIZE)			\
	X(bar_regs, NPO_BAR_REGS, MODEL_BAR_REGS)			\
	X(bar_doorbell, NPO_BAR_DOORBELL, MODEL_BAR_DOORBELL)		\
	X(bar_msix, NPO_BAR_MSIX, MODEL_BAR_MSIX)			\
	X(admin_vector, NPO_IRQ_VECTOR_ADMIN, NPO_VECTOR_ADMIN)		\
	X(if_major, NPO_IF_VERSION_SUPPORTED, NPO_IF_MAJOR)		\
	X(reg_magic, NPO_REG_MAGIC, A_MAGIC)				\
	X(reg_if_version, NPO_REG_IF_VERSION, A_IF_VERSION)		\
	X(if_major_field, NPO_IF_VERSION_MAJOR, R_IF_VERSION_MAJOR_MASK) \
	X(if_minor_field, NPO_IF_VERSION_MINOR, R_IF_VERSION_MINOR_MASK) \
	X(reg_caps, NPO_REG_CAPS, A_CAPS)				\
	X(caps_fw_mailbox, NPO_CAPS_FW_MAILBOX, R_CAPS_FW_MAILBOX_MASK)	\
	X(caps_aer, NPO_CAPS_AER, R_CAPS_AER_MASK)			\
	X(caps_link, NPO_CAPS_LINK, R_CAPS_LINK_MASK)			\
	X(caps_fault_inject, NPO_CAPS_FAULT_INJECT, R_CAPS_FAULT_INJECT_MASK) \
	X(caps_queues, NPO_CAPS_QUEUES, R_CAPS_QUEUES_MASK)		\
	X(caps_clock, NPO_CAPS_CLOCK, R_CAPS_CLOCK_MASK)		\
	X(caps_flash, NPO_CAPS_FLASH, R_CAPS_FLASH_MASK)		\
	X(caps_module, NPO_CAPS_MODULE, R_CAPS_MODULE_MASK)		\
	X(if_minor_time_auth, NPO_IF_MINOR_TIME_AUTH, NPO_IF_MINOR)	\
	X(reg_flash_state, NPO_REG_FLASH_STATE, A_FLASH_STATE)		\
	X(reg_slot_a_version, NPO_REG_SLOT_A_VERSION, A_SLOT_A_VERSION) \
	X(reg_slot_b_version, NPO_REG_SLOT_B_VERSION, A_SLOT_B_VERSION) \
	/* firmware health (1.8) */					\
	X(reg_fw_heartbeat, NPO_REG_FW_HEARTBEAT, A_FW_HEARTBEAT)	\
	X(reg_fatal_cause, NPO_REG_FATAL_CAUSE, A_FATAL_CAUSE)		\
	X(reg_crash_reason, NPO_REG_CRASH_REASON, A_CRASH_REASON)	\
	X(reg_crash_pc, NPO_REG_CRASH_PC, A_CRASH_PC)			\
	X(reg_crash_time_lo, NPO_REG_CRASH_TIME_LO, A_CRASH_TIME_LO)	\
	X(reg_crash_time_hi, NPO_REG_CRASH_TIME_HI, A_CRASH_TIME_HI)	\
	X(reg_crash_log_len, NPO_REG_CRASH_LOG_LEN, A_CRASH_LOG_LEN)	\
	X(reg_crash_log, NPO_REG_CRASH_LOG, A_CRASH_LOG)		\
	X(crash_log_size, NPO_CRASH_LOG_SIZE, MODEL_CRASH_LOG_SIZE)	\
	X(heartbeat_period_ns, NPO_HEARTBEAT_PERIOD_MS * 1000000ULL,	\
	  NPO_HEARTBEAT_NS)						\
	X(fatal_none, NPO_FATAL_NONE, MODEL_FATAL_NONE)			\
	X(fatal_fw_assert, NPO_FATAL_FW_ASSERT, MODEL_FATAL_FW_ASSERT)	\
	X(fatal_parity, NPO_FATAL_PARITY, MODEL_FATAL_PARITY)		\
	X(flash_running, NPO_FLASH_STATE_RUNNING, R_FLASH_STATE_RUNNING_MASK) \
	X(flash_active, NPO_FLASH_STATE_ACTIVE, R_FLASH_STATE_ACTIVE_MASK) \
	X(flash_pending, NPO_FLASH_STATE_PENDING, R_FLASH_STATE_PENDING_MASK) \
	X(flash_failed, NPO_FLASH_STATE_FAILED, R_FLASH_STATE_FAILED_MASK) \
	X(flash_fell_back, NPO_FLASH_STATE_FELL_BACK,			\
	  R_FLASH_STATE_FELL_BACK_MASK)					\
	X(flash_boot_error, NPO_FLASH_STATE_BOOT_ERROR,			\
	  R_FLASH_STATE_BOOT_ERROR_MASK)				\
	X(reg_slot_a, NPO_REG_SLOT_A_VERSION, A_SLOT_A_VERSION)		\
	X(reg_slot_b, NPO_REG_SLOT_B_VERSION, A_SLOT_B_VERSION)		\
	X(slot_a, NPO_SLOT_A, SLOT_A)				\
	X(slot_b, NPO_SLOT_B, SLOT_B)				\
	X(fw_from_host, NPO_FW_FROM_HOST, FW_FROM_HOST)		\
	X(fw_from_b, NPO_FW_FROM_SLOT_B, FW_FROM_SLOT_B)		\
	X(flash_chunk, NPO_FLASH_CHUNK_MAX, FLASH_CHUNK_MAX)	\
	X(reg_geometry, NPO_REG_GEOMETRY, A_GEOMETRY)			\
	X(geometry_ports, NPO_GEOMETRY_PORTS, R_GEOMETRY_PORTS_MASK)	\
	X(geometry_lanes, NPO_GEOMETRY_LANES, R_GEOMETRY_LANES_MASK)	\
	X(reg_queues, NPO_REG_QUEUES, A_QUEUES)				\
	X(queues_count, NPO_QUEUES_COUNT, R_QUEUES_COUNT_MASK)		\
	X(reg_db_layout, NPO_REG_DB_LAYOUT, A_DB_LAYOUT)		\
	X(db_stride_shift, NPO_DB_LAYOUT_STRIDE_SHIFT,			\
	  R_DB_LAYOUT_STRIDE_SHIFT_MASK)				\
	X(reg_node_id, NPO_REG_NODE_ID, A_NODE_ID)			\
	X(reg_mem_regions, NPO_REG_MEM_REGIONS, A_MEM_REGIONS)		\
	X(reg_serial_lo, NPO_REG_SERIAL_LO, A_SERIAL_LO)		\
	X(reg_serial_hi, NPO_REG_SERIAL_HI, A_SERIAL_HI)		\
	X(reg_scratch, NPO_REG_SCRATCH, A_SCRATCH)			\
	/* control, status, firmware */					\
	X(reg_control, NPO_REG_CONTROL, A_CONTROL)			\
	X(control_reset, NPO_CONTROL_RESET, R_CONTROL_RESET_MASK)	\
	X(reg_status, NPO_REG_STATUS, A_STATUS)				\
	X(status_ready, NPO_STATUS_READY, R_STATUS_READY_MASK)		\
	X(status_fw_running, NPO_STATUS_FW_RUNNING, R_STATUS_FW_RUNNING_MASK) \
	X(status_fatal, NPO_STATUS_FATAL, R_STATUS_FATAL_MASK)		\
	X(reg_fw_version, NPO_REG_FW_VERSION, A_FW_VERSION)		\
	X(reg_fw_error, NPO_REG_FW_ERROR, A_FW_ERROR)			\
	/* mailbox */							\
	X(reg_mbox_cmd, NPO_REG_MBOX_CMD, A_MBOX_CMD)			\
	X(mbox_opcode, NPO_MBOX_CMD_OPCODE, R_MBOX_CMD_OPCODE_MASK)	\
	X(reg_mbox_status, NPO_REG_MBOX_STATUS, A_MBOX_STATUS)		\
	X(mbox_busy, NPO_MBOX_STATUS_BUSY, R_MBOX_STATUS_BUSY_MASK)	\
	X(mbox_result, NPO_MBOX_STATUS_RESULT, R_MBOX_STATUS_RESULT_MASK) \
	X(reg_mbox_arg0, NPO_REG_MBOX_ARG(0), A_MBOX_ARG0)		\
	X(reg_mbox_arg3, NPO_REG_MBOX_ARG(3), A_MBOX_ARG3)		\
	X(reg_mbox_ret0, NPO_REG_MBOX_RET(0), A_MBOX_RET0)		\
	X(reg_mbox_ret1, NPO_REG_MBOX_RET(1), A_MBOX_RET1)		\
	X(mbox_num_args, NPO_MBOX_NUM_ARGS, MODEL_MBOX_NUM_ARGS)	\
	X(mbox_num_rets, NPO_MBOX_NUM_RETS, MODEL_MBOX_NUM_RETS)	\
	X(op_nop, NPO_MBOX_OP_NOP, MBOX_OP_NOP)				\
	X(op_fw_load, NPO_MBOX_OP_FW_LOAD, MBOX_OP_FW_LOAD)		\
	X(op_port_stats, NPO_MBOX_OP_PORT_STATS, MBOX_OP_PORT_STATS)	\
	X(op_clear_counters, NPO_MBOX_OP_CLEAR_COUNTERS,		\
	  MBOX_OP_CLEAR_COUNTERS)					\
	X(op_fault, NPO_MBOX_OP_FAULT, MBOX_OP_FAULT)			\
	X(op_queue_create, NPO_MBOX_OP_QUEUE_CREATE, MBOX_OP_QUEUE_CREATE) \
	X(op_queue_destroy, NPO_MBOX_OP_QUEUE_DESTROY, MBOX_OP_QUEUE_DESTROY) \
	X(op_mr_create, NPO_MBOX_OP_MR_CREATE, MBOX_OP_MR_CREATE)	\
	X(op_mr_pages, NPO_MBOX_OP_MR_PAGES, MBOX_OP_MR_PAGES)		\
	X(op_mr_destroy, NPO_MBOX_OP_MR_DESTROY, MBOX_OP_MR_DESTROY)	\
	X(op_pd_job, NPO_MBOX_OP_PD_JOB, MBOX_OP_PD_JOB)		\
	X(reg_reset_count, NPO_REG_RESET_COUNT, A_RESET_COUNT)		\
	X(op_refusals, NPO_MBOX_OP_REFUSALS, MBOX_OP_REFUSALS)		\
	X(op_queue_errors, NPO_MBOX_OP_QUEUE_ERRORS, MBOX_OP_QUEUE_ERRORS) \
	X(op_queue_query, NPO_MBOX_OP_QUEUE_QUERY, MBOX_OP_QUEUE_QUERY)	\
	X(op_queue_ports, NPO_MBOX_OP_QUEUE_PORTS, MBOX_OP_QUEUE_PORTS)	\
	X(qq_outstanding, NPO_QQ_OUTSTANDING, R_QQ_RET0_OUTSTANDING_MASK) \
	X(qq_port, NPO_QQ_PORT, R_QQ_RET0_PORT_MASK)			\
	X(qq_wait, NPO_QQ_WAIT, R_QQ_RET0_WAIT_MASK)			\
	X(qwait_none, NPO_HW_QWAIT_NONE, NPO_QWAIT_NONE)		\
	X(qwait_cq_full, NPO_HW_QWAIT_CQ_FULL, NPO_QWAIT_CQ_FULL)	\
	X(qwait_link, NPO_HW_QWAIT_LINK, NPO_QWAIT_LINK)		\
	X(qwait_remote, NPO_HW_QWAIT_REMOTE, NPO_QWAIT_REMOTE)	\
	X(qwait_rnr, NPO_HW_QWAIT_RNR, NPO_QWAIT_RNR)		\
	X(qwait_tx, NPO_HW_QWAIT_TX, NPO_QWAIT_TX)			\
	X(op_time_send, NPO_MBOX_OP_TIME_SEND, MBOX_OP_TIME_SEND)	\
	X(op_time_recv, NPO_MBOX_OP_TIME_RECV, MBOX_OP_TIME_RECV)	\
	X(op_route_set, NPO_MBOX_OP_ROUTE_SET, MBOX_OP_ROUTE_SET)	\
	X(op_lmsg_send, NPO_MBOX_OP_LMSG_SEND, MBOX_OP_LMSG_SEND)	\
	X(op_lmsg_recv, NPO_MBOX_OP_LMSG_RECV, MBOX_OP_LMSG_RECV)	\
	X(op_flash_begin, NPO_MBOX_OP_FLASH_BEGIN, MBOX_OP_FLASH_BEGIN)	\
	X(op_flash_data, NPO_MBOX_OP_FLASH_DATA, MBOX_OP_FLASH_DATA)	\
	X(op_flash_commit, NPO_MBOX_OP_FLASH_COMMIT, MBOX_OP_FLASH_COMMIT) \
	X(op_flash_erase, NPO_MBOX_OP_FLASH_ERASE, MBOX_OP_FLASH_ERASE)	\
	X(op_module_info, NPO_MBOX_OP_MODULE_INFO, MBOX_OP_MODULE_INFO)	\
	X(res_ok, NPO_MBOX_OK, MBOX_OK)					\
	X(res_opcode, NPO_MBOX_ERR_OPCODE, MBOX_ERR_OPCODE)		\
	X(res_busy, NPO_MBOX_ERR_BUSY, MBOX_ERR_BUSY)			\
	X(res_dma, NPO_MBOX_ERR_DMA, MBOX_ERR_DMA)			\
	X(res_fw_size, NPO_MBOX_ERR_FW_SIZE, MBOX_ERR_FW_SIZE)		\
	X(res_fw_magic, NPO_MBOX_ERR_FW_MAGIC, MBOX_ERR_FW_MAGIC)	\
	X(res_fw_format, NPO_MBOX_ERR_FW_FORMAT, MBOX_ERR_FW_FORMAT)	\
	X(res_fw_crc, NPO_MBOX_ERR_FW_CRC, MBOX_ERR_FW_CRC)		\
	X(res_fw_section, NPO_MBOX_ERR_FW_SECTION, MBOX_ERR_FW_SECTION)	\
	X(res_fw_missing, NPO_MBOX_ERR_FW_MISSING, MBOX_ERR_FW_MISSING)	\
	X(res_state, NPO_MBOX_ERR_STATE, MBOX_ERR_STATE)		\
	X(res_arg, NPO_MBOX_ERR_ARG, MBOX_ERR_ARG)			\
	X(res_perm, NPO_MBOX_ERR_PERM, MBOX_ERR_PERM)			\
	X(res_exists, NPO_MBOX_ERR_EXISTS, MBOX_ERR_EXISTS)		\
	X(res_noent, NPO_MBOX_ERR_NOENT, MBOX_ERR_NOENT)		\
	X(res_nomem, NPO_MBOX_ERR_NOMEM, MBOX_ERR_NOMEM)		\
	X(res_fw_target, NPO_MBOX_ERR_FW_TARGET, MBOX_ERR_FW_TARGET)	\
	X(res_fw_boot, NPO_MBOX_ERR_FW_BOOT, MBOX_ERR_FW_BOOT)		\
	/* mailbox argument words */					\
	X(fault_kind, NPO_FAULT_KIND, R_FAULT_ARG0_KIND_MASK)		\
	X(fault_port, NPO_FAULT_PORT, R_FAULT_ARG0_PORT_MASK)		\
	X(fault_lane, NPO_FAULT_LANE, R_FAULT_ARG0_LANE_MASK)		\
	X(fault_clear_all, NPO_HW_FAULT_CLEAR_ALL, FAULT_CLEAR_ALL)	\
	X(fault_lane_ber, NPO_HW_FAULT_LANE_BER, FAULT_LANE_BER)	\
	X(fault_lane_dead, NPO_HW_FAULT_LANE_DEAD, FAULT_LANE_DEAD)	\
	X(fault_rx_drop, NPO_HW_FAULT_RX_DROP, FAULT_RX_DROP)		\
	X(fault_cut, NPO_HW_FAULT_CUT, FAULT_CUT)			\
	X(fault_burst, NPO_HW_FAULT_BURST, FAULT_BURST)			\
	X(fault_slow_training, NPO_HW_FAULT_SLOW_TRAINING, FAULT_SLOW_TRAINING) \
	X(fault_mbox_fail, NPO_HW_FAULT_MBOX_FAIL, FAULT_MBOX_FAIL)	\
	X(fault_fw_hang, NPO_HW_FAULT_FW_HANG, FAULT_FW_HANG)		\
	X(fault_fw_assert, NPO_HW_FAULT_FW_ASSERT, FAULT_FW_ASSERT)	\
	X(fault_parity, NPO_HW_FAULT_PARITY, FAULT_PARITY)		\
	X(fault_ber_ramp, NPO_HW_FAULT_BER_RAMP, FAULT_BER_RAMP)	\
	X(fault_rx_drift, NPO_HW_FAULT_RX_DRIFT, FAULT_RX_DRIFT)	\
	X(fault_fw_boot_fail, NPO_HW_FAULT_FW_BOOT_FAIL, FAULT_FW_BOOT_FAIL) \
	X(fault_flash_corrupt, NPO_HW_FAULT_FLASH_CORRUPT,		\
	  FAULT_FLASH_CORRUPT)						\
	X(fault_tx_drop, NPO_HW_FAULT_TX_DROP, FAULT_TX_DROP)		\
	X(fault_vanish, NPO_HW_FAULT_VANISH, FAULT_VANISH)		\
	X(fault_clock_jump, NPO_HW_FAULT_CLOCK_JUMP, FAULT_CLOCK_JUMP)	\
	X(module_id_len, NPO_HW_MODULE_ID_LEN, NPO_MODULE_ID_LEN)	\
	X(qc_queue, NPO_QC_QUEUE, R_QC_ARG0_QUEUE_MASK)			\
	X(qc_sq_log2, NPO_QC_SQ_LOG2, R_QC_ARG0_SQ_LOG2_MASK)		\
	X(qc_cq_log2, NPO_QC_CQ_LOG2, R_QC_ARG0_CQ_LOG2_MASK)		\
	X(qc_pd, NPO_QC_PD, R_QC_ARG1_PD_MASK)				\
	X(qc_rq_log2, NPO_QC_RQ_LOG2, R_QC_ARG1_RQ_LOG2_MASK)		\
	X(time_send_port, NPO_TIME_SEND_PORT, R_TIME_SEND_ARG0_PORT_MASK) \
	X(time_send_flags, NPO_TIME_SEND_FLAGS, R_TIME_SEND_ARG0_FLAGS_MASK) \
	X(time_send_one_step, NPO_TIME_SEND_ONE_STEP, TIME_SEND_ONE_STEP) \
	X(one_step_offset, NPO_TIME_ONE_STEP_OFFSET, MODEL_TIME_ONE_STEP_OFFSET) \
	X(time_msg_max, NPO_TIME_MSG_MAX, MODEL_TIME_MSG_MAX)		\
	X(time_rx_depth, NPO_TIME_RX_DEPTH, MODEL_TIME_RX_DEPTH)	\
	X(time_rx_burst, NPO_TIME_RX_BURST, MODEL_TIME_RX_BURST)	\
	X(mr_key_index, NPO_MR_KEY_INDEX, R_MR_KEY_INDEX_MASK)		\
	X(mr_key_tag, NPO_MR_KEY_TAG, R_MR_KEY_TAG_MASK)		\
	X(mr_rkey_index, NPO_MR_RKEY_INDEX, NPO_MR_RKEY_INDEX_MASK)	\
	X(mr_rkey_tag, NPO_MR_RKEY_TAG, ~0ULL << NPO_MR_RKEY_TAG_SHIFT)	\
	X(max_pds, NPO_QC_PD + 1, NPO_MAX_PDS)		\
	X(pd_job_pd, NPO_PD_JOB_PD, R_PD_JOB_ARG0_PD_MASK)		\
	X(refusals_max, NPO_REFUSALS_MAX, R_REFUSALS_ARG2_MAX_MASK)	\
	X(refusal_depth, NPO_REFUSAL_DEPTH, MODEL_REFUSAL_DEPTH)	\
	X(queue_errors_max, NPO_QUEUE_ERRORS_MAX, R_QUEUE_ERRORS_ARG2_MAX_MASK) \
	X(queue_error_depth, NPO_QUEUE_ERROR_DEPTH, MODEL_QUEUE_ERROR_DEPTH) \
	X(qerr_op_none, NPO_QERR_OP_NONE, MODEL_QERR_OP_NONE)		\
	X(refusal_requester, NPO_HW_REFUSAL_SIDE_REQUESTER, NPO_REFUSAL_SIDE_REQUESTER) \
	X(refusal_target, NPO_HW_REFUSAL_SIDE_TARGET, NPO_REFUSAL_SIDE_TARGET) \
	X(mr_max_pages, NPO_MR_MAX_PAGES, NPO_MAX_MR_PAGES)		\
	X(mr_pages_per_cmd, NPO_MR_PAGES_PER_CMD, MODEL_MR_PAGES_PER_CMD) \
	/* interrupts */						\
	X(reg_irq_status, NPO_REG_IRQ_STATUS, A_IRQ_STATUS)		\
	X(reg_irq_mask, NPO_REG_IRQ_MASK, A_IRQ_MASK)			\
	X(irq_mbox_done, NPO_IRQ_MBOX_DONE, R_IRQ_STATUS_MBOX_DONE_MASK) \
	X(irq_fatal, NPO_IRQ_FATAL, R_IRQ_STATUS_FATAL_MASK)		\
	X(irq_link, NPO_IRQ_LINK, R_IRQ_STATUS_LINK_MASK)		\
	X(irq_time, NPO_IRQ_TIME, R_IRQ_STATUS_TIME_MASK)		\
	X(irq_refused, NPO_IRQ_REFUSED, R_IRQ_STATUS_REFUSED_MASK)	\
	X(irq_queue_error, NPO_IRQ_QUEUE_ERROR, R_IRQ_STATUS_QUEUE_ERROR_MASK) \
	X(irq_lmsg, NPO_IRQ_LMSG, R_IRQ_STATUS_LMSG_MASK)		\
	X(reg_link_event_ports, NPO_REG_LINK_EVENT_PORTS, A_LINK_EVENT_PORTS) \
	/* clock */							\
	X(reg_clk_max_adj, NPO_REG_CLK_MAX_ADJ, A_CLK_MAX_ADJ)		\
	X(reg_clk_time_lo, NPO_REG_CLK_TIME_LO, A_CLK_TIME_LO)		\
	X(reg_clk_time_hi, NPO_REG_CLK_TIME_HI, A_CLK_TIME_HI)		\
	X(reg_clk_adj_fine, NPO_REG_CLK_ADJ_FINE, A_CLK_ADJ_FINE)	\
	X(reg_clk_arg_lo, NPO_REG_CLK_ARG_LO, A_CLK_ARG_LO)		\
	X(reg_clk_arg_hi, NPO_REG_CLK_ARG_HI, A_CLK_ARG_HI)		\
	X(reg_clk_cmd, NPO_REG_CLK_CMD, A_CLK_CMD)			\
	X(clk_cmd_set, NPO_CLK_CMD_SET, CLK_CMD_SET)			\
	X(clk_cmd_step, NPO_CLK_CMD_STEP, CLK_CMD_STEP)			\
	X(clk_cmd_latch, NPO_CLK_CMD_LATCH, CLK_CMD_LATCH)		\
	X(reg_clk_latch_time_lo, NPO_REG_CLK_LATCH_TIME_LO, A_CLK_LATCH_TIME_LO) \
	X(reg_clk_latch_time_hi, NPO_REG_CLK_LATCH_TIME_HI, A_CLK_LATCH_TIME_HI) \
	X(reg_clk_latch_ref_lo, NPO_REG_CLK_LATCH_REF_LO, A_CLK_LATCH_REF_LO) \
	X(reg_clk_latch_ref_hi, NPO_REG_CLK_LATCH_REF_HI, A_CLK_LATCH_REF_HI) \
	X(reg_clk_rx_drops, NPO_REG_CLK_RX_DROPS, A_CLK_RX_DROPS)	\
	X(reg_clk_rx_rate, NPO_REG_CLK_RX_RATE, A_CLK_RX_RATE)	\
	X(reg_clk_rx_policed, NPO_REG_CLK_RX_POLICED, A_CLK_RX_POLICED) \
	X(reg_route_entries, NPO_REG_ROUTE_ENTRIES, A_ROUTE_ENTRIES)	\
	X(reg_route_hold_ms, NPO_REG_ROUTE_HOLD_MS, A_ROUTE_HOLD_MS)	\
	X(reg_route_forwarded, NPO_REG_ROUTE_FORWARDED, A_ROUTE_FORWARDED) \
	X(reg_route_held, NPO_REG_ROUTE_HELD, A_ROUTE_HELD)		\
	X(reg_route_expired, NPO_REG_ROUTE_EXPIRED, A_ROUTE_EXPIRED)	\
	X(reg_route_loops, NPO_REG_ROUTE_LOOPS, A_ROUTE_LOOPS)		\
	X(reg_lmsg_rx_drops, NPO_REG_LMSG_RX_DROPS, A_LMSG_RX_DROPS)	\
	X(route_max, NPO_ROUTE_MAX, MODEL_ROUTE_MAX)			\
	X(route_max_hops, NPO_ROUTE_MAX_HOPS, MODEL_ROUTE_MAX_HOPS)	\
	X(route_hold_ms_max, NPO_ROUTE_HOLD_MS_MAX, MODEL_ROUTE_HOLD_MS_MAX) \
	X(route_set_count, NPO_ROUTE_SET_COUNT, R_ROUTE_SET_ARG0_COUNT_MASK) \
	X(lmsg_max, NPO_LMSG_MAX, MODEL_LMSG_MAX)			\
	X(lmsg_rx_depth, NPO_LMSG_RX_DEPTH, MODEL_LMSG_RX_DEPTH)	\
	X(lmsg_send_port, NPO_LMSG_SEND_PORT, R_LMSG_SEND_ARG0_PORT_MASK) \
	/* ports */							\
	X(port_base, NPO_PORT_BASE, MODEL_PORT_BASE)			\
	X(port_stride, NPO_PORT_STRIDE, MODEL_PORT_STRIDE)		\
	X(num_rates, NPO_NUM_RATES, MODEL_NUM_RATES)			\
	X(max_lanes, NPO_MAX_LANES, MODEL_MAX_LANES)			\
	X(p_control, NPO_P_CONTROL, A_P_CONTROL)			\
	X(pctl_enable, NPO_PCTL_ENABLE, R_P_CONTROL_ENABLE_MASK)	\
	X(pctl_retrain, NPO_PCTL_RETRAIN, R_P_CONTROL_RETRAIN_MASK)	\
	X(pctl_max_rate, NPO_PCTL_MAX_RATE, R_P_CONTROL_MAX_RATE_MASK)	\
	X(pctl_max_width, NPO_PCTL_MAX_WIDTH, R_P_CONTROL_MAX_WIDTH_MASK) \
	X(pctl_quarantine, NPO_PCTL_QUARANTINE, R_P_CONTROL_QUARANTINE_MASK) \
	X(p_status, NPO_P_STATUS, A_P_STATUS)				\
	X(pst_state, NPO_PST_STATE, R_P_STATUS_STATE_MASK)		\
	X(pst_rate, NPO_PST_RATE, R_P_STATUS_RATE_MASK)			\
	X(pst_width, NPO_PST_WIDTH, R_P_STATUS_WIDTH_MASK)		\
	X(pst_degraded, NPO_PST_DEGRADED, R_P_STATUS_DEGRADED_MASK)	\
	X(pst_peer_present, NPO_PST_PEER_PRESENT, R_P_STATUS_PEER_PRESENT_MASK) \
	X(pst_high_ber, NPO_PST_HIGH_BER, R_P_STATUS_HIGH_BER_MASK)	\
	X(pst_fail, NPO_PST_FAIL, R_P_STATUS_FAIL_MASK)			\
	X(pst_listen, NPO_PST_LISTEN, R_P_STATUS_LISTEN_MASK)		\
	X(p_caps, NPO_P_CAPS, A_P_CAPS)					\
	X(pcaps_rates, NPO_PCAPS_RATES, R_P_CAPS_RATES_MASK)		\
	X(pcaps_lanes, NPO_PCAPS_LANES, R_P_CAPS_LANES_MASK)		\
	X(p_peer_node, NPO_P_PEER_NODE, A_P_PEER_NODE)			\
	X(p_peer_port, NPO_P_PEER_PORT, A_P_PEER_PORT)			\
	X(ppeer_port, NPO_PPEER_PORT, R_P_PEER_PORT_PORT_MASK)		\
	X(ppeer_rates, NPO_PPEER_RATES, R_P_PEER_PORT_RATES_MASK)	\
	X(ppeer_lanes, NPO_PPEER_LANES, R_P_PEER_PORT_LANES_MASK)	\
	X(ppeer_valid, NPO_PPEER_VALID, R_P_PEER_PORT_VALID_MASK)	\
	X(p_events, NPO_P_EVENTS, A_P_EVENTS)				\
	X(pev_up, NPO_PEV_UP, R_P_EVENTS_UP_MASK)			\
	X(pev_down, NPO_PEV_DOWN, R_P_EVENTS_DOWN_MASK)			\
	X(pev_degraded, NPO_PEV_DEGRADED, R_P_EVENTS_DEGRADED_MASK)	\
	X(pev_recovered, NPO_PEV_RECOVERED, R_P_EVENTS_RECOVERED_MASK)	\
	X(pev_retrain, NPO_PEV_RETRAIN, R_P_EVENTS_RETRAIN_MASK)	\
	X(pev_train_fail, NPO_PEV_TRAIN_FAIL, R_P_EVENTS_TRAIN_FAIL_MASK) \
	X(pev_err_threshold, NPO_PEV_ERR_THRESHOLD, R_P_EVENTS_ERR_THRESHOLD_MASK) \
	X(pev_prbs_done, NPO_PEV_PRBS_DONE, R_P_EVENTS_PRBS_DONE_MASK)	\
	X(p_prbs, NPO_P_PRBS, A_P_PRBS)					\
	X(prbs_duration, NPO_PRBS_DURATION_MS, R_P_PRBS_DURATION_MS_MASK) \
	X(prbs_start, NPO_PRBS_START, R_P_PRBS_START_MASK)		\
	X(p_active_lanes, NPO_P_ACTIVE_LANES, A_P_ACTIVE_LANES)		\
	X(p_fault_lanes, NPO_P_FAULT_LANES, A_P_FAULT_LANES)		\
	X(p_ber_lanes, NPO_P_BER_LANES, A_P_BER_LANES)			\
	X(p_down_reason, NPO_P_DOWN_REASON, A_P_DOWN_REASON)		\
	X(p_down_time_lo, NPO_P_DOWN_TIME_LO, A_P_DOWN_TIME_LO)		\
	X(p_down_time_hi, NPO_P_DOWN_TIME_HI, A_P_DOWN_TIME_HI)		\
	X(state_disabled, NPO_HW_PORT_DISABLED, PORT_DISABLED)		\
	X(state_detect, NPO_HW_PORT_DETECT, PORT_DETECT)		\
	X(state_polling, NPO_HW_PORT_POLLING, PORT_POLLING)		\
	X(state_config, NPO_HW_PORT_CONFIG, PORT_CONFIG)		\
	X(state_equalize, NPO_HW_PORT_EQUALIZE, PORT_EQUALIZE)		\
	X(state_active, NPO_HW_PORT_ACTIVE, PORT_ACTIVE)		\
	X(state_recovery, NPO_HW_PORT_RECOVERY, PORT_RECOVERY)		\
	X(state_test, NPO_HW_PORT_TEST, PORT_TEST)			\
	X(state_loopback, NPO_HW_PORT_LOOPBACK, PORT_LOOPBACK)		\
	X(fail_none, NPO_HW_FAIL_NONE, FAIL_NONE)			\
	X(fail_polling, NPO_HW_FAIL_POLLING_TIMEOUT, FAIL_POLLING_TIMEOUT) \
	X(fail_config, NPO_HW_FAIL_CONFIG_TIMEOUT, FAIL_CONFIG_TIMEOUT)	\
	X(fail_common_rate, NPO_HW_FAIL_NO_COMMON_RATE, FAIL_NO_COMMON_RATE) \
	X(fail_usable_lanes, NPO_HW_FAIL_NO_USABLE_LANES, FAIL_NO_USABLE_LANES) \
	X(fail_los, NPO_HW_FAIL_LOSS_OF_SIGNAL, FAIL_LOSS_OF_SIGNAL)	\
	X(fail_peer_disabled, NPO_HW_FAIL_PEER_DISABLED, FAIL_PEER_DISABLED) \
	X(fail_admin_disabled, NPO_HW_FAIL_ADMIN_DISABLED, FAIL_ADMIN_DISABLED) \
	X(fail_test, NPO_HW_FAIL_TEST, FAIL_TEST)			\
	X(fail_peer_test, NPO_HW_FAIL_PEER_TEST, FAIL_PEER_TEST)	\
	X(fail_no_firmware, NPO_HW_FAIL_NO_FIRMWARE, FAIL_NO_FIRMWARE)	\
	/* the statistics block */					\
	X(cnt_crc, NPO_HW_CNT_CRC_ERRORS, NPO_STAT_CRC_ERRORS)		\
	X(cnt_replays, NPO_HW_CNT_REPLAYS, NPO_STAT_REPLAYS)		\
	X(cnt_recoveries, NPO_HW_CNT_RECOVERIES, NPO_STAT_RECOVERIES)	\
	X(cnt_link_downs, NPO_HW_CNT_LINK_DOWNS, NPO_STAT_LINK_DOWNS)	\
	X(cnt_train_failures, NPO_HW_CNT_TRAIN_FAILURES, NPO_STAT_TRAIN_FAILURES) \
	X(cnt_fec_corrected, NPO_HW_CNT_FEC_CORRECTED, NPO_STAT_FEC_CORRECTED) \
	X(cnt_fec_uncorrectable, NPO_HW_CNT_FEC_UNCORRECTABLE,		\
	  NPO_STAT_FEC_UNCORRECTABLE)					\
	X(cnt_symbol_errors, NPO_HW_CNT_SYMBOL_ERRORS, NPO_STAT_SYMBOL_ERRORS) \
	X(num_counters, NPO_HW_NUM_COUNTERS, NPO_NUM_PORT_STATS)	\
	X(traffic_tx_bytes, NPO_HW_NUM_COUNTERS + NPO_HW_TRAFFIC_TX_BYTES,	\
	  NPO_STAT_TX_BYTES)						\
	X(traffic_tx_frames, NPO_HW_NUM_COUNTERS + NPO_HW_TRAFFIC_TX_FRAMES, \
	  NPO_STAT_TX_FRAMES)						\
	X(traffic_rx_bytes, NPO_HW_NUM_COUNTERS + NPO_HW_TRAFFIC_RX_BYTES,	\
	  NPO_STAT_RX_BYTES)						\
	X(traffic_rx_frames, NPO_HW_NUM_COUNTERS + NPO_HW_TRAFFIC_RX_FRAMES, \
	  NPO_STAT_RX_FRAMES)						\
	X(num_traffic, NPO_HW_NUM_TRAFFIC, NPO_NUM_TRAFFIC_STATS)	\
	X(lane_los, NPO_HW_LANE_LOS, R_LANE_FLAGS_LOS_MASK)		\
	X(lane_cdr_lock, NPO_HW_LANE_CDR_LOCK, R_LANE_FLAGS_CDR_LOCK_MASK) \
	X(lane_active, NPO_HW_LANE_ACTIVE, R_LANE_FLAGS_ACTIVE_MASK)	\
	X(lane_tx_fault, NPO_HW_LANE_TX_FAULT, R_LANE_FLAGS_TX_FAULT_MASK) \
	X(lane_size, sizeof(struct npo_hw_lane_stats), sizeof(NpoHwLaneStats)) \
	X(lane_fec_corrected, LANE(fec_corrected))			\
	X(lane_fec_uncorrectable, LANE(fec_uncorrectable))		\
	X(lane_symbol_errors, LANE(symbol_errors))			\
	X(lane_prbs_bits, LANE(prbs_bits))				\
	X(lane_prbs_errors, LANE(prbs_errors))				\
	X(lane_rx_power, LANE(rx_power_cdbm))				\
	X(lane_tx_power, LANE(tx_power_cdbm))				\
	X(lane_bias, LANE(bias_cma))					\
	X(lane_temp, LANE(temp_cdeg))					\
	X(lane_ber, LANE(ber_nlog_c))					\
	X(lane_eye_height, LANE(eye_height_mv))				\
	X(lane_eye_width, LANE(eye_width_mui))				\
	X(lane_preset, LANE(preset))					\
	X(lane_flags, LANE(flags))					\
	X(lane_rx_low_alarm, LANE(rx_low_alarm_cdbm))			\
	X(lane_rx_low_warn, LANE(rx_low_warn_cdbm))			\
	X(lane_ber_alarm, LANE(ber_alarm_nlog_c))			\
	X(lane_ber_warn, LANE(ber_warn_nlog_c))				\
	X(port_stats_size, sizeof(struct npo_hw_port_stats), sizeof(NpoHwPortStats)) \
	X(port_stats_counter, PORTST(counter))				\
	X(port_stats_supported, PORTST(supported))			\
	X(port_stats_num_lanes, PORTST(num_lanes))			\
	X(port_stats_lane, PORTST(lane))				\
	/* command blocks */						\
	X(mr_create_size, sizeof(struct npo_hw_mr_create), sizeof(NpoHwMrCreate)) \
	X(mr_create_key, MRC(key))					\
	X(mr_create_pd, MRC(pd))					\
	X(mr_create_access, MRC(access))				\
	X(mr_create_page_shift, MRC(page_shift))			\
	X(mr_create_iova, MRC(iova))					\
	X(mr_create_length, MRC(length))				\
	X(mr_create_rkey, MRC(rkey))					\
	X(mr_pages_size, sizeof(struct npo_hw_mr_pages), sizeof(NpoHwMrPages)) \
	X(mr_pages_key, MRP(key))					\
	X(mr_pages_count, MRP(count))					\
	X(mr_pages_first, MRP(first))					\
	X(time_msg_size, sizeof(struct npo_hw_time_msg), sizeof(NpoHwTimeMsg)) \
	X(time_msg_rx_time, TMSG(rx_time))				\
	X(time_msg_port, TMSG(port))					\
	X(time_msg_len, TMSG(len))					\
	X(time_msg_payload, TMSG(payload))				\
	X(refusal_size, sizeof(struct npo_hw_refusal), sizeof(NpoHwRefusal)) \
	X(refusal_job, REFUSAL(job))					\
	X(refusal_peer_node, REFUSAL(peer_node))			\
	X(refusal_queue, REFUSAL(queue))				\
	X(refusal_side, REFUSAL(side))					\
	X(refusal_opcode, REFUSAL(opcode))				\
	X(refusal_status, REFUSAL(status))				\
	X(refusal_count, REFUSAL(count))				\
	X(qerr_size, sizeof(struct npo_hw_queue_error), sizeof(NpoHwQueueError)) \
	X(qerr_wr_id, QERR(wr_id))					\
	X(qerr_status, QERR(status))					\
	X(qerr_peer_node, QERR(peer_node))				\
	X(qerr_queue, QERR(queue))					\
	X(qerr_opcode, QERR(opcode))					\
	X(qerr_port, QERR(port))					\
	X(route_size, sizeof(struct npo_hw_route), sizeof(NpoHwRoute))	\
	X(route_node, ROUTE(node))					\
	X(route_port, ROUTE(port))					\
	X(route_hops, ROUTE(hops))					\
	X(lmsg_size, sizeof(struct npo_hw_link_msg), sizeof(NpoHwLinkMsg)) \
	X(lmsg_port, LMSG(port))					\
	X(lmsg_len, LMSG(len))						\
	X(module_size, sizeof(struct npo_hw_module_info),		\
	  sizeof(NpoHwModuleInfo))					\
	X(module_part, MODULE(part))					\
	X(module_serial, MODULE(serial))				\
	X(module_tx_high_alarm, MODULE(tx_high_alarm_cdbm))		\
	X(module_tx_low_warn, MODULE(tx_low_warn_cdbm))		\
	X(module_tx_low_alarm, MODULE(tx_low_alarm_cdbm))		\
	X(module_bias_high_warn, MODULE(bias_high_warn_cma))		\
	X(lmsg_payload, LMSG(payload))

/* Through a second macro, so that LANE() and the like expand to two. */
#define AGREE(what, ...)	AGREE_(what, __VA_ARGS__)
#define AGREE_(what, driver, model)					\
	_Static_assert((uint64_t)(driver) == (uint64_t)(model),		\
		       "driver and model disagree: " #what);
FACTS(AGREE)

/* The driver enables queues on a minor version the model implements. */
_Static_assert(NPO_IF_MINOR_QUEUES <= NPO_IF_MINOR,
	       "the model is older than the queues the driver drives");
_Static_assert(NPO_IF_MINOR_LANE_LIMITS <= NPO_IF_MINOR,
	       "the model is older than the lane thresholds the driver reads");
_Static_assert(NPO_IF_MINOR_DOWN_TIME <= NPO_IF_MINOR,
	       "the model is older than the link-down times the driver reads");
_Static_assert(NPO_IF_MINOR_QUEUE_ERRORS <= NPO_IF_MINOR,
	       "the model is older than the queue error log the driver reads");
_Static_assert(NPO_IF_MINOR_QUEUE_PORTS <= NPO_IF_MINOR,
	       "the model is older than the queue ports the driver reads");
_Static_assert(NPO_IF_MINOR_ROUTING <= NPO_IF_MINOR,
	       "the model is older than the routing the driver sets up");
_Static_assert(NPO_IF_MINOR_FLASH <= NPO_IF_MINOR,
	       "the model implements firmware flash");

struct fact {
	const char *what;
	uint64_t driver, model;
};

#define ENTRY(what, ...)	ENTRY_(what, __VA_ARGS__)
#define ENTRY_(what, driver, model) { #what, (driver), (model) },
static const struct fact facts[] = { FACTS(ENTRY) };

TEST(every_shared_fact_agrees)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(facts); i++) {
		if (facts[i].driver != facts[i].model)
			ksft_print_msg("%s: driver 0x%" PRIx64 ", model 0x%"
				       PRIx64 "\n", facts[i].what,
				       facts[i].driver, facts[i].model);
		EXPECT_EQ(facts[i].driver, facts[i].model);
	}
	ksft_print_msg("%zu facts of the register interface agree\n",
		       ARRAY_SIZE(facts));
	fflush(stdout);
}

/* Every register of the model's map, generated from npo-regs.h. */
#define NPO_MODEL_REG(name) { #name, A_##name },
static const struct {
	const char *name;
	unsigned int offset;
} model_regs[] = {
#include "model-regs.h"
};

/*
 * A register the model adds must be in the facts above: a device one as
 * reg_NAME, a port one as p_NAME (names in lower case).
 */
TEST(every_model_register_has_its_fact)
{
	char want[64];
	size_t i, j, k;

	ASSERT_LT(40, ARRAY_SIZE(model_regs));
	for (i = 0; i < ARRAY_SIZE(model_regs); i++) {
		const char *name = model_regs[i].name;
		bool found = false;

		snprintf(want, sizeof(want), "%s%s",
			 strncmp(name, "P_", 2) ? "reg_" : "", name);
		for (k = 0; want[k]; k++)
			want[k] = (char)tolower((unsigned char)want[k]);
		for (j = 0; j < ARRAY_SIZE(facts) && !found; j++)
			found = !strcmp(facts[j].what, want) &&
				facts[j].model == model_regs[i].offset;
		EXPECT_TRUE(found) TH_LOG("model register %s (0x%03x): no fact %s",
					  name, model_regs[i].offset, want);
	}
	ksft_print_msg("%zu model registers, each with its fact\n",
		       ARRAY_SIZE(model_regs));
	fflush(stdout);
}

TEST_HARNESS_MAIN
