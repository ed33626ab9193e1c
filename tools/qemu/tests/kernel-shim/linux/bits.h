/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's <linux/bits.h>, as much of it as driver/npo_regs.h uses, for
 * compiling that header in user space beside QEMU's (whose BIT() is the
 * kernel's in all but spelling).
 */
#ifndef NPO_SHIM_LINUX_BITS_H
#define NPO_SHIM_LINUX_BITS_H

#include <stdint.h>
#include <linux/types.h>

#ifndef BIT
#define BIT(nr)			(1UL << (nr))
#endif
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define __packed		__attribute__((__packed__))

#endif
