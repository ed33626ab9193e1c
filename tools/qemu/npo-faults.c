/*
 * NPO device model: fault injection.
 *
 * A fault reaches the device two ways: the FAULT mailbox command of a
 * test device (CAPS.FAULT_INJECT), whose value is in the command's units,
 * and the QOM property "fault", which the host sets over QMP without the
 * guest's help.  The property takes the words and units the driver's
 * debugfs "fault" file takes, both from the table below (hardware.rst,
 * "Fault injection", is the one description): "ber 0 3 6" is a lane at
 * BER 1e-6 either way.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/ctype.h"
#include "qapi/error.h"
#include "trace.h"

#include <math.h>

#include "npo-state.h"
#include "npo-fw.h"
#include "npo-port.h"

/* What follows a fault's word. */
typedef enum NpoFaultArgs {
    NPO_FAULT_ARGS_NONE,            /* the word alone */
    NPO_FAULT_ARGS_LANE,            /* PORT LANE VALUE */
    NPO_FAULT_ARGS_PORT,            /* PORT VALUE */
    NPO_FAULT_ARGS_HEX,             /* CODE, hexadecimal */
    NPO_FAULT_ARGS_OPCODE_COUNT,    /* OPCODE (hex) COUNT */
    NPO_FAULT_ARGS_SLOT,            /* a|b */
    NPO_FAULT_ARGS_VALUE,           /* VALUE */
} NpoFaultArgs;

/*
 * A fault word: the FAULT command's kind, its arguments, and how its
 * value is given: a decimal number in unit with at most decimals
 * decimals, carried by the command times 10^decimals, at most max there.
 * The driver's debugfs file (npo_debugfs_fault_write()) keeps the same
 * rules.
 */
typedef struct NpoFaultWord {
    const char *word;
    uint8_t kind;
    NpoFaultArgs args;
    uint8_t decimals;
    uint32_t max;
    const char *unit;
} NpoFaultWord;

static const NpoFaultWord npo_fault_words[] = {
    { "ber", FAULT_LANE_BER, NPO_FAULT_ARGS_LANE, 2, 3000,
      "decades (BER 10^-VALUE, 0 clears), at most 30" },
    { "dead", FAULT_LANE_DEAD, NPO_FAULT_ARGS_LANE, 0, 1, "0|1" },
    { "rxdrop", FAULT_RX_DROP, NPO_FAULT_ARGS_LANE, 2, 100000,
      "dB of extra receive loss, at most 1000" },
    { "txdrop", FAULT_TX_DROP, NPO_FAULT_ARGS_LANE, 2, 100000,
      "dB the lane launches weaker, at most 1000" },
    { "berramp", FAULT_BER_RAMP, NPO_FAULT_ARGS_LANE, 2, 100000,
      "decades of BER per second (0 stops), at most 1000" },
    { "rxdrift", FAULT_RX_DRIFT, NPO_FAULT_ARGS_LANE, 3, 1000000,
      "dB of receive loss per second (0 stops), at most 1000" },
    { "cut", FAULT_CUT, NPO_FAULT_ARGS_PORT, 0, 1, "0|1" },
    { "burst", FAULT_BURST, NPO_FAULT_ARGS_PORT, 0, UINT32_MAX,
      "uncorrectable codewords" },
    { "slow", FAULT_SLOW_TRAINING, NPO_FAULT_ARGS_PORT, 0, NPO_TS_LAG_MAX_US,
      "us to act on a training sequence, at most 100000" },
    { "mboxfail", FAULT_MBOX_FAIL, NPO_FAULT_ARGS_OPCODE_COUNT, 0, 255, "" },
    { "fwhang", FAULT_FW_HANG, NPO_FAULT_ARGS_NONE, 0, 0, "" },
    { "fwassert", FAULT_FW_ASSERT, NPO_FAULT_ARGS_HEX, 0, UINT32_MAX, "" },
    { "parity", FAULT_PARITY, NPO_FAULT_ARGS_NONE, 0, 0, "" },
    { "fwbootfail", FAULT_FW_BOOT_FAIL, NPO_FAULT_ARGS_NONE, 0, 0, "" },
    { "flashcorrupt", FAULT_FLASH_CORRUPT, NPO_FAULT_ARGS_SLOT, 0, 0, "" },
    { "vanish", FAULT_VANISH, NPO_FAULT_ARGS_NONE, 0, 0, "" },
    { "clockjump", FAULT_CLOCK_JUMP, NPO_FAULT_ARGS_VALUE, 0, UINT32_MAX,
      "s the clock jumps forward" },
    { "clear", FAULT_CLEAR_ALL, NPO_FAULT_ARGS_NONE, 0, 0, "" },
};

/*
 * The card falls off the bus, as one that loses power or its PCIe link
 * does: from now on every read of its BARs and configuration space is
 * all ones and every write goes nowhere (npo.c), it does no DMA and
 * raises no interrupt, and its ports go dark, so that its peers see the
 * light go.  Only removing the device ends it; "clear" does not.
 */
static void npo_fault_vanish(NpoState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    unsigned int i;

    trace_npo_vanish(s->node_id);
    s->vanished = true;
    /* What it mapped stays mapped; the engines check s->vanished. */
    memory_region_set_enabled(&pdev->bus_master_enable_region, false);
    for (i = 0; i < s->num_ports; i++) {
        npo_link_cut(&s->port[i], true);
    }
}

/*
 * Apply a fault as the FAULT mailbox command gives it: kind, port, lane
 * and the value in the command's units (hardware.rst, "Fault injection").
 */
uint32_t npo_fault_apply(NpoState *s, unsigned int kind, unsigned int port,
                         unsigned int lane, uint32_t value)
{
    NpoPort *p;
    NpoLane *l;
    unsigned int i, j;
    uint32_t res;

    /* Nothing reaches a card off the bus, a fault neither. */
    if (s->vanished) {
        return MBOX_ERR_STATE;
    }
    if (kind == FAULT_VANISH) {
        npo_fault_vanish(s);
        return MBOX_OK;
    }
    if (npo_fw_health_fault(s, kind, value)) {
        return MBOX_OK;
    }
    if (npo_flash_fault(s, kind, value, &res)) {
        return res;
    }
    if (kind == FAULT_CLOCK_JUMP) {
        /* A glitch of the oscillator or its counter: no command did it. */
        trace_npo_fault(s->node_id, kind, port, lane, value);
        npo_clock_jump(s, (int64_t)value * NANOSECONDS_PER_SECOND);
        return MBOX_OK;
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

static const NpoFaultWord *npo_fault_word(const char *word)
{
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(npo_fault_words); i++) {
        if (!strcmp(word, npo_fault_words[i].word)) {
            return &npo_fault_words[i];
        }
    }
    return NULL;
}

/* "ber|dead|...": every word, for the error of a word that is none. */
static char *npo_fault_word_list(void)
{
    GString *out = g_string_new("");
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(npo_fault_words); i++) {
        g_string_append_printf(out, "%s%s", i ? "|" : "",
                               npo_fault_words[i].word);
    }
    return g_string_free(out, false);
}

/*
 * A value as the words give it ("2.5"), a decimal number with at least
 * one digit and at most w->decimals decimals, to the command's value:
 * false if it is no such number, or beyond w->max.
 */
static bool npo_fault_value(const NpoFaultWord *w, const char *text,
                            uint32_t *raw)
{
    unsigned int digits = 0, frac = 0;
    bool dot = false;
    uint64_t v = 0;

    for (; *text; text++) {
        if (*text == '.' && !dot) {
            dot = true;
            continue;
        }
        if (!qemu_isdigit(*text) || (dot && ++frac > w->decimals)) {
            return false;
        }
        v = v * 10 + (*text - '0');
        digits++;
        if (v > w->max) {
            return false;
        }
    }
    for (; frac < w->decimals; frac++) {
        v *= 10;
    }
    if (!digits || v > w->max) {
        return false;
    }
    *raw = v;
    return true;
}

/* What a word takes, for its error. */
static const char *npo_fault_args_text(const NpoFaultWord *w)
{
    switch (w->args) {
    case NPO_FAULT_ARGS_LANE:
        return "PORT LANE VALUE";
    case NPO_FAULT_ARGS_PORT:
        return "PORT VALUE";
    case NPO_FAULT_ARGS_HEX:
        return "CODE (hex)";
    case NPO_FAULT_ARGS_OPCODE_COUNT:
        return "OPCODE (hex) COUNT (at most 255)";
    case NPO_FAULT_ARGS_SLOT:
        return "a|b";
    case NPO_FAULT_ARGS_VALUE:
        return "VALUE";
    default:
        return "nothing";
    }
}

/* QMP: qom-set DEVICE fault "WORD [ARGS]", as the debugfs file takes it. */
static void npo_set_fault(Object *obj, const char *str, Error **errp)
{
    NpoState *s = NPO(obj);
    unsigned int port = 0, lane = 0, code = 0, count = 0;
    const NpoFaultWord *w;
    g_autofree char *words = NULL;
    char word[16], text[24], slot[4];
    uint32_t raw = 0, res;
    int end = 0;
    bool ok;

    if (sscanf(str, "%15s", word) != 1 || !(w = npo_fault_word(word))) {
        words = npo_fault_word_list();
        error_setg(errp, "npo: fault: '%s' is not one of %s", str, words);
        return;
    }
    switch (w->args) {
    case NPO_FAULT_ARGS_NONE:
        ok = sscanf(str, "%*s%n", &end) == 0 && end;
        /* fwbootfail arms; the others carry no value. */
        raw = 1;
        break;
    case NPO_FAULT_ARGS_LANE:
        ok = sscanf(str, "%*s %u %u %23s%n", &port, &lane, text, &end) == 3 &&
             npo_fault_value(w, text, &raw);
        break;
    case NPO_FAULT_ARGS_PORT:
        ok = sscanf(str, "%*s %u %23s%n", &port, text, &end) == 2 &&
             npo_fault_value(w, text, &raw);
        break;
    case NPO_FAULT_ARGS_VALUE:
        ok = sscanf(str, "%*s %23s%n", text, &end) == 1 &&
             npo_fault_value(w, text, &raw);
        break;
    case NPO_FAULT_ARGS_HEX:
        ok = sscanf(str, "%*s %x%n", &code, &end) == 1;
        raw = code;
        break;
    case NPO_FAULT_ARGS_OPCODE_COUNT:
        ok = sscanf(str, "%*s %x %u%n", &code, &count, &end) == 2 &&
             code <= 0xff && count <= w->max;
        raw = code | count << 8;
        break;
    case NPO_FAULT_ARGS_SLOT:
        ok = sscanf(str, "%*s %3s%n", slot, &end) == 1 &&
             (!strcmp(slot, "a") || !strcmp(slot, "b"));
        raw = !strcmp(slot, "a") ? SLOT_A : SLOT_B;
        break;
    default:
        ok = false;
        break;
    }
    if (!ok || str[end]) {
        error_setg(errp, "npo: fault: '%s': %s takes %s%s%s", str, w->word,
                   npo_fault_args_text(w), w->unit[0] ? ", VALUE in " : "",
                   w->unit);
        return;
    }
    res = npo_fault_apply(s, w->kind, port, lane, raw);
    if (res != MBOX_OK) {
        error_setg(errp, "npo: fault: '%s': %s", str,
                   s->vanished ? "the device has left the bus" :
                   w->kind == FAULT_FLASH_CORRUPT ?
                   "that slot holds no image" : "port or lane out of range");
    }
}

/*
 * The faults set, in the words that set them: "ber 0 3 6;cut 1 1;".  A
 * burst is spent within 10 ms and a hung or asserted firmware shows in
 * the device's own registers: neither is listed.
 */
static char *npo_get_fault(Object *obj, Error **errp)
{
    NpoState *s = NPO(obj);
    GString *out = g_string_new("");
    unsigned int i, j;

    /* Its ports were cut with it: the one fault says it all. */
    if (s->vanished) {
        return g_string_free(g_string_append(out, "vanish;"), false);
    }
    if (s->mbox_fail_count) {
        g_string_append_printf(out, "mboxfail %x %u;", s->mbox_fail_op,
                               s->mbox_fail_count);
    }
    if (s->flash.boot_fail_armed) {
        g_string_append(out, "fwbootfail;");
    }
    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        if (p->cut) {
            g_string_append_printf(out, "cut %u 1;", i);
        }
        if (p->ts_lag_ns) {
            g_string_append_printf(out, "slow %u %" PRId64 ";", i,
                                   p->ts_lag_ns / SCALE_US);
        }
        for (j = 0; j < s->lanes_per_port; j++) {
            NpoLane *l = &p->lane[j];

            if (l->fault_ber > 0) {
                g_string_append_printf(out, "ber %u %u %g;", i, j,
                                       -log10(l->fault_ber));
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

void npo_fault_add_properties(Object *obj)
{
    object_property_add_str(obj, "fault", npo_get_fault, npo_set_fault);
}
