/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnpo: userspace runtime for the NPO supernode interconnect.
 *
 * Thread safety: functions that take a struct npo_device may be called from
 * several threads at once on the same device.  A device list is owned by
 * the thread that got it until npo_free_device_list().
 */
#ifndef LIBNPO_NPO_H
#define LIBNPO_NPO_H

#include <stdint.h>
#include <linux/npo.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque handle of an open NPO device. */
struct npo_device;

/** Maximum length of a device name such as "npo0", with its NUL. */
#define NPO_NAME_MAX 32

/** Device attributes, see npo_query_device(3). */
struct npo_device_attr {
	char name[NPO_NAME_MAX];	/* "npoN" */
	char pci_addr[16];		/* "dddd:bb:dd.f" */
	uint32_t uapi_version;
	uint32_t hw_if_version;
	uint64_t caps;			/* NPO_CAP_* */
	uint64_t serial;
	uint32_t node_id;
	enum npo_dev_state state;
	uint32_t fw_version;		/* 0: no firmware running */
	uint16_t num_ports;
	uint16_t lanes_per_port;
	uint32_t num_queues;
};

/** One entry of npo_get_device_list(3). */
/* One link port, as the driver sees it now. */
struct npo_port_attr {
	uint32_t state;			/* enum npo_port_state, <linux/npo_netlink.h> */
	int peer_known;			/* the peer fields are valid */
	uint32_t peer_node;
	uint32_t peer_port;
	uint32_t rate_mbps;		/* lane rate, 0 when down */
	uint32_t width;			/* lanes in use, 0 when down */
};

struct npo_device_entry {
	char name[NPO_NAME_MAX];
	int index;			/* N of /dev/npoN */
};

/* Log levels of the log callback. */
enum npo_log_level {
	NPO_LOG_ERR = 3,
	NPO_LOG_WARN = 4,
	NPO_LOG_INFO = 6,
	NPO_LOG_DEBUG = 7,
};

typedef void (*npo_log_fn)(enum npo_log_level level, const char *msg,
			   void *arg);

void npo_set_log_fn(npo_log_fn fn, void *arg);
void npo_set_log_level(enum npo_log_level max_level);

/*
 * Device discovery.  Returns an array of *count entries sorted by index,
 * or NULL with errno set (ENOENT: the npo driver is not loaded).
 */
struct npo_device_entry *npo_get_device_list(int *count);
void npo_free_device_list(struct npo_device_entry *list);

/*
 * Open "npoN", "/dev/npoN" or "N".  NULL with errno set on failure.  If
 * the environment variable NPO_DEVICE_FDS lists the device ("npo0=3,npo1=4":
 * descriptors a launcher opened and put in a job, then passed on), the
 * library uses a copy of that descriptor instead of opening the device.
 */
struct npo_device *npo_open_device(const char *name);
int npo_close_device(struct npo_device *dev);
int npo_device_fd(const struct npo_device *dev);
const char *npo_device_name(const struct npo_device *dev);

/*
 * Jobs (<linux/npo.h>): the job this process' queues and regions on the
 * device belong to, and, for a launcher with CAP_NET_ADMIN, putting the
 * device handle in a job before it has queues or regions.  0 or a
 * negative errno.
 */
int npo_device_job(struct npo_device *dev, uint32_t *job);
int npo_device_set_job(struct npo_device *dev, uint32_t job);

/*
 * Fabric time on the device's clock with the bound on its error from the
 * fabric's timescale (NPO_TIME_BOUND_NONE if none), see
 * npo_get_fabric_time(3).  0 or a negative errno.
 */
int npo_get_fabric_time(struct npo_device *dev, struct npo_fabric_time *t);

/* 0 or a negative errno. */
int npo_query_device(struct npo_device *dev, struct npo_device_attr *attr);
int npo_query_param(struct npo_device *dev, enum npo_param param,
		    uint32_t index, uint64_t *value);
int npo_query_port(struct npo_device *dev, uint32_t port,
		   struct npo_port_attr *attr);

/* Names for codes: never NULL. */
const char *npo_strerror(int err);
const char *npo_state_str(enum npo_dev_state state);

/*
 * Names of what the netlink family reports (<linux/npo_netlink.h>), as
 * npoctl prints them: "unknown" for a value this library does not know.
 */
const char *npo_port_state_str(uint32_t state);		/* enum npo_port_state */
const char *npo_link_reason_str(uint32_t reason);	/* enum npo_link_reason */
const char *npo_event_str(uint32_t event);		/* enum npo_event */
const char *npo_risk_str(uint32_t risk);		/* enum npo_risk */
const char *npo_dev_fault_str(uint32_t fault);	/* enum npo_dev_fault */
const char *npo_health_str(uint32_t health);		/* enum npo_health */
const char *npo_clock_role_str(uint32_t role);		/* enum npo_clock_role */
const char *npo_clock_state_str(uint32_t state);	/* enum npo_clock_state */
/* A lane rate in Mb/s as "53G", "106G" or "212G"; "-" for none. */
const char *npo_lane_rate_str(uint32_t mbps);

#ifdef __cplusplus
}
#endif

#include "npo_datapath.h"

#endif /* LIBNPO_NPO_H */
