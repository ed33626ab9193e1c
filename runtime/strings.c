// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo: names for error codes, states and completion statuses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/npo_names.h>
#include <linux/npo_netlink.h>

#include "npo.h"

/* Every table is keyed by the UAPI enum it names; holes read "unknown". */
#define NAME_OF(names, i)						\
	((i) < sizeof(names) / sizeof((names)[0]) && (names)[i] ?	\
	 (names)[i] : "unknown")

const char *npo_strerror(int err)
{
	const char *desc;

	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case ENOENT:
		return "no such NPO device, or the npo driver is not loaded";
	case ENODEV:
		return "NPO device was removed";
	case ENOTTY:
		return "operation not supported by this npo driver";
	case EINVAL:
		return "invalid argument (unknown flag, reserved field or value out of range)";
	case EACCES:
	case EPERM:
		return "permission denied";
	case EIO:
		return "NPO device error";
	}
	desc = strerrordesc_np(err);
	return desc ? desc : "unknown error";
}

const char *npo_state_str(enum npo_dev_state state)
{
	switch (state) {
	case NPO_DEV_STATE_PROBING:
		return "probing";
	case NPO_DEV_STATE_READY:
		return "ready";
	case NPO_DEV_STATE_FW_ERROR:
		return "fw-error";
	case NPO_DEV_STATE_RESETTING:
		return "resetting";
	case NPO_DEV_STATE_DEAD:
		return "dead";
	}
	return "unknown";
}

const char *npo_port_state_str(uint32_t state)
{
	static const char *const names[] = NPO_PORT_STATE_NAMES;

	return NAME_OF(names, state);
}

const char *npo_link_reason_str(uint32_t reason)
{
	static const char *const names[] = NPO_LINK_REASON_NAMES;

	return NAME_OF(names, reason);
}

const char *npo_event_str(uint32_t event)
{
	static const char *const names[] = {
		[NPO_EVENT_LINK_UP] = "link-up",
		[NPO_EVENT_LINK_DOWN] = "link-down",
		[NPO_EVENT_DEGRADED] = "degraded",
		[NPO_EVENT_RECOVERED] = "recovered",
		[NPO_EVENT_RETRAIN] = "retrain",
		[NPO_EVENT_TRAIN_FAILED] = "train-failed",
		[NPO_EVENT_ERR_THRESHOLD] = "error-threshold",
		[NPO_EVENT_TEST_DONE] = "test-done",
		[NPO_EVENT_CLOCK] = "clock",
		[NPO_EVENT_REFUSED] = "refused",
		[NPO_EVENT_AT_RISK] = "at-risk",
		[NPO_EVENT_DEVICE] = "device",
		[NPO_EVENT_QUEUE_ERROR] = "queue-error",
		[NPO_EVENT_SELF_TEST] = "self-test",
		[NPO_EVENT_REROUTE] = "reroute",
		[NPO_EVENT_MISWIRED] = "miswired",
	};

	return NAME_OF(names, event);
}

const char *npo_dev_fault_str(uint32_t fault)
{
	static const char *const names[] = NPO_DEV_FAULT_NAMES;

	return NAME_OF(names, fault);
}

const char *npo_risk_str(uint32_t risk)
{
	static const char *const names[] = NPO_RISK_NAMES;

	return NAME_OF(names, risk);
}

const char *npo_health_str(uint32_t health)
{
	static const char *const names[] = NPO_HEALTH_NAMES;

	return NAME_OF(names, health);
}

const char *npo_clock_role_str(uint32_t role)
{
	static const char *const names[] = NPO_CLOCK_ROLE_NAMES;

	return NAME_OF(names, role);
}

const char *npo_clock_state_str(uint32_t state)
{
	static const char *const names[] = NPO_CLOCK_STATE_NAMES;

	return NAME_OF(names, state);
}

const char *npo_lane_rate_str(uint32_t mbps)
{
	switch (mbps) {
	case 53125:
		return "53G";
	case 106250:
		return "106G";
	case 212500:
		return "212G";
	}
	return "-";
}

const char *npo_status_str(uint32_t status)
{
	static const char *const names[] = {
		[NPO_STATUS_OK] = "success",
		[NPO_STATUS_BAD_DESCRIPTOR] = "malformed descriptor",
		[NPO_STATUS_LOCAL_KEY] = "local key names no region of this queue",
		[NPO_STATUS_LOCAL_ACCESS] = "local range or access not allowed",
		[NPO_STATUS_REMOTE_KEY] = "remote key names no region",
		[NPO_STATUS_REMOTE_ACCESS] = "no such region for this job: remote key, range or rights",
		[NPO_STATUS_REMOTE_QUEUE] = "destination queue missing, in error or of another job",
		[NPO_STATUS_UNREACHABLE] = "destination node unreachable",
		[NPO_STATUS_DMA_ERROR] = "host memory error",
		[NPO_STATUS_FLUSHED] = "flushed: the queue was in error",
		[NPO_STATUS_LINK_DOWN] = "the link to the destination is down",
		[NPO_STATUS_RNR] = "receiver not ready: no receive buffer posted",
		[NPO_STATUS_REMOTE_LENGTH] = "receive buffer smaller than the message",
		[NPO_STATUS_RESET] = "not completed: the device was reset or removed",
	};

	if (status < sizeof(names) / sizeof(names[0]) && names[status])
		return names[status];
	return "unknown status";
}
