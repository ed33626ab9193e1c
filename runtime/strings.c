// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo: names for error codes and states.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "npo.h"

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
