/*
 * NPO device model: the memory table, regions and their keys
 * (npo-mr.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_MR_H
#define HW_MISC_NPO_MR_H

typedef struct NpoState NpoState;

typedef struct NpoMr {
    uint32_t key;               /* the local key */
    uint64_t rkey;              /* the remote key */
    uint32_t pd;
    uint32_t job;               /* its protection domain's, at creation */
    uint32_t access;
    uint32_t page_shift;
    uint64_t iova;
    uint64_t length;
    uint64_t npages;
    uint64_t pages_set;         /* usable once all pages are known */
    uint64_t *pages;            /* bus address of each page */
    uint8_t **hva;              /* each page mapped, NULL until given */
} NpoMr;

void npo_mr_realize(NpoState *s);
void npo_mr_exit(NpoState *s);
void npo_mr_reset(NpoState *s);
uint32_t npo_mr_mbox(NpoState *s, uint32_t op);
uint32_t npo_mr_check_local(NpoState *s, NpoMr **out, uint32_t key,
                            uint64_t addr, uint64_t len, uint32_t need,
                            uint32_t pd);
bool npo_mr_check_remote(NpoState *s, NpoMr **out, uint64_t rkey,
                         uint32_t job, uint64_t addr, uint64_t len,
                         uint32_t need);
void npo_mr_read(NpoMr *mr, uint64_t addr, void *buf, uint64_t len);
void npo_mr_write(NpoMr *mr, uint64_t addr, const void *buf, uint64_t len);
void npo_mr_copy(NpoMr *dst, uint64_t daddr, NpoMr *src, uint64_t saddr,
                 uint64_t len);
uint64_t npo_mr_atomic(NpoMr *mr, uint64_t addr, uint8_t opcode,
                       uint64_t compare_add, uint64_t swap);

#endif
