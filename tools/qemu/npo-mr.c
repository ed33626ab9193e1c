/*
 * NPO supernode interconnect: the memory table.
 *
 * Each entry is a region a process registered: a local and a remote key
 * (random tags above the table index), protection domain, job, access
 * rights, address range and page list, given by MR_CREATE and MR_PAGES
 * and taken away by MR_DESTROY.  Every descriptor and every request from
 * a peer is checked here before a byte moves: a local key against the
 * queue's protection domain, a remote key against the requester's job;
 * the pages are mapped once, when they arrive, as a device caches its
 * translations.  Each protection domain's job is set by PD_JOB.
 * Documentation/hardware.rst, "DMA queues" and "Jobs and refusals", is
 * the specification.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "trace.h"

#include "npo-state.h"
#include "npo-mr.h"
#include "npo-queue.h"

/* --- checks and copies -------------------------------------------------- */

static NpoMr *mr_at(NpoState *s, uint32_t idx)
{
    NpoMr *mr = idx < s->num_mrs ? s->mr[idx] : NULL;

    return mr && mr->pages_set == mr->npages ? mr : NULL;
}

static bool mr_covers(const NpoMr *mr, uint64_t addr, uint64_t len,
                      uint32_t need)
{
    return addr >= mr->iova && len <= mr->length &&
           addr - mr->iova <= mr->length - len && (mr->access & need) == need;
}

/*
 * Check [addr, addr + len) against the region a queue of protection domain
 * pd names by its local key; 0 or the status to report.
 * need: NPO_ACCESS_* bits the operation requires.
 */
uint32_t npo_mr_check_local(NpoState *s, NpoMr **out, uint32_t key,
                            uint64_t addr, uint64_t len, uint32_t need,
                            uint32_t pd)
{
    NpoMr *mr = mr_at(s, FIELD_EX32(key, MR_KEY, INDEX));

    if (!mr || mr->key != key || mr->pd != pd) {
        return NPO_STATUS_LOCAL_KEY;
    }
    if (!mr_covers(mr, addr, len, need)) {
        return NPO_STATUS_LOCAL_ACCESS;
    }
    *out = mr;
    return NPO_STATUS_OK;
}

/*
 * The same for a remote key from a queue of the given job, here or on a
 * peer.  There is one answer for every reason a request finds no region
 * (no such key, another job's, out of range, no right), so that the target
 * tells a guesser nothing; the caller reports REMOTE_ACCESS and logs the
 * refusal.
 */
bool npo_mr_check_remote(NpoState *s, NpoMr **out, uint64_t rkey,
                         uint32_t job, uint64_t addr, uint64_t len,
                         uint32_t need)
{
    NpoMr *mr = mr_at(s, rkey & NPO_MR_RKEY_INDEX_MASK);

    if (!mr || mr->rkey != rkey || mr->job != job ||
        !mr_covers(mr, addr, len, need)) {
        return false;
    }
    *out = mr;
    return true;
}

/*
 * The host address of addr in mr, and how many bytes run on contiguously
 * from it, looking no further than want bytes (an 8-byte write reads one
 * entry of the page list, not up to 16 MiB of them).  Regions are guest
 * RAM (the driver pins user pages), mapped once when their pages arrive,
 * as a device caches its IOMMU translations.
 */
static uint8_t *mr_translate(NpoMr *mr, uint64_t addr, uint64_t want,
                             uint64_t *run)
{
    uint64_t psize = 1ULL << mr->page_shift;
    uint64_t off = addr - (mr->iova & ~(psize - 1));
    uint64_t i = off >> mr->page_shift;
    uint8_t *base = mr->hva[i] + (off & (psize - 1));

    want = MIN(want, NPO_DMA_BUDGET);
    *run = psize - (off & (psize - 1));
    while (i + 1 < mr->npages && mr->hva[i + 1] == mr->hva[i] + psize &&
           *run < want) {
        *run += psize;
        i++;
    }
    return base;
}

/*
 * Copy len bytes from one region to another; they may belong to two
 * devices (a link's ends) of this QEMU process, both in guest RAM.
 */
void npo_mr_copy(NpoMr *dst, uint64_t daddr, NpoMr *src, uint64_t saddr,
                 uint64_t len)
{
    while (len) {
        uint64_t srun, drun, n;
        uint8_t *sp = mr_translate(src, saddr, len, &srun);
        uint8_t *dp = mr_translate(dst, daddr, len, &drun);

        n = MIN(len, MIN(srun, drun));
        memmove(dp, sp, n);
        len -= n;
        saddr += n;
        daddr += n;
    }
}

/* Copy between a region and a plain buffer (a frame to or from a peer). */
static void mr_copy_buf(NpoMr *mr, uint64_t addr, uint8_t *buf, uint64_t len,
                        bool into_mr)
{
    while (len) {
        uint64_t run, n;
        uint8_t *p = mr_translate(mr, addr, len, &run);

        n = MIN(len, run);
        memcpy(into_mr ? p : buf, into_mr ? buf : p, n);
        buf += n;
        addr += n;
        len -= n;
    }
}

void npo_mr_read(NpoMr *mr, uint64_t addr, void *buf, uint64_t len)
{
    mr_copy_buf(mr, addr, buf, len, false);
}

void npo_mr_write(NpoMr *mr, uint64_t addr, const void *buf, uint64_t len)
{
    mr_copy_buf(mr, addr, (uint8_t *)buf, len, true);
}

/*
 * FETCH_ADD or CMP_SWAP on the aligned word at addr (so it never straddles
 * a page); returns the original word.  The whole read-modify-write runs
 * under the BQL, the only lock under which any device touches the word.
 * Guest CPUs may race with it, as with any device's atomics on host memory.
 */
uint64_t npo_mr_atomic(NpoMr *mr, uint64_t addr, uint8_t opcode,
                       uint64_t compare_add, uint64_t swap)
{
    uint64_t run, old, val;
    uint64_t *word = (uint64_t *)mr_translate(mr, addr, sizeof(*word), &run);

    old = le64_to_cpu(qatomic_read(word));
    if (opcode == NPO_OP_FETCH_ADD) {
        val = old + compare_add;
    } else {
        val = old == compare_add ? swap : old;
    }
    qatomic_set(word, cpu_to_le64(val));
    return old;
}

/* Map the region's pages from the page list; false if one is not RAM. */
static bool mr_map(NpoState *s, NpoMr *mr, uint64_t first, uint64_t count)
{
    dma_addr_t psize = 1ULL << mr->page_shift;
    uint64_t i;

    for (i = first; i < first + count; i++) {
        mr->hva[i] = npo_dma_map_ram(s, mr->pages[i], psize);
        if (!mr->hva[i]) {
            while (i-- > first) {
                npo_dma_unmap_ram(s, mr->hva[i], psize);
                mr->hva[i] = NULL;
            }
            return false;
        }
    }
    return true;
}

/* --- mailbox ------------------------------------------------------------- */

static void mr_free(NpoState *s, uint32_t idx)
{
    NpoMr *mr = s->mr[idx];
    uint64_t i;

    if (!mr) {
        return;
    }
    for (i = 0; i < mr->npages && mr->hva[i]; i++) {
        npo_dma_unmap_ram(s, mr->hva[i], 1ULL << mr->page_shift);
    }
    g_free(mr->hva);
    g_free(mr->pages);
    g_free(mr);
    s->mr[idx] = NULL;
}

static uint32_t mbox_mr_create(NpoState *s)
{
    NpoHwMrCreate c;
    uint32_t key, idx, shift, pd;
    uint64_t rkey;
    uint64_t iova, len, npages;
    NpoMr *mr;

    if (npo_mbox_read_block(s, 0, &c, sizeof(c))) {
        return MBOX_ERR_DMA;
    }
    key = le32_to_cpu(c.key);
    rkey = le64_to_cpu(c.rkey);
    idx = FIELD_EX32(key, MR_KEY, INDEX);
    pd = le32_to_cpu(c.pd);
    shift = le32_to_cpu(c.page_shift);
    iova = le64_to_cpu(c.iova);
    len = le64_to_cpu(c.length);
    /* Both keys name the same entry; a remote key needs a random tag. */
    if (!idx || idx >= s->num_mrs || shift < 12 || shift > 30 || !len ||
        iova + len < iova || (le32_to_cpu(c.access) & ~NPO_ACCESS_ALL) ||
        (rkey & NPO_MR_RKEY_INDEX_MASK) != idx ||
        !(rkey >> NPO_MR_RKEY_TAG_SHIFT) || pd >= NPO_MAX_PDS) {
        return MBOX_ERR_ARG;
    }
    if (s->mr[idx]) {
        return MBOX_ERR_EXISTS;
    }
    /* A domain given no job since the last reset gets no region. */
    if (!s->pd_job[pd]) {
        return MBOX_ERR_STATE;
    }
    npages = ((iova + len - 1) >> shift) - (iova >> shift) + 1;
    if (npages > NPO_MAX_MR_PAGES) {
        return MBOX_ERR_NOMEM;
    }
    mr = g_new0(NpoMr, 1);
    mr->pages = g_try_new0(uint64_t, npages);
    mr->hva = g_try_new0(uint8_t *, npages);
    if (!mr->pages || !mr->hva) {
        g_free(mr->pages);
        g_free(mr->hva);
        g_free(mr);
        return MBOX_ERR_NOMEM;
    }
    mr->key = key;
    mr->rkey = rkey;
    mr->pd = pd;
    mr->job = s->pd_job[pd];
    mr->access = le32_to_cpu(c.access);
    mr->page_shift = shift;
    mr->iova = iova;
    mr->length = len;
    mr->npages = npages;
    s->mr[idx] = mr;
    trace_npo_mr_create(s->node_id, key, mr->pd, mr->job, len, mr->access);
    return MBOX_OK;
}

/* Page addresses for a region being created; it is usable once complete. */
static uint32_t mbox_mr_pages(NpoState *s)
{
    NpoHwMrPages h;
    uint32_t key, idx, count;
    uint64_t first;
    NpoMr *mr;

    if (npo_mbox_read_block(s, 0, &h, sizeof(h))) {
        return MBOX_ERR_DMA;
    }
    key = le32_to_cpu(h.key);
    idx = FIELD_EX32(key, MR_KEY, INDEX);
    count = le32_to_cpu(h.count);
    first = le64_to_cpu(h.first);
    mr = idx < s->num_mrs ? s->mr[idx] : NULL;
    if (!mr || mr->key != key) {
        return MBOX_ERR_NOENT;
    }
    if (!count || count > NPO_MR_PAGES_PER_CMD || first != mr->pages_set ||
        count > mr->npages - first) {
        return MBOX_ERR_ARG;
    }
    if (npo_mbox_read_block(s, sizeof(h), mr->pages + first,
                            count * sizeof(uint64_t))) {
        return MBOX_ERR_DMA;
    }
    for (uint32_t i = 0; i < count; i++) {
        mr->pages[first + i] = le64_to_cpu(mr->pages[first + i]);
        if (mr->pages[first + i] & ((1ULL << mr->page_shift) - 1)) {
            return MBOX_ERR_ARG;
        }
    }
    if (!mr_map(s, mr, first, count)) {
        qemu_log_mask(LOG_GUEST_ERROR, "npo%u: region 0x%08x: a page is "
                      "not guest RAM\n", s->node_id, key);
        return MBOX_ERR_DMA;
    }
    mr->pages_set += count;
    return MBOX_OK;
}

/* Once this returns, no descriptor reaches the region's pages again. */
static uint32_t mbox_mr_destroy(NpoState *s)
{
    uint32_t key = s->mbox_arg[0], idx = FIELD_EX32(key, MR_KEY, INDEX);

    if (idx >= s->num_mrs || !s->mr[idx] || s->mr[idx]->key != key) {
        return MBOX_ERR_NOENT;
    }
    trace_npo_mr_destroy(s->node_id, key);
    mr_free(s, idx);
    return MBOX_OK;
}

/*
 * The job of a protection domain's queues and regions created from now
 * on; those that exist keep theirs.
 */
static uint32_t mbox_pd_job(NpoState *s)
{
    uint32_t pd = FIELD_EX32(s->mbox_arg[0], PD_JOB_ARG0, PD);

    if (s->mbox_arg[0] & ~R_PD_JOB_ARG0_PD_MASK) {
        return MBOX_ERR_ARG;
    }
    s->pd_job[pd] = s->mbox_arg[1];
    trace_npo_pd_job(s->node_id, pd, s->mbox_arg[1]);
    return MBOX_OK;
}

/* The memory table's commands; it belongs to the firmware (npo.c checks). */
uint32_t npo_mr_mbox(NpoState *s, uint32_t op)
{
    switch (op) {
    case MBOX_OP_MR_CREATE:
        return mbox_mr_create(s);
    case MBOX_OP_MR_PAGES:
        return mbox_mr_pages(s);
    case MBOX_OP_PD_JOB:
        return mbox_pd_job(s);
    case MBOX_OP_MR_DESTROY:
        return mbox_mr_destroy(s);
    }
    return MBOX_ERR_OPCODE;
}

/* --- life cycle ---------------------------------------------------------- */

void npo_mr_reset(NpoState *s)
{
    unsigned int i;

    for (i = 0; i < s->num_mrs; i++) {
        mr_free(s, i);
    }
    memset(s->pd_job, 0, NPO_MAX_PDS * sizeof(s->pd_job[0]));
}

void npo_mr_realize(NpoState *s)
{
    s->mr = g_new0(NpoMr *, s->num_mrs);
    s->pd_job = g_new0(uint32_t, NPO_MAX_PDS);
}

void npo_mr_exit(NpoState *s)
{
    npo_mr_reset(s);
    g_free(s->mr);
    g_free(s->pd_job);
}
