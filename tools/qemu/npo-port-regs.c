/*
 * NPO device model: the ports' register block and the link's mailbox
 * commands (PORT_STATS, MODULE_INFO, CLEAR_COUNTERS, FAULT, which
 * npo-faults.c carries out).
 *
 * Documentation/hardware.rst, "Links" and "Opcodes", is the specification.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "trace.h"


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
        return npo_fault_apply(s, FIELD_EX32(s->mbox_arg[0], FAULT_ARG0, KIND),
                               FIELD_EX32(s->mbox_arg[0], FAULT_ARG0, PORT),
                               FIELD_EX32(s->mbox_arg[0], FAULT_ARG0, LANE),
                               s->mbox_arg[1]);
    }
    return MBOX_ERR_OPCODE;
}

