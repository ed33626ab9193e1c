// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl: reading the driver's sysfs attributes (/sys/class/npo/npoN/),
 * below $NPO_SYSFS_ROOT instead of /sys when tests set it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npoctl.h"

const char *npo_sysfs_root(void)
{
	const char *root = getenv("NPO_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

int npo_sysfs_read(const char *dev, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	int err = 0;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/class/npo/%s/%s", npo_sysfs_root(),
		 dev, attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	else
		err = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	return err;
}
