/*
 * NPO device model: link training, the state machine of every port.
 *
 * Ports train as PCIe links do: Detect, Polling (TS1: who I am), Config
 * (TS2: what I can receive, at which rates), Equalize, then Active, with
 * Recovery to retrain an active link without dropping it.  Training
 * messages carry node id, port, rates and usable lanes, so each side
 * learns its peer: the fabric is discovered, not configured.  Both ends
 * negotiate the widest, fastest link their working lanes allow (the
 * physical layer, npo-phy.c, says which work).  Documentation/hardware.rst,
 * "Links", describes the state machine.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include <linux/npo_netlink.h>
#include <linux/npo_names.h>

#include "npo-state.h"
#include "npo-clock.h"
#include "npo-fw.h"
#include "npo-port.h"
#include "npo-route.h"
#include "npo-wire.h"

/* Virtual-time pacing of the link protocol. */
#define TS_INTERVAL_NS          (1 * SCALE_MS)
#define DETECT_POLL_NS          (10 * SCALE_MS)
#define TICK_NS                 (10 * SCALE_MS)
#define LOS_TIMEOUT_NS          (60 * SCALE_MS)
#define EQ_STEP_NS              (500 * SCALE_US)

/* The driver reports the hardware's port states as they are. */
static const char *const state_names[] = NPO_PORT_STATE_NAMES;
QEMU_BUILD_BUG_ON((int)PORT_DISABLED != (int)NPO_PORT_DISABLED ||
                  (int)PORT_DETECT != (int)NPO_PORT_DETECT ||
                  (int)PORT_POLLING != (int)NPO_PORT_POLLING ||
                  (int)PORT_CONFIG != (int)NPO_PORT_CONFIG ||
                  (int)PORT_EQUALIZE != (int)NPO_PORT_EQUALIZE ||
                  (int)PORT_ACTIVE != (int)NPO_PORT_ACTIVE ||
                  (int)PORT_RECOVERY != (int)NPO_PORT_RECOVERY ||
                  (int)PORT_TEST != (int)NPO_PORT_TEST ||
                  (int)PORT_LOOPBACK != (int)NPO_PORT_LOOPBACK);

static int64_t now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* Enabled by the driver, with firmware to run it. */
bool npo_link_port_enabled(NpoPort *p)
{
    return (p->control & R_P_CONTROL_ENABLE_MASK) &&
           (p->dev->status & R_STATUS_FW_RUNNING_MASK);
}

static void port_event(NpoPort *p, uint32_t ev)
{
    p->events |= ev;
    trace_npo_port_event(p->dev->node_id, p->index, ev);
    npo_irq_update(p->dev, R_IRQ_STATUS_LINK_MASK);
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
                                        FIELD_EX32(p->control, P_CONTROL,
                                                   MAX_RATE)),
                                  p->peer_max_rate);
    unsigned int max_w = limit(limit(MIN(s->lanes_per_port, p->peer_lanes),
                                     FIELD_EX32(p->control, P_CONTROL,
                                                MAX_WIDTH)),
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
        if (w && npo_phy_rate_gbps(r) * w > best_bw) {
            best_bw = npo_phy_rate_gbps(r) * w;
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

static void port_set_state(NpoPort *p, NpoPortState st,
                           int64_t timeout_ns)
{
    if (p->state != st) {
        trace_npo_port_state(p->dev->node_id, p->index, state_names[p->state],
                             state_names[st]);
        /* The firmware logs its links coming and going. */
        if (st == PORT_ACTIVE || p->state == PORT_ACTIVE) {
            npo_fw_log(p->dev, "port %u %s", p->index,
                       st == PORT_ACTIVE ? "up" : state_names[st]);
        }
    }
    p->state = st;
    p->state_deadline = timeout_ns ? now_ns() + timeout_ns : 0;
}

static void port_arm(NpoPort *p, int64_t delay_ns)
{
    timer_mod(p->timer, now_ns() + delay_ns);
}

/* waiting: a TS2 that needs the peer's acknowledgement of our epoch. */
static void port_send_ts(NpoPort *p, uint8_t type, bool waiting)
{
    NpoState *s = p->dev;
    WireTs ts = {
        .node_id = cpu_to_le32(s->node_id),
        .port = p->index,
        .rates = s->rates,
        .lanes = s->lanes_per_port,
        .max_rate = FIELD_EX32(p->control, P_CONTROL, MAX_RATE),
        .max_width = FIELD_EX32(p->control, P_CONTROL, MAX_WIDTH),
        .epoch = p->epoch,
        .ack = p->peer_epoch,
        .flags = (waiting ? WIRE_TS_WAITING : 0) |
                 (p->epoch_responds ? WIRE_TS_RESPONSE : 0),
    };
    unsigned int r;

    for (r = 0; r < NPO_NUM_RATES; r++) {
        ts.rx_ok[r] = cpu_to_le16(p->local_rx_ok[r]);
    }
    npo_port_send(p, type, &ts, sizeof(ts));
}

/*
 * Leave the active state: the link is down, say why, and when the signal
 * went (true_ns, host monotonic) on the device clock.
 */
static void port_link_down_at(NpoPort *p, uint8_t reason, int64_t true_ns)
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
        p->down_time = npo_clock_read_at(p->dev, true_ns);
        port_event(p, R_P_EVENTS_DOWN_MASK);
    }
    /* Requests through the port end now, as LINK_DOWN. */
    npo_wire_port_down(p);
}

static void port_link_down(NpoPort *p, uint8_t reason)
{
    port_link_down_at(p, reason, npo_clock_true_ns());
}

static void port_start_polling(NpoPort *p)
{
    p->peer_ts2 = false;
    npo_phy_compute_rx_ok(p);
    port_set_state(p, PORT_POLLING,
                   (int64_t)p->dev->fw_link.polling_timeout_ms * SCALE_MS);
    port_send_ts(p, WIRE_TS1, false);
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
    port_event(p, R_P_EVENTS_TRAIN_FAIL_MASK);
    /* Do not start again on our own: the driver retrains with backoff. */
    port_enter_detect(p, true);
}

/*
 * A new configuration attempt: a request of our own, or a response to the
 * peer's (the one we last heard), which must never start another.
 */
static void port_enter_config(NpoPort *p, bool response)
{
    p->epoch++;
    p->epoch_responds = response;
    npo_phy_compute_rx_ok(p);
    /* Recovery is Configuration entered from an active link. */
    port_set_state(p, p->state == PORT_RECOVERY ? PORT_RECOVERY : PORT_CONFIG,
                   (int64_t)p->dev->fw_link.config_timeout_ms * SCALE_MS);
    port_send_ts(p, WIRE_TS2, true);
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
    p->los_grace = 0;
    p->was_active = true;
    trace_npo_port_up(p->dev->node_id, p->index, p->rate, p->width,
                      p->peer_node, p->peer_port);
    port_event(p, recovered ? R_P_EVENTS_RECOVERED_MASK : R_P_EVENTS_UP_MASK);
    if (port_degraded(p)) {
        port_event(p, R_P_EVENTS_DEGRADED_MASK);
    }
    npo_port_send(p, WIRE_IDLE, NULL, 0);
    port_arm(p, TICK_NS);
}

/* Retrain without dropping the link to the driver: recovery. */
static void port_recover(NpoPort *p, bool response)
{
    p->counter[NPO_STAT_RECOVERIES]++;
    port_event(p, R_P_EVENTS_RETRAIN_MASK);
    port_set_state(p, PORT_RECOVERY, 0);
    p->peer_ts2 = false;
    port_enter_config(p, response);
}

/* Errors on an active link since the last tick, then their consequences. */
static void port_tick(NpoPort *p)
{
    NpoState *s = p->dev;
    int64_t now = now_ns();
    uint64_t uncorrectable;
    NpoPhyTick t;

    npo_phy_tick(p, (now - p->last_tick) / 1e9, &t);
    /*
     * This process did not run for a while (the host was busy): the
     * peer's silence meanwhile is no loss of its signal.  Give it a
     * timeout from now, once per silence, so a peer that is really gone
     * is still seen, one timeout later, however slow the host.
     */
    if (now - p->last_tick > LOS_TIMEOUT_NS / 2 && p->los_grace < p->last_rx) {
        p->los_grace = now;
    }
    p->last_tick = now;
    uncorrectable = t.uncorrectable + p->pending_burst;
    p->pending_burst = 0;
    /* Every uncorrectable codeword fails its CRC and is replayed. */
    p->counter[NPO_STAT_CRC_ERRORS] += uncorrectable;
    p->counter[NPO_STAT_REPLAYS] += uncorrectable;
    p->ber_lanes = t.ber_lanes;
    if (t.ber_lanes && !p->high_ber) {
        port_event(p, R_P_EVENTS_ERR_THRESHOLD_MASK);
    }
    p->high_ber = t.ber_lanes;
    if (t.lane_failed || uncorrectable >= s->fw_link.replay_limit) {
        port_recover(p, false);
        return;
    }
    if (now - MAX(p->last_rx, p->los_grace) > LOS_TIMEOUT_NS) {
        /* The signal went when it was last heard, not when we gave up. */
        port_link_down_at(p, FAIL_LOSS_OF_SIGNAL,
                          npo_clock_true_ns() - (now - p->last_rx));
        port_enter_detect(p, false);
        return;
    }
    npo_port_send(p, WIRE_IDLE, NULL, 0);
    port_arm(p, TICK_NS);
}

/*
 * The PRBS pattern ran for the test's duration at the negotiated rate, or
 * the highest common one.
 */
static void port_prbs_finish(NpoPort *p)
{
    unsigned int rate = p->rate ? p->rate : MAX(port_max_common_rate(p), 1u);

    npo_phy_prbs(p, rate, FIELD_EX32(p->prbs_ctl, P_PRBS, DURATION_MS) / 1e3,
                 p->prbs_dark || !npo_port_connected(p));
    port_event(p, R_P_EVENTS_PRBS_DONE_MASK);
}

/*
 * The light went during our PRBS test (a cut, a pulled cable): the test
 * still runs to its end and raises PRBS_DONE, so
 * software waiting for it is never left waiting, and its checker, having
 * lost the pattern, counts the bits in error (interface 1.12).
 */
static bool port_test_goes_dark(NpoPort *p)
{
    if (p->state != PORT_TEST) {
        return false;
    }
    p->prbs_dark = true;
    return true;
}

static void port_timer(void *opaque)
{
    NpoPort *p = opaque;
    int64_t now = now_ns();

    if (!npo_link_port_enabled(p)) {
        return;
    }
    switch (p->state) {
    case PORT_DETECT:
        if (!p->listen && !p->held && npo_port_connected(p)) {
            port_start_polling(p);
        } else {
            port_arm(p, DETECT_POLL_NS);
        }
        break;
    case PORT_POLLING:
        if (now >= p->state_deadline) {
            port_train_failed(p, FAIL_POLLING_TIMEOUT);
        } else {
            port_send_ts(p, WIRE_TS1, false);
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
            port_send_ts(p, WIRE_TS2, true);
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
        if (p->prbs_hold) {
            /* Out of service until the driver has judged the result. */
            p->held = true;
            port_enter_detect(p, true);
            break;
        }
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

/*
 * The peer's response to our current configuration arrived while we
 * already run one: it brings what the peer receives now.  The peer
 * negotiates on the same inputs, so follow it if the result differs,
 * without a configuration of our own that it would answer again.
 */
static void port_renegotiate(NpoPort *p)
{
    unsigned int rate, width;

    if (!port_negotiate(p, &rate, &width) && rate == p->rate &&
        width == p->width) {
        return;
    }
    if (p->state == PORT_ACTIVE) {
        p->counter[NPO_STAT_RECOVERIES]++;
        port_event(p, R_P_EVENTS_RETRAIN_MASK);
    }
    port_set_state(p, PORT_RECOVERY, 0);
    p->peer_ts2 = true;
    port_try_negotiate(p);
}

static void port_rx_ts(NpoPort *p, uint8_t type, const WireTs *ts)
{
    bool ts2 = type == WIRE_TS2;
    bool fresh = ts2 && ts->epoch != p->peer_epoch;
    bool acks_ours = ts2 && ts->ack == p->epoch;
    bool waiting = ts2 && (ts->flags & WIRE_TS_WAITING);
    bool response = ts2 && (ts->flags & WIRE_TS_RESPONSE);
    unsigned int r;

    p->peer_known = true;
    p->peer_node = le32_to_cpu(ts->node_id);
    p->peer_port = ts->port;
    p->peer_rates = ts->rates;
    p->peer_lanes = ts->lanes;
    p->peer_max_rate = ts->max_rate;
    p->peer_max_width = ts->max_width;
    if (fresh) {
        p->peer_epoch = ts->epoch;
        for (r = 0; r < NPO_NUM_RATES; r++) {
            p->peer_rx_ok[r] = le16_to_cpu(ts->rx_ok[r]);
        }
    }

    switch (p->state) {
    case PORT_DETECT:
    case PORT_LOOPBACK:
        /* A held port trains with no one until released. */
        if (p->held) {
            break;
        }
        /* Someone is training with us: answer, even when listening. */
        port_start_polling(p);
        if (ts2) {
            /* Our TS2 acknowledges theirs: both can negotiate. */
            port_enter_config(p, true);
            p->peer_ts2 = true;
            port_try_negotiate(p);
        }
        break;
    case PORT_POLLING:
        port_enter_config(p, ts2);
        p->peer_ts2 = ts2;
        port_try_negotiate(p);
        break;
    case PORT_CONFIG:
    case PORT_RECOVERY:
        if (acks_ours) {
            p->peer_ts2 = true;
            port_try_negotiate(p);
            if (waiting) {
                port_send_ts(p, WIRE_TS2, false);
            }
        } else if (fresh || waiting) {
            /*
             * The peer has not heard our configuration (a crossing
             * retrain, or an answer to one before): tell it, and
             * negotiate only on what it says after hearing us.
             */
            port_send_ts(p, WIRE_TS2, true);
        }
        break;
    case PORT_ACTIVE:
    case PORT_EQUALIZE:
        if (!ts2) {
            /* The peer started over from Polling: its link went down. */
            port_link_down(p, FAIL_LOSS_OF_SIGNAL);
            port_start_polling(p);
        } else if (!fresh) {
            /* A repeat: the peer may not have our answer yet. */
            if (waiting) {
                port_send_ts(p, WIRE_TS2, false);
            }
        } else if (response) {
            /*
             * A response never starts a configuration: one to our
             * current epoch brings what the peer receives now, one to
             * an earlier epoch is out of date.
             */
            if (acks_ours) {
                port_renegotiate(p);
            }
            if (waiting) {
                port_send_ts(p, WIRE_TS2, false);
            }
        } else {
            /* The peer started a new configuration: recover with it. */
            port_recover(p, true);
            p->peer_ts2 = true;
            port_try_negotiate(p);
        }
        break;
    default:
        break;
    }
}

/*
 * The slow-training fault: the port acts on training sequences ts_lag_ns
 * after they arrive, in order, as a peer whose firmware answers late
 * would; ones beyond the queue are lost.
 */
static void port_ts_lag_arm(NpoPort *p)
{
    if (p->ts_lag_count) {
        timer_mod(p->ts_lag_timer, p->ts_lag_q[p->ts_lag_head].due);
    }
}

static void port_ts_lag_timer(void *opaque)
{
    NpoPort *p = opaque;
    int64_t now = now_ns();

    while (p->ts_lag_count && p->ts_lag_q[p->ts_lag_head].due <= now) {
        unsigned int i = p->ts_lag_head;

        p->ts_lag_head = (i + 1) % NPO_TS_LAG_DEPTH;
        p->ts_lag_count--;
        if (npo_link_port_enabled(p) && !p->cut && p->state != PORT_TEST) {
            port_rx_ts(p, p->ts_lag_q[i].type, &p->ts_lag_q[i].ts);
        }
    }
    port_ts_lag_arm(p);
}

static void port_rx_ts_lagged(NpoPort *p, uint8_t type, const WireTs *ts)
{
    unsigned int i;

    if (!p->ts_lag_ns && !p->ts_lag_count) {
        port_rx_ts(p, type, ts);
        return;
    }
    if (p->ts_lag_count == NPO_TS_LAG_DEPTH) {
        return;
    }
    i = (p->ts_lag_head + p->ts_lag_count++) % NPO_TS_LAG_DEPTH;
    p->ts_lag_q[i].due = now_ns() + p->ts_lag_ns;
    p->ts_lag_q[i].type = type;
    memcpy(&p->ts_lag_q[i].ts, ts, sizeof(*ts));
    if (p->ts_lag_count == 1) {
        port_ts_lag_arm(p);
    }
}

/* A link-layer frame from the peer (npo-port.c checked the port is on). */
void npo_link_rx(NpoPort *p, uint8_t type, const uint8_t *payload,
                 uint16_t len)
{
    switch (type) {
    case WIRE_TS1:
    case WIRE_TS2:
        p->light_lost = false;  /* the peer trains: its light is back */
        if (len == sizeof(WireTs) && p->state != PORT_TEST) {
            port_rx_ts_lagged(p, type, (const WireTs *)payload);
        }
        break;
    case WIRE_IDLE:
        break;
    case WIRE_DARK:
        if (len == sizeof(WireDark) && !port_test_goes_dark(p) &&
            p->state >= PORT_POLLING) {
            const WireDark *d = (const WireDark *)payload;

            port_link_down_at(p, FAIL_LOSS_OF_SIGNAL, le64_to_cpu(d->true_ns));
            port_enter_detect(p, false);
        }
        break;
    case WIRE_DOWN:
        /*
         * The peer disabled or reset: back in a moment, as when both
         * ends of a link reset one after the other.  The test goes on,
         * judged on the light at its end.
         */
        if (p->state >= PORT_POLLING && p->state != PORT_TEST) {
            port_link_down(p, FAIL_PEER_DISABLED);
            port_enter_detect(p, true);
        }
        break;
    case WIRE_LOOPBACK:
        /*
         * Two tests meet (both ends reset together): each end's checker
         * counts the other's pattern, and each test runs to its own end.
         * A port held after its test stays held, in Detect.
         */
        if (p->state == PORT_TEST || p->held) {
            break;
        }
        port_link_down(p, FAIL_PEER_TEST);
        port_set_state(p, PORT_LOOPBACK, 5 * NANOSECONDS_PER_SECOND);
        port_arm(p, 5 * NANOSECONDS_PER_SECOND);
        break;
    }
}

/* The cable was plugged in (the peer's socket opened) or pulled. */
void npo_link_cable(NpoPort *p, bool connected)
{
    if (connected) {
        p->light_lost = false;
        npo_phy_send_light(p);
        if (npo_link_port_enabled(p) && p->state == PORT_DETECT) {
            port_enter_detect(p, false);
        }
        return;
    }
    p->peer_known = false;
    npo_phy_peer_gone(p);
    if (port_test_goes_dark(p)) {
        return;
    }
    if (npo_link_port_enabled(p) && p->state != PORT_DETECT) {
        port_link_down(p, FAIL_LOSS_OF_SIGNAL);
        port_enter_detect(p, false);
    }
}

/* The fibre was cut or mended (fault injection). */
void npo_link_cut(NpoPort *p, bool cut)
{
    if (cut && !p->cut) {
        WireDark dark = { .true_ns = cpu_to_le64(npo_clock_true_ns()) };

        /* The far receiver goes dark at this instant too. */
        npo_port_send(p, WIRE_DARK, &dark, sizeof(dark));
        p->cut = true;
        if (npo_link_port_enabled(p) && !port_test_goes_dark(p)) {
            port_link_down_at(p, FAIL_LOSS_OF_SIGNAL, le64_to_cpu(dark.true_ns));
            port_enter_detect(p, false);
        }
    } else if (!cut && p->cut) {
        p->cut = false;
        /* Whatever changed meanwhile, the far receiver learns it now. */
        npo_phy_send_light(p);
        if (npo_link_port_enabled(p) && p->state != PORT_TEST) {
            port_enter_detect(p, false);
        }
    }
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

/* --- what the driver asks for ---------------------------------------------- */

static void port_disable(NpoPort *p)
{
    if (p->state != PORT_DISABLED) {
        port_link_down(p, p->control & R_P_CONTROL_ENABLE_MASK ? FAIL_NO_FIRMWARE
                                                   : FAIL_ADMIN_DISABLED);
        npo_port_send(p, WIRE_DOWN, NULL, 0);
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

        if (!npo_link_port_enabled(p)) {
            port_disable(p);
        } else if (p->state == PORT_DISABLED) {
            port_enter_detect(p, false);
        }
    }
}

void npo_link_write_control(NpoPort *p, uint32_t val)
{
    uint32_t old = p->control;

    p->control = val & ~R_P_CONTROL_RETRAIN_MASK;
    /* Disabling or retraining releases a port held after a test. */
    if (!npo_link_port_enabled(p) || (val & R_P_CONTROL_RETRAIN_MASK)) {
        p->held = false;
    }
    if (!npo_link_port_enabled(p)) {
        port_disable(p);
        return;
    }
    if (!(old & R_P_CONTROL_ENABLE_MASK) || p->state == PORT_DISABLED) {
        port_enter_detect(p, false);
        return;
    }
    if (val & R_P_CONTROL_RETRAIN_MASK) {
        if (p->state == PORT_ACTIVE) {
            port_recover(p, false);
        } else if (p->state != PORT_TEST) {
            port_enter_detect(p, false);
        }
    }
}

void npo_link_start_prbs(NpoPort *p, uint32_t val)
{
    uint32_t ms = FIELD_EX32(val, P_PRBS, DURATION_MS);

    if (!npo_link_port_enabled(p) || !ms) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: port %u: PRBS test needs an "
                      "enabled port and a duration\n", p->dev->node_id,
                      p->index);
        return;
    }
    p->prbs_ctl = ms;
    p->prbs_hold = FIELD_EX32(val, P_PRBS, HOLD);
    p->held = false;
    p->prbs_dark = false;
    port_link_down(p, FAIL_TEST);
    npo_port_send(p, WIRE_LOOPBACK, NULL, 0);
    port_set_state(p, PORT_TEST, (int64_t)ms * SCALE_MS);
    port_arm(p, (int64_t)ms * SCALE_MS);
}

/* The port's STATUS register. */
uint32_t npo_link_status(NpoPort *p)
{
    uint32_t v = 0;

    v = FIELD_DP32(v, P_STATUS, STATE, p->state);
    v = FIELD_DP32(v, P_STATUS, RATE, p->rate);
    v = FIELD_DP32(v, P_STATUS, WIDTH, p->width);
    v = FIELD_DP32(v, P_STATUS, DEGRADED,
                   p->state == PORT_ACTIVE && port_degraded(p));
    v = FIELD_DP32(v, P_STATUS, PEER_PRESENT, npo_port_connected(p));
    v = FIELD_DP32(v, P_STATUS, HIGH_BER, p->high_ber);
    v = FIELD_DP32(v, P_STATUS, FAIL, p->fail_reason);
    v = FIELD_DP32(v, P_STATUS, LISTEN,
                   p->state == PORT_DETECT && p->listen);
    return v;
}

void npo_link_clear_counters(NpoPort *p)
{
    unsigned int i;

    memset(p->counter, 0, sizeof(p->counter));
    memset(p->traffic, 0, sizeof(p->traffic));
    for (i = 0; i < NPO_MAX_LANES; i++) {
        NpoLane *l = &p->lane[i];

        l->fec_corrected = l->fec_uncorrectable = l->symbol_errors = 0;
        l->prbs_bits = l->prbs_errors = 0;
    }
}

/* --- life cycle ------------------------------------------------------------ */

void npo_link_reset(NpoState *s)
{
    unsigned int i;

    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        if (p->state != PORT_DISABLED) {
            npo_port_send(p, WIRE_DOWN, NULL, 0);
        }
        timer_del(p->timer);
        timer_del(p->ts_lag_timer);
        p->ts_lag_count = 0;
        p->control = 0;
        p->state = PORT_DISABLED;
        p->events = 0;
        p->rate = p->width = 0;
        p->fail_reason = p->down_reason = FAIL_NONE;
        p->down_time = 0;
        p->high_ber = p->was_active = false;
        p->ber_lanes = p->fault_lanes = 0;
        p->prbs_ctl = 0;
        p->prbs_hold = p->held = p->prbs_dark = false;
        npo_link_clear_counters(p);
    }
}

void npo_link_realize(NpoState *s, Error **errp)
{
    unsigned int i;

    s->rand = g_rand_new_with_seed(0x4e50 + s->node_id);
    for (i = 0; i < s->num_ports; i++) {
        NpoPort *p = &s->port[i];

        p->dev = s;
        p->index = i;
        p->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, port_timer, p);
        p->ts_lag_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                       port_ts_lag_timer, p);
        npo_phy_init_lanes(p);
        npo_port_realize(p);
    }
    npo_route_add(s);
}

void npo_link_exit(NpoState *s)
{
    unsigned int i;

    npo_route_remove(s);
    for (i = 0; i < s->num_ports; i++) {
        timer_free(s->port[i].timer);
        timer_free(s->port[i].ts_lag_timer);
        npo_port_exit(&s->port[i]);
    }
    g_rand_free(s->rand);
}
