// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo device discovery through /sys/class/npo.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *npo_sysfs_root(void)
{
	const char *root = secure_getenv("NPO_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

const char *npo_dev_root(void)
{
	const char *root = secure_getenv("NPO_DEV_ROOT");

	return root && *root ? root : "/dev";
}

int npo_parse_name(const char *name)
{
	const char *digits = name;
	char *end;
	long n;

	if (!strncmp(digits, "/dev/", 5))
		digits += 5;
	if (!strncmp(digits, "npo", 3))
		digits += 3;
	if (*digits < '0' || *digits > '9')
		return -1;
	errno = 0;
	n = strtol(digits, &end, 10);
	if (errno || *end || n < 0 || n > INT_MAX)
		return -1;
	/* "npo01" is not a name the driver gives. */
	if (digits[0] == '0' && digits[1])
		return -1;
	return (int)n;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct npo_device_entry *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

struct npo_device_entry *npo_get_device_list(int *count)
{
	struct npo_device_entry *list = NULL, *grown;
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/npo", npo_sysfs_root());
	dir = opendir(path);
	if (!dir) {
		npo_log(NPO_LOG_DEBUG, "%s: %s", path, strerror(errno));
		errno = ENOENT;
		return NULL;
	}
	while ((de = readdir(dir))) {
		int index = npo_parse_name(de->d_name);

		if (index < 0 || strncmp(de->d_name, "npo", 3))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown) {
				free(list);
				closedir(dir);
				errno = ENOMEM;
				return NULL;
			}
			list = grown;
		}
		snprintf(list[n].name, sizeof(list[n].name), "npo%d", index);
		list[n].index = index;
		n++;
	}
	closedir(dir);
	if (!list) {
		/* An empty list is a list: return something to free. */
		list = calloc(1, sizeof(*list));
		if (!list) {
			errno = ENOMEM;
			return NULL;
		}
	}
	qsort(list, n, sizeof(*list), cmp_entry);
	*count = n;
	return list;
}

void npo_free_device_list(struct npo_device_entry *list)
{
	free(list);
}
