/*
 * NPO device model: the physical layer of a port's lanes.
 *
 * Each lane has its own channel: transmitter power, fibre and connector
 * loss, temperature, laser bias and the equalizer preset that suits it.
 * From those the model derives received power, margin at each lane rate
 * and the pre-FEC bit error rate, which decide which lanes training can
 * use and what an active link's traffic suffers: KP4 FEC (RS(544,514))
 * corrects up to 15 symbol errors per codeword, and every codeword beyond
 * that fails its CRC and is replayed.  Faults (a BER floor, a dead lane,
 * extra loss, and the slow ones: a BER floor that ramps up, a loss that
 * drifts up, over device time) act on these figures.  Documentation/hardware.rst, "Links",
 * gives the figures.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "hw/pci/pci.h"
#include "qemu/timer.h"

#include <math.h>

#include "npo-state.h"
#include "npo-port.h"
#include "npo-wire.h"

/* Lane rates: rate n (1-based) in Gb/s and the receiver sensitivity. */
static const double rate_gbps[NPO_NUM_RATES] = { 53.125, 106.25, 212.5 };
static const double sensitivity_dbm[NPO_NUM_RATES] = { -7.4, -4.4, -2.4 };
#define NOMINAL_TX_DBM          1.0
/* An optical module's transmit limits around it (MODULE_INFO, 1.15). */
#define TX_HIGH_ALARM_DBM       5
#define TX_HIGH_WARN_DBM        4
#define TX_LOW_WARN_DBM         (-1.0)
#define TX_LOW_ALARM_DBM        (-3.0)
#define TX_DROP_MAX_DB          40.0    /* a laser this weak is off */
#define LOS_DBM                 -15.0
#define DEAD_RX_DBM             -40.0
#define DEAD_LINK_MARGIN_DB     40.0    /* no light: no eye at all */
#define KP4_LIMIT_BER           2.4e-4  /* BER at zero margin */
#define EQ_BEST_GAIN_DB         3.0     /* margin the right preset adds */
#define EQ_STEP_LOSS_DB         0.6     /* per preset step away from it */
#define KP4_SYMBOLS             544
#define KP4_CORRECTABLE         15
#define KP4_BITS                5440
#define RX_WARN_ABOVE_ALARM_DB  2.0     /* the module's warning threshold */
#define BER_WARN_DECADES        2       /* HIGH_BER: threshold / 100 */
#define DRIFT_MAX_DB            40.0    /* a drifting loss stops growing */
#define BER_FLOOR               1e-15   /* a ramp starts no lower */

double npo_phy_rate_gbps(unsigned int rate)
{
    return rate >= 1 && rate <= NPO_NUM_RATES ? rate_gbps[rate - 1] : 0;
}

static double phy_secs_since(int64_t since)
{
    return MAX(qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) - since, 0) / 1e9;
}

/* Loss a drifting lane has gained so far. */
static double lane_drift_db(NpoLane *l)
{
    if (!l->rx_drift_dbps) {
        return 0;
    }
    return MIN(l->rx_drift_dbps * phy_secs_since(l->rx_drift_since),
               DRIFT_MAX_DB);
}

static double lane_rx_dbm(NpoPort *p, NpoLane *l)
{
    if (l->dead) {
        return DEAD_RX_DBM;
    }
    return NOMINAL_TX_DBM - l->peer_tx_drop_db -
           p->dev->link_loss_cdb / 100.0 - l->base_loss_db -
           l->rx_drop_db - lane_drift_db(l);
}

/* The BER floor of a ramping lane: decades up since it began. */
static double lane_ramp_ber(NpoLane *l)
{
    if (!l->ber_ramp_dps) {
        return 0;
    }
    return MIN(l->ber_ramp_from *
               pow(10.0, l->ber_ramp_dps * phy_secs_since(l->ber_ramp_since)),
               0.5);
}

/* Equalization gain of a preset: best for the lane's own channel. */
static double preset_gain_db(NpoLane *l, uint8_t preset)
{
    int d = abs((int)preset - (int)l->best_preset);

    return EQ_BEST_GAIN_DB - EQ_STEP_LOSS_DB * d;
}

static double lane_margin_db(NpoPort *p, NpoLane *l, unsigned int rate)
{
    return lane_rx_dbm(p, l) - sensitivity_dbm[rate - 1] +
           preset_gain_db(l, l->preset);
}

/* Pre-FEC bit error rate of a lane at a rate. */
static double lane_ber(NpoPort *p, NpoLane *l, unsigned int rate)
{
    double ber;

    if (lane_rx_dbm(p, l) <= LOS_DBM) {
        return 0.5;
    }
    ber = KP4_LIMIT_BER * pow(10.0, -lane_margin_db(p, l, rate));
    ber = MIN(ber, 0.5);
    return MAX(ber, MAX(l->fault_ber, lane_ramp_ber(l)));
}

/*
 * Slow degradation of lane i of p (interface 1.9): its BER floor rises by
 * dps decades per second from what the lane has now, or its loss grows
 * by dbps dB per second; 0 stops the ramp or drift and undoes it.
 */
void npo_phy_ber_ramp(NpoPort *p, unsigned int i, double dps)
{
    NpoLane *l = &p->lane[i];
    unsigned int rate = p->rate ? p->rate : 1;

    l->ber_ramp_dps = 0;
    if (dps > 0) {
        l->ber_ramp_from = MAX(lane_ber(p, l, rate), BER_FLOOR);
        l->ber_ramp_since = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        l->ber_ramp_dps = dps;
    }
}

void npo_phy_rx_drift(NpoPort *p, unsigned int i, double dbps)
{
    NpoLane *l = &p->lane[i];

    l->rx_drift_dbps = dbps > 0 ? dbps : 0;
    l->rx_drift_since = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static double ber_threshold(NpoState *s)
{
    return pow(10.0, -(double)s->fw_link.ber_threshold_exp);
}

/* Pick the firmware preset that gives the lane the most margin. */
static void lane_equalize(NpoState *s, NpoLane *l)
{
    double best = -1e9;
    unsigned int i;

    for (i = 0; i < s->fw_num_presets; i++) {
        double g = preset_gain_db(l, s->fw_preset_ids[i]);

        if (g > best) {
            best = g;
            l->preset = s->fw_preset_ids[i];
        }
    }
}

/* Receive lanes that work at each rate, after equalization. */
void npo_phy_compute_rx_ok(NpoPort *p)
{
    NpoState *s = p->dev;
    double thr = ber_threshold(s);
    unsigned int r, i;

    for (r = 1; r <= NPO_NUM_RATES; r++) {
        uint16_t ok = 0;

        for (i = 0; i < s->lanes_per_port; i++) {
            NpoLane *l = &p->lane[i];

            lane_equalize(s, l);
            if (lane_ber(p, l, r) < thr) {
                ok |= 1 << i;
            }
        }
        p->local_rx_ok[r - 1] = ok;
    }
}

static uint64_t poisson(GRand *r, double mean)
{
    if (mean <= 0) {
        return 0;
    }
    if (mean < 30) {
        double l = exp(-mean), pr = 1.0;
        uint64_t k = 0;

        do {
            k++;
            pr *= g_rand_double(r);
        } while (pr > l);
        return k - 1;
    } else {
        /* Normal approximation, Box-Muller. */
        double u1 = g_rand_double_range(r, 1e-12, 1.0);
        double u2 = g_rand_double(r);
        double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
        double v = mean + sqrt(mean) * z;

        return v > 0 ? (uint64_t)llround(v) : 0;
    }
}

/* Probability that a KP4 codeword has more than 15 symbol errors. */
static double kp4_uncorrectable(double ps)
{
    double sum = 0, lp = log(ps), lq = log1p(-ps);
    int k;

    if (ps <= 0) {
        return 0;
    }
    for (k = KP4_CORRECTABLE + 1; k <= KP4_SYMBOLS; k++) {
        double lt = lgamma(KP4_SYMBOLS + 1) - lgamma(k + 1) -
                    lgamma(KP4_SYMBOLS - k + 1) + k * lp +
                    (KP4_SYMBOLS - k) * lq;
        double t = exp(lt);

        sum += t;
        if (t < sum * 1e-12) {
            break;
        }
    }
    return MIN(sum, 1.0);
}

/*
 * The errors secs of traffic made on the active lanes of p, added to their
 * counters, and what they mean for the link.
 */
void npo_phy_tick(NpoPort *p, double secs, NpoPhyTick *t)
{
    NpoState *s = p->dev;
    double thr = ber_threshold(s), warn = thr / pow(10, BER_WARN_DECADES);
    unsigned int i;

    *t = (NpoPhyTick) { 0 };
    for (i = 0; i < p->width; i++) {
        NpoLane *l = &p->lane[i];
        double ber = lane_ber(p, l, p->rate);
        double ps = MIN(1.0, 10 * ber);
        double cw = rate_gbps[p->rate - 1] * 1e9 * secs / KP4_BITS;
        double p_any = -expm1(KP4_SYMBOLS * log1p(-MIN(ps, 0.999999)));
        double p_unc = kp4_uncorrectable(ps);
        uint64_t unc = poisson(s->rand, cw * p_unc);

        l->fec_uncorrectable += unc;
        l->fec_corrected += poisson(s->rand, cw * MAX(p_any - p_unc, 0));
        l->symbol_errors += poisson(s->rand, cw * KP4_SYMBOLS * ps);
        t->uncorrectable += unc;
        if (ber > warn) {
            t->ber_lanes |= 1 << i;
        }
        t->lane_failed |= ber >= thr;
    }
}

/*
 * A PRBS pattern ran for secs at rate: count its bits and the lanes'
 * errors; a checker that lost the light (dark) gets every other bit wrong.
 */
void npo_phy_prbs(NpoPort *p, unsigned int rate, double secs, bool dark)
{
    NpoState *s = p->dev;
    unsigned int i;

    for (i = 0; i < s->lanes_per_port; i++) {
        NpoLane *l = &p->lane[i];
        double bits = rate_gbps[rate - 1] * 1e9 * secs;

        lane_equalize(s, l);
        l->prbs_bits += (uint64_t)bits;
        l->prbs_errors += dark ? (uint64_t)(bits / 2) :
                          poisson(s->rand, bits * lane_ber(p, l, rate));
    }
}

/*
 * A lane's optical and electrical diagnostics, as the statistics block
 * reports them, at the link's rate or the lowest one when it is down.
 */
void npo_phy_lane_diag(NpoPort *p, unsigned int i, NpoHwLaneStats *ls)
{
    NpoLane *l = &p->lane[i];
    unsigned int rate = p->rate ? p->rate : 1;
    /* No light through a cut fibre or a pulled cable, whatever else. */
    bool dark = p->cut || p->light_lost || !npo_port_connected(p);
    double rx = dark ? DEAD_RX_DBM : lane_rx_dbm(p, l);
    double ber = dark ? 0.5 : lane_ber(p, l, rate);
    double margin = dark ? -DEAD_LINK_MARGIN_DB : lane_margin_db(p, l, rate);
    bool los = rx <= LOS_DBM;
    double alarm;

    ls->rx_power_cdbm = cpu_to_le16((int16_t)lrint(rx * 100));
    ls->tx_power_cdbm = cpu_to_le16((int16_t)lrint((l->tx_power_dbm -
                                                    l->tx_drop_db) * 100));
    ls->bias_cma = cpu_to_le16((uint16_t)lrint(l->bias_ma * 100));
    ls->temp_cdeg = cpu_to_le16((int16_t)lrint(l->temp_c * 100));
    ls->ber_nlog_c = cpu_to_le16((uint16_t)lrint(-log10(ber) * 100));
    /* Eye opening shrinks with margin and closes at loss of signal. */
    ls->eye_height_mv = cpu_to_le16(los ? 0 :
                                    CLAMP(lrint(20 + 15 * margin), 0, 250));
    ls->eye_width_mui = cpu_to_le16(los ? 0 :
                                    CLAMP(lrint(100 + 60 * margin), 0, 700));
    ls->preset = l->preset;
    ls->flags = (los ? R_LANE_FLAGS_LOS_MASK : R_LANE_FLAGS_CDR_LOCK_MASK) |
                (i < p->width ? R_LANE_FLAGS_ACTIVE_MASK : 0);
    /*
     * Thresholds, as an optical module publishes its own: the received
     * power at which a well-equalized lane's BER reaches the training
     * threshold (the link drops it), a warning some dB above, and the BER
     * levels.  A lane on a poorer preset can fail above the power alarm:
     * the BER levels see that.
     */
    if (!p->dev->fw_link.ber_threshold_exp) {
        return;                 /* no firmware: no thresholds */
    }
    alarm = sensitivity_dbm[rate - 1] - EQ_BEST_GAIN_DB +
            log10(KP4_LIMIT_BER) + p->dev->fw_link.ber_threshold_exp;
    alarm = MAX(alarm, LOS_DBM);
    ls->rx_low_alarm_cdbm = cpu_to_le16((int16_t)lrint(alarm * 100));
    ls->rx_low_warn_cdbm =
        cpu_to_le16((int16_t)lrint((alarm + RX_WARN_ABOVE_ALARM_DB) * 100));
    ls->ber_alarm_nlog_c = cpu_to_le16(p->dev->fw_link.ber_threshold_exp * 100);
    ls->ber_warn_nlog_c = cpu_to_le16((p->dev->fw_link.ber_threshold_exp +
                                       BER_WARN_DECADES) * 100);
}

/* Each lane's channel differs a little, as real ones do. */
void npo_phy_init_lanes(NpoPort *p)
{
    NpoState *s = p->dev;
    unsigned int j;

    for (j = 0; j < NPO_MAX_LANES; j++) {
        NpoLane *l = &p->lane[j];

        l->tx_power_dbm = NOMINAL_TX_DBM + g_rand_double_range(s->rand, -0.3, 0.3);
        l->base_loss_db = g_rand_double_range(s->rand, 0, 0.8);
        l->temp_c = 45 + g_rand_double_range(s->rand, -2, 2);
        l->bias_ma = 40 + g_rand_double_range(s->rand, -3, 3);
        l->best_preset = g_rand_int_range(s->rand, 0, 11);
    }
}

/* --- transmitters and the optical module (1.15) ------------------------- */

/* Tell the far receiver how our lanes launch: its power follows. */
void npo_phy_send_light(NpoPort *p)
{
    WireLight light = { 0 };
    unsigned int i;

    for (i = 0; i < NPO_MAX_LANES; i++) {
        light.tx_drop_cdb[i] = cpu_to_le16((uint16_t)lrint(
            MIN(p->lane[i].tx_drop_db, TX_DROP_MAX_DB) * 100));
    }
    npo_port_send(p, WIRE_LIGHT, &light, sizeof(light));
}

void npo_phy_rx_light(NpoPort *p, const uint8_t *payload, uint16_t len)
{
    const WireLight *light = (const WireLight *)payload;
    unsigned int i;

    if (len != sizeof(*light)) {
        return;
    }
    for (i = 0; i < NPO_MAX_LANES; i++) {
        p->lane[i].peer_tx_drop_db =
            MIN(le16_to_cpu(light->tx_drop_cdb[i]) / 100.0, TX_DROP_MAX_DB);
    }
    p->light_lost = false;
    npo_phy_compute_rx_ok(p);
}

/* The cable is out: nothing launches into this port any more. */
void npo_phy_peer_gone(NpoPort *p)
{
    unsigned int i;

    for (i = 0; i < NPO_MAX_LANES; i++) {
        p->lane[i].peer_tx_drop_db = 0;
    }
}

void npo_phy_tx_drop(NpoPort *p, unsigned int lane, double db)
{
    p->lane[lane].tx_drop_db = MIN(db, TX_DROP_MAX_DB);
    npo_phy_send_light(p);
}

/*
 * MODULE_INFO: ARG0 port, ARG1/ARG2 the block's address, ARG3 its room.
 * The identity is the module's own; the transmit limits are around the
 * nominal launch power, temperature and bias as a datasheet gives them.
 */
uint32_t npo_phy_module_info(NpoState *s)
{
    unsigned int port = s->mbox_arg[0];
    g_autofree char *part = NULL;
    g_autofree char *serial = NULL;
    NpoHwModuleInfo m = { 0 };

    if (port >= s->num_ports || s->mbox_arg[3] < sizeof(m)) {
        return MBOX_ERR_ARG;
    }
    part = g_strdup_printf("NPO-OSFP-%uX%uG", s->lanes_per_port,
                           (unsigned int)lrint(rate_gbps[NPO_NUM_RATES - 1] /
                                               50) * 50);
    /* Unique per device and port, as a serial is. */
    serial = g_strdup_printf("N%08X%04X", (uint32_t)(s->serial & 0xffffffff),
                             port);
    /* NUL padded, all 16 bytes usable: "NPO-OSFP-16X200G" fills one. */
    strpadcpy(m.vendor, sizeof(m.vendor), "NPO Optics", '\0');
    strpadcpy(m.part, sizeof(m.part), part, '\0');
    strpadcpy(m.serial, sizeof(m.serial), serial, '\0');
    m.tx_high_alarm_cdbm = cpu_to_le16(TX_HIGH_ALARM_DBM * 100);
    m.tx_high_warn_cdbm = cpu_to_le16(TX_HIGH_WARN_DBM * 100);
    m.tx_low_warn_cdbm = cpu_to_le16((int16_t)(TX_LOW_WARN_DBM * 100));
    m.tx_low_alarm_cdbm = cpu_to_le16((int16_t)(TX_LOW_ALARM_DBM * 100));
    m.temp_high_alarm_cdeg = cpu_to_le16(75 * 100);
    m.temp_high_warn_cdeg = cpu_to_le16(70 * 100);
    m.bias_high_alarm_cma = cpu_to_le16(85 * 100);
    m.bias_high_warn_cma = cpu_to_le16(75 * 100);
    if (pci_dma_write(PCI_DEVICE(s), npo_mbox_addr(s, 1), &m, sizeof(m)) !=
        MEMTX_OK) {
        return MBOX_ERR_DMA;
    }
    s->mbox_ret[0] = sizeof(m);
    return MBOX_OK;
}
