/*
 * NPO device model: the firmware's health as the driver watches it.  A
 * heartbeat counter that advances while the firmware runs, a crash record
 * it leaves when it asserts, and the device-fatal errors it reports by
 * interrupt (STATUS.FATAL, FATAL_CAUSE).  Faults stop the firmware (hang),
 * make it assert, or break the queue engine (parity).
 *
 * Documentation/hardware.rst, "Firmware health", is the specification.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-fw.h"
#include "npo-port.h"

static int64_t now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* A line in the firmware's own log, the tail of which a crash record keeps. */
void npo_fw_log(NpoState *s, const char *fmt, ...)
{
    char line[64];
    va_list ap;
    size_t len, keep;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    len = strlen(line);
    line[len++] = '\n';
    keep = MIN(s->fw_log_len, NPO_CRASH_LOG_SIZE - len);
    memmove(s->fw_log, s->fw_log + s->fw_log_len - keep, keep);
    memcpy(s->fw_log + keep, line, len);
    s->fw_log_len = keep + len;
}

/* The firmware started running: its heartbeat starts from zero. */
void npo_fw_health_started(NpoState *s)
{
    s->fw_hung = false;
    s->fw_heartbeat_base = now_ns();
    npo_fw_log(s, "fw %08x running", s->fw_version);
}

uint32_t npo_fw_heartbeat(NpoState *s)
{
    if (!(s->status & R_STATUS_FW_RUNNING_MASK)) {
        return s->fw_heartbeat_frozen;
    }
    if (s->fw_hung) {
        return s->fw_heartbeat_frozen;
    }
    return (now_ns() - s->fw_heartbeat_base) / NPO_HEARTBEAT_NS;
}

bool npo_fw_halted(NpoState *s)
{
    return s->fatal_cause != NPO_FATAL_NONE;
}

static void raise_fatal(NpoState *s, uint32_t cause)
{
    s->fatal_cause = cause;
    s->status |= R_STATUS_FATAL_MASK;
    trace_npo_fatal(s->node_id, cause);
    npo_irq_update(s, R_IRQ_STATUS_FATAL_MASK);
}

/* The firmware stops where it is: no heartbeat, no mailbox answers. */
static void fw_hang(NpoState *s)
{
    s->fw_heartbeat_frozen = npo_fw_heartbeat(s);
    s->fw_hung = true;
    trace_npo_fw_hang(s->node_id);
}

static void fw_assert(NpoState *s, uint32_t reason)
{
    s->fw_heartbeat_frozen = npo_fw_heartbeat(s);
    npo_fw_log(s, "assert 0x%04x", reason);
    s->crash.reason = reason;
    /* Where it stopped: a program counter in its text, from the reason. */
    s->crash.pc = 0x00100000u | ((reason * 0x9e37u) & 0xfffcu);
    s->crash.time_ns = now_ns();
    memcpy(s->crash.log, s->fw_log, s->fw_log_len);
    s->crash.log_len = s->fw_log_len;
    s->status &= ~R_STATUS_FW_RUNNING_MASK;
    npo_link_fw_changed(s);
    raise_fatal(s, NPO_FATAL_FW_ASSERT);
}

static void parity_error(NpoState *s)
{
    npo_fw_log(s, "queue engine parity error");
    raise_fatal(s, NPO_FATAL_PARITY);
}

bool npo_fw_health_fault(NpoState *s, unsigned int kind, uint32_t value)
{
    switch (kind) {
    case FAULT_FW_HANG:
        if (s->status & R_STATUS_FW_RUNNING_MASK) {
            fw_hang(s);
        }
        return true;
    case FAULT_FW_ASSERT:
        if (s->status & R_STATUS_FW_RUNNING_MASK) {
            fw_assert(s, value);
        }
        return true;
    case FAULT_PARITY:
        parity_error(s);
        return true;
    }
    return false;
}

bool npo_fw_health_reg_read(NpoState *s, hwaddr addr, uint64_t *val)
{
    switch (addr) {
    case A_FW_HEARTBEAT:
        *val = npo_fw_heartbeat(s);
        return true;
    case A_FATAL_CAUSE:
        *val = s->fatal_cause;
        return true;
    case A_CRASH_REASON:
        *val = s->crash.reason;
        return true;
    case A_CRASH_PC:
        *val = s->crash.pc;
        return true;
    case A_CRASH_TIME_LO:
        *val = (uint32_t)s->crash.time_ns;
        return true;
    case A_CRASH_TIME_HI:
        *val = s->crash.time_ns >> 32;
        return true;
    case A_CRASH_LOG_LEN:
        *val = s->crash.log_len;
        return true;
    }
    if (addr >= A_CRASH_LOG && addr < A_CRASH_LOG + NPO_CRASH_LOG_SIZE) {
        *val = ldl_le_p(s->crash.log + (addr - A_CRASH_LOG));
        return true;
    }
    return false;
}

/* A reset ends a hang and clears the fatal state; the crash record stays. */
void npo_fw_health_reset(NpoState *s)
{
    s->fw_hung = false;
    s->fatal_cause = NPO_FATAL_NONE;
    s->fw_heartbeat_frozen = 0;
    s->fw_log_len = 0;
}
