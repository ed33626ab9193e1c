/*
 * NPO device model: the ports' register block, the link's mailbox commands
 * (PORT_STATS, CLEAR_COUNTERS, FAULT) and fault injection from the host.
 *
 * Documentation/hardware.rst, "Links" and "Opcodes", is the specification.
 * Fault injection reaches the same faults two ways: the FAULT command of a
 * test device (CAPS.FAULT_INJECT), and the QOM property "fault", which the
 * host sets over QMP without the guest's help.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "trace.h"

#include <math.h>

#include "npo-state.h"
#include "npo-fw.h"
#include "npo-port.h"

/* The port a register address belongs to, and the offset within it. */
static NpoPort *port_of(NpoState *s, hwaddr addr, hwaddr *off)
{
    unsigned int idx = (addr - NPO_PORT_BASE) / NPO_PORT_STRIDE;

    if (addr < NPO_PORT_BASE || idx >= s->num_ports) {
        return NULL;
    }
    *off = (addr - NPO_PORT_BASE) % NPO_PORT_STRIDE;
    return &s->port[idx];
}

bool npo_port_regs_read(NpoState *s, hwaddr addr, uint64_t *val)
{
    hwaddr off;
    NpoPort *p = port_of(s, addr, &off);

    if (!p) {
        return false;
    }
    switch (off) {
    case A_P_CONTROL:
        *val = p->control;
        return true;
    case A_P_STATUS:
        *val = npo_link_status(p);
        return true;
    case A_P_CAPS:
        *val = FIELD_DP32(FIELD_DP32(0, P_CAPS, RATES, s->rates),
                          P_CAPS, LANES, s->lanes_per_port);
        return true;
    case A_P_PEER_NODE:
        *val = p->peer_known ? p->peer_node : 0;
        return true;
    case A_P_PEER_PORT:
        *val = 0;
        if (p->peer_known) {
            *val = FIELD_DP32(*val, P_PEER_PORT, PORT, p->peer_port);
            *val = FIELD_DP32(*val, P_PEER_PORT, RATES, p->peer_rates);
            *val = FIELD_DP32(*val, P_PEER_PORT, LANES, p->peer_lanes);
            *val = FIELD_DP32(*val, P_PEER_PORT, VALID, 1);
        }
        return true;
    case A_P_EVENTS:
        *val = p->events;
        return true;
    case A_P_PRBS:
        *val = p->prbs_ctl | (p->state == PORT_TEST ? R_P_PRBS_START_MASK : 0);
        return true;
    case A_P_ACTIVE_LANES:
        *val = p->width ? (1 << p->width) - 1 : 0;
        return true;
    case A_P_FAULT_LANES:
        *val = p->fault_lanes;
        return true;
    case A_P_BER_LANES:
        *val = p->ber_lanes;
        return true;
    case A_P_DOWN_REASON:
        *val = p->down_reason;
        return true;
    case A_P_DOWN_TIME_LO:
        *val = (uint32_t)p->down_time;
        return true;
    case A_P_DOWN_TIME_HI:
        *val = p->down_time >> 32;
        return true;
    }
    return false;
}

bool npo_port_regs_write(NpoState *s, hwaddr addr, uint64_t val)
{
    hwaddr off;
    NpoPort *p = port_of(s, addr, &off);

    if (!p) {
        return false;
    }
    switch (off) {
    case A_P_CONTROL:
        npo_link_write_control(p, val);
        return true;
    case A_P_EVENTS:
        p->events &= ~val;
        npo_irq_update(s, 0);
        return true;
    case A_P_PRBS:
        if (val & R_P_PRBS_START_MASK) {
            npo_link_start_prbs(p, val);
        }
        return true;
    }
    return false;
}

uint32_t npo_port_regs_event_ports(NpoState *s)
{
    uint32_t mask = 0;
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        if (s->port[i].events) {
            mask |= 1 << i;
        }
    }
    return mask;
}

/* PORT_STATS: the port's counters and every lane's, with their diagnostics. */
static uint32_t port_stats_dma(NpoState *s)
{
    unsigned int idx = s->mbox_arg[0], i;
    dma_addr_t addr = npo_mbox_addr(s, 1);
    size_t len = sizeof(NpoHwPortStats) +
                 s->lanes_per_port * sizeof(NpoHwLaneStats);
    size_t traffic_len = NPO_NUM_TRAFFIC_STATS * sizeof(uint64_t);
    g_autofree NpoHwPortStats *st = g_malloc0(len + traffic_len);
    uint64_t *traffic = (uint64_t *)((uint8_t *)st + len);
    uint64_t counter[NPO_NUM_PORT_STATS];
    NpoPort *p;

    if (idx >= s->num_ports || s->mbox_arg[3] < len) {
        return MBOX_ERR_ARG;
    }
    p = &s->port[idx];
    memcpy(counter, p->counter, sizeof(counter));
    st->num_lanes = cpu_to_le32(s->lanes_per_port);
    for (i = 0; i < s->lanes_per_port; i++) {
        NpoLane *l = &p->lane[i];
        NpoHwLaneStats *ls = &st->lane[i];

        counter[NPO_STAT_FEC_CORRECTED] += l->fec_corrected;
        counter[NPO_STAT_FEC_UNCORRECTABLE] += l->fec_uncorrectable;
        counter[NPO_STAT_SYMBOL_ERRORS] += l->symbol_errors;
        ls->fec_corrected = cpu_to_le64(l->fec_corrected);
        ls->fec_uncorrectable = cpu_to_le64(l->fec_uncorrectable);
        ls->symbol_errors = cpu_to_le64(s->count_symbol_errors ?
                                        l->symbol_errors : 0);
        ls->prbs_bits = cpu_to_le64(l->prbs_bits);
        ls->prbs_errors = cpu_to_le64(l->prbs_errors);
        npo_phy_lane_diag(p, i, ls);
    }
    if (!s->count_symbol_errors) {
        counter[NPO_STAT_SYMBOL_ERRORS] = 0;
    }
    for (i = 0; i < NPO_NUM_PORT_STATS; i++) {
        st->counter[i] = cpu_to_le64(counter[i]);
    }
    st->supported = cpu_to_le32(MAKE_64BIT_MASK(0, NPO_NUM_PORT_STATS) &
                                ~(s->count_symbol_errors ? 0 :
                                  BIT(NPO_STAT_SYMBOL_ERRORS)));
    /*
     * After the lanes, for a driver that left room for it (1.14); the
     * supported bits say the block is there.
     */
    if (s->mbox_arg[3] >= len + traffic_len) {
        for (i = 0; i < NPO_NUM_TRAFFIC_STATS; i++) {
            traffic[i] = cpu_to_le64(p->traffic[i]);
        }
        st->supported |= cpu_to_le32(MAKE_64BIT_MASK(NPO_NUM_PORT_STATS,
                                                    NPO_NUM_TRAFFIC_STATS));
        len += traffic_len;
    }
    if (pci_dma_write(PCI_DEVICE(s), addr, st, len) != MEMTX_OK) {
        return MBOX_ERR_DMA;
    }
    s->mbox_ret[0] = len;
    return MBOX_OK;
}

static uint32_t npo_link_fault(NpoState *s, unsigned int kind,
                               unsigned int port, unsigned int lane,
                               uint32_t value)
{
    NpoPort *p;
    NpoLane *l;
    unsigned int i, j;
    uint32_t res;

    if (npo_fw_health_fault(s, kind, value)) {
        return MBOX_OK;
    }
    if (npo_flash_fault(s, kind, value, &res)) {
        return res;
    }
    if (kind == FAULT_MBOX_FAIL) {
        /* Not a port's: the firmware's, until reset or cleared. */
        s->mbox_fail_op = value & 0xff;
        s->mbox_fail_count = (value >> 8) & 0xff;
        return MBOX_OK;
    }
    if (kind == FAULT_CLEAR_ALL) {
        s->mbox_fail_count = 0;
        s->flash.boot_fail_armed = false;
        for (i = 0; i < s->num_ports; i++) {
            s->port[i].cut = false;
            s->port[i].pending_burst = 0;
            s->port[i].ts_lag_ns = 0;
            for (j = 0; j < NPO_MAX_LANES; j++) {
                s->port[i].lane[j].fault_ber = 0;
                s->port[i].lane[j].dead = false;
                s->port[i].lane[j].rx_drop_db = 0;
                s->port[i].lane[j].tx_drop_db = 0;
                npo_phy_ber_ramp(&s->port[i], j, 0);
                npo_phy_rx_drift(&s->port[i], j, 0);
            }
            npo_phy_send_light(&s->port[i]);
        }
        return MBOX_OK;
    }
    if (port >= s->num_ports || lane >= s->lanes_per_port) {
        return MBOX_ERR_ARG;
    }
    p = &s->port[port];
    l = &p->lane[lane];
    trace_npo_fault(s->node_id, kind, port, lane, value);
    switch (kind) {
    case FAULT_LANE_BER:
        l->fault_ber = value ? pow(10.0, -(double)value / 100) : 0;
        break;
    case FAULT_LANE_DEAD:
        l->dead = value;
        break;
    case FAULT_RX_DROP:
        l->rx_drop_db = value / 100.0;
        break;
    case FAULT_BER_RAMP:
        npo_phy_ber_ramp(p, lane, value / 100.0);
        break;
    case FAULT_RX_DRIFT:
        npo_phy_rx_drift(p, lane, value / 1000.0);
        break;
    case FAULT_TX_DROP:
        npo_phy_tx_drop(p, lane, value / 100.0);
        break;
    case FAULT_CUT:
        npo_link_cut(p, value);
        break;
    case FAULT_BURST:
        p->pending_burst += value;
        break;
    case FAULT_SLOW_TRAINING:
        if (value > NPO_TS_LAG_MAX_US) {
            return MBOX_ERR_ARG;
        }
        p->ts_lag_ns = (int64_t)value * SCALE_US;
        break;
    default:
        return MBOX_ERR_ARG;
    }
    return MBOX_OK;
}

uint32_t npo_port_regs_mbox(NpoState *s, uint32_t op)
{
    unsigned int i;

    switch (op) {
    case MBOX_OP_PORT_STATS:
        return port_stats_dma(s);
    case MBOX_OP_MODULE_INFO:
        return npo_phy_module_info(s);
    case MBOX_OP_CLEAR_COUNTERS:
        if (s->mbox_arg[0] == NPO_CLEAR_ALL_PORTS) {
            for (i = 0; i < s->num_ports; i++) {
                npo_link_clear_counters(&s->port[i]);
            }
        } else if (s->mbox_arg[0] < s->num_ports) {
            npo_link_clear_counters(&s->port[s->mbox_arg[0]]);
        } else {
            return MBOX_ERR_ARG;
        }
        return MBOX_OK;
    case MBOX_OP_FAULT:
        if (!s->test_mode) {
            qemu_log_mask(LOG_GUEST_ERROR, "npo%u: fault injection needs "
                          "test_mode=on\n", s->node_id);
            return MBOX_ERR_PERM;
        }
        return npo_link_fault(s, FIELD_EX32(s->mbox_arg[0], FAULT_ARG0, KIND),
                              FIELD_EX32(s->mbox_arg[0], FAULT_ARG0, PORT),
                              FIELD_EX32(s->mbox_arg[0], FAULT_ARG0, LANE),
                              s->mbox_arg[1]);
    }
    return MBOX_ERR_OPCODE;
}

/*
 * QMP fault injection: qom-set DEVICE fault "KIND PORT [LANE] VALUE",
 * KIND one of ber (BER, 0 clears), dead (0/1), rxdrop (dB), berramp
 * (decades per second, 0 clears), rxdrift (dB per second, 0 clears), cut
 * (0/1), burst (codewords), slow (us); "fwhang", "fwassert CODE", "parity"
 * (the firmware's and the device's own faults); "fwbootfail" (the next
 * image tried from flash does not come up), "flashcorrupt a|b"; or "clear".
 */
static void npo_set_fault(Object *obj, const char *str, Error **errp)
{
    NpoState *s = NPO(obj);
    char kind[16];
    unsigned int port = 0, lane = 0;
    double value = 0;
    uint32_t raw, res;
    int n;

    if (!strcmp(str, "clear")) {
        npo_link_fault(s, FAULT_CLEAR_ALL, 0, 0, 0);
        return;
    }
    if (!strcmp(str, "fwhang")) {
        npo_fw_health_fault(s, FAULT_FW_HANG, 0);
        return;
    }
    if (!strcmp(str, "parity")) {
        npo_fw_health_fault(s, FAULT_PARITY, 0);
        return;
    }
    if (sscanf(str, "fwassert %i", &n) == 1) {
        npo_fw_health_fault(s, FAULT_FW_ASSERT, (uint32_t)n);
        return;
    }
    if (!strcmp(str, "fwbootfail")) {
        npo_flash_fault(s, FAULT_FW_BOOT_FAIL, 1, &res);
        return;
    }
    if (sscanf(str, "flashcorrupt %15s", kind) == 1) {
        npo_flash_fault(s, FAULT_FLASH_CORRUPT, !strcmp(kind, "a") ?
                        SLOT_A : !strcmp(kind, "b") ? SLOT_B : 0,
                        &res);
        if (res != MBOX_OK) {
            error_setg(errp, "npo: fault: flashcorrupt a|b, a slot that "
                       "holds an image");
        }
        return;
    }
    n = sscanf(str, "%15s %u %u %lf", kind, &port, &lane, &value);
    if (!strcmp(kind, "cut") || !strcmp(kind, "burst") ||
        !strcmp(kind, "slow")) {
        n = sscanf(str, "%15s %u %lf", kind, &port, &value);
        n = n == 3 ? 4 : 0;
    }
    if (n != 4 || value < 0) {
        error_setg(errp, "npo: fault: expected 'ber|dead|rxdrop|txdrop|berramp|"
                   "rxdrift PORT LANE VALUE', 'cut|burst|slow PORT VALUE', 'fwhang', "
                   "'fwassert CODE', 'parity', 'fwbootfail', 'flashcorrupt a|b' "
                   "or 'clear'");
        return;
    }
    if (!strcmp(kind, "ber")) {
        raw = value > 0 ? (uint32_t)lrint(-log10(value) * 100) : 0;
        res = npo_link_fault(s, FAULT_LANE_BER, port, lane, raw);
    } else if (!strcmp(kind, "dead")) {
        res = npo_link_fault(s, FAULT_LANE_DEAD, port, lane, value != 0);
    } else if (!strcmp(kind, "rxdrop")) {
        res = npo_link_fault(s, FAULT_RX_DROP, port, lane,
                             (uint32_t)lrint(value * 100));
    } else if (!strcmp(kind, "txdrop")) {
        res = npo_link_fault(s, FAULT_TX_DROP, port, lane,
                             (uint32_t)lrint(MIN(value * 100, 1e6)));
    } else if (!strcmp(kind, "berramp")) {
        res = npo_link_fault(s, FAULT_BER_RAMP, port, lane,
                             (uint32_t)lrint(MIN(value * 100, 1e6)));
    } else if (!strcmp(kind, "rxdrift")) {
        res = npo_link_fault(s, FAULT_RX_DRIFT, port, lane,
                             (uint32_t)lrint(MIN(value * 1000, 1e6)));
    } else if (!strcmp(kind, "cut")) {
        res = npo_link_fault(s, FAULT_CUT, port, 0, value != 0);
    } else if (!strcmp(kind, "burst")) {
        res = npo_link_fault(s, FAULT_BURST, port, 0, (uint32_t)value);
    } else if (!strcmp(kind, "slow")) {
        res = npo_link_fault(s, FAULT_SLOW_TRAINING, port, 0,
                             (uint32_t)MIN(value, (double)UINT32_MAX));
    } else {
        error_setg(errp, "npo: fault: unknown kind '%s'", kind);
        return;
    }
    if (res != MBOX_OK) {
        error_setg(errp, "npo: fault: port or lane out of range");
    }
}

static char *npo_get_fault(Object *obj, Error **errp)
{
    NpoState *s = NPO(obj);
    GString *out = g_string_new("");
    unsigned int i, j;

    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        if (p->cut) {
            g_string_append_printf(out, "cut %u 1;", i);
        }
        for (j = 0; j < s->lanes_per_port; j++) {
            NpoLane *l = &p->lane[j];

            if (l->fault_ber > 0) {
                g_string_append_printf(out, "ber %u %u %g;", i, j,
                                       l->fault_ber);
            }
            if (l->dead) {
                g_string_append_printf(out, "dead %u %u 1;", i, j);
            }
            if (l->rx_drop_db > 0) {
                g_string_append_printf(out, "rxdrop %u %u %g;", i, j,
                                       l->rx_drop_db);
            }
            if (l->tx_drop_db > 0) {
                g_string_append_printf(out, "txdrop %u %u %g;", i, j,
                                       l->tx_drop_db);
            }
            if (l->ber_ramp_dps > 0) {
                g_string_append_printf(out, "berramp %u %u %g;", i, j,
                                       l->ber_ramp_dps);
            }
            if (l->rx_drift_dbps > 0) {
                g_string_append_printf(out, "rxdrift %u %u %g;", i, j,
                                       l->rx_drift_dbps);
            }
        }
    }
    return g_string_free(out, false);
}

void npo_port_regs_add_properties(Object *obj)
{
    object_property_add_str(obj, "fault", npo_get_fault, npo_set_fault);
}
