// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl job: start a command in a job, as a launcher does.
 *
 * The launcher opens the devices, puts each handle in the job (which
 * needs CAP_NET_ADMIN) and passes the handles to the command through
 * NPO_DEVICE_FDS, where libnpo finds them; the command, and any user it
 * runs as, cannot move those files to another job (it may still open the
 * device itself, in its own default job).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <npo.h>

#include "npoctl.h"

static void job_usage(FILE *to)
{
	fprintf(to,
		"Usage: npoctl job run JOB [ DEV ... ] -- COMMAND [ ARGS ... ]\n"
		"JOB is %u..%u; DEV defaults to every NPO device.\n",
		NPO_JOB_MIN, NPO_JOB_MAX);
}

/* Open a device, put it in the job, leave its descriptor to the command. */
static int job_add(const char *name, uint32_t job, char *list, size_t size)
{
	struct npo_device *dev = npo_open_device(name);
	size_t used = strlen(list);
	int fd, err;

	if (!dev) {
		npoctl_err("%s: %s", name, strerror(errno));
		return -1;
	}
	err = npo_device_set_job(dev, job);
	if (err) {
		npoctl_err("%s: cannot put it in job %u: %s", name, job,
			   err == -EPERM ? "needs CAP_NET_ADMIN" :
			   err == -EBUSY ? "it is in use" : strerror(-err));
		return -1;
	}
	fd = npo_device_fd(dev);
	if (fcntl(fd, F_SETFD, 0)) {
		npoctl_err("%s: %s", name, strerror(errno));
		return -1;
	}
	/* The handle stays open across exec; its wrapper is not needed. */
	if ((size_t)snprintf(list + used, size - used, "%s%s=%d",
			     used ? "," : "", npo_device_name(dev), fd) >=
	    size - used) {
		npoctl_err("too many devices");
		return -1;
	}
	return 0;
}

static int job_run(int argc, char **argv)
{
	struct npo_device_entry *devs = NULL;
	char list[4096] = "", *end;
	int i, sep, count;
	unsigned long job;

	for (sep = 0; sep < argc && strcmp(argv[sep], "--"); sep++)
		;
	if (sep < 1 || sep + 1 >= argc) {
		job_usage(stderr);
		return NPOCTL_EXIT_USAGE;
	}
	errno = 0;
	job = strtoul(argv[0], &end, 0);
	if (errno || *end || job < NPO_JOB_MIN || job > NPO_JOB_MAX) {
		npoctl_err("job: '%s' is not a job (%u..%u)", argv[0],
			   NPO_JOB_MIN, NPO_JOB_MAX);
		return NPOCTL_EXIT_USAGE;
	}
	if (sep == 1) {
		devs = npo_get_device_list(&count);
		if (!devs) {
			npoctl_err("job: no NPO devices: %s", strerror(errno));
			return NPOCTL_EXIT_ERROR;
		}
		for (i = 0; i < count; i++)
			if (job_add(devs[i].name, job, list, sizeof(list)))
				return NPOCTL_EXIT_ERROR;
		npo_free_device_list(devs);
	}
	for (i = 1; i < sep; i++)
		if (job_add(argv[i], job, list, sizeof(list)))
			return NPOCTL_EXIT_ERROR;
	if (setenv("NPO_DEVICE_FDS", list, 1)) {
		npoctl_err("job: %s", strerror(errno));
		return NPOCTL_EXIT_ERROR;
	}
	execvp(argv[sep + 1], argv + sep + 1);
	npoctl_err("job: %s: %s", argv[sep + 1], strerror(errno));
	return NPOCTL_EXIT_ERROR;
}

int cmd_job(int argc, char **argv)
{
	if (argc && matches(argv[0], "help")) {
		job_usage(stdout);
		return NPOCTL_EXIT_OK;
	}
	if (argc && matches(argv[0], "run"))
		return job_run(argc - 1, argv + 1);
	job_usage(stderr);
	return NPOCTL_EXIT_USAGE;
}
