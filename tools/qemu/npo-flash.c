/*
 * NPO device model: the firmware flash (interface 1.14).
 *
 * Two slots, A and B, each holding one image.  FLASH_BEGIN, FLASH_DATA and
 * FLASH_COMMIT stage an image in device memory, and only a whole, valid
 * image for this device is written, to the slot the device did not last
 * boot from: a bad file or a reset in the middle never touches what boots.
 * At every reset the device boots the slot written last (pending) once; if
 * it does not come up, the slot that booted before runs instead.  With the
 * property ``flash`` the slots live in a file, so they outlast the QEMU
 * process as flash outlasts a power cycle.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-fw.h"

/* Programming flash is slower than reading an image into RAM. */
#define NPO_FLASH_NS_PER_KIB    (4 * SCALE_US)

/* The file behind the property ``flash``: this header, image A, image B. */
#define NPO_FLASH_FILE_MAGIC    "NPOFLSH1"
typedef struct NpoFlashFileHeader {
    char magic[8];
    uint8_t active, pending;
    uint8_t fell_back, failed, boot_error;  /* the fallback record */
    uint8_t rsvd[3];
    uint32_t len[2];            /* little endian; 0: the slot is erased */
} NpoFlashFileHeader;

static const char *slot_name(unsigned int slot)
{
    return slot == SLOT_A ? "a" : slot == SLOT_B ? "b" : "none";
}

static NpoFlashSlot *slot_of(NpoState *s, unsigned int slot)
{
    return &s->flash.slot[slot - SLOT_A];
}

/* A slot's version: that of a valid image for this device, else 0. */
static void slot_update(NpoState *s, NpoFlashSlot *sl)
{
    struct npo_fw_contents fw;

    sl->version = sl->image &&
                  npo_fw_check(s, sl->image, sl->len, true, &fw) == MBOX_OK ?
                  fw.fw_version : 0;
}

/*
 * Keep the slots in the file, if there is one: written whole to a new file
 * that replaces the old, so that a crash leaves one or the other.
 */
static void flash_save(NpoState *s)
{
    NpoFlashFileHeader h = { .magic = NPO_FLASH_FILE_MAGIC };
    g_autoptr(GError) err = NULL;
    g_autofree uint8_t *buf = NULL;
    size_t len = sizeof(h);

    if (!s->flash_path) {
        return;
    }
    h.active = s->flash.active;
    h.pending = s->flash.pending;
    h.fell_back = s->flash.fell_back;
    h.failed = s->flash.failed;
    h.boot_error = s->flash.boot_error;
    for (unsigned int i = 0; i < 2; i++) {
        h.len[i] = cpu_to_le32(s->flash.slot[i].len);
        len += s->flash.slot[i].len;
    }
    buf = g_malloc(len);
    memcpy(buf, &h, sizeof(h));
    len = sizeof(h);
    for (unsigned int i = 0; i < 2; i++) {
        if (s->flash.slot[i].len) {
            memcpy(buf + len, s->flash.slot[i].image, s->flash.slot[i].len);
            len += s->flash.slot[i].len;
        }
    }
    if (!g_file_set_contents(s->flash_path, (char *)buf, len, &err)) {
        qemu_log_mask(LOG_UNIMP, "npo%u: cannot keep the flash in %s: %s\n",
                      s->node_id, s->flash_path, err->message);
    }
}

/*
 * Realize: read the slots from the file; a missing file is erased flash.
 * False, with errp set, if the file is not a flash file.
 */
bool npo_flash_realize(NpoState *s, Error **errp)
{
    NpoFlashFileHeader h;
    g_autoptr(GError) err = NULL;
    g_autofree char *buf = NULL;
    size_t len, off = sizeof(h);
    struct stat st;

    if (!s->flash_path || !g_file_test(s->flash_path, G_FILE_TEST_EXISTS)) {
        return true;
    }
    /* Not read at all if it cannot be a flash file. */
    if (stat(s->flash_path, &st) ||
        st.st_size > (off_t)(sizeof(h) + 2 * NPO_FW_MAX_SIZE)) {
        goto damaged;
    }
    if (!g_file_get_contents(s->flash_path, &buf, &len, &err)) {
        error_setg(errp, "npo: flash %s: %s", s->flash_path, err->message);
        return false;
    }
    if (len < sizeof(h)) {
        goto damaged;
    }
    memcpy(&h, buf, sizeof(h));
    if (memcmp(h.magic, NPO_FLASH_FILE_MAGIC, sizeof(h.magic)) ||
        h.active > SLOT_B || h.pending > SLOT_B || h.failed > SLOT_B ||
        h.fell_back > 1) {
        goto damaged;
    }
    for (unsigned int i = 0; i < 2; i++) {
        uint32_t n = le32_to_cpu(h.len[i]);

        if (n > NPO_FW_MAX_SIZE || n > len - off) {
            goto damaged;
        }
        s->flash.slot[i].len = n;
        s->flash.slot[i].image = n ? g_memdup2(buf + off, n) : NULL;
        off += n;
        slot_update(s, &s->flash.slot[i]);
    }
    if (off != len ||
        (h.active && !slot_of(s, h.active)->image) ||
        (h.pending && !slot_of(s, h.pending)->image)) {
        goto damaged;
    }
    s->flash.active = h.active;
    s->flash.pending = h.pending;
    s->flash.fell_back = h.fell_back;
    s->flash.failed = h.failed;
    s->flash.boot_error = h.boot_error;
    return true;

damaged:
    error_setg(errp, "npo: flash %s is not an NPO flash file", s->flash_path);
    npo_flash_exit(s);
    return false;
}

void npo_flash_exit(NpoState *s)
{
    for (unsigned int i = 0; i < 2; i++) {
        g_free(s->flash.slot[i].image);
        s->flash.slot[i].image = NULL;
        s->flash.slot[i].len = 0;
        s->flash.slot[i].version = 0;
    }
    g_free(s->flash.stage);
    s->flash.stage = NULL;
}

/* Try to boot a slot: MBOX_OK if its firmware now runs. */
static uint32_t boot_slot(NpoState *s, unsigned int slot, bool fault)
{
    NpoFlashSlot *sl = slot_of(s, slot);
    uint32_t res;

    if (!sl->image) {
        res = MBOX_ERR_FW_SIZE;
    } else if (fault) {
        /* The image is sound but the firmware never comes up. */
        res = MBOX_ERR_FW_BOOT;
    } else {
        res = npo_fw_start(s, sl->image, sl->len,
                           slot == SLOT_A ? FW_FROM_SLOT_A :
                                                FW_FROM_SLOT_B);
    }
    trace_npo_flash_boot(s->node_id, slot_name(slot), res);
    return res;
}

/*
 * At the end of every reset: boot the pending slot once, else the active
 * one, else the other; the first that comes up is the active slot from
 * then on.  With none, the device waits for FW_LOAD as before 1.14.  A
 * first choice that fails is recorded (FELL_BACK, FAILED, BOOT_ERROR)
 * until a newly written image comes up: a driver that resets the device
 * twice in a row still sees that the update failed.
 */
void npo_flash_boot(NpoState *s)
{
    bool had_pending = s->flash.pending != SLOT_NONE;
    bool save = had_pending;
    unsigned int order[3], n = 0;
    uint32_t res;

    g_free(s->flash.stage);
    s->flash.stage = NULL;
    if (s->flash.pending) {
        order[n++] = s->flash.pending;
    }
    if (s->flash.active && s->flash.active != s->flash.pending) {
        order[n++] = s->flash.active;
    }
    /* A slot that failed is tried again only once written anew. */
    for (unsigned int slot = SLOT_A; slot <= SLOT_B; slot++) {
        if (slot != s->flash.pending && slot != s->flash.active &&
            slot != s->flash.failed && slot_of(s, slot)->image) {
            order[n++] = slot;
        }
    }
    /* A pending image gets one try. */
    s->flash.pending = SLOT_NONE;
    for (unsigned int i = 0; i < n; i++) {
        bool fault = i == 0 && had_pending && s->flash.boot_fail_armed;

        if (i == 0 && had_pending) {
            s->flash.boot_fail_armed = false;
        }
        res = boot_slot(s, order[i], fault);
        if (res == MBOX_OK) {
            if (i == 0 && had_pending) {
                /* A new image came up: the record of a fallback goes. */
                s->flash.fell_back = false;
                s->flash.failed = SLOT_NONE;
                s->flash.boot_error = MBOX_OK;
            }
            save |= s->flash.active != order[i];
            s->flash.active = order[i];
            break;
        }
        if (i == 0) {
            s->flash.fell_back = true;
            s->flash.failed = order[i];
            s->flash.boot_error = res;
            npo_fw_log(s, "slot %s did not boot (%u)", slot_name(order[i]),
                       res);
        }
    }
    if (save) {
        flash_save(s);
    }
}

static uint32_t target_slot(NpoState *s)
{
    return s->flash.active == SLOT_A ? SLOT_B : SLOT_A;
}

static uint32_t flash_begin(NpoState *s)
{
    uint32_t len = s->mbox_arg[0];

    g_free(s->flash.stage);
    s->flash.stage = NULL;
    if (len < sizeof(struct npo_fw_header) || len > NPO_FW_MAX_SIZE) {
        return MBOX_ERR_FW_SIZE;
    }
    s->flash.stage = g_malloc(len);
    s->flash.stage_len = len;
    s->flash.stage_done = 0;
    s->mbox_ret[0] = target_slot(s);
    return MBOX_OK;
}

static uint32_t flash_data(NpoState *s)
{
    uint32_t off = s->mbox_arg[0], len = s->mbox_arg[1];

    if (!s->flash.stage) {
        return MBOX_ERR_STATE;
    }
    /* In order, so that a lost chunk cannot leave a hole. */
    if (off != s->flash.stage_done || !len || len > FLASH_CHUNK_MAX ||
        len > s->flash.stage_len - off) {
        return MBOX_ERR_ARG;
    }
    if (pci_dma_read(PCI_DEVICE(s), npo_mbox_addr(s, 2),
                     s->flash.stage + off, len) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: FLASH_DATA cannot read %u "
                      "bytes\n", s->node_id, len);
        return MBOX_ERR_DMA;
    }
    s->flash.stage_done += len;
    return MBOX_OK;
}

static uint32_t flash_commit(NpoState *s)
{
    struct npo_fw_contents fw;
    g_autofree uint8_t *image = NULL;
    uint32_t len = s->flash.stage_len, slot = target_slot(s), res;
    NpoFlashSlot *sl;

    if (!s->flash.stage) {
        return MBOX_ERR_STATE;
    }
    if (s->flash.stage_done != len) {
        /* Not all of it: the staging stays for the rest. */
        return MBOX_ERR_ARG;
    }
    image = g_steal_pointer(&s->flash.stage);
    /* Checked whole before anything is written. */
    res = npo_fw_check(s, image, len, true, &fw);
    trace_npo_flash_commit(s->node_id, slot_name(slot), fw.fw_version, res);
    if (res != MBOX_OK) {
        return res;
    }
    sl = slot_of(s, slot);
    g_free(sl->image);
    sl->image = g_steal_pointer(&image);
    sl->len = len;
    sl->version = fw.fw_version;
    s->flash.pending = slot;
    flash_save(s);
    s->mbox_ret[0] = slot;
    s->mbox_ret[1] = fw.fw_version;
    return MBOX_OK;
}

static void flash_erase_slot(NpoState *s, unsigned int slot)
{
    NpoFlashSlot *sl = slot_of(s, slot);

    g_free(sl->image);
    sl->image = NULL;
    sl->len = 0;
    sl->version = 0;
    if (s->flash.pending == slot) {
        s->flash.pending = SLOT_NONE;
    }
    if (s->flash.failed == slot) {
        s->flash.fell_back = false;
        s->flash.failed = SLOT_NONE;
        s->flash.boot_error = MBOX_OK;
    }
    if (s->flash.active == slot) {
        /* Active means booted: the other slot has not, as far as we know. */
        s->flash.active = SLOT_NONE;
    }
}

uint32_t npo_flash_mbox(NpoState *s, uint32_t op)
{
    switch (op) {
    case MBOX_OP_FLASH_BEGIN:
        return flash_begin(s);
    case MBOX_OP_FLASH_DATA:
        return flash_data(s);
    case MBOX_OP_FLASH_COMMIT:
        return flash_commit(s);
    case MBOX_OP_FLASH_ERASE:
        if (s->mbox_arg[0] != SLOT_A && s->mbox_arg[0] != SLOT_B) {
            return MBOX_ERR_ARG;
        }
        flash_erase_slot(s, s->mbox_arg[0]);
        flash_save(s);
        return MBOX_OK;
    }
    return MBOX_ERR_OPCODE;
}

/* How long a flash command takes beyond the mailbox's own time. */
int64_t npo_flash_mbox_delay(NpoState *s, uint32_t op)
{
    if (op == MBOX_OP_FLASH_COMMIT && s->flash.stage) {
        return (int64_t)(s->flash.stage_len / KiB) * NPO_FLASH_NS_PER_KIB;
    }
    return 0;
}

bool npo_flash_fault(NpoState *s, unsigned int kind, uint32_t value,
                     uint32_t *res)
{
    NpoFlashSlot *sl;

    switch (kind) {
    case FAULT_FW_BOOT_FAIL:
        s->flash.boot_fail_armed = value != 0;
        *res = MBOX_OK;
        return true;
    case FAULT_FLASH_CORRUPT:
        if ((value != SLOT_A && value != SLOT_B) ||
            !slot_of(s, value)->image) {
            *res = MBOX_ERR_ARG;
            return true;
        }
        /* A bit of the payload, past the header, as flash cells decay. */
        sl = slot_of(s, value);
        sl->image[sl->len - 1] ^= 0x10;
        slot_update(s, sl);
        flash_save(s);
        *res = MBOX_OK;
        return true;
    }
    return false;
}

bool npo_flash_reg_read(NpoState *s, hwaddr addr, uint64_t *val)
{
    switch (addr) {
    case A_FLASH_STATE:
        *val = FIELD_DP32(0, FLASH_STATE, RUNNING,
                          s->status & R_STATUS_FW_RUNNING_MASK ? s->fw_from :
                                                                FW_FROM_NONE);
        *val = FIELD_DP32(*val, FLASH_STATE, ACTIVE, s->flash.active);
        *val = FIELD_DP32(*val, FLASH_STATE, PENDING, s->flash.pending);
        *val = FIELD_DP32(*val, FLASH_STATE, FAILED, s->flash.failed);
        *val = FIELD_DP32(*val, FLASH_STATE, FELL_BACK, s->flash.fell_back);
        *val = FIELD_DP32(*val, FLASH_STATE, BOOT_ERROR,
                          s->flash.boot_error);
        return true;
    case A_SLOT_A_VERSION:
        *val = s->flash.slot[0].version;
        return true;
    case A_SLOT_B_VERSION:
        *val = s->flash.slot[1].version;
        return true;
    }
    return false;
}

/* qom-get DEVICE flash: the host's own view of the slots. */
static char *npo_get_flash(Object *obj, Error **errp)
{
    NpoState *s = NPO(obj);
    static const char *const from[] = { "none", "a", "b", "host" };

    return g_strdup_printf("running=%s active=%s pending=%s failed=%s "
                           "boot_error=%u a=0x%08x b=0x%08x",
                           from[s->status & R_STATUS_FW_RUNNING_MASK ?
                                s->fw_from & 3 : FW_FROM_NONE],
                           slot_name(s->flash.active),
                           slot_name(s->flash.pending),
                           slot_name(s->flash.failed),
                           s->flash.boot_error, s->flash.slot[0].version,
                           s->flash.slot[1].version);
}

void npo_flash_add_properties(Object *obj)
{
    object_property_add_str(obj, "flash_state", npo_get_flash, NULL);
}
