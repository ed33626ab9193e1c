/*
 * NPO device model: the device clock and hardware timestamps of
 * time-sync messages.
 *
 * Every device has a free-running clock in nanoseconds whose rate is off
 * by its own error (property clock_ppb) and which starts at its own time
 * (clock_offset_ns): no two devices agree until software syncs them.  The
 * common time base against which rates and offsets are defined is the
 * host's monotonic clock, shared by every QEMU process on the host.
 *
 * Time-sync messages are stamped at the modelled instants they leave and
 * enter a port, not when QEMU gets round to them: the sender's frame
 * carries its departure instant in the common time base, and the
 * receiver stamps arrival = departure + the link's propagation delay,
 * read on its own clock as it was then.  Stamps carry Gaussian noise.
 * The oscillator may wander (clock_wander_ppb): its rate error takes a
 * random walk, as a real crystal's does with temperature and age.
 * See Documentation/hardware.rst, "Clock".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "sysemu/cpu-timers.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "trace.h"

#include <math.h>

#include "npo-state.h"
#include "npo-clock.h"
#include "npo-port.h"
#include "npo-route.h"
#include "npo-wire.h"

/* Defaults drawn per device from its node id: realistic, not flattering. */
#define DEFAULT_MAX_PPB         100000  /* rate errors within +-100 ppm */
#define DEFAULT_MAX_OFFSET_S    1000    /* start within +-1000 s */
#define DEFAULT_MIN_DELAY_NS    50
#define DEFAULT_MAX_DELAY_NS    500

/* The common time base: the host's monotonic clock. */
static int64_t true_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

/*
 * The segment in effect at true time t: the newest anchor at or before it,
 * or the oldest one kept, extended back, for a time older than them all.
 */
static const NpoClockAnchor *anchor_at(NpoState *s, int64_t t)
{
    const NpoClockAnchor *oldest = &s->clk.anchor[s->clk.cur];
    unsigned int i;

    for (i = 0; i < NPO_CLOCK_ANCHORS; i++) {
        const NpoClockAnchor *a =
            &s->clk.anchor[(s->clk.cur + NPO_CLOCK_ANCHORS - i) %
                           NPO_CLOCK_ANCHORS];

        if (!a->valid) {
            break;
        }
        if (a->true_ns <= t) {
            return a;
        }
        oldest = a;
    }
    return oldest;
}

/*
 * Device time at true time t + x (x a fraction of a nanosecond or a few
 * nanoseconds more): whole nanoseconds, and the fraction in *frac.
 */
static int64_t clock_at(NpoState *s, int64_t t, double x, double *frac)
{
    const NpoClockAnchor *a = anchor_at(s, t);
    int64_t d = t - a->true_ns;
    double f = a->frac + x + ((double)d + x) * a->rate;
    double whole = floor(f);

    if (frac) {
        *frac = f - whole;
    }
    return a->dev_ns + d + (int64_t)whole;
}

/* The common time base, for latching an instant (a link going down). */
int64_t npo_clock_true_ns(void)
{
    return true_ns();
}

/* The device clock at host monotonic time t. */
uint64_t npo_clock_read_at(NpoState *s, int64_t t)
{
    return clock_at(s, t, 0, NULL);
}

static int64_t clock_now(NpoState *s)
{
    return clock_at(s, true_ns(), 0, NULL);
}

/* The clock's rate relative to the time base, less one. */
static double clock_rate(NpoState *s)
{
    return (1.0 + (s->clock_ppb + s->clk.wander_ppb) * 1e-9) *
           (1.0 + s->clk.adj_scaled_ppm / 65536.0 * 1e-6) - 1.0;
}

/*
 * Start a new segment at this instant: after a rate change, a step or a
 * set.  Old segments stay for stamping messages that arrived before.
 */
static void clock_anchor(NpoState *s, int64_t dev_ns, double frac, int64_t t)
{
    NpoClockAnchor *a;

    s->clk.cur = (s->clk.cur + 1) % NPO_CLOCK_ANCHORS;
    a = &s->clk.anchor[s->clk.cur];
    a->valid = true;
    a->true_ns = t;
    a->dev_ns = dev_ns;
    a->frac = frac;
    a->rate = clock_rate(s);
}

static void clock_reanchor(NpoState *s, int64_t step)
{
    int64_t t = true_ns();
    double frac;
    int64_t now = clock_at(s, t, 0, &frac);

    clock_anchor(s, now + step, frac, t);
}

/* The clock jumps by ns, as no command made it (the clockjump fault). */
void npo_clock_jump(NpoState *s, int64_t ns)
{
    clock_reanchor(s, ns);
}

/* A stamp: the clock at true time t + x, with the stamping noise. */
static uint64_t clock_stamp(NpoState *s, int64_t t, double x)
{
    double frac, u1, u2, noise = 0;
    int64_t ns;

    if (s->ts_noise_ps) {
        /* Box-Muller: Gaussian, RMS ts_noise_ps. */
        u1 = g_rand_double_range(s->clk.rand, DBL_MIN, 1.0);
        u2 = g_rand_double(s->clk.rand);
        noise = sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2) *
                s->ts_noise_ps / 1000.0;
    }
    ns = clock_at(s, t, x + noise, &frac);
    return ns + (frac >= 0.5);
}

/* --- registers ----------------------------------------------------------- */

bool npo_clock_reg_read(NpoState *s, hwaddr addr, uint64_t *val)
{
    switch (addr) {
    case A_CLK_MAX_ADJ:
        *val = s->hostile == NPO_HOSTILE_MAX_ADJ ? 0x80000000u :
               NPO_CLOCK_MAX_ADJ_PPB;
        break;
    case A_CLK_TIME_LO: {
        uint64_t now = clock_now(s);

        /* The whole time is latched: TIME_HI then reads its top half. */
        s->clk.time_hi = now >> 32;
        *val = (uint32_t)now;
        break;
    }
    case A_CLK_TIME_HI:
        *val = s->clk.time_hi;
        break;
    case A_CLK_ADJ_FINE:
        *val = (uint32_t)s->clk.adj_scaled_ppm;
        break;
    case A_CLK_ARG_LO:
        *val = (uint32_t)s->clk.arg;
        break;
    case A_CLK_ARG_HI:
        *val = s->clk.arg >> 32;
        break;
    case A_CLK_LATCH_TIME_LO:
        *val = (uint32_t)s->clk.latch_time;
        break;
    case A_CLK_LATCH_TIME_HI:
        *val = s->clk.latch_time >> 32;
        break;
    case A_CLK_LATCH_REF_LO:
        *val = (uint32_t)s->clk.latch_ref;
        break;
    case A_CLK_LATCH_REF_HI:
        *val = s->clk.latch_ref >> 32;
        break;
    case A_CLK_RX_DROPS:
        *val = s->clk.rx_drops;
        break;
    case A_CLK_RX_RATE:
        *val = s->clk.rx_rate;
        break;
    case A_CLK_RX_POLICED:
        *val = s->clk.rx_policed;
        break;
    default:
        return false;
    }
    return true;
}

static void clock_cmd(NpoState *s, uint32_t cmd)
{
    switch (cmd) {
    case CLK_CMD_SET:
        clock_anchor(s, s->clk.arg, 0, true_ns());
        break;
    case CLK_CMD_STEP:
        clock_reanchor(s, (int64_t)s->clk.arg);
        break;
    case CLK_CMD_LATCH:
        /* Both in one instant: no guest code runs between them. */
        s->clk.latch_time = clock_now(s);
        s->clk.latch_ref = cpus_get_elapsed_ticks();
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: unknown clock command %u\n",
                      s->node_id, cmd);
        return;
    }
    trace_npo_clock_cmd(s->node_id, cmd, s->clk.arg);
}

bool npo_clock_reg_write(NpoState *s, hwaddr addr, uint64_t val)
{
    switch (addr) {
    case A_CLK_ADJ_FINE: {
        int32_t v = (int32_t)val;
        int64_t max = (int64_t)NPO_CLOCK_MAX_ADJ_PPB * 65536 / 1000;

        if (v > max || v < -max) {
            qemu_log_mask(LOG_GUEST_ERROR, "npo%u: frequency adjustment %d "
                          "beyond +-%" PRId64 ", clamped\n", s->node_id, v,
                          max);
            v = v > 0 ? max : -max;
        }
        clock_reanchor(s, 0);
        s->clk.adj_scaled_ppm = v;
        s->clk.anchor[s->clk.cur].rate = clock_rate(s);
        break;
    }
    case A_CLK_ARG_LO:
        s->clk.arg = (s->clk.arg & ~0xffffffffULL) | (uint32_t)val;
        break;
    case A_CLK_ARG_HI:
        s->clk.arg = (s->clk.arg & 0xffffffffULL) | (val << 32);
        break;
    case A_CLK_CMD:
        clock_cmd(s, val);
        break;
    case A_CLK_RX_RATE:
        /* The same rate again (a driver restating it) keeps the buckets. */
        if (s->clk.rx_rate != (uint32_t)val) {
            s->clk.rx_rate = val;
            memset(s->clk.rx_tat, 0, sizeof(s->clk.rx_tat));
        }
        break;
    default:
        return false;
    }
    return true;
}

/* --- time-sync messages -------------------------------------------------- */

/* Propagation delay of the link behind p, in our transmit direction, ps. */
static int64_t link_delay_ps(NpoPort *p)
{
    NpoState *s = p->dev;
    uint64_t a = ((uint64_t)s->node_id << 8) | p->index;
    uint64_t b = ((uint64_t)p->peer_node << 8) | p->peer_port;
    int64_t ps;

    if (s->link_delay_ns) {
        ps = s->link_delay_ns * 1000LL;
    } else {
        /* Both ends derive the same length from the pair of ports. */
        uint64_t h = MIN(a, b) * 0x9e3779b97f4a7c15ULL ^ MAX(a, b);

        h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 29;
        ps = (DEFAULT_MIN_DELAY_NS +
              h % (DEFAULT_MAX_DELAY_NS - DEFAULT_MIN_DELAY_NS + 1)) * 1000LL;
    }
    /* Asymmetry: the lower port's direction is the longer one. */
    return ps + (a < b ? s->link_asym_ps / 2 : -(s->link_asym_ps / 2));
}

/*
 * TIME_SEND: ARG0 port and flags, ARG1 length, ARG2/3 payload address.
 * Returns the departure stamp in RET0/RET1.
 */
static uint32_t mbox_time_send(NpoState *s)
{
    unsigned int port = FIELD_EX32(s->mbox_arg[0], TIME_SEND_ARG0, PORT);
    uint32_t flags = FIELD_EX32(s->mbox_arg[0], TIME_SEND_ARG0, FLAGS);
    uint32_t len = s->mbox_arg[1];
    dma_addr_t a = npo_mbox_addr(s, 2);
    uint8_t payload[NPO_TIME_MSG_MAX];
    WireTime *w;
    NpoPort *p;
    uint64_t stamp;
    int64_t t;

    if (port >= s->num_ports || len > NPO_TIME_MSG_MAX ||
        (flags & ~TIME_SEND_ONE_STEP) ||
        ((flags & TIME_SEND_ONE_STEP) && len < 16)) {
        return MBOX_ERR_ARG;
    }
    p = &s->port[port];
    if (npo_link_ready(p) != NPO_LINK_UP) {
        return MBOX_ERR_STATE;
    }
    if (pci_dma_read(PCI_DEVICE(s), a, payload, len) != MEMTX_OK) {
        return MBOX_ERR_DMA;
    }
    w = (WireTime *)npo_port_frame(p, WIRE_TIME, sizeof(*w));
    if (!w) {
        return MBOX_ERR_STATE;
    }
    memset(w, 0, sizeof(*w));
    memcpy(w->payload, payload, len);
    t = true_ns();
    stamp = clock_stamp(s, t, 0);
    if (flags & TIME_SEND_ONE_STEP) {
        /* One-step: the departure stamp rides in the message itself. */
        stq_le_p(w->payload + NPO_TIME_ONE_STEP_OFFSET, stamp);
    }
    w->true_tx_ns = cpu_to_le64(t);
    w->delay_ps = cpu_to_le64(link_delay_ps(p));
    w->len = len;
    npo_port_flush(p);
    s->mbox_ret[0] = (uint32_t)stamp;
    s->mbox_ret[1] = stamp >> 32;
    trace_npo_time_send(s->node_id, port, len, stamp);
    return MBOX_OK;
}

/* TIME_RECV: ARG0/1 the address of an NpoHwTimeMsg; RET0 what is left. */
static uint32_t mbox_time_recv(NpoState *s)
{
    dma_addr_t a = npo_mbox_addr(s, 0);
    NpoHwTimeMsg *m;

    if (!s->clk.rx_count) {
        return MBOX_ERR_NOENT;
    }
    m = &s->clk.rx[s->clk.rx_head];
    if (pci_dma_write(PCI_DEVICE(s), a, m, sizeof(*m)) != MEMTX_OK) {
        return MBOX_ERR_DMA;
    }
    s->clk.rx_head = (s->clk.rx_head + 1) % NPO_TIME_RX_DEPTH;
    s->clk.rx_count--;
    s->mbox_ret[0] = s->clk.rx_count;
    return MBOX_OK;
}

uint32_t npo_clock_mbox(NpoState *s, uint32_t op)
{
    switch (op) {
    case MBOX_OP_TIME_SEND:
        return mbox_time_send(s);
    case MBOX_OP_TIME_RECV:
        return mbox_time_recv(s);
    }
    return MBOX_ERR_OPCODE;
}

/* A time-sync message arrived on p: stamp it as of its arrival instant. */
/*
 * Time-sync messages are few (a SYNC and a REPLY an interval): a port
 * delivers at most CLK_RX_RATE a second after a burst of
 * NPO_TIME_RX_BURST, so that a peer flooding one port neither fills the
 * receive queue the others share nor costs software a command a message.
 * A generic cell rate algorithm on the time of arrival, not the time the
 * message claims.
 */
static bool clock_rx_admit(NpoState *s, unsigned int port)
{
    int64_t now = true_ns(), t, tau;
    int64_t *tat = &s->clk.rx_tat[port];

    if (!s->clk.rx_rate) {
        return true;
    }
    t = NANOSECONDS_PER_SECOND / s->clk.rx_rate;
    tau = (NPO_TIME_RX_BURST - 1) * t;
    if (*tat < now) {
        *tat = now;
    }
    if (*tat - now > tau) {
        return false;
    }
    *tat += t;
    return true;
}

void npo_clock_rx(NpoPort *p, const uint8_t *payload, uint16_t len)
{
    NpoState *s = p->dev;
    WireTime w;
    NpoHwTimeMsg *m;
    int64_t delay_ps, t;

    if (len != sizeof(w)) {
        return;
    }
    memcpy(&w, payload, sizeof(w));
    if (w.len > NPO_TIME_MSG_MAX) {
        return;
    }
    if (!clock_rx_admit(s, p->index)) {
        s->clk.rx_policed++;
        return;
    }
    if (s->clk.rx_count == NPO_TIME_RX_DEPTH) {
        s->clk.rx_drops++;
        return;
    }
    t = le64_to_cpu(w.true_tx_ns);
    delay_ps = le64_to_cpu(w.delay_ps);
    m = &s->clk.rx[(s->clk.rx_head + s->clk.rx_count) % NPO_TIME_RX_DEPTH];
    memset(m, 0, sizeof(*m));
    m->rx_time = cpu_to_le64(clock_stamp(s, t + delay_ps / 1000,
                                         (delay_ps % 1000) / 1000.0));
    m->port = p->index;
    m->len = w.len;
    memcpy(m->payload, w.payload, w.len);
    s->clk.rx_count++;
    trace_npo_time_recv(s->node_id, p->index, w.len, le64_to_cpu(m->rx_time));
    npo_irq_update(s, R_IRQ_STATUS_TIME_MASK);
}

/* --- the host's view: true offsets --------------------------------------- */

/*
 * Property clock_offsets: every device of this process, read at one
 * instant of the time base, as "node:offset_ns" pairs with picoseconds,
 * where offset = device time - time base.  A test measures real sync
 * error with it, without trusting any driver.
 */
static char *npo_get_clock_offsets(Object *obj, Error **errp)
{
    GString *out = g_string_new(NULL);
    int64_t t = true_ns();
    NpoState *d;

    QTAILQ_FOREACH(d, npo_route_devices(), next) {
        double frac;
        int64_t dev = clock_at(d, t, 0, &frac);

        g_string_append_printf(out, "%s%u:%.3f", out->len ? " " : "",
                               d->node_id, (double)(dev - t) + frac);
    }
    return g_string_free(out, false);
}

void npo_clock_add_properties(Object *obj)
{
    object_property_add_str(obj, "clock_offsets", npo_get_clock_offsets,
                            NULL);
}

/* --- oscillator wander ----------------------------------------------------- */

#define WANDER_STEP_MS          100
#define WANDER_MAX_PPB          20000.0 /* the walk stays within +-20 ppm */

/*
 * Every WANDER_STEP_MS the rate error moves by a Gaussian step, RMS
 * clock_wander_ppb per square root of a second, and the clock starts a new
 * segment at the new rate, so that its time stays continuous.
 */
static void clock_wander(void *opaque)
{
    NpoState *s = opaque;
    double u1 = g_rand_double_range(s->clk.rand, DBL_MIN, 1.0);
    double u2 = g_rand_double(s->clk.rand);
    double step = sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2) *
                  s->clock_wander_ppb * sqrt(WANDER_STEP_MS / 1000.0);

    s->clk.wander_ppb = MAX(-WANDER_MAX_PPB,
                            MIN(WANDER_MAX_PPB, s->clk.wander_ppb + step));
    clock_reanchor(s, 0);
    timer_mod(s->clk.wander_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                                   WANDER_STEP_MS);
}

/* --- life cycle ---------------------------------------------------------- */

void npo_clock_reset(NpoState *s)
{
    /* The clock keeps time across a reset; only its controls clear. */
    if (s->clk.adj_scaled_ppm) {
        clock_reanchor(s, 0);
        s->clk.adj_scaled_ppm = 0;
        s->clk.anchor[s->clk.cur].rate = clock_rate(s);
    }
    s->clk.rx_head = s->clk.rx_count = 0;
    s->clk.rx_drops = 0;
    s->clk.rx_rate = 0;
    s->clk.rx_policed = 0;
    memset(s->clk.rx_tat, 0, sizeof(s->clk.rx_tat));
}

void npo_clock_realize(NpoState *s)
{
    GRand *r = g_rand_new_with_seed(0x71c0c + s->node_id);

    if (s->clock_ppb == NPO_CLOCK_DERIVED_PPB) {
        s->clock_ppb = g_rand_int_range(r, -DEFAULT_MAX_PPB,
                                        DEFAULT_MAX_PPB + 1);
    }
    if (s->clock_offset_ns == NPO_CLOCK_DERIVED_OFFSET) {
        s->clock_offset_ns = (int64_t)(g_rand_double_range(r, -1, 1) *
                                       DEFAULT_MAX_OFFSET_S * 1e9);
    }
    s->clk.rand = r;
    s->clk.cur = 0;
    clock_anchor(s, true_ns() + s->clock_offset_ns, 0, true_ns());
    if (s->clock_wander_ppb) {
        s->clk.wander_timer = timer_new_ms(QEMU_CLOCK_REALTIME, clock_wander,
                                           s);
        timer_mod(s->clk.wander_timer,
                  qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + WANDER_STEP_MS);
    }
}

void npo_clock_exit(NpoState *s)
{
    if (s->clk.wander_timer) {
        timer_free(s->clk.wander_timer);
    }
    g_rand_free(s->clk.rand);
}
