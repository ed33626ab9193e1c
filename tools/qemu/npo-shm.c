/*
 * NPO device model: a shared-memory ring, one direction of a link between
 * two processes that share memory.
 *
 * A port whose peer is reachable over a UNIX socket carries its frames in
 * a ring in a sealed memfd instead of the socket, as vhost-user and
 * libfabric's shm provider carry theirs: the sender writes each frame in
 * place, once, and the receiver reads it where it lies.  The sender owns
 * the ring and hands the receiver three descriptors: the memfd, an
 * eventfd it signals when frames are published (kick) and one the
 * receiver signals when it has made room the sender waits for (room).
 *
 * The data area is mapped twice, back to back, so that every frame is
 * contiguous in memory however it straddles the end of the ring.
 *
 * Either end may be hostile or broken: the receiver checks the memfd's
 * seals and size before it maps it (a sender that could shrink it would
 * fault the receiver), and each end checks the other's index against its
 * own before it believes it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/error-report.h"
#include "qemu/memfd.h"
#include "qemu/sockets.h"
#include "qapi/error.h"
#include <sys/eventfd.h>

#include "npo.h"

#define SHM_MAGIC               0x4e504f52      /* "NPOR" */
#define SHM_VERSION             1
#define SHM_SEALS               (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

/* The first page of the memfd; the data area follows it. */
typedef struct NpoShmHdr {
    uint32_t magic;
    uint32_t version;
    uint64_t size;
    /* Bytes ever published, written by the sender alone. */
    uint64_t head QEMU_ALIGNED(64);
    /* Bytes ever consumed, written by the receiver alone. */
    uint64_t tail QEMU_ALIGNED(64);
    /* The sender waits for room: the receiver signals room once. */
    uint32_t want_room QEMU_ALIGNED(64);
} NpoShmHdr;

struct NpoShmRing {
    NpoShmHdr *hdr;
    uint8_t *data;              /* size bytes, mapped twice */
    size_t size;
    size_t map_len;
    uint64_t head;              /* the sender's own copy */
    uint64_t tail;              /* the receiver's own copy */
    int memfd, kick, room;
};

static size_t shm_hdr_len(void)
{
    return MAX(qemu_real_host_page_size(), sizeof(NpoShmHdr));
}

static int shm_map(NpoShmRing *r, Error **errp)
{
    size_t hl = shm_hdr_len();
    uint8_t *base;

    r->map_len = hl + 2 * r->size;
    base = mmap(NULL, r->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                -1, 0);
    if (base == MAP_FAILED) {
        error_setg_errno(errp, errno, "cannot reserve the ring's mapping");
        return -1;
    }
    if (mmap(base, hl + r->size, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED, r->memfd, 0) == MAP_FAILED ||
        mmap(base + hl + r->size, r->size, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED, r->memfd, hl) == MAP_FAILED) {
        error_setg_errno(errp, errno, "cannot map the ring");
        munmap(base, r->map_len);
        return -1;
    }
    r->hdr = (NpoShmHdr *)base;
    r->data = base + hl;
    return 0;
}

void npo_shm_free(NpoShmRing *r)
{
    if (!r) {
        return;
    }
    if (r->hdr) {
        munmap(r->hdr, r->map_len);
    }
    if (r->memfd >= 0) {
        close(r->memfd);
    }
    if (r->kick >= 0) {
        close(r->kick);
    }
    if (r->room >= 0) {
        close(r->room);
    }
    g_free(r);
}

static NpoShmRing *shm_ring_alloc(void)
{
    NpoShmRing *r = g_new0(NpoShmRing, 1);

    r->memfd = r->kick = r->room = -1;
    return r;
}

/* A new ring of size bytes (a power of two) for this end to send on. */
NpoShmRing *npo_shm_create(size_t size, Error **errp)
{
    NpoShmRing *r = shm_ring_alloc();

    assert(is_power_of_2(size) && size >= NPO_SHM_MIN_SIZE);
    r->size = size;
    r->memfd = qemu_memfd_create("npo-link", shm_hdr_len() + size, false,
                                 0, SHM_SEALS, errp);
    if (r->memfd < 0) {
        r->memfd = -1;
        goto fail;
    }
    r->kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    r->room = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (r->kick < 0 || r->room < 0) {
        error_setg_errno(errp, errno, "cannot create the ring's eventfds");
        goto fail;
    }
    if (shm_map(r, errp)) {
        goto fail;
    }
    r->hdr->magic = SHM_MAGIC;
    r->hdr->version = SHM_VERSION;
    r->hdr->size = size;
    return r;
fail:
    npo_shm_free(r);
    return NULL;
}

/*
 * The peer's ring, from the descriptors it sent (memfd, kick, room),
 * which the ring then owns; size is what its offer said.
 */
NpoShmRing *npo_shm_attach(const int fds[3], uint64_t size, Error **errp)
{
    NpoShmRing *r = shm_ring_alloc();
    struct stat st;
    int seals;

    r->memfd = fds[0];
    r->kick = fds[1];
    r->room = fds[2];
    if (!is_power_of_2(size) || size < NPO_SHM_MIN_SIZE ||
        size > NPO_SHM_MAX_SIZE) {
        error_setg(errp, "a ring of %" PRIu64 " bytes", size);
        goto fail;
    }
    r->size = size;
    seals = fcntl(r->memfd, F_GET_SEALS);
    if (seals < 0 || (seals & SHM_SEALS) != SHM_SEALS) {
        error_setg(errp, "the ring's memory is not sealed against resizing");
        goto fail;
    }
    if (fstat(r->memfd, &st) || st.st_size != shm_hdr_len() + size) {
        error_setg(errp, "the ring's memory is not the size offered");
        goto fail;
    }
    /* SCM_RIGHTS kept the sender's flags; the socket code cleared them. */
    qemu_socket_set_nonblock(r->kick);
    qemu_socket_set_nonblock(r->room);
    if (shm_map(r, errp)) {
        goto fail;
    }
    if (qatomic_read(&r->hdr->magic) != SHM_MAGIC ||
        qatomic_read(&r->hdr->version) != SHM_VERSION ||
        qatomic_read(&r->hdr->size) != size) {
        error_setg(errp, "the ring's header is not one this device reads");
        goto fail;
    }
    r->tail = qatomic_load_acquire(&r->hdr->tail);
    return r;
fail:
    npo_shm_free(r);
    return NULL;
}

void npo_shm_fds(NpoShmRing *r, int fds[3])
{
    fds[0] = r->memfd;
    fds[1] = r->kick;
    fds[2] = r->room;
}

int npo_shm_kick_fd(NpoShmRing *r)
{
    return r->kick;
}

int npo_shm_room_fd(NpoShmRing *r)
{
    return r->room;
}

uint64_t npo_shm_size(NpoShmRing *r)
{
    return r->size;
}

static void shm_signal(int fd)
{
    uint64_t one = 1;

    /* A full counter means a wake-up is pending anyway. */
    if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
        warn_report_once("npo: cannot signal a ring's eventfd: %s",
                         strerror(errno));
    }
}

/* Read an eventfd to zero, so that it wakes its reader again later. */
void npo_shm_drain_fd(int fd)
{
    uint64_t n;

    while (read(fd, &n, sizeof(n)) == sizeof(n)) {
        /* edge-triggered from here on */
    }
}

/* --- sender --------------------------------------------------------------- */

/*
 * Bytes the sender may still write beyond reserved unpublished ones; -1
 * when the receiver's index makes no sense (it is broken or hostile).
 */
int64_t npo_shm_room(NpoShmRing *r, size_t reserved)
{
    uint64_t tail = qatomic_load_acquire(&r->hdr->tail);
    uint64_t used = r->head - tail;

    if (used > r->size || reserved > r->size - used) {
        return -1;
    }
    return r->size - used - reserved;
}

/* Where the sender writes at offset off beyond what it has published. */
uint8_t *npo_shm_tx_at(NpoShmRing *r, size_t off)
{
    return r->data + ((r->head + off) & (r->size - 1));
}

/* Publish n written bytes and wake the receiver. */
void npo_shm_publish(NpoShmRing *r, size_t n)
{
    if (!n) {
        return;
    }
    r->head += n;
    qatomic_store_release(&r->hdr->head, r->head);
    shm_signal(r->kick);
}

/*
 * The sender needs room: ask for a signal on the room eventfd, then look
 * again, since the receiver may have made room before it saw the request.
 */
int64_t npo_shm_want_room(NpoShmRing *r, size_t reserved)
{
    qatomic_set(&r->hdr->want_room, 1);
    smp_mb();
    return npo_shm_room(r, reserved);
}

/* --- receiver ------------------------------------------------------------- */

/* Bytes published and not yet consumed; -1 when the sender is broken. */
int64_t npo_shm_avail(NpoShmRing *r)
{
    uint64_t head = qatomic_load_acquire(&r->hdr->head);

    if (head - r->tail > r->size) {
        return -1;
    }
    return head - r->tail;
}

const uint8_t *npo_shm_rx_at(NpoShmRing *r, size_t off)
{
    return r->data + ((r->tail + off) & (r->size - 1));
}

/* Give n read bytes back to the sender, waking it if it waits for them. */
void npo_shm_consume(NpoShmRing *r, size_t n)
{
    r->tail += n;
    qatomic_store_release(&r->hdr->tail, r->tail);
    smp_mb();
    if (qatomic_read(&r->hdr->want_room)) {
        qatomic_set(&r->hdr->want_room, 0);
        shm_signal(r->room);
    }
}
