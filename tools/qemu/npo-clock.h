/*
 * NPO device model: the device clock and its time-sync messages
 * (npo-clock.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_CLOCK_H
#define HW_MISC_NPO_CLOCK_H

#include "qemu/timer.h"

#include "npo-regs.h"

typedef struct NpoPort NpoPort;
typedef struct NpoState NpoState;

#define NPO_CLOCK_ANCHORS       16
#define NPO_CLOCK_DERIVED_PPB   INT32_MIN
#define NPO_CLOCK_DERIVED_OFFSET INT64_MIN

/* A segment of the clock: device time at a true instant, and the rate. */
typedef struct NpoClockAnchor {
    bool valid;
    int64_t true_ns;
    int64_t dev_ns;
    double frac;                /* of dev_ns */
    double rate;                /* d(device)/d(true) - 1 from true_ns on */
} NpoClockAnchor;

typedef struct NpoClock {
    NpoClockAnchor anchor[NPO_CLOCK_ANCHORS];
    unsigned int cur;           /* the newest anchor */
    int32_t adj_scaled_ppm;     /* ppm x 2^16 */
    uint32_t time_hi;           /* TIME_HI as latched by TIME_LO */
    uint64_t arg;
    uint64_t latch_time;
    uint64_t latch_ref;
    NpoHwTimeMsg rx[NPO_TIME_RX_DEPTH];
    unsigned int rx_head;
    unsigned int rx_count;
    uint32_t rx_drops;
    uint32_t rx_rate;           /* CLK_RX_RATE */
    uint32_t rx_policed;
    int64_t rx_tat[NPO_MAX_PORTS]; /* each port's theoretical arrival */
    GRand *rand;                /* stamping noise, wander */
    double wander_ppb;          /* the rate error's walk so far */
    QEMUTimer *wander_timer;
} NpoClock;

void npo_clock_realize(NpoState *s);
void npo_clock_exit(NpoState *s);
void npo_clock_reset(NpoState *s);
void npo_clock_add_properties(Object *obj);
bool npo_clock_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
bool npo_clock_reg_write(NpoState *s, hwaddr addr, uint64_t val);
uint32_t npo_clock_mbox(NpoState *s, uint32_t op);
void npo_clock_rx(NpoPort *p, const uint8_t *payload, uint16_t len);
int64_t npo_clock_true_ns(void);
void npo_clock_jump(NpoState *s, int64_t ns);
uint64_t npo_clock_read_at(NpoState *s, int64_t true_ns);

#endif
