/*
 * NPO device model: a shared-memory ring, one direction of a link between
 * two processes that share memory.
 *
 * A port whose peer is reachable over a UNIX socket carries its frames in
 * a ring in a sealed memfd instead of the socket, as vhost-user and
 * libfabric's shm provider carry theirs: the sender writes each frame in
 * place, once, and the receiver reads it where it lies.  The sender owns
 * the ring and hands the receiver three descriptors: the memfd, and one
 * end each of two datagram socket pairs: kick, on which the sender says
 * frames were published, and room, on which the receiver says it made
 * room the sender waits for.  Sockets rather than eventfds: MSG_DONTWAIT
 * never blocks, whatever the peer does to the flags of a file
 * description both processes share.
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
#include "qapi/error.h"
#include <sys/socket.h>

#include "npo-state.h"
#include "npo-shm.h"

#define SHM_MAGIC               0x4e504f52      /* "NPOR" */
#define SHM_VERSION             2
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
    /*
     * The receiver found the ring empty and sleeps: the sender kicks once.
     * While it reads, the sender publishes without a system call.
     */
    uint32_t want_kick QEMU_ALIGNED(64);
} NpoShmHdr;

struct NpoShmRing {
    NpoShmHdr *hdr;
    uint8_t *data;              /* size bytes, mapped twice */
    size_t size;
    size_t map_len;
    uint64_t head;              /* the sender's own copy */
    uint64_t tail;              /* the receiver's own copy */
    uint64_t room_given;        /* tail when the receiver last woke the sender */
    int memfd;
    int kick, room;             /* this end's socket of each pair */
    int peer_kick, peer_room;   /* the sender's, for the peer, until sent */
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
    npo_shm_sent(r);
    g_free(r);
}

static NpoShmRing *shm_ring_alloc(void)
{
    NpoShmRing *r = g_new0(NpoShmRing, 1);

    r->memfd = r->kick = r->room = r->peer_kick = r->peer_room = -1;
    return r;
}

/* A doorbell: this end's socket and the peer's, a datagram pair. */
static int shm_doorbell(int *mine, int *peers, Error **errp)
{
    int sv[2];

    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                   sv)) {
        error_setg_errno(errp, errno, "cannot create the ring's doorbells");
        return -1;
    }
    *mine = sv[0];
    *peers = sv[1];
    return 0;
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
    if (shm_doorbell(&r->kick, &r->peer_kick, errp) ||
        shm_doorbell(&r->room, &r->peer_room, errp) || shm_map(r, errp)) {
        goto fail;
    }
    r->hdr->magic = SHM_MAGIC;
    r->hdr->version = SHM_VERSION;
    r->hdr->size = size;
    r->hdr->want_kick = 1;
    return r;
fail:
    npo_shm_free(r);
    return NULL;
}

static bool shm_is_dgram_socket(int fd)
{
    struct stat st;
    int type;
    socklen_t len = sizeof(type);

    return !fstat(fd, &st) && S_ISSOCK(st.st_mode) &&
           !getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) &&
           type == SOCK_DGRAM;
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
    if (!shm_is_dgram_socket(r->kick) || !shm_is_dgram_socket(r->room)) {
        error_setg(errp, "the ring's doorbells are not datagram sockets");
        goto fail;
    }
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
    r->room_given = r->tail;
    return r;
fail:
    npo_shm_free(r);
    return NULL;
}

/* What the peer needs: the memfd and its ends of the doorbells. */
void npo_shm_fds(NpoShmRing *r, int fds[3])
{
    fds[0] = r->memfd;
    fds[1] = r->peer_kick;
    fds[2] = r->peer_room;
}

/* The offer went out: this process needs the peer's ends no more. */
void npo_shm_sent(NpoShmRing *r)
{
    if (r->peer_kick >= 0) {
        close(r->peer_kick);
    }
    if (r->peer_room >= 0) {
        close(r->peer_room);
    }
    r->peer_kick = r->peer_room = -1;
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
    char one = 1;

    /* A full socket means a wake-up is pending anyway. */
    if (send(fd, &one, 1, MSG_DONTWAIT) < 0 && errno != EAGAIN &&
        errno != EWOULDBLOCK) {
        warn_report_once("npo: cannot ring a link ring's doorbell: %s",
                         strerror(errno));
    }
}

/*
 * Take what rang, so that the doorbell wakes its reader again later; at
 * most a bounded number, so a peer ringing without pause cannot hold the
 * main loop here (what is left wakes it again on the next pass).
 */
void npo_shm_drain_fd(int fd)
{
    char buf[64];
    int i;

    for (i = 0; i < 64 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0; i++) {
        /* level-triggered: anything left wakes us again */
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

/* Publish n written bytes, and wake the receiver if it sleeps. */
void npo_shm_publish(NpoShmRing *r, size_t n)
{
    if (!n) {
        return;
    }
    r->head += n;
    qatomic_store_release(&r->hdr->head, r->head);
    /* Against npo_shm_sleep(): either it sees the head or we its flag. */
    smp_mb();
    if (qatomic_read(&r->hdr->want_kick)) {
        qatomic_set(&r->hdr->want_kick, 0);
        shm_signal(r->kick);
    }
}

/*
 * The sender needs room: ask for a ring on the room doorbell, then look
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

/*
 * The ring looks empty: ask for a kick, then look again, since the sender
 * may have published before it saw the request.  Returns whether the
 * receiver may sleep; if not, it reads on (a kick may still come).
 */
bool npo_shm_sleep(NpoShmRing *r)
{
    qatomic_set(&r->hdr->want_kick, 1);
    smp_mb();
    return !npo_shm_avail(r);
}

const uint8_t *npo_shm_rx_at(NpoShmRing *r, size_t off)
{
    return r->data + ((r->tail + off) & (r->size - 1));
}

/*
 * Wake a sender waiting for room.  Once per quarter of the ring and at the
 * end of each pass, not per frame: a sender woken for every frame's room
 * would refill one frame per wake-up, and both processes would spend their
 * time passing the doorbell back and forth.
 */
void npo_shm_give_room(NpoShmRing *r)
{
    r->room_given = r->tail;
    smp_mb();
    if (qatomic_read(&r->hdr->want_room)) {
        qatomic_set(&r->hdr->want_room, 0);
        shm_signal(r->room);
    }
}

/* Give n read bytes back to the sender; true if the ring wrapped. */
bool npo_shm_consume(NpoShmRing *r, size_t n)
{
    bool wrapped = (r->tail & (r->size - 1)) + n >= r->size;

    r->tail += n;
    qatomic_store_release(&r->hdr->tail, r->tail);
    if (r->tail - r->room_given >= r->size / 4) {
        npo_shm_give_room(r);
    }
    return wrapped;
}
