// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo: opening a device and querying it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/*
 * fd is the character device npoN: the same device number as the node, when
 * there is one to compare with, and the driver says it is minor N.
 */
static bool is_npo_device(int fd, int index, const char *path)
{
	struct npo_dev_info info = { 0 };
	struct stat st, node;

	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return false;
	if (!stat(path, &node) && node.st_rdev != st.st_rdev)
		return false;
	return !ioctl(fd, NPO_IOCTL_GET_INFO, &info) &&
	       info.minor == (uint32_t)index;
}

/*
 * The descriptor NPO_DEVICE_FDS gives for device index, or -1: a launcher
 * opened the device, put it in a job and passed it on.  A listed entry
 * that is not that device is an error, not a reason to open another.
 * Entries are "npoN=FD", separated by commas and optional blanks.
 */
static int inherited_fd(int index, const char *path, int *fd)
{
	/* Not in a setuid program: its caller must not choose its file. */
	const char *list = secure_getenv("NPO_DEVICE_FDS");
	char want[NPO_NAME_MAX + 1];
	const char *p, *num;
	char *end;
	bool bad;
	long v;

	*fd = -1;
	if (!list)
		return 0;
	snprintf(want, sizeof(want), "npo%d=", index);
	for (p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		p += strspn(p, " \t");
		if (strncmp(p, want, strlen(want)))
			continue;
		num = p + strlen(want);
		errno = 0;
		v = strtol(num, &end, 10);
		bad = errno || end == num || v < 0 || v > INT_MAX;
		end += strspn(end, " \t");
		if (bad || (*end && *end != ',')) {
			npo_log(NPO_LOG_ERR, "NPO_DEVICE_FDS: bad entry for npo%d",
				index);
			return -EINVAL;
		}
		if (!is_npo_device((int)v, index, path)) {
			npo_log(NPO_LOG_ERR, "NPO_DEVICE_FDS: descriptor %ld is not npo%d",
				v, index);
			return -EBADF;
		}
		*fd = fcntl((int)v, F_DUPFD_CLOEXEC, 0);
		if (*fd < 0)
			return -errno;
		/* What this process runs next gets no copy it did not ask for. */
		fcntl((int)v, F_SETFD, FD_CLOEXEC);
		return 0;
	}
	return 0;
}

/*
 * Descriptors and registrations are shared with the driver and the device
 * in the layout of one UAPI major: refuse a driver of another rather than
 * exchange garbage with it.
 */
static int check_uapi(const struct npo_device *dev)
{
	struct npo_param_query q = { .param = NPO_PARAM_UAPI_VERSION };
	unsigned int major;

	if (ioctl(dev->fd, NPO_IOCTL_GET_PARAM, &q)) {
		npo_log(NPO_LOG_ERR, "%s: cannot read the driver's UAPI version: %s",
			dev->name, strerror(errno));
		return errno == ENOTTY ? EPROTONOSUPPORT : errno;
	}
	major = q.value >> 16;
	if (major != NPO_UAPI_VERSION >> 16) {
		npo_log(NPO_LOG_ERR,
			"%s: the driver speaks NPO UAPI %u.%u, this libnpo %u.x",
			dev->name, major, (unsigned int)(q.value & 0xffff),
			NPO_UAPI_VERSION >> 16);
		return EPROTONOSUPPORT;
	}
	return 0;
}

struct npo_device *npo_open_device(const char *name)
{
	struct npo_device *dev;
	char path[PATH_MAX];
	int index, fd, err;

	if (!name || (index = npo_parse_name(name)) < 0) {
		npo_log(NPO_LOG_ERR, "'%s' is not an NPO device name (npoN)",
			name ? name : "(null)");
		errno = EINVAL;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/npo%d", npo_dev_root(), index);
	err = inherited_fd(index, path, &fd);
	if (err) {
		errno = -err;
		return NULL;
	}
	if (fd < 0)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		npo_log(NPO_LOG_ERR, "%s: %s", path, strerror(err));
		errno = err;
		return NULL;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	dev->fd = fd;
	snprintf(dev->name, sizeof(dev->name), "npo%d", index);
	err = check_uapi(dev);
	if (err) {
		close(fd);
		free(dev);
		errno = err;
		return NULL;
	}
	{
		struct npo_param_query q = { .param = NPO_PARAM_NODE_ID };

		/* For endpoints and key blobs; 0 if the driver cannot say. */
		if (!ioctl(fd, NPO_IOCTL_GET_PARAM, &q))
			dev->node_id = q.value;
	}
	return dev;
}

int npo_device_job(struct npo_device *dev, uint32_t *job)
{
	struct npo_job j = { 0 };

	if (!dev || !job)
		return -EINVAL;
	if (ioctl(dev->fd, NPO_IOCTL_GET_JOB, &j))
		return -errno;
	*job = j.job;
	return 0;
}

int npo_get_fabric_time(struct npo_device *dev, struct npo_fabric_time *t)
{
	struct npo_fabric_time ft = { 0 };

	if (!dev || !t)
		return -EINVAL;
	if (ioctl(dev->fd, NPO_IOCTL_GET_TIME, &ft))
		return -errno;
	*t = ft;
	return 0;
}

int npo_device_set_job(struct npo_device *dev, uint32_t job)
{
	struct npo_job j = { .job = job };
	int err;

	if (!dev)
		return -EINVAL;
	if (ioctl(dev->fd, NPO_IOCTL_SET_JOB, &j)) {
		err = -errno;
		npo_log(NPO_LOG_ERR, "%s: cannot join job %u: %s", dev->name,
			job, err == -EPERM ? "needs CAP_NET_ADMIN" :
			err == -EBUSY ? "the handle already has queues or regions" :
			strerror(-err));
		return err;
	}
	return 0;
}

int npo_close_device(struct npo_device *dev)
{
	int ret = 0;

	if (!dev)
		return 0;
	if (close(dev->fd))
		ret = -errno;
	free(dev);
	return ret;
}

int npo_device_fd(const struct npo_device *dev)
{
	return dev->fd;
}

const char *npo_device_name(const struct npo_device *dev)
{
	return dev->name;
}

int npo_query_device(struct npo_device *dev, struct npo_device_attr *attr)
{
	struct npo_dev_info info = { 0 };

	if (!dev || !attr)
		return -EINVAL;
	if (ioctl(dev->fd, NPO_IOCTL_GET_INFO, &info)) {
		int err = errno;

		npo_log(NPO_LOG_ERR, "%s: GET_INFO: %s", dev->name,
			npo_strerror(err));
		return -err;
	}
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->name, sizeof(attr->name), "%s", dev->name);
	snprintf(attr->pci_addr, sizeof(attr->pci_addr), "%04x:%02x:%02x.%x",
		 info.pci_domain, info.pci_bus, info.pci_devfn >> 3,
		 info.pci_devfn & 7);
	attr->uapi_version = info.uapi_version;
	attr->hw_if_version = info.hw_if_version;
	attr->caps = info.caps;
	attr->serial = info.serial;
	attr->node_id = info.node_id;
	attr->state = info.state;
	attr->fw_version = info.fw_version;
	attr->num_ports = info.num_ports;
	attr->lanes_per_port = info.lanes_per_port;
	attr->num_queues = info.num_queues;
	return 0;
}

int npo_query_param(struct npo_device *dev, enum npo_param param,
		    uint32_t index, uint64_t *value)
{
	struct npo_param_query q = { .param = param, .index = index };

	if (!dev || !value)
		return -EINVAL;
	if (ioctl(dev->fd, NPO_IOCTL_GET_PARAM, &q))
		return -errno;
	*value = q.value;
	return 0;
}

int npo_query_port(struct npo_device *dev, uint32_t port,
		   struct npo_port_attr *attr)
{
	uint64_t v;
	int err;

	if (!dev || !attr)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	err = npo_query_param(dev, NPO_PARAM_PORT_STATE, port, &v);
	if (err)
		return err;
	attr->state = v;
	err = npo_query_param(dev, NPO_PARAM_PORT_RATE_MBPS, port, &v);
	if (err)
		return err;
	attr->rate_mbps = v;
	err = npo_query_param(dev, NPO_PARAM_PORT_WIDTH, port, &v);
	if (err)
		return err;
	attr->width = v;
	/* No peer is no error: the port is simply not connected. */
	err = npo_query_param(dev, NPO_PARAM_PORT_PEER_NODE, port, &v);
	if (err == -ENOLINK)
		return 0;
	if (err)
		return err;
	attr->peer_node = v;
	err = npo_query_param(dev, NPO_PARAM_PORT_PEER_PORT, port, &v);
	if (err)
		return err == -ENOLINK ? 0 : err;
	attr->peer_port = v;
	attr->peer_known = 1;
	return 0;
}
