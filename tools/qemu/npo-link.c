/*
 * NPO device model: link ports, training and the physical layer.
 *
 * Each port talks to exactly one peer port through a chardev (a socket),
 * whether the peer is in this QEMU process or another.  Training messages
 * carry node id, port, rates and usable lanes, so each side learns its
 * peer: the fabric is discovered, not configured.  See
 * Documentation/hardware.rst, "Links", for the state machine and the
 * physical model.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "chardev/char-fe.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include <math.h>

#include "npo.h"

/* Lane rates: rate n (1-based) in Gb/s and the receiver sensitivity. */
static const double rate_gbps[NPO_NUM_RATES] = { 53.125, 106.25, 212.5 };
static const double sensitivity_dbm[NPO_NUM_RATES] = { -7.4, -4.4, -2.4 };

#define NOMINAL_TX_DBM          1.0
#define LOS_DBM                 -15.0
#define DEAD_RX_DBM             -40.0
#define KP4_LIMIT_BER           2.4e-4  /* BER at zero margin */
#define EQ_BEST_GAIN_DB         3.0     /* margin the right preset adds */
#define EQ_STEP_LOSS_DB         0.6     /* per preset step away from it */
#define KP4_SYMBOLS             544
#define KP4_CORRECTABLE         15
#define KP4_BITS                5440

/* Virtual-time pacing of the link protocol. */
#define TS_INTERVAL_NS          (1 * SCALE_MS)
#define DETECT_POLL_NS          (10 * SCALE_MS)
#define TICK_NS                 (10 * SCALE_MS)
#define LOS_TIMEOUT_NS          (60 * SCALE_MS)
#define EQ_STEP_NS              (500 * SCALE_US)

/* Frames a port may hold before a data sender must wait for the socket. */
#define TX_LIMIT                (1024 * 1024)

typedef struct QEMU_PACKED WireTs {
    uint32_t node_id;
    uint8_t port;
    uint8_t rates;
    uint8_t lanes;
    uint8_t max_rate;
    uint8_t max_width;
    uint8_t epoch;      /* TS2: which configuration attempt this is */
    uint8_t pad[2];
    uint16_t rx_ok[NPO_NUM_RATES];
    uint16_t pad2;
} WireTs;

static const char *const state_names[] = {
    [PORT_DISABLED] = "disabled",
    [PORT_DETECT] = "detect",
    [PORT_POLLING] = "polling",
    [PORT_CONFIG] = "config",
    [PORT_EQUALIZE] = "equalize",
    [PORT_ACTIVE] = "active",
    [PORT_RECOVERY] = "recovery",
    [PORT_TEST] = "test",
    [PORT_LOOPBACK] = "loopback",
};

static int64_t now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static bool port_enabled(NpoPort *p)
{
    return (p->control & PCTL_ENABLE) &&
           (p->dev->status & STATUS_FW_RUNNING);
}

static bool port_connected(NpoPort *p)
{
    return !p->cut && qemu_chr_fe_backend_connected(&p->chr) &&
           qemu_chr_fe_backend_open(&p->chr);
}

static void port_event(NpoPort *p, uint32_t ev)
{
    p->events |= ev;
    trace_npo_port_event(p->dev->node_id, p->index, ev);
    npo_irq_update(p->dev, IRQ_LINK);
}

/* --- transmitting ----------------------------------------------------------- */

/*
 * Frames queue on the port and leave as fast as the socket takes them.  A
 * writer never blocks: two devices streaming at each other, in one QEMU
 * process or two, cannot deadlock on full socket buffers.
 */
static gboolean port_tx_ready(void *do_not_use, GIOCondition cond,
                              void *opaque);

static void port_tx_drop(NpoPort *p)
{
    if (p->tx_watch) {
        g_source_remove(p->tx_watch);
        p->tx_watch = 0;
    }
    g_byte_array_set_size(p->tx, 0);
    p->tx_off = 0;
}

void npo_port_flush(NpoPort *p)
{
    while (p->tx_off < p->tx->len) {
        int n = qemu_chr_fe_write(&p->chr, p->tx->data + p->tx_off,
                                  MIN(p->tx->len - p->tx_off, INT_MAX));

        if (n < 0 && errno == EAGAIN) {
            /* Keep what is unsent at the front; whole frames only follow. */
            if (p->tx_off >= p->tx->len / 2) {
                g_byte_array_remove_range(p->tx, 0, p->tx_off);
                p->tx_off = 0;
            }
            if (!p->tx_watch) {
                p->tx_watch = qemu_chr_fe_add_watch(&p->chr,
                                                    G_IO_OUT | G_IO_HUP,
                                                    port_tx_ready, p);
            }
            return;
        }
        if (n <= 0) {
            /* The connection is gone: queued frames go with the cable. */
            break;
        }
        p->tx_off += n;
    }
    port_tx_drop(p);
    if (p->tx_blocked) {
        p->tx_blocked = false;
        npo_fabric_tx_room(p);
    }
}

static gboolean port_tx_ready(void *do_not_use, GIOCondition cond,
                              void *opaque)
{
    NpoPort *p = opaque;

    p->tx_watch = 0;
    npo_port_flush(p);
    if (p->tx_blocked && p->tx->len - p->tx_off < TX_LIMIT) {
        p->tx_blocked = false;
        npo_fabric_tx_room(p);
    }
    return G_SOURCE_REMOVE;
}

/*
 * Queue a frame with len payload bytes for the caller to fill before the
 * next npo_port_flush(); NULL when no peer is connected (a cut cable
 * carries nothing).
 */
uint8_t *npo_port_frame(NpoPort *p, uint8_t type, uint16_t len)
{
    WireHdr h = { .magic = WIRE_MAGIC, .type = type, .len = cpu_to_le16(len) };
    guint at = p->tx->len;

    if (!port_connected(p)) {
        return NULL;
    }
    g_byte_array_set_size(p->tx, at + sizeof(h) + len);
    memcpy(p->tx->data + at, &h, sizeof(h));
    return p->tx->data + at + sizeof(h);
}

/*
 * True when the port holds TX_LIMIT bytes or more: the caller waits for
 * npo_fabric_tx_room().
 */
bool npo_port_tx_full(NpoPort *p)
{
    if (p->tx->len - p->tx_off < TX_LIMIT) {
        return false;
    }
    p->tx_blocked = true;
    return true;
}

static void port_send(NpoPort *p, uint8_t type, const void *payload,
                      uint16_t len)
{
    uint8_t *f = npo_port_frame(p, type, len);

    if (f) {
        if (len) {
            memcpy(f, payload, len);
        }
        npo_port_flush(p);
    }
}

/* --- physical model ------------------------------------------------------ */

static double lane_rx_dbm(NpoPort *p, NpoLane *l)
{
    if (l->dead) {
        return DEAD_RX_DBM;
    }
    return NOMINAL_TX_DBM - p->dev->link_loss_cdb / 100.0 - l->base_loss_db -
           l->rx_drop_db;
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
    return MAX(ber, l->fault_ber);
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
static void port_compute_rx_ok(NpoPort *p)
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

static unsigned int limit(unsigned int a, unsigned int b)
{
    return b ? MIN(a, b) : a;
}

/*
 * Both ends run this on the same inputs and so agree: the rate and width
 * with the most bandwidth such that lanes 0..width-1 work both ways.
 * Lane 0 must work: as in PCIe, a link never trains around it.
 */
static uint8_t port_negotiate(NpoPort *p, unsigned int *rate,
                              unsigned int *width)
{
    NpoState *s = p->dev;
    unsigned int max_rate = limit(limit(NPO_NUM_RATES,
                                        (p->control >> PCTL_MAX_RATE_SHIFT) & 7),
                                  p->peer_max_rate);
    unsigned int max_w = limit(limit(MIN(s->lanes_per_port, p->peer_lanes),
                                     (p->control >> PCTL_MAX_WIDTH_SHIFT) & 0x1f),
                               p->peer_max_width);
    uint8_t common = s->rates & p->peer_rates;
    uint8_t allowed = common & ((1 << max_rate) - 1);
    uint16_t all = (1 << max_w) - 1;
    double best_bw = 0;
    unsigned int r, w;

    *rate = *width = 0;
    p->fault_lanes = 0;
    if (!common) {
        return FAIL_NO_COMMON_RATE;
    }
    /* Lanes to blame: those that fail at the best rate both ends allow. */
    if (allowed) {
        r = 32 - clz32(allowed);
        p->fault_lanes = all & ~(p->local_rx_ok[r - 1] & p->peer_rx_ok[r - 1]);
    }
    for (r = 1; r <= max_rate; r++) {
        uint16_t ok;

        if (!(common & (1 << (r - 1)))) {
            continue;
        }
        ok = p->local_rx_ok[r - 1] & p->peer_rx_ok[r - 1];
        /* Widths are powers of two: x16, x8, x4, x2, x1. */
        for (w = pow2floor(max_w); w >= 1; w /= 2) {
            uint16_t need = (1 << w) - 1;

            if ((ok & need) == need) {
                break;
            }
        }
        if (w && rate_gbps[r - 1] * w > best_bw) {
            best_bw = rate_gbps[r - 1] * w;
            *rate = r;
            *width = w;
        }
    }
    return *rate ? FAIL_NONE : FAIL_NO_USABLE_LANES;
}

static unsigned int port_max_common_rate(NpoPort *p)
{
    uint8_t common = p->dev->rates & p->peer_rates;

    return common ? 32 - clz32(common) : 0;
}

static bool port_degraded(NpoPort *p)
{
    return p->rate < port_max_common_rate(p) ||
           p->width < MIN(p->dev->lanes_per_port, p->peer_lanes);
}

/* --- state machine ------------------------------------------------------- */

static void port_set_state(NpoPort *p, enum npo_port_state st,
                           int64_t timeout_ns)
{
    if (p->state != st) {
        trace_npo_port_state(p->dev->node_id, p->index, state_names[p->state],
                             state_names[st]);
    }
    p->state = st;
    p->state_deadline = timeout_ns ? now_ns() + timeout_ns : 0;
}

static void port_arm(NpoPort *p, int64_t delay_ns)
{
    timer_mod(p->timer, now_ns() + delay_ns);
}

static void port_send_ts(NpoPort *p, uint8_t type)
{
    NpoState *s = p->dev;
    WireTs ts = {
        .node_id = cpu_to_le32(s->node_id),
        .port = p->index,
        .rates = s->rates,
        .lanes = s->lanes_per_port,
        .max_rate = (p->control >> PCTL_MAX_RATE_SHIFT) & 7,
        .max_width = (p->control >> PCTL_MAX_WIDTH_SHIFT) & 0x1f,
        .epoch = p->epoch,
    };
    unsigned int r;

    for (r = 0; r < NPO_NUM_RATES; r++) {
        ts.rx_ok[r] = cpu_to_le16(p->local_rx_ok[r]);
    }
    port_send(p, type, &ts, sizeof(ts));
}

/* Leave the active state: the link is down, say why. */
static void port_link_down(NpoPort *p, uint8_t reason)
{
    bool was_up = p->state == PORT_ACTIVE || p->state == PORT_RECOVERY ||
                  p->state == PORT_EQUALIZE;

    p->rate = p->width = 0;
    p->high_ber = false;
    p->ber_lanes = 0;
    p->was_active = false;
    if (was_up) {
        p->counter[NPO_STAT_LINK_DOWNS]++;
        p->fail_reason = p->down_reason = reason;
        port_event(p, PEV_DOWN);
    }
    /* Requests through the port end now, as LINK_DOWN. */
    npo_fabric_port_down(p);
}

static void port_start_polling(NpoPort *p)
{
    p->peer_ts2 = false;
    port_compute_rx_ok(p);
    port_set_state(p, PORT_POLLING,
                   (int64_t)p->dev->fw_link.polling_timeout_ms * SCALE_MS);
    port_send_ts(p, WIRE_TS1);
    port_arm(p, TS_INTERVAL_NS);
}

static void port_enter_detect(NpoPort *p, bool listen)
{
    p->listen = listen;
    p->peer_ts2 = false;
    port_set_state(p, PORT_DETECT, 0);
    if (listen) {
        timer_del(p->timer);
    } else {
        port_arm(p, DETECT_POLL_NS);
    }
}

static void port_train_failed(NpoPort *p, uint8_t reason)
{
    p->counter[NPO_STAT_TRAIN_FAILURES]++;
    p->fail_reason = reason;
    trace_npo_port_train_fail(p->dev->node_id, p->index, reason);
    port_event(p, PEV_TRAIN_FAIL);
    /* Do not start again on our own: the driver retrains with backoff. */
    port_enter_detect(p, true);
}

static void port_enter_config(NpoPort *p)
{
    p->epoch++;
    port_compute_rx_ok(p);
    /* Recovery is Configuration entered from an active link. */
    port_set_state(p, p->state == PORT_RECOVERY ? PORT_RECOVERY : PORT_CONFIG,
                   (int64_t)p->dev->fw_link.config_timeout_ms * SCALE_MS);
    port_send_ts(p, WIRE_TS2);
    port_arm(p, TS_INTERVAL_NS);
}

static void port_try_negotiate(NpoPort *p)
{
    unsigned int rate, width;
    uint8_t fail;

    if ((p->state != PORT_CONFIG && p->state != PORT_RECOVERY) ||
        !p->peer_ts2) {
        return;
    }
    fail = port_negotiate(p, &rate, &width);
    if (fail) {
        port_train_failed(p, fail);
        return;
    }
    p->rate = rate;
    p->width = width;
    port_set_state(p, PORT_EQUALIZE, 0);
    port_arm(p, EQ_STEP_NS * MAX(p->dev->fw_num_presets, 1u));
}

static void port_enter_active(NpoPort *p)
{
    bool recovered = p->was_active;

    port_set_state(p, PORT_ACTIVE, 0);
    p->fail_reason = FAIL_NONE;
    p->last_rx = p->last_tick = now_ns();
    p->was_active = true;
    trace_npo_port_up(p->dev->node_id, p->index, p->rate, p->width,
                      p->peer_node, p->peer_port);
    port_event(p, recovered ? PEV_RECOVERED : PEV_UP);
    if (port_degraded(p)) {
        port_event(p, PEV_DEGRADED);
    }
    port_send(p, WIRE_IDLE, NULL, 0);
    port_arm(p, TICK_NS);
}

/* Retrain without dropping the link to the driver: recovery. */
static void port_recover(NpoPort *p)
{
    p->counter[NPO_STAT_RECOVERIES]++;
    port_event(p, PEV_RETRAIN);
    port_set_state(p, PORT_RECOVERY, 0);
    p->peer_ts2 = false;
    port_enter_config(p);
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

/* Errors on an active link since the last tick, then their consequences. */
static void port_tick(NpoPort *p)
{
    NpoState *s = p->dev;
    int64_t now = now_ns();
    double secs = (now - p->last_tick) / 1e9;
    double thr = ber_threshold(s), warn = thr / 100;
    uint64_t uncorrectable = p->pending_burst;
    bool high = false, lane_failed = false;
    uint16_t ber_lanes = 0;
    unsigned int i;

    p->last_tick = now;
    p->pending_burst = 0;
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
        uncorrectable += unc;
        if (ber > warn) {
            high = true;
            ber_lanes |= 1 << i;
        }
        lane_failed |= ber >= thr;
    }
    /* Every uncorrectable codeword fails its CRC and is replayed. */
    p->counter[NPO_STAT_CRC_ERRORS] += uncorrectable;
    p->counter[NPO_STAT_REPLAYS] += uncorrectable;
    p->ber_lanes = ber_lanes;
    if (high && !p->high_ber) {
        port_event(p, PEV_ERR_THRESHOLD);
    }
    p->high_ber = high;
    if (lane_failed || uncorrectable >= s->fw_link.replay_limit) {
        port_recover(p);
        return;
    }
    if (now - p->last_rx > LOS_TIMEOUT_NS) {
        port_link_down(p, FAIL_LOSS_OF_SIGNAL);
        port_enter_detect(p, false);
        return;
    }
    port_send(p, WIRE_IDLE, NULL, 0);
    port_arm(p, TICK_NS);
}

/*
 * The PRBS pattern ran for the test's duration at the negotiated rate, or
 * the highest common one: count its bits and the errors the lanes made.
 */
static void port_prbs_finish(NpoPort *p)
{
    NpoState *s = p->dev;
    double secs = (p->prbs_ctl & 0xffff) / 1e3;
    unsigned int rate = p->rate ? p->rate : MAX(port_max_common_rate(p), 1u);
    unsigned int i;

    for (i = 0; i < s->lanes_per_port; i++) {
        NpoLane *l = &p->lane[i];
        double bits = rate_gbps[rate - 1] * 1e9 * secs;

        lane_equalize(s, l);
        l->prbs_bits += (uint64_t)bits;
        l->prbs_errors += poisson(s->rand, bits * lane_ber(p, l, rate));
    }
    port_event(p, PEV_PRBS_DONE);
}

static void port_timer(void *opaque)
{
    NpoPort *p = opaque;
    int64_t now = now_ns();

    if (!port_enabled(p)) {
        return;
    }
    switch (p->state) {
    case PORT_DETECT:
        if (!p->listen && port_connected(p)) {
            port_start_polling(p);
        } else {
            port_arm(p, DETECT_POLL_NS);
        }
        break;
    case PORT_POLLING:
        if (now >= p->state_deadline) {
            port_train_failed(p, FAIL_POLLING_TIMEOUT);
        } else {
            port_send_ts(p, WIRE_TS1);
            port_arm(p, TS_INTERVAL_NS);
        }
        break;
    case PORT_CONFIG:
    case PORT_RECOVERY:
        if (p->state_deadline && now >= p->state_deadline) {
            port_link_down(p, FAIL_CONFIG_TIMEOUT);
            port_train_failed(p, FAIL_CONFIG_TIMEOUT);
        } else {
            if (!p->state_deadline) {
                p->state_deadline = now +
                    (int64_t)p->dev->fw_link.config_timeout_ms * SCALE_MS;
            }
            port_send_ts(p, WIRE_TS2);
            port_arm(p, TS_INTERVAL_NS);
        }
        break;
    case PORT_EQUALIZE:
        port_enter_active(p);
        break;
    case PORT_ACTIVE:
        port_tick(p);
        break;
    case PORT_TEST:
        port_prbs_finish(p);
        port_enter_detect(p, false);
        port_arm(p, TS_INTERVAL_NS);
        break;
    case PORT_LOOPBACK:
        if (now >= p->state_deadline) {
            port_enter_detect(p, true);
        }
        break;
    case PORT_DISABLED:
        break;
    }
}

/* --- receiving ------------------------------------------------------------ */

static void port_rx_ts(NpoPort *p, uint8_t type, const WireTs *ts)
{
    bool ts2 = type == WIRE_TS2;
    unsigned int r;

    p->peer_known = true;
    p->peer_node = le32_to_cpu(ts->node_id);
    p->peer_port = ts->port;
    p->peer_rates = ts->rates;
    p->peer_lanes = ts->lanes;
    p->peer_max_rate = ts->max_rate;
    p->peer_max_width = ts->max_width;

    /*
     * A TS2 of the configuration we already agreed on is the peer
     * repeating itself until it hears us: answer it, change nothing.
     */
    if (ts2 && (p->state == PORT_EQUALIZE || p->state == PORT_ACTIVE) &&
        ts->epoch == p->peer_epoch) {
        port_send_ts(p, WIRE_TS2);
        return;
    }
    if (ts2) {
        p->peer_epoch = ts->epoch;
        for (r = 0; r < NPO_NUM_RATES; r++) {
            p->peer_rx_ok[r] = le16_to_cpu(ts->rx_ok[r]);
        }
    }

    switch (p->state) {
    case PORT_DETECT:
    case PORT_LOOPBACK:
        /* Someone is training with us: answer, even when listening. */
        port_start_polling(p);
        if (ts2) {
            port_enter_config(p);
            p->peer_ts2 = true;
            port_try_negotiate(p);
        }
        break;
    case PORT_POLLING:
        port_enter_config(p);
        p->peer_ts2 = ts2;
        port_try_negotiate(p);
        break;
    case PORT_CONFIG:
    case PORT_RECOVERY:
        if (ts2) {
            p->peer_ts2 = true;
            port_try_negotiate(p);
        }
        break;
    case PORT_ACTIVE:
    case PORT_EQUALIZE:
        if (ts2) {
            /* The peer started a new configuration: recover with it. */
            port_recover(p);
            p->peer_ts2 = true;
            port_try_negotiate(p);
        } else {
            /* The peer started over from Polling: its link went down. */
            port_link_down(p, FAIL_LOSS_OF_SIGNAL);
            port_start_polling(p);
        }
        break;
    default:
        break;
    }
}

static void port_rx_frame(NpoPort *p, uint8_t type, const uint8_t *payload,
                          uint16_t len)
{
    p->last_rx = now_ns();
    if (!port_enabled(p) || p->cut) {
        return;
    }
    switch (type) {
    case WIRE_TS1:
    case WIRE_TS2:
        if (len == sizeof(WireTs) && p->state != PORT_TEST) {
            port_rx_ts(p, type, (const WireTs *)payload);
        }
        break;
    case WIRE_IDLE:
        break;
    case WIRE_DOWN:
        if (p->state >= PORT_POLLING && p->state != PORT_TEST) {
            port_link_down(p, FAIL_PEER_DISABLED);
            port_enter_detect(p, true);
        }
        break;
    case WIRE_LOOPBACK:
        port_link_down(p, FAIL_PEER_TEST);
        port_set_state(p, PORT_LOOPBACK, 5 * NANOSECONDS_PER_SECOND);
        port_arm(p, 5 * NANOSECONDS_PER_SECOND);
        break;
    case WIRE_DATA:
    case WIRE_READ:
    case WIRE_READ_DATA:
    case WIRE_ATOMIC:
    case WIRE_ACK:
    case WIRE_ABORT:
        if (npo_link_ready(p) != NPO_LINK_DOWN) {
            npo_fabric_rx(p, type, payload, len);
        }
        break;
    case WIRE_TIME:
        if (npo_link_ready(p) == NPO_LINK_UP) {
            npo_clock_rx(p, payload, len);
        }
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "npo%u: port %u: unknown frame type %u\n",
                      p->dev->node_id, p->index, type);
        break;
    }
}

static int port_can_read(void *opaque)
{
    NpoPort *p = opaque;

    return sizeof(p->rxbuf) - p->rxlen;
}

static void port_read(void *opaque, const uint8_t *buf, int size)
{
    NpoPort *p = opaque;
    unsigned int off = 0;

    size = MIN((unsigned int)size, sizeof(p->rxbuf) - p->rxlen);
    memcpy(p->rxbuf + p->rxlen, buf, size);
    p->rxlen += size;
    while (p->rxlen - off >= sizeof(WireHdr)) {
        WireHdr h;
        uint16_t len;

        memcpy(&h, p->rxbuf + off, sizeof(h));
        len = le16_to_cpu(h.len);
        if (h.magic != WIRE_MAGIC || len > sizeof(p->rxbuf) - sizeof(h)) {
            /* Lost framing: drop everything, training resynchronises. */
            qemu_log_mask(LOG_GUEST_ERROR,
                          "npo%u: port %u: bad frame, resynchronising\n",
                          p->dev->node_id, p->index);
            p->rxlen = 0;
            return;
        }
        if (p->rxlen - off < sizeof(h) + len) {
            break;
        }
        port_rx_frame(p, h.type, p->rxbuf + off + sizeof(h), len);
        off += sizeof(h) + len;
    }
    memmove(p->rxbuf, p->rxbuf + off, p->rxlen - off);
    p->rxlen -= off;
}

static void port_chr_event(void *opaque, QEMUChrEvent event)
{
    NpoPort *p = opaque;

    switch (event) {
    case CHR_EVENT_OPENED:
        trace_npo_port_cable(p->dev->node_id, p->index, 1);
        p->rxlen = 0;
        if (port_enabled(p) && p->state == PORT_DETECT) {
            port_enter_detect(p, false);
        }
        break;
    case CHR_EVENT_CLOSED:
        trace_npo_port_cable(p->dev->node_id, p->index, 0);
        port_tx_drop(p);
        p->peer_known = false;
        if (port_enabled(p) && p->state != PORT_DETECT) {
            port_link_down(p, FAIL_LOSS_OF_SIGNAL);
            port_enter_detect(p, false);
        }
        break;
    default:
        break;
    }
}

/* --- data path ------------------------------------------------------------- */

/* Devices of this QEMU process, so that linked neighbours find each other. */
static NpoDeviceList npo_local_devices =
    QTAILQ_HEAD_INITIALIZER(npo_local_devices);

NpoDeviceList *npo_link_devices(void)
{
    return &npo_local_devices;
}

/*
 * The port that leads to node: one whose trained peer it is, preferring one
 * that carries traffic now.  NULL if no port has ever reached it.
 */
NpoPort *npo_link_route(NpoState *s, uint32_t node)
{
    NpoPort *found = NULL;
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        if (!p->peer_known || p->peer_node != node) {
            continue;
        }
        if (p->state == PORT_ACTIVE) {
            return p;
        }
        found = found ? found : p;
    }
    return found;
}

/* Active: data flows.  Retraining an active link only pauses it. */
NpoLinkReady npo_link_ready(NpoPort *p)
{
    if (p->state == PORT_ACTIVE) {
        return NPO_LINK_UP;
    }
    if (p->was_active && (p->state == PORT_RECOVERY ||
                          p->state == PORT_EQUALIZE)) {
        return NPO_LINK_PAUSED;
    }
    return NPO_LINK_DOWN;
}

/*
 * The device at the far end of an active port, if it lives in this QEMU
 * process and its port names us back; NULL if it is elsewhere, or if this
 * device sends all its data over the wire (property wire-data).
 */
NpoState *npo_link_local_peer(NpoPort *p)
{
    NpoState *t;

    if (p->dev->wire_data) {
        return NULL;
    }
    QTAILQ_FOREACH(t, &npo_local_devices, next) {
        NpoPort *tp;

        if (t == p->dev || t->node_id != p->peer_node ||
            p->peer_port >= t->num_ports) {
            continue;
        }
        tp = &t->port[p->peer_port];
        if (tp->peer_known && tp->peer_node == p->dev->node_id &&
            tp->peer_port == p->index && tp->state == PORT_ACTIVE) {
            return t;
        }
    }
    return NULL;
}

/* --- driver interface ------------------------------------------------------ */

static void port_disable(NpoPort *p)
{
    if (p->state != PORT_DISABLED) {
        port_link_down(p, p->control & PCTL_ENABLE ? FAIL_NO_FIRMWARE
                                                   : FAIL_ADMIN_DISABLED);
        port_send(p, WIRE_DOWN, NULL, 0);
        port_set_state(p, PORT_DISABLED, 0);
    }
    timer_del(p->timer);
}

/* Firmware started or stopped: ports follow. */
void npo_link_fw_changed(NpoState *s)
{
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        if (!port_enabled(p)) {
            port_disable(p);
        } else if (p->state == PORT_DISABLED) {
            port_enter_detect(p, false);
        }
    }
}

static void port_write_control(NpoPort *p, uint32_t val)
{
    uint32_t old = p->control;

    p->control = val & ~PCTL_RETRAIN;
    if (!port_enabled(p)) {
        port_disable(p);
        return;
    }
    if (!(old & PCTL_ENABLE) || p->state == PORT_DISABLED) {
        port_enter_detect(p, false);
        return;
    }
    if (val & PCTL_RETRAIN) {
        if (p->state == PORT_ACTIVE) {
            port_recover(p);
        } else if (p->state != PORT_TEST) {
            port_enter_detect(p, false);
        }
    }
}

static void port_start_prbs(NpoPort *p, uint32_t val)
{
    uint32_t ms = val & 0xffff;

    if (!port_enabled(p) || !ms) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: PRBS test needs an "
                      "enabled port and a duration\n", p->dev->node_id,
                      p->index);
        return;
    }
    p->prbs_ctl = ms;
    port_link_down(p, FAIL_TEST);
    port_send(p, WIRE_LOOPBACK, NULL, 0);
    port_set_state(p, PORT_TEST, (int64_t)ms * SCALE_MS);
    port_arm(p, (int64_t)ms * SCALE_MS);
}

static uint32_t port_status(NpoPort *p)
{
    uint32_t v = p->state;

    v |= p->rate << PST_RATE_SHIFT;
    v |= p->width << PST_WIDTH_SHIFT;
    if (p->state == PORT_ACTIVE && port_degraded(p)) {
        v |= PST_DEGRADED;
    }
    if (port_connected(p)) {
        v |= PST_PEER_PRESENT;
    }
    if (p->high_ber) {
        v |= PST_HIGH_BER;
    }
    v |= (uint32_t)p->fail_reason << PST_FAIL_SHIFT;
    if (p->state == PORT_DETECT && p->listen) {
        v |= PST_LISTEN;
    }
    return v;
}

/* The port a register address belongs to, and the offset within it. */
static NpoPort *port_of(NpoState *s, hwaddr addr, hwaddr *off)
{
    unsigned int idx = (addr - R_PORT_BASE) / R_PORT_STRIDE;

    if (addr < R_PORT_BASE || idx >= s->num_ports) {
        return NULL;
    }
    *off = (addr - R_PORT_BASE) % R_PORT_STRIDE;
    return &s->port[idx];
}

bool npo_link_reg_read(NpoState *s, hwaddr addr, uint64_t *val)
{
    hwaddr off;
    NpoPort *p = port_of(s, addr, &off);

    if (!p) {
        return false;
    }
    switch (off) {
    case P_CONTROL:
        *val = p->control;
        return true;
    case P_STATUS:
        *val = port_status(p);
        return true;
    case P_CAPS:
        *val = s->rates | (s->lanes_per_port << 8);
        return true;
    case P_PEER_NODE:
        *val = p->peer_known ? p->peer_node : 0;
        return true;
    case P_PEER_PORT:
        *val = p->peer_known ? p->peer_port | (p->peer_rates << 8) |
                               (p->peer_lanes << 16) | BIT(31) : 0;
        return true;
    case P_EVENTS:
        *val = p->events;
        return true;
    case P_PRBS:
        *val = p->prbs_ctl | (p->state == PORT_TEST ? PRBS_START : 0);
        return true;
    case P_ACTIVE_LANES:
        *val = p->width ? (1 << p->width) - 1 : 0;
        return true;
    case P_FAULT_LANES:
        *val = p->fault_lanes;
        return true;
    case P_BER_LANES:
        *val = p->ber_lanes;
        return true;
    case P_DOWN_REASON:
        *val = p->down_reason;
        return true;
    }
    return false;
}

bool npo_link_reg_write(NpoState *s, hwaddr addr, uint64_t val)
{
    hwaddr off;
    NpoPort *p = port_of(s, addr, &off);

    if (!p) {
        return false;
    }
    switch (off) {
    case P_CONTROL:
        port_write_control(p, val);
        return true;
    case P_EVENTS:
        p->events &= ~val;
        npo_irq_update(s, 0);
        return true;
    case P_PRBS:
        if (val & PRBS_START) {
            port_start_prbs(p, val);
        }
        return true;
    }
    return false;
}

uint32_t npo_link_event_ports(NpoState *s)
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

static uint32_t port_stats_dma(NpoState *s)
{
    unsigned int idx = s->mbox_arg[0], i;
    dma_addr_t addr = ((uint64_t)s->mbox_arg[2] << 32) | s->mbox_arg[1];
    size_t len = sizeof(NpoHwPortStats) +
                 s->lanes_per_port * sizeof(NpoHwLaneStats);
    g_autofree NpoHwPortStats *st = g_malloc0(len);
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
        unsigned int rate = p->rate ? p->rate : 1;
        double rx = lane_rx_dbm(p, l);
        double ber = lane_ber(p, l, rate);
        double margin = lane_margin_db(p, l, rate);
        bool los = rx <= LOS_DBM;

        counter[NPO_STAT_FEC_CORRECTED] += l->fec_corrected;
        counter[NPO_STAT_FEC_UNCORRECTABLE] += l->fec_uncorrectable;
        counter[NPO_STAT_SYMBOL_ERRORS] += l->symbol_errors;
        ls->fec_corrected = cpu_to_le64(l->fec_corrected);
        ls->fec_uncorrectable = cpu_to_le64(l->fec_uncorrectable);
        ls->symbol_errors = cpu_to_le64(s->count_symbol_errors ?
                                        l->symbol_errors : 0);
        ls->prbs_bits = cpu_to_le64(l->prbs_bits);
        ls->prbs_errors = cpu_to_le64(l->prbs_errors);
        ls->rx_power_cdbm = cpu_to_le16((int16_t)lrint(rx * 100));
        ls->tx_power_cdbm = cpu_to_le16((int16_t)lrint(l->tx_power_dbm * 100));
        ls->bias_cma = cpu_to_le16((uint16_t)lrint(l->bias_ma * 100));
        ls->temp_cdeg = cpu_to_le16((int16_t)lrint(l->temp_c * 100));
        ls->ber_nlog_c = cpu_to_le16((uint16_t)lrint(-log10(ber) * 100));
        /* Eye opening shrinks with margin and closes at loss of signal. */
        ls->eye_height_mv = cpu_to_le16(los ? 0 :
                                        CLAMP(lrint(20 + 15 * margin), 0, 250));
        ls->eye_width_mui = cpu_to_le16(los ? 0 :
                                        CLAMP(lrint(100 + 60 * margin), 0, 700));
        ls->preset = l->preset;
        ls->flags = (los ? LANE_FLAG_LOS : LANE_FLAG_CDR_LOCK) |
                    (i < p->width ? LANE_FLAG_ACTIVE : 0);
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
    if (pci_dma_write(PCI_DEVICE(s), addr, st, len) != MEMTX_OK) {
        return MBOX_ERR_DMA;
    }
    s->mbox_ret[0] = len;
    return MBOX_OK;
}

static void port_clear_counters(NpoPort *p)
{
    unsigned int i;

    memset(p->counter, 0, sizeof(p->counter));
    for (i = 0; i < NPO_MAX_LANES; i++) {
        NpoLane *l = &p->lane[i];

        l->fec_corrected = l->fec_uncorrectable = l->symbol_errors = 0;
        l->prbs_bits = l->prbs_errors = 0;
    }
}

static uint32_t npo_link_fault(NpoState *s, unsigned int kind,
                               unsigned int port, unsigned int lane,
                               uint32_t value)
{
    NpoPort *p;
    NpoLane *l;
    unsigned int i, j;

    if (kind == FAULT_CLEAR_ALL) {
        for (i = 0; i < s->num_ports; i++) {
            s->port[i].cut = false;
            s->port[i].pending_burst = 0;
            for (j = 0; j < NPO_MAX_LANES; j++) {
                s->port[i].lane[j].fault_ber = 0;
                s->port[i].lane[j].dead = false;
                s->port[i].lane[j].rx_drop_db = 0;
            }
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
    case FAULT_CUT:
        if (value && !p->cut) {
            p->cut = true;
            if (port_enabled(p)) {
                port_link_down(p, FAIL_LOSS_OF_SIGNAL);
                port_enter_detect(p, false);
            }
        } else if (!value && p->cut) {
            p->cut = false;
            if (port_enabled(p)) {
                port_enter_detect(p, false);
            }
        }
        break;
    case FAULT_BURST:
        p->pending_burst += value;
        break;
    default:
        return MBOX_ERR_ARG;
    }
    return MBOX_OK;
}

uint32_t npo_link_mbox(NpoState *s, uint32_t op)
{
    unsigned int i;

    switch (op) {
    case MBOX_OP_PORT_STATS:
        return port_stats_dma(s);
    case MBOX_OP_CLEAR_COUNTERS:
        if (s->mbox_arg[0] == 0xff) {
            for (i = 0; i < s->num_ports; i++) {
                port_clear_counters(&s->port[i]);
            }
        } else if (s->mbox_arg[0] < s->num_ports) {
            port_clear_counters(&s->port[s->mbox_arg[0]]);
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
        return npo_link_fault(s, s->mbox_arg[0] & 0xff,
                              (s->mbox_arg[0] >> 8) & 0xff,
                              (s->mbox_arg[0] >> 16) & 0xff, s->mbox_arg[1]);
    }
    return MBOX_ERR_OPCODE;
}

/*
 * QMP fault injection: qom-set DEVICE fault "KIND PORT [LANE] VALUE",
 * KIND one of ber (BER, 0 clears), dead (0/1), rxdrop (dB), cut (0/1),
 * burst (codewords), or "clear".
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
    n = sscanf(str, "%15s %u %u %lf", kind, &port, &lane, &value);
    if (!strcmp(kind, "cut") || !strcmp(kind, "burst")) {
        n = sscanf(str, "%15s %u %lf", kind, &port, &value);
        n = n == 3 ? 4 : 0;
    }
    if (n != 4 || value < 0) {
        error_setg(errp, "npo: fault: expected 'ber|dead|rxdrop PORT LANE "
                   "VALUE', 'cut|burst PORT VALUE' or 'clear'");
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
    } else if (!strcmp(kind, "cut")) {
        res = npo_link_fault(s, FAULT_CUT, port, 0, value != 0);
    } else if (!strcmp(kind, "burst")) {
        res = npo_link_fault(s, FAULT_BURST, port, 0, (uint32_t)value);
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
        }
    }
    return g_string_free(out, false);
}

void npo_link_add_properties(Object *obj)
{
    object_property_add_str(obj, "fault", npo_get_fault, npo_set_fault);
}

void npo_link_reset(NpoState *s)
{
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        if (p->state != PORT_DISABLED) {
            port_send(p, WIRE_DOWN, NULL, 0);
        }
        timer_del(p->timer);
        p->control = 0;
        p->state = PORT_DISABLED;
        p->events = 0;
        p->rate = p->width = 0;
        p->fail_reason = p->down_reason = FAIL_NONE;
        p->high_ber = p->was_active = false;
        p->ber_lanes = p->fault_lanes = 0;
        p->prbs_ctl = 0;
        port_clear_counters(p);
    }
}

void npo_link_realize(NpoState *s, Error **errp)
{
    unsigned int i, j;

    s->rand = g_rand_new_with_seed(0x4e50 + s->node_id);
    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        p->dev = s;
        p->index = i;
        p->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, port_timer, p);
        p->tx = g_byte_array_new();
        for (j = 0; j < NPO_MAX_LANES; j++) {
            NpoLane *l = &p->lane[j];

            /* Each lane's channel differs a little, as real ones do. */
            l->tx_power_dbm = NOMINAL_TX_DBM + g_rand_double_range(s->rand, -0.3, 0.3);
            l->base_loss_db = g_rand_double_range(s->rand, 0, 0.8);
            l->temp_c = 45 + g_rand_double_range(s->rand, -2, 2);
            l->bias_ma = 40 + g_rand_double_range(s->rand, -3, 3);
            l->best_preset = g_rand_int_range(s->rand, 0, 11);
        }
        if (qemu_chr_fe_backend_connected(&p->chr)) {
            qemu_chr_fe_set_handlers(&p->chr, port_can_read, port_read,
                                     port_chr_event, NULL, p, NULL, true);
        }
    }
    QTAILQ_INSERT_TAIL(&npo_local_devices, s, next);
}

void npo_link_exit(NpoState *s)
{
    unsigned int i;

    QTAILQ_REMOVE(&npo_local_devices, s, next);
    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        timer_free(p->timer);
        port_tx_drop(p);
        g_byte_array_free(p->tx, true);
        qemu_chr_fe_deinit(&p->chr, false);
    }
    g_rand_free(s->rand);
}
