/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef LIBNPO_INTERNAL_H
#define LIBNPO_INTERNAL_H

#include "npo.h"

struct npo_device {
	int fd;
	char name[NPO_NAME_MAX];
	uint32_t node_id;		/* read at open */
};

/* A registered region, as libnpo keeps it. */
struct npo_mr {
	struct npo_device *dev;
	uint32_t lkey;
	uint64_t rkey;
	uint32_t node_id;
	uint32_t job;
	uint64_t addr;
	uint64_t length;
};

void npo_log(enum npo_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Roots of sysfs and /dev; NPO_SYSFS_ROOT and NPO_DEV_ROOT override them. */
const char *npo_sysfs_root(void);
const char *npo_dev_root(void);

/* Parse "npoN", "/dev/npoN" or "N" into N; -1 if it is none of those. */
int npo_parse_name(const char *name);

#endif
