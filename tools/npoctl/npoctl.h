/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef NPOCTL_H
#define NPOCTL_H

#include <stdbool.h>
#include <stddef.h>

/* Exit codes: see npoctl(8). */
#define NPOCTL_EXIT_OK		0
#define NPOCTL_EXIT_ERROR	1	/* no driver, no device, device error */
#define NPOCTL_EXIT_USAGE	2	/* bad command line */
#define NPOCTL_EXIT_UNHEALTHY	3	/* npoctl health: something is not ok */

/* For callbacks whose signature a library fixes. */
#define UNUSED __attribute__((unused))

extern const char *progname;

void npoctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool matches(const char *arg, const char *word);

/* sysfs: /sys, or $NPO_SYSFS_ROOT for tests. */
const char *npo_sysfs_root(void);
/* The first line of /sys/class/npo/DEV/ATTR, newline dropped: 0 or -errno. */
int npo_sysfs_read(const char *dev, const char *attr, char *buf, size_t len);

int cmd_dev(int argc, char **argv);
int cmd_link(int argc, char **argv);
int cmd_lane(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_link_history(int argc, char **argv);
int cmd_health(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_topo_impact(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_clock(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_fabric(int argc, char **argv);
int cmd_fabric_key(int argc, char **argv);

#endif
