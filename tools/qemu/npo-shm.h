/*
 * NPO device model: shared-memory rings between two ports' QEMU
 * processes, in place of the socket (npo-shm.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_NPO_SHM_H
#define HW_MISC_NPO_SHM_H

#include "qapi/error.h"

typedef struct NpoShmRing NpoShmRing;

#define NPO_SHM_MIN_SIZE        (128 * 1024)
#define NPO_SHM_MAX_SIZE        (64 * 1024 * 1024)

NpoShmRing *npo_shm_create(size_t size, Error **errp);
NpoShmRing *npo_shm_attach(const int fds[3], uint64_t size, Error **errp);
void npo_shm_free(NpoShmRing *r);
void npo_shm_fds(NpoShmRing *r, int fds[3]);
void npo_shm_sent(NpoShmRing *r);
int npo_shm_kick_fd(NpoShmRing *r);
int npo_shm_room_fd(NpoShmRing *r);
uint64_t npo_shm_size(NpoShmRing *r);
void npo_shm_drain_fd(int fd);
int64_t npo_shm_room(NpoShmRing *r, size_t reserved);
uint8_t *npo_shm_tx_at(NpoShmRing *r, size_t off);
void npo_shm_publish(NpoShmRing *r, size_t n);
int64_t npo_shm_want_room(NpoShmRing *r, size_t reserved);
int64_t npo_shm_avail(NpoShmRing *r);
bool npo_shm_sleep(NpoShmRing *r);
const uint8_t *npo_shm_rx_at(NpoShmRing *r, size_t off);
bool npo_shm_consume(NpoShmRing *r, size_t n);
void npo_shm_give_room(NpoShmRing *r);

#endif
