/*
 * NPO device model: the target's rules, what a peer's request may reach,
 * whichever path brought it (npo-target.c), and the refusal log.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_TARGET_H
#define HW_MISC_NPO_TARGET_H

#include <linux/npo_queue.h>

#include "npo-queue.h"

typedef struct NpoMr NpoMr;
typedef struct NpoState NpoState;

/* A request as its target sees it. */
typedef struct NpoTargetReq {
    NpoSender from;             /* the requester, as completions name it */
    uint32_t job;               /* its job: what it may reach */
    uint8_t opcode;             /* NPO_OP_*: what it asks */
} NpoTargetReq;

uint32_t npo_target_region(NpoState *t, const NpoTargetReq *rq, NpoMr **mr,
                           uint64_t rkey, uint64_t addr, uint64_t len,
                           uint32_t need);
bool npo_target_region_still(NpoState *t, NpoMr **mr, uint32_t job,
                             uint64_t rkey, uint64_t addr, uint64_t len,
                             uint32_t need);
uint32_t npo_target_queue(NpoState *t, const NpoTargetReq *rq, uint16_t qid,
                          NpoQueue **out);
void npo_target_imm(NpoState *t, NpoQueue *tq, const NpoSender *from,
                    uint32_t len, uint32_t imm);
uint32_t npo_target_recv_buffer(NpoState *t, NpoQueue *tq, uint32_t key,
                                uint64_t addr, uint32_t len, NpoMr **rmr);
int npo_target_recv_take(NpoState *t, NpoQueue *tq, uint32_t len,
                         const NpoSender *from, struct npo_rqe *r,
                         NpoMr **rmr);
void npo_target_recv_done(NpoState *t, NpoQueue *tq, const NpoSender *from,
                          uint64_t wr_id, uint32_t len, uint32_t status);
uint32_t npo_target_atomic(NpoState *t, const NpoTargetReq *rq,
                           uint64_t rkey, uint64_t addr,
                           uint64_t compare_add, uint64_t swap,
                           uint64_t *old);
void npo_target_refused_at_requester(NpoState *s, NpoQueue *q,
                                     uint32_t dest_node, uint8_t opcode,
                                     uint32_t status);

/* The refusal log, read by the driver (MBOX_OP_REFUSALS). */
uint32_t npo_refusal_mbox(NpoState *s, uint32_t op);
void npo_refusal_reset(NpoState *s);

#endif
