/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fake libnpo for the provider's host test: libnpo.so.2's API over NPO
 * devices that live in the test's own process.  An engine thread runs
 * each queue's descriptors by the rules of Documentation/hardware.rst
 * (keys and jobs checked at the target, the first failure puts the queue
 * in error and flushes the rest, RECV and RECV_IMM on the destination
 * queue), so the provider above it runs unchanged; the hooks below make
 * what a VM makes slowly or not at all: a peer that stops answering, a
 * device reset, on a chosen request.
 */
#ifndef FAKE_NPO_H
#define FAKE_NPO_H

#include <stdint.h>

/* How many devices npo_get_device_list() finds: npo0.. with node i + 1. */
void npo_fake_set_devices(int count);

/*
 * Requests to or from node fail with status from now on, as when its
 * links are cut (0: they work again).
 */
void npo_fake_fail_node(uint32_t node, uint32_t status);

/*
 * Device node is reset, as by devlink reload: every queue and region on
 * it is revoked (uapi.rst), the queues' rings final; what they had not
 * completed is owed a completion by npo_flush_revoked().
 */
void npo_fake_reset(uint32_t node);

/* Descriptors the engine ran since the process started, all queues. */
uint64_t npo_fake_descriptors_run(void);

/* Queues and regions alive now, all devices: what a leak would keep. */
unsigned int npo_fake_queues(void);
unsigned int npo_fake_regions(void);

#endif
