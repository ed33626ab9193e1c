/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * NPO: the names of what the npo netlink family reports, written once.
 *
 * Each is an initializer of a table indexed by the value it names, for
 * the driver, libnpo and the device model, which name these values in
 * logs, devlink, traces and npoctl, to say the same words:
 *
 *	static const char *const names[] = NPO_PORT_STATE_NAMES;
 *
 * Every value of the enum has its name (uapi/tests/uapi_names_test.c).
 */
#ifndef _UAPI_LINUX_NPO_NAMES_H
#define _UAPI_LINUX_NPO_NAMES_H

/*
 * The values named are those of <linux/npo_netlink.h>, which a user of
 * these initializers includes too.
 */

/* enum npo_port_state */
#define NPO_PORT_STATE_NAMES {						\
	[NPO_PORT_DISABLED] = "disabled",				\
	[NPO_PORT_DETECT] = "detect",					\
	[NPO_PORT_POLLING] = "polling",					\
	[NPO_PORT_CONFIG] = "config",					\
	[NPO_PORT_EQUALIZE] = "equalize",				\
	[NPO_PORT_ACTIVE] = "active",					\
	[NPO_PORT_RECOVERY] = "recovery",				\
	[NPO_PORT_TEST] = "test",					\
	[NPO_PORT_LOOPBACK] = "loopback",				\
}

/* enum npo_link_reason */
#define NPO_LINK_REASON_NAMES {						\
	[NPO_REASON_NONE] = "none",					\
	[NPO_REASON_POLLING_TIMEOUT] =					\
		"peer did not answer (polling timeout)",		\
	[NPO_REASON_CONFIG_TIMEOUT] = "configuration timeout",		\
	[NPO_REASON_NO_COMMON_RATE] = "no common lane rate",		\
	[NPO_REASON_NO_USABLE_LANES] = "lane 0 unusable at every rate",	\
	[NPO_REASON_LOSS_OF_SIGNAL] = "loss of signal",			\
	[NPO_REASON_PEER_DISABLED] = "peer port disabled",		\
	[NPO_REASON_ADMIN_DISABLED] = "port disabled",			\
	[NPO_REASON_TEST] = "PRBS test",				\
	[NPO_REASON_PEER_TEST] =					\
		"looping back for the peer's PRBS test",		\
	[NPO_REASON_NO_FIRMWARE] = "firmware stopped",			\
}

/* enum npo_clock_state */
#define NPO_CLOCK_STATE_NAMES {						\
	[NPO_CLOCK_UNLOCKED] = "unlocked",				\
	[NPO_CLOCK_LOCKING] = "locking",				\
	[NPO_CLOCK_LOCKED] = "locked",					\
	[NPO_CLOCK_HOLDOVER] = "holdover",				\
}

/* enum npo_clock_role */
#define NPO_CLOCK_ROLE_NAMES {						\
	[NPO_CLOCK_ROLE_GRANDMASTER] = "grandmaster",			\
	[NPO_CLOCK_ROLE_FOLLOWER] = "follower",				\
	[NPO_CLOCK_ROLE_USER] = "user",					\
	[NPO_CLOCK_ROLE_FREE] = "free",					\
}

/* enum npo_risk */
#define NPO_RISK_NAMES {						\
	[NPO_RISK_NONE] = "none",					\
	[NPO_RISK_BER_TREND] = "BER rising",				\
	[NPO_RISK_HIGH_BER] = "high BER",				\
	[NPO_RISK_RX_POWER] = "low Rx power",				\
}

/* enum npo_dev_fault */
#define NPO_DEV_FAULT_NAMES {						\
	[NPO_DEV_FAULT_NONE] = "none",					\
	[NPO_DEV_FAULT_HEARTBEAT] = "firmware heartbeat lost",		\
	[NPO_DEV_FAULT_FW_ASSERT] = "firmware assert",			\
	[NPO_DEV_FAULT_PARITY] = "queue engine parity error",		\
	[NPO_DEV_FAULT_FATAL] = "fatal device error",			\
	[NPO_DEV_FAULT_PCIE] = "uncorrectable PCIe error",		\
	[NPO_DEV_FAULT_RECOVERY_FAILED] = "recovery failed",		\
	[NPO_DEV_FAULT_UNANSWERED] = "command unanswered",		\
	[NPO_DEV_FAULT_GONE] = "left the bus",				\
}

/* enum npo_health */
#define NPO_HEALTH_NAMES {						\
	[NPO_HEALTH_OK] = "ok",						\
	[NPO_HEALTH_DEGRADED] = "degraded",				\
	[NPO_HEALTH_AT_RISK] = "at-risk",				\
	[NPO_HEALTH_FAILED] = "failed",					\
}

#endif /* _UAPI_LINUX_NPO_NAMES_H */
