/*
 * NPO supernode interconnect: PCIe device model.
 *
 * This model is the NPO hardware for development and testing; its register
 * interface is specified in Documentation/hardware.rst of the NPO project
 * and this file implements that specification.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_aer.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-clock.h"
#include "npo-fw.h"
#include "npo-mr.h"
#include "npo-port.h"
#include "npo-queue.h"
#include "npo-route.h"
#include "npo-shm.h"
#include "npo-target.h"

/* Modelled latencies, in virtual time. */
#define NPO_RESET_NS            (1 * SCALE_MS)
#define NPO_MBOX_NS             (20 * SCALE_US)
#define NPO_FW_LOAD_NS_PER_KIB  (2 * SCALE_US)

#define NPO_PCIE_CAP_OFFSET     0x80
#define NPO_AER_OFFSET          0x100

static bool npo_fw_running(NpoState *s)
{
    return s->status & R_STATUS_FW_RUNNING_MASK;
}

void npo_irq_update(NpoState *s, uint32_t raised)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    s->irq_status |= raised;
    /* A card off the bus signals nothing. */
    if ((raised & s->irq_mask) && msix_enabled(pdev) && !s->vanished) {
        trace_npo_irq(s->node_id, NPO_VECTOR_ADMIN, s->irq_status);
        msix_notify(pdev, NPO_VECTOR_ADMIN);
    }
}

/* The 64-bit bus address in mailbox arguments lo (low half) and lo + 1. */
dma_addr_t npo_mbox_addr(NpoState *s, unsigned int lo)
{
    return ((uint64_t)s->mbox_arg[lo + 1] << 32) | s->mbox_arg[lo];
}

/*
 * REFUSALS and QUEUE_ERRORS: move up to ARG2[15:0] records of a log, oldest
 * first, to the buffer at ARG0/ARG1; RET0 says how many, RET1 how many
 * were lost (found the log full) since the last read.  Records left
 * behind raise irq again, so a driver that reads a batch at a time is
 * called back for the rest.
 */
uint32_t npo_mbox_drain_log(NpoState *s, void *log, size_t rec_size,
                            unsigned int *count, uint32_t *lost,
                            uint32_t irq)
{
    unsigned int max = FIELD_EX32(s->mbox_arg[2], REFUSALS_ARG2, MAX);
    unsigned int n = MIN(max, *count);

    if (s->mbox_arg[2] & ~R_REFUSALS_ARG2_MAX_MASK) {
        return MBOX_ERR_ARG;
    }
    if (n && pci_dma_write(PCI_DEVICE(s), npo_mbox_addr(s, 0), log,
                           n * rec_size) != MEMTX_OK) {
        return MBOX_ERR_DMA;
    }
    *count -= n;
    memmove(log, (uint8_t *)log + n * rec_size, *count * rec_size);
    s->mbox_ret[0] = n;
    s->mbox_ret[1] = *lost;
    *lost = 0;
    if (*count) {
        npo_irq_update(s, irq);
    }
    return MBOX_OK;
}

/*
 * Read len bytes of a command block at off from the address in ARG0/ARG1:
 * 0, or -1 if the DMA failed (the command then fails with DMA).
 */
int npo_mbox_read_block(NpoState *s, dma_addr_t off, void *buf, size_t len)
{
    if (pci_dma_read(PCI_DEVICE(s), npo_mbox_addr(s, 0) + off, buf,
                     len) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: mailbox command 0x%x: "
                      "cannot read its %zu-byte block\n", s->node_id,
                      s->mbox_cmd, len);
        return -1;
    }
    return 0;
}

/* Everything the guest can change goes back to its power-on value. */
static void npo_reset_state(NpoState *s)
{
    /* What the device went through, for the host and the driver alike. */
    s->reset_count++;
    timer_del(s->mbox_timer);
    timer_del(s->reset_timer);
    s->scratch = 0;
    s->status = 0;
    s->fw_version = 0;
    s->fw_from = FW_FROM_NONE;
    s->fw_error = MBOX_OK;
    s->mbox_cmd = 0;
    s->mbox_status = 0;
    memset(s->mbox_arg, 0, sizeof(s->mbox_arg));
    memset(s->mbox_ret, 0, sizeof(s->mbox_ret));
    s->mbox_fail_count = 0;
    s->irq_status = 0;
    s->irq_mask = 0;
    memset(&s->fw_link, 0, sizeof(s->fw_link));
    s->fw_num_presets = 0;
    npo_link_reset(s);
    npo_dma_reset(s);
    npo_refusal_reset(s);
    npo_queue_error_reset(s);
    npo_clock_reset(s);
    npo_fw_health_reset(s);
    npo_route_reset(s);
}

static void npo_reset_done(void *opaque)
{
    NpoState *s = opaque;

    /* The boot ROM starts what the flash holds, then takes commands. */
    npo_flash_boot(s);
    s->status |= R_STATUS_READY_MASK;
    trace_npo_reset_done(s->node_id);
}

static uint32_t npo_fw_result(enum npo_fw_verdict v)
{
    switch (v) {
    case NPO_FW_VALID:
        return MBOX_OK;
    case NPO_FW_BAD_SIZE:
        return MBOX_ERR_FW_SIZE;
    case NPO_FW_BAD_MAGIC:
        return MBOX_ERR_FW_MAGIC;
    case NPO_FW_BAD_FORMAT:
        return MBOX_ERR_FW_FORMAT;
    case NPO_FW_BAD_CRC:
        return MBOX_ERR_FW_CRC;
    case NPO_FW_BAD_SECTION:
        return MBOX_ERR_FW_SECTION;
    case NPO_FW_MISSING_SECTION:
        return MBOX_ERR_FW_MISSING;
    }
    return MBOX_ERR_FW_FORMAT;
}

/*
 * Why an image may not run here, as a result code (MBOX_OK if it may): it
 * must be valid, and an image that names its device must name this one.
 * need_target: it must name one (images written to flash).
 */
uint32_t npo_fw_check(NpoState *s, const uint8_t *image, uint32_t len,
                      bool need_target, struct npo_fw_contents *fw)
{
    PCIDeviceClass *k = PCI_DEVICE_GET_CLASS(PCI_DEVICE(s));
    enum npo_fw_verdict v = npo_fw_validate(image, len, fw);

    if (v != NPO_FW_VALID) {
        return npo_fw_result(v);
    }
    if (fw->has_target ? fw->target_vendor != k->vendor_id ||
                         fw->target_device != k->device_id : need_target) {
        return MBOX_ERR_FW_TARGET;
    }
    return MBOX_OK;
}

/*
 * Check an image and run it; from says where it came from (NPO_FW_FROM_*).
 * A rejected image leaves no firmware running: links stay down and DMA
 * stays off.  Returns a result code.
 */
uint32_t npo_fw_start(NpoState *s, const uint8_t *image, uint32_t len,
                      unsigned int from)
{
    struct npo_fw_contents fw;
    uint32_t res;

    res = npo_fw_check(s, image, len, from != FW_FROM_HOST, &fw);
    if (res != MBOX_OK) {
        s->fw_error = res;
        trace_npo_fw_reject(s->node_id, len, res);
        return res;
    }
    s->fw_link = fw.link;
    s->fw_num_presets = MIN(fw.num_presets, ARRAY_SIZE(s->fw_preset_ids));
    for (unsigned int i = 0; i < s->fw_num_presets; i++) {
        s->fw_preset_ids[i] = fw.presets[i].id;
    }
    s->fw_version = fw.fw_version;
    s->fw_from = from;
    s->fw_error = MBOX_OK;
    s->status |= R_STATUS_FW_RUNNING_MASK;
    trace_npo_fw_running(s->node_id, fw.fw_version, fw.num_presets);
    npo_fw_health_started(s);
    npo_link_fw_changed(s);
    return MBOX_OK;
}

/* FW_LOAD: fetch the image by DMA, then as npo_fw_start(). */
static uint32_t npo_mbox_fw_load(NpoState *s)
{
    dma_addr_t addr = npo_mbox_addr(s, 0);
    uint32_t len = s->mbox_arg[2];
    g_autofree uint8_t *image = NULL;

    /* Loading replaces what runs: nothing runs while the new image loads. */
    s->status &= ~R_STATUS_FW_RUNNING_MASK;
    s->fw_version = 0;
    s->fw_from = FW_FROM_NONE;
    npo_link_fw_changed(s);

    if (len < sizeof(struct npo_fw_header) || len > NPO_FW_MAX_SIZE) {
        s->fw_error = MBOX_ERR_FW_SIZE;
        trace_npo_fw_reject(s->node_id, len, MBOX_ERR_FW_SIZE);
        return s->fw_error;
    }
    image = g_malloc(len);
    if (pci_dma_read(PCI_DEVICE(s), addr, image, len) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "npo%u: FW_LOAD DMA read of %u bytes at 0x%" PRIx64
                      " failed\n", s->node_id, len, (uint64_t)addr);
        s->fw_error = MBOX_ERR_DMA;
        return s->fw_error;
    }
    if (npo_fw_start(s, image, len, FW_FROM_HOST) != MBOX_OK) {
        return s->fw_error;
    }
    s->mbox_ret[0] = s->fw_version;
    return MBOX_OK;
}

static uint32_t npo_mbox_nop(NpoState *s, uint32_t op)
{
    s->mbox_ret[0] = s->mbox_arg[0];
    return MBOX_OK;
}

static uint32_t npo_mbox_fw_load_op(NpoState *s, uint32_t op)
{
    return npo_mbox_fw_load(s);
}

/* Loading takes time by the image's size. */
static int64_t npo_mbox_fw_load_delay(NpoState *s, uint32_t op)
{
    return (int64_t)(s->mbox_arg[2] / KiB) * NPO_FW_LOAD_NS_PER_KIB;
}

/*
 * The mailbox's commands, by opcode (hardware.rst, "Mailbox"): who runs
 * each, whether it needs running firmware (MBOX_ERR_STATE without: the
 * queues, the memory table and the logs are the firmware's), and what it
 * takes beyond the mailbox's own time.
 */
typedef struct NpoMboxCmd {
    const char *name;
    uint32_t (*run)(NpoState *s, uint32_t op);
    bool needs_fw;
    int64_t (*delay)(NpoState *s, uint32_t op);
} NpoMboxCmd;

static const NpoMboxCmd npo_mbox_cmds[] = {
    [MBOX_OP_NOP] = { "nop", npo_mbox_nop },
    [MBOX_OP_FW_LOAD] = { "fw-load", npo_mbox_fw_load_op,
                          .delay = npo_mbox_fw_load_delay },
    [MBOX_OP_PORT_STATS] = { "port-stats", npo_port_regs_mbox },
    [MBOX_OP_CLEAR_COUNTERS] = { "clear-counters", npo_port_regs_mbox },
    [MBOX_OP_FAULT] = { "fault", npo_port_regs_mbox },
    [MBOX_OP_MODULE_INFO] = { "module-info", npo_port_regs_mbox },
    [MBOX_OP_QUEUE_CREATE] = { "queue-create", npo_dma_mbox, true },
    [MBOX_OP_QUEUE_DESTROY] = { "queue-destroy", npo_dma_mbox, true },
    [MBOX_OP_QUEUE_QUERY] = { "queue-query", npo_dma_mbox, true },
    [MBOX_OP_QUEUE_PORTS] = { "queue-ports", npo_dma_mbox, true },
    [MBOX_OP_MR_CREATE] = { "mr-create", npo_mr_mbox, true },
    [MBOX_OP_MR_PAGES] = { "mr-pages", npo_mr_mbox, true },
    [MBOX_OP_MR_DESTROY] = { "mr-destroy", npo_mr_mbox, true },
    [MBOX_OP_PD_JOB] = { "pd-job", npo_mr_mbox, true },
    [MBOX_OP_REFUSALS] = { "refusals", npo_refusal_mbox, true },
    [MBOX_OP_QUEUE_ERRORS] = { "queue-errors", npo_queue_error_mbox, true },
    [MBOX_OP_ROUTE_SET] = { "route-set", npo_route_mbox },
    [MBOX_OP_TIME_SEND] = { "time-send", npo_clock_mbox },
    [MBOX_OP_TIME_RECV] = { "time-recv", npo_clock_mbox },
    [MBOX_OP_LMSG_SEND] = { "lmsg-send", npo_lmsg_mbox },
    [MBOX_OP_LMSG_RECV] = { "lmsg-recv", npo_lmsg_mbox },
    [MBOX_OP_FLASH_BEGIN] = { "flash-begin", npo_flash_mbox },
    [MBOX_OP_FLASH_DATA] = { "flash-data", npo_flash_mbox },
    [MBOX_OP_FLASH_COMMIT] = { "flash-commit", npo_flash_mbox,
                               .delay = npo_flash_mbox_delay },
    [MBOX_OP_FLASH_ERASE] = { "flash-erase", npo_flash_mbox },
};

static const NpoMboxCmd *npo_mbox_cmd(uint32_t op)
{
    return op < ARRAY_SIZE(npo_mbox_cmds) && npo_mbox_cmds[op].run ?
           &npo_mbox_cmds[op] : NULL;
}

/* A command's name for traces, "unknown" for none. */
static const char *npo_mbox_name(uint32_t op)
{
    const NpoMboxCmd *cmd = npo_mbox_cmd(op);

    return cmd ? cmd->name : "unknown";
}

static void npo_mbox_complete(void *opaque)
{
    NpoState *s = opaque;
    const NpoMboxCmd *cmd;
    uint32_t result;

    /* The card left the bus with the command in flight: no answer. */
    if (s->vanished) {
        return;
    }
    /* A fault: the firmware cannot do this now, and does nothing. */
    if (s->mbox_fail_count && s->mbox_cmd == s->mbox_fail_op) {
        s->mbox_fail_count--;
        s->mbox_status = FIELD_DP32(0, MBOX_STATUS, RESULT, MBOX_ERR_BUSY);
        trace_npo_mbox_done(s->node_id, s->mbox_cmd,
                            npo_mbox_name(s->mbox_cmd), MBOX_ERR_BUSY);
        npo_irq_update(s, R_IRQ_STATUS_MBOX_DONE_MASK);
        return;
    }
    cmd = npo_mbox_cmd(s->mbox_cmd);
    if (!cmd) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: unknown mailbox opcode 0x%x\n",
                      s->node_id, s->mbox_cmd);
        result = MBOX_ERR_OPCODE;
    } else if (cmd->needs_fw && !(s->status & R_STATUS_FW_RUNNING_MASK)) {
        result = MBOX_ERR_STATE;
    } else {
        result = cmd->run(s, s->mbox_cmd);
    }
    s->mbox_status = FIELD_DP32(0, MBOX_STATUS, RESULT, result);
    trace_npo_mbox_done(s->node_id, s->mbox_cmd, npo_mbox_name(s->mbox_cmd),
                        result);
    npo_irq_update(s, R_IRQ_STATUS_MBOX_DONE_MASK);
}

static void npo_mbox_start(NpoState *s, uint32_t val)
{
    int64_t delay = NPO_MBOX_NS;
    const NpoMboxCmd *cmd;

    if (!(s->status & R_STATUS_READY_MASK)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "npo%u: mailbox command while not ready\n", s->node_id);
        s->mbox_status = FIELD_DP32(0, MBOX_STATUS, RESULT, MBOX_ERR_STATE);
        npo_irq_update(s, R_IRQ_STATUS_MBOX_DONE_MASK);
        return;
    }
    if (s->mbox_status & R_MBOX_STATUS_BUSY_MASK) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "npo%u: mailbox command 0x%x while busy, ignored\n",
                      s->node_id, val);
        return;
    }
    s->mbox_cmd = FIELD_EX32(val, MBOX_CMD, OPCODE);
    s->mbox_ret[0] = s->mbox_ret[1] = 0;
    s->mbox_status = R_MBOX_STATUS_BUSY_MASK;
    /* A hung firmware takes the command and never answers. */
    if (s->fw_hung) {
        trace_npo_mbox_start(s->node_id, s->mbox_cmd,
                             npo_mbox_name(s->mbox_cmd));
        return;
    }
    cmd = npo_mbox_cmd(s->mbox_cmd);
    if (cmd && cmd->delay) {
        delay += cmd->delay(s, s->mbox_cmd);
    }
    trace_npo_mbox_start(s->node_id, s->mbox_cmd, npo_mbox_name(s->mbox_cmd));
    timer_mod(s->mbox_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + delay);
}

static uint64_t npo_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    NpoState *s = opaque;
    uint64_t val = 0;

    /* Nothing answers a read of a card off the bus: all ones. */
    if (s->vanished) {
        return UINT32_MAX;
    }
    switch (addr) {
    case A_MAGIC:
        val = NPO_MAGIC;
        break;
    case A_IF_VERSION:
        val = FIELD_DP32(FIELD_DP32(0, IF_VERSION, MAJOR, NPO_IF_MAJOR),
                         IF_VERSION, MINOR, NPO_IF_MINOR);
        break;
    case A_CAPS:
        val = R_CAPS_FW_MAILBOX_MASK | R_CAPS_AER_MASK | R_CAPS_LINK_MASK | R_CAPS_QUEUES_MASK | R_CAPS_CLOCK_MASK |
              R_CAPS_FLASH_MASK | R_CAPS_MODULE_MASK |
              (s->test_mode ? R_CAPS_FAULT_INJECT_MASK : 0);
        break;
    case A_GEOMETRY:
        val = FIELD_DP32(FIELD_DP32(0, GEOMETRY, PORTS,
                                    s->hostile == NPO_HOSTILE_PORTS ? 200 :
                                    s->num_ports),
                         GEOMETRY, LANES,
                         s->hostile == NPO_HOSTILE_LANES ? 40 :
                         s->lanes_per_port);
        break;
    case A_QUEUES:
        val = s->hostile == NPO_HOSTILE_NO_QUEUES ? 0 : s->num_queues;
        break;
    case A_DB_LAYOUT:
        val = s->hostile == NPO_HOSTILE_STRIDE ? 40 : NPO_DB_STRIDE_SHIFT;
        break;
    case A_NODE_ID:
        val = s->node_id;
        break;
    case A_MEM_REGIONS:
        val = s->num_mrs;
        break;
    case A_SERIAL_LO:
        val = (uint32_t)s->serial;
        break;
    case A_SERIAL_HI:
        val = s->serial >> 32;
        break;
    case A_SCRATCH:
        val = s->scratch;
        break;
    case A_CONTROL:
        val = 0;
        break;
    case A_STATUS:
        val = s->status;
        break;
    case A_FW_VERSION:
        val = s->fw_version;
        break;
    case A_FW_ERROR:
        val = s->fw_error;
        break;
    case A_RESET_COUNT:
        val = s->reset_count;
        break;
    case A_MBOX_CMD:
        val = s->mbox_cmd;
        break;
    case A_MBOX_STATUS:
        val = s->mbox_status;
        break;
    case A_MBOX_ARG0 ... A_MBOX_ARG3:
        val = s->mbox_arg[(addr - A_MBOX_ARG0) / 4];
        break;
    case A_MBOX_RET0:
    case A_MBOX_RET1:
        val = s->mbox_ret[(addr - A_MBOX_RET0) / 4];
        break;
    case A_IRQ_STATUS:
        val = s->irq_status;
        break;
    case A_IRQ_MASK:
        val = s->irq_mask;
        break;
    case A_LINK_EVENT_PORTS:
        val = npo_port_regs_event_ports(s);
        break;
    default:
        if (!npo_port_regs_read(s, addr, &val) &&
            !npo_clock_reg_read(s, addr, &val) &&
            !npo_route_reg_read(s, addr, &val) &&
            !npo_lmsg_reg_read(s, addr, &val) &&
            !npo_flash_reg_read(s, addr, &val) &&
            !npo_fw_health_reg_read(s, addr, &val)) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "npo%u: read of unimplemented register 0x%"
                          HWADDR_PRIx "\n", s->node_id, addr);
        }
        break;
    }
    trace_npo_reg_read(s->node_id, addr, val);
    return val;
}

static void npo_regs_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    NpoState *s = opaque;

    trace_npo_reg_write(s->node_id, addr, val);
    if (s->vanished) {
        return;
    }
    switch (addr) {
    case A_SCRATCH:
        s->scratch = val;
        break;
    case A_CONTROL:
        if (val & R_CONTROL_RESET_MASK) {
            npo_reset_state(s);
            timer_mod(s->reset_timer,
                      qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + NPO_RESET_NS);
        }
        break;
    case A_MBOX_CMD:
        npo_mbox_start(s, val);
        break;
    case A_MBOX_ARG0 ... A_MBOX_ARG3:
        if (s->mbox_status & R_MBOX_STATUS_BUSY_MASK) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "npo%u: mailbox argument written while busy\n",
                          s->node_id);
            break;
        }
        s->mbox_arg[(addr - A_MBOX_ARG0) / 4] = val;
        break;
    case A_IRQ_STATUS:
        s->irq_status &= ~val;
        break;
    case A_IRQ_MASK:
        s->irq_mask = val & NPO_IRQ_ALL;
        /* A source pending when it gets unmasked signals at once. */
        npo_irq_update(s, s->irq_status);
        break;
    default:
        if (!npo_port_regs_write(s, addr, val) &&
            !npo_clock_reg_write(s, addr, val) &&
            !npo_route_reg_write(s, addr, val)) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "npo%u: write of 0x%" PRIx64 " to read-only or "
                          "unimplemented register 0x%" HWADDR_PRIx "\n",
                          s->node_id, val, addr);
        }
        break;
    }
}

static const MemoryRegionOps npo_regs_ops = {
    .read = npo_regs_read,
    .write = npo_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* Doorbells are write-only: a read tells nothing about the queue. */
static uint64_t npo_db_read(void *opaque, hwaddr addr, unsigned size)
{
    NpoState *s = opaque;

    if (s->vanished) {
        return UINT32_MAX;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "npo%u: doorbell read at 0x%"
                  HWADDR_PRIx "\n", s->node_id, addr);
    return 0;
}

static void npo_db_write(void *opaque, hwaddr addr, uint64_t val,
                         unsigned size)
{
    NpoState *s = opaque;
    unsigned int q = addr >> NPO_DB_STRIDE_SHIFT;

    trace_npo_doorbell(s->node_id, q, val);
    if (s->vanished) {
        return;
    }
    if (!npo_fw_running(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: doorbell %u rung with no "
                      "firmware running, ignored\n", s->node_id, q);
        return;
    }
    npo_dma_doorbell(s, q, addr & ((1 << NPO_DB_STRIDE_SHIFT) - 1), val);
}

static const MemoryRegionOps npo_db_ops = {
    .read = npo_db_read,
    .write = npo_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/*
 * Configuration space of a card off the bus reads all ones, as the root
 * port finds no function there; writes go nowhere, so the guest cannot
 * turn bus mastering back on.
 */
static uint32_t npo_config_read(PCIDevice *pdev, uint32_t addr, int len)
{
    if (NPO(pdev)->vanished) {
        return len == 4 ? UINT32_MAX : (1u << (len * 8)) - 1;
    }
    return pci_default_read_config(pdev, addr, len);
}

static void npo_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                             int len)
{
    if (!NPO(pdev)->vanished) {
        pci_default_write_config(pdev, addr, val, len);
    }
}

static void npo_realize(PCIDevice *pdev, Error **errp)
{
    NpoState *s = NPO(pdev);
    unsigned int nvec;
    int ret;

    if (!s->num_ports || s->num_ports > NPO_MAX_PORTS) {
        error_setg(errp, "npo: ports must be 1..%d", NPO_MAX_PORTS);
        return;
    }
    if (!s->lanes_per_port || s->lanes_per_port > NPO_MAX_LANES) {
        error_setg(errp, "npo: lanes must be 1..%d", NPO_MAX_LANES);
        return;
    }
    if (!s->rates || s->rates > 0x7) {
        error_setg(errp, "npo: rates is a mask of rates 1..3 (0x1..0x7)");
        return;
    }
    if (s->hostile >= NPO_HOSTILE_MAX) {
        error_setg(errp, "npo: hostile must be 0..%d", NPO_HOSTILE_MAX - 1);
        return;
    }
    for (unsigned int i = s->num_ports; i < NPO_MAX_PORTS; i++) {
        if (qemu_chr_fe_backend_connected(&s->port[i].chr)) {
            error_setg(errp, "npo: port%u given but the device has %u ports",
                       i, s->num_ports);
            return;
        }
    }
    if (!s->num_queues || s->num_queues > NPO_MAX_QUEUES) {
        error_setg(errp, "npo: queues must be 1..%d", NPO_MAX_QUEUES);
        return;
    }
    if (!is_power_of_2(s->wire_ring_kib) ||
        s->wire_ring_kib < NPO_SHM_MIN_SIZE / 1024 ||
        s->wire_ring_kib > NPO_SHM_MAX_SIZE / 1024) {
        error_setg(errp, "npo: wire_ring_kib must be a power of two, %d..%d",
                   NPO_SHM_MIN_SIZE / 1024, NPO_SHM_MAX_SIZE / 1024);
        return;
    }
    if (s->num_mrs < 2 || s->num_mrs > NPO_MAX_MRS) {
        error_setg(errp, "npo: mrs must be 2..%d", NPO_MAX_MRS);
        return;
    }
    if (!s->serial) {
        s->serial = 0x4e50000000000000ULL | s->node_id;
    }
    /* Before anything is set up, so that a bad file leaves nothing. */
    if (!npo_flash_realize(s, errp)) {
        return;
    }

    pci_config_set_interrupt_pin(pdev->config, 1);
    memory_region_init_io(&s->regs, OBJECT(s), &npo_regs_ops, s,
                          "npo-regs", NPO_REGS_SIZE);
    pci_register_bar(pdev, NPO_BAR_REGS,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->regs);
    memory_region_init_io(&s->doorbells, OBJECT(s), &npo_db_ops, s,
                          "npo-doorbells",
                          (uint64_t)s->num_queues << NPO_DB_STRIDE_SHIFT);
    pci_register_bar(pdev, NPO_BAR_DOORBELL,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->doorbells);

    nvec = 1 + s->num_queues;
    if (msix_init_exclusive_bar(pdev, nvec, NPO_BAR_MSIX, errp)) {
        return;
    }
    for (unsigned int v = 0; v < nvec; v++) {
        msix_vector_use(pdev, v);
    }

    ret = pcie_endpoint_cap_init(pdev, NPO_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg(errp, "npo: PCIe capability: %s", strerror(-ret));
        goto err_msix;
    }
    pcie_cap_deverr_init(pdev);
    if (pcie_aer_init(pdev, PCI_ERR_VER, NPO_AER_OFFSET, PCI_ERR_SIZEOF,
                      errp) < 0) {
        goto err_pcie;
    }

    s->reset_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, npo_reset_done, s);
    s->mbox_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, npo_mbox_complete, s);
    npo_clock_realize(s);
    npo_link_realize(s, errp);
    npo_dma_realize(s, errp);
    return;

err_pcie:
    pcie_cap_exit(pdev);
err_msix:
    msix_uninit_exclusive_bar(pdev);
}

static void npo_exit(PCIDevice *pdev)
{
    NpoState *s = NPO(pdev);

    npo_link_exit(s);
    timer_free(s->reset_timer);
    timer_free(s->mbox_timer);
    pcie_aer_exit(pdev);
    pcie_cap_exit(pdev);
    msix_uninit_exclusive_bar(pdev);
    npo_dma_exit(s);
    npo_clock_exit(s);
    npo_route_exit(s);
    npo_flash_exit(s);
}

/*
 * Power-on or bus reset: the device is ready at once, running what its
 * flash holds, if anything.
 */
static void npo_qdev_reset(DeviceState *dev)
{
    NpoState *s = NPO(dev);

    npo_reset_state(s);
    npo_flash_boot(s);
    s->status |= R_STATUS_READY_MASK;
}

static const VMStateDescription npo_vmstate = {
    .name = "npo",
    .unmigratable = 1,
};

static Property npo_properties[] = {
    DEFINE_PROP_UINT32("node_id", NpoState, node_id, 0),
    DEFINE_PROP_UINT64("serial", NpoState, serial, 0),
    DEFINE_PROP_UINT8("ports", NpoState, num_ports, 4),
    DEFINE_PROP_UINT8("lanes", NpoState, lanes_per_port, 8),
    DEFINE_PROP_UINT16("queues", NpoState, num_queues, 16),
    DEFINE_PROP_UINT32("mrs", NpoState, num_mrs, 4096),
    DEFINE_PROP_UINT8("rates", NpoState, rates, 0x7),
    DEFINE_PROP_UINT32("link_loss_cdb", NpoState, link_loss_cdb, 250),
    DEFINE_PROP_BOOL("test_mode", NpoState, test_mode, false),
    DEFINE_PROP_UINT8("hostile", NpoState, hostile, NPO_HOSTILE_NONE),
    DEFINE_PROP_BOOL("symbol_errors", NpoState, count_symbol_errors, true),
    DEFINE_PROP_BOOL("wire_data", NpoState, wire_data, false),
    DEFINE_PROP_BOOL("wire_shm", NpoState, wire_shm, true),
    DEFINE_PROP_UINT32("wire_ring_kib", NpoState, wire_ring_kib, 4096),
    DEFINE_PROP_INT32("clock_ppb", NpoState, clock_ppb, NPO_CLOCK_DERIVED_PPB),
    DEFINE_PROP_INT64("clock_offset_ns", NpoState, clock_offset_ns,
                      NPO_CLOCK_DERIVED_OFFSET),
    DEFINE_PROP_UINT32("link_delay_ns", NpoState, link_delay_ns, 0),
    DEFINE_PROP_INT32("link_asym_ps", NpoState, link_asym_ps, 0),
    DEFINE_PROP_UINT32("clock_wander_ppb", NpoState, clock_wander_ppb, 0),
    DEFINE_PROP_UINT32("ts_noise_ps", NpoState, ts_noise_ps, 2000),
    DEFINE_PROP_STRING("flash", NpoState, flash_path),
#define NPO_PORT_PROP(n) DEFINE_PROP_CHR("port" #n, NpoState, port[n].chr)
    NPO_PORT_PROP(0), NPO_PORT_PROP(1), NPO_PORT_PROP(2), NPO_PORT_PROP(3),
    NPO_PORT_PROP(4), NPO_PORT_PROP(5), NPO_PORT_PROP(6), NPO_PORT_PROP(7),
    NPO_PORT_PROP(8), NPO_PORT_PROP(9), NPO_PORT_PROP(10), NPO_PORT_PROP(11),
    NPO_PORT_PROP(12), NPO_PORT_PROP(13), NPO_PORT_PROP(14), NPO_PORT_PROP(15),
#undef NPO_PORT_PROP
    DEFINE_PROP_END_OF_LIST(),
};

static void npo_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = npo_realize;
    k->exit = npo_exit;
    k->config_read = npo_config_read;
    k->config_write = npo_config_write;
    k->vendor_id = NPO_VENDOR_ID;
    k->device_id = NPO_DEVICE_ID;
    k->revision = NPO_REVISION;
    k->class_id = PCI_CLASS_NETWORK_OTHER;
    k->subsystem_vendor_id = NPO_VENDOR_ID;
    k->subsystem_id = NPO_DEVICE_ID;
    dc->desc = "NPO supernode interconnect";
    dc->reset = npo_qdev_reset;
    dc->vmsd = &npo_vmstate;
    device_class_set_props(dc, npo_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static void npo_instance_init(Object *obj)
{
    NpoState *s = NPO(obj);

    /* Resets since power-on, read-only over QMP (qom-get reset_count). */
    object_property_add_uint32_ptr(obj, "reset_count", &s->reset_count,
                                   OBJ_PROP_FLAG_READ);
    npo_fault_add_properties(obj);
    npo_inject_add_properties(obj);
    npo_clock_add_properties(obj);
    npo_route_add_properties(obj);
    npo_port_add_properties(obj);
    npo_flash_add_properties(obj);
}

static const TypeInfo npo_info = {
    .name = TYPE_NPO,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(NpoState),
    .instance_init = npo_instance_init,
    .class_init = npo_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void npo_register_types(void)
{
    type_register_static(&npo_info);
}

type_init(npo_register_types)
