/*
 * NPO device model: firmware, its health (npo-fw-health.c) and its
 * A/B flash (npo-flash.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_FW_H
#define HW_MISC_NPO_FW_H

#include "npo_fw_validate.h"

typedef struct NpoState NpoState;

/* One firmware slot of the flash (npo-flash.c). */
typedef struct NpoFlashSlot {
    uint8_t *image;             /* NULL: erased */
    uint32_t len;
    uint32_t version;           /* of a valid image for this device, else 0 */
} NpoFlashSlot;

/* npo.c: running an image */
uint32_t npo_fw_check(NpoState *s, const uint8_t *image, uint32_t len,
                      bool need_target, struct npo_fw_contents *fw);
uint32_t npo_fw_start(NpoState *s, const uint8_t *image, uint32_t len,
                      unsigned int from);

/* npo-fw-health.c */
void npo_fw_log(NpoState *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void npo_fw_health_started(NpoState *s);
uint32_t npo_fw_heartbeat(NpoState *s);
bool npo_fw_halted(NpoState *s);
bool npo_fw_health_fault(NpoState *s, unsigned int kind, uint32_t value);
bool npo_fw_health_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
void npo_fw_health_reset(NpoState *s);

/* npo-flash.c */
bool npo_flash_realize(NpoState *s, Error **errp);
void npo_flash_exit(NpoState *s);
void npo_flash_boot(NpoState *s);
uint32_t npo_flash_mbox(NpoState *s, uint32_t op);
int64_t npo_flash_mbox_delay(NpoState *s, uint32_t op);
bool npo_flash_fault(NpoState *s, unsigned int kind, uint32_t value,
                     uint32_t *res);
bool npo_flash_reg_read(NpoState *s, hwaddr addr, uint64_t *val);
void npo_flash_add_properties(Object *obj);

#endif
