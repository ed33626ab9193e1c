/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * NPO generic netlink family: link and lane diagnostics, link control and
 * link events.  See Documentation/uapi.rst, "Generic netlink".
 *
 * Family NPO_GENL_NAME, version NPO_GENL_VERSION; multicast groups
 * NPO_GENL_MCGRP_EVENTS and NPO_GENL_MCGRP_EVENTS_ADMIN carry NPO_CMD_EVENT
 * notifications: the first to any local user, without the attributes that
 * describe other users' processes (NPO_ATTR_OWNER_PID, _COMM, _UID,
 * NPO_ATTR_PD, NPO_ATTR_JOB, NPO_ATTR_THROTTLE_MS,
 * NPO_ATTR_QUEUE_ERR_WR_ID); the second whole, joined with CAP_NET_ADMIN
 * only (a kernel whose generic netlink cannot check that has no such group).
 *
 * Every enum is append-only.  A counter the device does not implement is
 * left out of a reply rather than reported as 0.
 */
#ifndef _UAPI_LINUX_NPO_NETLINK_H
#define _UAPI_LINUX_NPO_NETLINK_H

#include <linux/const.h>

#define NPO_GENL_NAME		"npo"
#define NPO_GENL_VERSION	1
#define NPO_GENL_MCGRP_EVENTS	"events"
#define NPO_GENL_MCGRP_EVENTS_ADMIN	"events-admin"

/**
 * enum npo_cmd - generic netlink commands
 * @NPO_CMD_UNSPEC: unused.
 * @NPO_CMD_PORT_GET: get one port (NPO_ATTR_DEV_INDEX, NPO_ATTR_PORT_INDEX)
 *	or dump all ports, optionally of one device (NPO_ATTR_DEV_INDEX).
 * @NPO_CMD_PORT_SET: change a port's administrative settings: any of
 *	NPO_ATTR_PORT_ADMIN_UP, NPO_ATTR_PORT_TARGET_RATE,
 *	NPO_ATTR_PORT_TARGET_WIDTH (0: no limit); the peer the cabling plan
 *	names for it, NPO_ATTR_PORT_PLANNED_PEER_NODE with
 *	NPO_ATTR_PORT_PLANNED_PEER_PORT, or NPO_ATTR_PORT_PLAN_CLEAR.  Needs
 *	CAP_NET_ADMIN.
 * @NPO_CMD_PORT_RETRAIN: retrain a port now.  Needs CAP_NET_ADMIN.
 * @NPO_CMD_PORT_CLEAR: zero a port's counters.  Needs CAP_NET_ADMIN.
 * @NPO_CMD_LANE_GET: get the lanes of one port, as NPO_ATTR_LANE nests.
 * @NPO_CMD_PORT_TEST: run a PRBS test for NPO_ATTR_TEST_DURATION_MS on a
 *	port, taking its link out of service; the reply carries the measured
 *	lanes.  Needs CAP_NET_ADMIN.
 * @NPO_CMD_EVENT: notification on NPO_GENL_MCGRP_EVENTS: NPO_ATTR_EVENT,
 *	the device and port, and the port's state after the event.
 * @NPO_CMD_QUEUE_GET: dump the DMA queues of every open file, optionally of
 *	one device (NPO_ATTR_DEV_INDEX), with their owner.  Needs
 *	CAP_NET_ADMIN: it shows other users' processes.
 * @NPO_CMD_MR_GET: dump the registered memory regions likewise.  Needs
 *	CAP_NET_ADMIN.
 * @NPO_CMD_CLOCK_GET: get one device's fabric clock (NPO_ATTR_DEV_INDEX)
 *	or dump every device's: NPO_ATTR_CLOCK_* attributes.
 * @NPO_CMD_EVENT_GET: dump each device's event history, oldest first: the
 *	events it sent, the last NPO_EVENT_HISTORY of them, whether anyone
 *	listened or not, with the attributes NPO_GENL_MCGRP_EVENTS_ADMIN
 *	carried for a requester with CAP_NET_ADMIN, NPO_GENL_MCGRP_EVENTS's
 *	for any other.
 *	Optionally of one device (NPO_ATTR_DEV_INDEX) and only those after
 *	NPO_ATTR_EVENT_SEQ.
 * @NPO_CMD_CLOCK_SET: set a device's NPO_ATTR_CLOCK_PRIORITY, its
 *	NPO_ATTR_CLOCK_SYNC, its NPO_ATTR_CLOCK_GM_ALLOW, or several.  Needs
 *	CAP_NET_ADMIN.
 * @NPO_CMD_ROUTE_GET: dump each device's routes, optionally of one device
 *	(NPO_ATTR_DEV_INDEX): a message per destination node the device
 *	reaches through another device, with NPO_ATTR_ROUTE_* (interface
 *	1.13).
 * @NPO_CMD_PORT_DIAG_GET: get what each end of one port's link sees
 *	(NPO_ATTR_DEV_INDEX, NPO_ATTR_PORT_INDEX): this port's optical
 *	module (NPO_ATTR_MODULE) and the last report its peer sent over the
 *	link (NPO_ATTR_PEER_DIAG), kept after the link went down (interface
 *	1.15).
 * @NPO_CMD_FABRIC_KEY_SET: give a device a fabric key (NPO_ATTR_DEV_INDEX,
 *	NPO_ATTR_FKEY_ID and NPO_ATTR_FKEY_SECRET), make one it holds the
 *	key its control messages are signed with (NPO_ATTR_FKEY_SEND), or
 *	both.  Needs CAP_NET_ADMIN.
 * @NPO_CMD_FABRIC_KEY_DEL: forget a key (NPO_ATTR_DEV_INDEX,
 *	NPO_ATTR_FKEY_ID); the one messages are signed with only if it is the
 *	last.  Needs CAP_NET_ADMIN.
 * @NPO_CMD_FABRIC_KEY_GET: dump each device's keys, optionally of one
 *	device (NPO_ATTR_DEV_INDEX): NPO_ATTR_FKEY_REJECTED,
 *	NPO_ATTR_FKEY_REJECTED_AGE_MS, NPO_ATTR_FKEY_UNSIGNED and an
 *	NPO_ATTR_FKEY nest per key, never its secret.  Needs CAP_NET_ADMIN.
 * @__NPO_CMD_MAX: one past the last command.
 * @NPO_CMD_MAX: the last command.
 */
enum npo_cmd {
	NPO_CMD_UNSPEC,
	NPO_CMD_PORT_GET,
	NPO_CMD_PORT_SET,
	NPO_CMD_PORT_RETRAIN,
	NPO_CMD_PORT_CLEAR,
	NPO_CMD_LANE_GET,
	NPO_CMD_PORT_TEST,
	NPO_CMD_EVENT,
	NPO_CMD_QUEUE_GET,
	NPO_CMD_MR_GET,
	NPO_CMD_CLOCK_GET,
	NPO_CMD_CLOCK_SET,
	NPO_CMD_EVENT_GET,
	NPO_CMD_ROUTE_GET,
	NPO_CMD_PORT_DIAG_GET,
	NPO_CMD_FABRIC_KEY_SET,
	NPO_CMD_FABRIC_KEY_DEL,
	NPO_CMD_FABRIC_KEY_GET,

	__NPO_CMD_MAX,
	NPO_CMD_MAX = __NPO_CMD_MAX - 1
};

/**
 * enum npo_clock_role - a device's part in fabric time sync
 * @NPO_CLOCK_ROLE_GRANDMASTER: its clock is the fabric's time.
 * @NPO_CLOCK_ROLE_FOLLOWER: it follows the grandmaster through a port.
 * @NPO_CLOCK_ROLE_USER: user space owns the clock (NPO_ATTR_CLOCK_SYNC
 *	0): the device takes no part in fabric time, its ports carry no
 *	time-sync messages, and nothing but user space adjusts its PHC.
 * @NPO_CLOCK_ROLE_FREE: the device may not lead (it is not on its own
 *	NPO_ATTR_CLOCK_GM_ALLOW) and hears no grandmaster it may follow: its
 *	clock runs free, with no error bound, and it offers its peers none.
 */
enum npo_clock_role {
	NPO_CLOCK_ROLE_GRANDMASTER,
	NPO_CLOCK_ROLE_FOLLOWER,
	NPO_CLOCK_ROLE_USER,
	NPO_CLOCK_ROLE_FREE,
};

/**
 * enum npo_clock_state - how well a device's clock holds fabric time
 * @NPO_CLOCK_UNLOCKED: not synchronised yet.
 * @NPO_CLOCK_LOCKING: stepped and slewing towards the grandmaster.
 * @NPO_CLOCK_LOCKED: within the lock threshold for several intervals; a
 *	grandmaster is always locked.
 * @NPO_CLOCK_HOLDOVER: the grandmaster is unheard: the clock keeps its
 *	last frequency until another grandmaster is elected.
 */
enum npo_clock_state {
	NPO_CLOCK_UNLOCKED,
	NPO_CLOCK_LOCKING,
	NPO_CLOCK_LOCKED,
	NPO_CLOCK_HOLDOVER,
};

/**
 * enum npo_port_state - link state of a port
 * @NPO_PORT_DISABLED: administratively down, or no firmware.
 * @NPO_PORT_DETECT: waiting for a peer.
 * @NPO_PORT_POLLING: exchanging training sequences.
 * @NPO_PORT_CONFIG: negotiating rate and width.
 * @NPO_PORT_EQUALIZE: choosing transmitter presets.
 * @NPO_PORT_ACTIVE: link up.
 * @NPO_PORT_RECOVERY: retraining an active link.
 * @NPO_PORT_TEST: PRBS test running.
 * @NPO_PORT_LOOPBACK: looping back for the peer's test.
 */
enum npo_port_state {
	NPO_PORT_DISABLED,
	NPO_PORT_DETECT,
	NPO_PORT_POLLING,
	NPO_PORT_CONFIG,
	NPO_PORT_EQUALIZE,
	NPO_PORT_ACTIVE,
	NPO_PORT_RECOVERY,
	NPO_PORT_TEST,
	NPO_PORT_LOOPBACK,
};

/**
 * enum npo_link_reason - why training failed or the link went down
 * @NPO_REASON_NONE: no failure.
 * @NPO_REASON_POLLING_TIMEOUT: the peer is attached but did not answer.
 * @NPO_REASON_CONFIG_TIMEOUT: negotiation did not finish.
 * @NPO_REASON_NO_COMMON_RATE: the ends share no lane rate.
 * @NPO_REASON_NO_USABLE_LANES: lane 0 does not work at any rate.
 * @NPO_REASON_LOSS_OF_SIGNAL: the peer went silent.
 * @NPO_REASON_PEER_DISABLED: the peer port was disabled.
 * @NPO_REASON_ADMIN_DISABLED: this port was disabled.
 * @NPO_REASON_TEST: this port was taken out of service for a PRBS test.
 * @NPO_REASON_PEER_TEST: this port loops back for the peer's PRBS test.
 * @NPO_REASON_NO_FIRMWARE: the firmware stopped under an enabled port.
 */
enum npo_link_reason {
	NPO_REASON_NONE,
	NPO_REASON_POLLING_TIMEOUT,
	NPO_REASON_CONFIG_TIMEOUT,
	NPO_REASON_NO_COMMON_RATE,
	NPO_REASON_NO_USABLE_LANES,
	NPO_REASON_LOSS_OF_SIGNAL,
	NPO_REASON_PEER_DISABLED,
	NPO_REASON_ADMIN_DISABLED,
	NPO_REASON_TEST,
	NPO_REASON_PEER_TEST,
	NPO_REASON_NO_FIRMWARE,
};

/**
 * enum npo_event - kinds of NPO_CMD_EVENT
 * @NPO_EVENT_UNSPEC: unused.
 * @NPO_EVENT_LINK_UP: the link came up.
 * @NPO_EVENT_LINK_DOWN: the link went down; NPO_ATTR_PORT_REASON says why.
 * @NPO_EVENT_DEGRADED: the link came up below what both ends support.
 * @NPO_EVENT_RECOVERED: the link is back after a recovery.
 * @NPO_EVENT_RETRAIN: a recovery (retrain of an active link) started.
 * @NPO_EVENT_TRAIN_FAILED: training failed; NPO_ATTR_PORT_REASON says why.
 * @NPO_EVENT_ERR_THRESHOLD: a lane's pre-FEC BER crossed the warning
 *	threshold.
 * @NPO_EVENT_TEST_DONE: a PRBS test finished.
 * @NPO_EVENT_CLOCK: a device's clock changed role, state, grandmaster or
 *	parent port; carries the device and its NPO_ATTR_CLOCK_* attributes.
 * @NPO_EVENT_REFUSED: the device refused remote requests for want of a
 *	region or receiving queue of the requester's job; carries the device,
 *	NPO_ATTR_REFUSAL_*, NPO_ATTR_JOB and NPO_ATTR_QUEUE_ID, and for
 *	NPO_REFUSAL_SIDE_REQUESTER the process that created the queue
 *	(NPO_ATTR_OWNER_PID, _COMM, _UID) and NPO_ATTR_THROTTLE_MS.
 *	Rate-limited per device.
 * @NPO_EVENT_DEVICE: a device failed or came back: NPO_ATTR_DEV_STATE is
 *	its state after, NPO_ATTR_DEV_FAULT why it was stopped
 *	(NPO_DEV_FAULT_NONE for a recovery that brought it back,
 *	NPO_DEV_FAULT_RECOVERY_FAILED for one that did not).
 * @NPO_EVENT_AT_RISK: an active link is heading for failure, or no longer
 *	is: NPO_ATTR_PORT_RISK_LANES names the lanes (0 when the risk is
 *	over), NPO_ATTR_PORT_RISK_REASON the worst lane's &enum npo_risk and
 *	NPO_ATTR_PORT_RISK_ETA_S, if known, when it is expected to fail.
 * @NPO_EVENT_QUEUE_ERROR: the device put a queue in error (it completes
 *	the rest of its ring FLUSHED until its owner destroys it): carries
 *	the device, NPO_ATTR_QUEUE_ID, NPO_ATTR_QUEUE_ERR_* (the work that
 *	failed), and, if the queue was still there, its owner
 *	(NPO_ATTR_OWNER_PID, _COMM, _UID), NPO_ATTR_PD and NPO_ATTR_JOB.
 *	Rate-limited per device.
 * @NPO_EVENT_SELF_TEST: a port's PRBS self-test after a device reset was
 *	judged: NPO_ATTR_PORT_SELF_TEST_LANES names the lanes that failed (0:
 *	it passed and the port trains; else it stays out of service, flag
 *	NPO_PORT_FLAG_SELF_TEST_FAILED, until retrained or reconfigured).
 * @NPO_EVENT_REROUTE: the fabric's links changed and the device's routes
 *	with them: NPO_ATTR_ROUTE_MOVED destinations now go out of another
 *	port or no longer have a way; the first of them follow as
 *	NPO_ATTR_ROUTE nests (NPO_ATTR_ROUTE_DEST_NODE, NPO_ATTR_ROUTE_PORT
 *	and NPO_ATTR_ROUTE_HOPS, both absent when the node is unreachable,
 *	NPO_ATTR_ROUTE_OLD_PORT and NPO_ATTR_ROUTE_OLD_HOPS).
 * @NPO_EVENT_MISWIRED: a port's link trained with another peer than the
 *	one its plan names (NPO_PORT_FLAG_MISWIRED set: the port is
 *	quarantined, no data or fabric time goes through it), or no longer
 *	does (the flag clear): the port's attributes with the peer it
 *	reached and the planned one.
 */
enum npo_event {
	NPO_EVENT_UNSPEC,
	NPO_EVENT_LINK_UP,
	NPO_EVENT_LINK_DOWN,
	NPO_EVENT_DEGRADED,
	NPO_EVENT_RECOVERED,
	NPO_EVENT_RETRAIN,
	NPO_EVENT_TRAIN_FAILED,
	NPO_EVENT_ERR_THRESHOLD,
	NPO_EVENT_TEST_DONE,
	NPO_EVENT_CLOCK,
	NPO_EVENT_REFUSED,
	NPO_EVENT_AT_RISK,
	NPO_EVENT_DEVICE,
	NPO_EVENT_QUEUE_ERROR,
	NPO_EVENT_SELF_TEST,
	NPO_EVENT_REROUTE,
	NPO_EVENT_MISWIRED,
};

/* Events each device keeps for NPO_CMD_EVENT_GET. */
#define NPO_EVENT_HISTORY	256

/**
 * enum npo_queue_wait - what a queue's oldest outstanding descriptor waits
 *	for (NPO_ATTR_QUEUE_WAIT); the device's own codes (hardware.rst)
 * @NPO_QUEUE_WAIT_NONE: nothing: it is being carried out.
 * @NPO_QUEUE_WAIT_CQ_FULL: room in the completion ring: the process does
 *	not reap its completions.
 * @NPO_QUEUE_WAIT_LINK: its link to finish retraining.
 * @NPO_QUEUE_WAIT_REMOTE: the destination's answer.
 * @NPO_QUEUE_WAIT_RNR: a receive buffer at the destination.
 * @NPO_QUEUE_WAIT_TX: room on its port.
 */
enum npo_queue_wait {
	NPO_QUEUE_WAIT_NONE,
	NPO_QUEUE_WAIT_CQ_FULL,
	NPO_QUEUE_WAIT_LINK,
	NPO_QUEUE_WAIT_REMOTE,
	NPO_QUEUE_WAIT_RNR,
	NPO_QUEUE_WAIT_TX,
};

/**
 * enum npo_dev_fault - why a device was stopped (NPO_EVENT_DEVICE)
 * @NPO_DEV_FAULT_NONE: it was not: the event is a recovery.
 * @NPO_DEV_FAULT_HEARTBEAT: the firmware stopped beating (a hang).
 * @NPO_DEV_FAULT_FW_ASSERT: the firmware asserted; devlink's "fw" reporter
 *	has its crash record.
 * @NPO_DEV_FAULT_PARITY: an uncorrectable parity error in the queue engine.
 * @NPO_DEV_FAULT_FATAL: a fatal interrupt with no known cause.
 * @NPO_DEV_FAULT_PCIE: an uncorrectable PCIe error (AER).
 * @NPO_DEV_FAULT_RECOVERY_FAILED: a recovery (a restart or the end of a
 *	PCIe error recovery) did not bring the device back: it stays down
 *	until an operator recovers it or rebinds the driver.
 * @NPO_DEV_FAULT_UNANSWERED: a command went unanswered or the device kept
 *	memory it was told to release: stopped so that the memory can be
 *	freed, and left for an operator to recover (devlink's "fw" reporter
 *	stays in error).
 * @NPO_DEV_FAULT_GONE: the device left the bus (a surprise removal: its
 *	registers and configuration space read all ones).  Held dead until
 *	the PCI core removes it; nothing can recover it.
 */
enum npo_dev_fault {
	NPO_DEV_FAULT_NONE,
	NPO_DEV_FAULT_HEARTBEAT,
	NPO_DEV_FAULT_FW_ASSERT,
	NPO_DEV_FAULT_PARITY,
	NPO_DEV_FAULT_FATAL,
	NPO_DEV_FAULT_PCIE,
	NPO_DEV_FAULT_RECOVERY_FAILED,
	NPO_DEV_FAULT_UNANSWERED,
	NPO_DEV_FAULT_GONE,
};

/**
 * enum npo_risk - why an active link is at risk
 * @NPO_RISK_NONE: it is not.
 * @NPO_RISK_BER_TREND: a lane's pre-FEC BER is rising towards the training
 *	threshold and will cross it within the driver's horizon (10 minutes).
 * @NPO_RISK_HIGH_BER: a lane's pre-FEC BER is above the warning threshold.
 * @NPO_RISK_RX_POWER: a lane's received optical power is below its
 *	warning threshold.
 */
enum npo_risk {
	NPO_RISK_NONE,
	NPO_RISK_BER_TREND,
	NPO_RISK_HIGH_BER,
	NPO_RISK_RX_POWER,
};

/**
 * enum npo_health - the driver's verdict on a port or a clock
 * @NPO_HEALTH_OK: nothing to do: working as it should, or disabled or
 *	unused on purpose (see the reason).
 * @NPO_HEALTH_DEGRADED: working below what it should: a link trained
 *	slower or narrower than both ends support, a clock still locking.
 * @NPO_HEALTH_AT_RISK: working, but expected to fail, or not to be
 *	trusted: a lane at risk, a clock in holdover or beyond its error
 *	limit.
 * @NPO_HEALTH_FAILED: not working: a link down for a fault, miswired or
 *	held after a failed self-test; a clock not synchronised.
 *
 * The devlink reporters judge by the same rules: a port's "link" reporter
 * is healthy again when its port is ok and up, a clock's "clock" reporter
 * reports a clock whose reason is %NPO_HEALTH_REASON_NO_BOUND or
 * %NPO_HEALTH_REASON_BOUND.
 */
enum npo_health {
	NPO_HEALTH_OK,
	NPO_HEALTH_DEGRADED,
	NPO_HEALTH_AT_RISK,
	NPO_HEALTH_FAILED,
};

/**
 * enum npo_health_reason - why a port or a clock has its health
 * @NPO_HEALTH_REASON_NONE: a port up clean, a clock locked within its
 *	error limit.
 * @NPO_HEALTH_REASON_MISWIRED: the port's cable leads elsewhere than the
 *	plan says: quarantined (NPO_ATTR_PORT_PEER_*, _PLANNED_PEER_*).
 * @NPO_HEALTH_REASON_AT_RISK: a lane is at risk (NPO_ATTR_PORT_RISK_*).
 * @NPO_HEALTH_REASON_HIGH_BER: the device flags a lane's BER above its
 *	warning threshold, and no link watch judges it.
 * @NPO_HEALTH_REASON_DEGRADED: trained below the rate or width both ends
 *	support (NPO_ATTR_PORT_RATE, _WIDTH against _MAX_RATE, _MAX_WIDTH).
 * @NPO_HEALTH_REASON_ADMIN_DOWN: disabled by an administrator.
 * @NPO_HEALTH_REASON_NO_PEER: never had a peer: nothing to judge.
 * @NPO_HEALTH_REASON_SELF_TEST: failed its self-test after a reset, held
 *	until retrained (NPO_ATTR_PORT_SELF_TEST_LANES).
 * @NPO_HEALTH_REASON_DOWN: down for a fault (NPO_ATTR_PORT_REASON).
 * @NPO_HEALTH_REASON_CLOCK_STATE: the clock's state says it
 *	(NPO_ATTR_CLOCK_STATE: locking, in holdover, unlocked).
 * @NPO_HEALTH_REASON_NO_BOUND: the clock has no bound on its error from
 *	the fabric's timescale.
 * @NPO_HEALTH_REASON_BOUND: the clock's error bound is beyond the limit
 *	(NPO_ATTR_CLOCK_ERROR_BOUND, _ERROR_LIMIT): not the fabric's
 *	timescale.
 * @NPO_HEALTH_REASON_USER: user space owns the clock: the fabric does not
 *	judge it.
 * @NPO_HEALTH_REASON_CLOCK_REFUSED: within the last minute the clock
 *	refused a grandmaster it may not follow or a step beyond its limit
 *	(NPO_ATTR_CLOCK_REFUSED_*): a peer is broken or hostile.
 */
enum npo_health_reason {
	NPO_HEALTH_REASON_NONE,
	NPO_HEALTH_REASON_MISWIRED,
	NPO_HEALTH_REASON_AT_RISK,
	NPO_HEALTH_REASON_HIGH_BER,
	NPO_HEALTH_REASON_DEGRADED,
	NPO_HEALTH_REASON_ADMIN_DOWN,
	NPO_HEALTH_REASON_NO_PEER,
	NPO_HEALTH_REASON_SELF_TEST,
	NPO_HEALTH_REASON_DOWN,
	NPO_HEALTH_REASON_CLOCK_STATE,
	NPO_HEALTH_REASON_NO_BOUND,
	NPO_HEALTH_REASON_BOUND,
	NPO_HEALTH_REASON_USER,
	NPO_HEALTH_REASON_CLOCK_REFUSED,
};

/**
 * enum npo_refusal_side - which end of a refused request reports it
 * @NPO_REFUSAL_SIDE_REQUESTER: a queue of this device was refused; the
 *	peer node is the destination.
 * @NPO_REFUSAL_SIDE_TARGET: this device refused a request from a queue of
 *	the peer node.
 */
enum npo_refusal_side {
	NPO_REFUSAL_SIDE_REQUESTER,
	NPO_REFUSAL_SIDE_TARGET,
};

/* NPO_ATTR_PORT_FLAGS bits */
#define NPO_PORT_FLAG_DEGRADED		_BITUL(0)
#define NPO_PORT_FLAG_HIGH_BER		_BITUL(1)
#define NPO_PORT_FLAG_PEER_PRESENT	_BITUL(2)
#define NPO_PORT_FLAG_ADMIN_DOWN	_BITUL(3)
#define NPO_PORT_FLAG_LISTEN		_BITUL(4)
#define NPO_PORT_FLAG_AT_RISK		_BITUL(5)
#define NPO_PORT_FLAG_SELF_TEST_FAILED	_BITUL(6)
#define NPO_PORT_FLAG_MISWIRED		_BITUL(7)

/* NPO_ATTR_LANE_FLAGS bits */
#define NPO_LANE_FLAG_LOS		_BITUL(0)
#define NPO_LANE_FLAG_CDR_LOCK		_BITUL(1)
#define NPO_LANE_FLAG_ACTIVE		_BITUL(2)
#define NPO_LANE_FLAG_TX_FAULT		_BITUL(3)

/**
 * enum npo_attr - generic netlink attributes
 * @NPO_ATTR_UNSPEC: unused.
 * @NPO_ATTR_PAD: padding for 64-bit attributes.
 * @NPO_ATTR_DEV_INDEX: u32, N of /dev/npoN.
 * @NPO_ATTR_DEV_NAME: string, "npoN".
 * @NPO_ATTR_DEV_NODE_ID: u32, the device's fabric node id.
 * @NPO_ATTR_PORT_INDEX: u32, port number.
 * @NPO_ATTR_PORT_STATE: u32, &enum npo_port_state.
 * @NPO_ATTR_PORT_RATE: u32, negotiated lane rate in Mb/s, 0 when down.
 * @NPO_ATTR_PORT_WIDTH: u32, negotiated lanes, 0 when down.
 * @NPO_ATTR_PORT_MAX_RATE: u32, highest lane rate both ends support, Mb/s
 *	(this end's alone while the peer is unknown).
 * @NPO_ATTR_PORT_MAX_WIDTH: u32, most lanes both ends have.
 * @NPO_ATTR_PORT_FLAGS: u32, NPO_PORT_FLAG_*.
 * @NPO_ATTR_PORT_PEER_NODE_ID: u32, the peer's node id, when known.
 * @NPO_ATTR_PORT_PEER_PORT: u32, the peer's port, when known.
 * @NPO_ATTR_PORT_REASON: u32, &enum npo_link_reason of the last failure; in
 *	an NPO_EVENT_LINK_DOWN, why that link went down.
 * @NPO_ATTR_PORT_TIME_IN_STATE_MS: u64, time since the state last changed.
 * @NPO_ATTR_PORT_FLAPS: u64, times the link went down since probe.
 * @NPO_ATTR_PORT_ADMIN_UP: u8, 1 enabled, 0 administratively down.
 * @NPO_ATTR_PORT_TARGET_RATE: u32, administrative lane rate limit, Mb/s,
 *	0 for none.
 * @NPO_ATTR_PORT_TARGET_WIDTH: u32, administrative width limit, 0 for none.
 * @NPO_ATTR_PORT_COUNTERS: nest of NPO_ATTR_CNT_*; counters the device
 *	does not implement are absent.
 * @NPO_ATTR_CNT_CRC_ERRORS: u64, link-level CRC errors.
 * @NPO_ATTR_CNT_REPLAYS: u64, units replayed by the link layer.
 * @NPO_ATTR_CNT_RECOVERIES: u64, recoveries (retrains while up).
 * @NPO_ATTR_CNT_LINK_DOWNS: u64, link downs counted by the device.
 * @NPO_ATTR_CNT_TRAIN_FAILURES: u64, failed training attempts.
 * @NPO_ATTR_CNT_FEC_CORRECTED: u64, FEC codewords corrected, all lanes.
 * @NPO_ATTR_CNT_FEC_UNCORRECTABLE: u64, FEC codewords not correctable.
 * @NPO_ATTR_CNT_SYMBOL_ERRORS: u64, FEC symbol errors, all lanes.
 * @NPO_ATTR_CNT_TX_BYTES: u64, bytes of the fabric transport's frames
 *	(requests, data, answers; header included) the port sent.
 * @NPO_ATTR_CNT_TX_FRAMES: u64, those frames.
 * @NPO_ATTR_CNT_RX_BYTES: u64, bytes of such frames the port received.
 * @NPO_ATTR_CNT_RX_FRAMES: u64, those frames.
 * @NPO_ATTR_LANE: nest of NPO_ATTR_LANE_*, one per lane.
 * @NPO_ATTR_LANE_INDEX: u32, lane number.
 * @NPO_ATTR_LANE_FLAGS: u32, NPO_LANE_FLAG_*.
 * @NPO_ATTR_LANE_RX_POWER: s32, received optical power, 1/100 dBm.
 * @NPO_ATTR_LANE_TX_POWER: s32, transmitted optical power, 1/100 dBm.
 * @NPO_ATTR_LANE_BIAS: u32, laser bias current, 1/100 mA.
 * @NPO_ATTR_LANE_TEMP: s32, module temperature, 1/100 degC.
 * @NPO_ATTR_LANE_BER: u32, -log10(pre-FEC BER) x 100.
 * @NPO_ATTR_LANE_EYE_HEIGHT: u32, eye height, mV.
 * @NPO_ATTR_LANE_EYE_WIDTH: u32, eye width, milli-UI.
 * @NPO_ATTR_LANE_PRESET: u32, transmitter equalization preset in use.
 * @NPO_ATTR_LANE_FEC_CORRECTED: u64, FEC codewords corrected.
 * @NPO_ATTR_LANE_FEC_UNCORRECTABLE: u64, FEC codewords not correctable.
 * @NPO_ATTR_LANE_SYMBOL_ERRORS: u64, symbol errors; absent if the device
 *	does not count them.
 * @NPO_ATTR_LANE_PRBS_BITS: u64, bits checked by PRBS tests.
 * @NPO_ATTR_LANE_PRBS_ERRORS: u64, bit errors seen by PRBS tests.
 * @NPO_ATTR_TEST_DURATION_MS: u32, PRBS test length, 1..60000 ms.
 * @NPO_ATTR_EVENT: u32, &enum npo_event.
 * @NPO_ATTR_PORT_FAULT_LANES: u32, bit n: lane n failed the last
 *	negotiation, at the best rate both ends allow; names the lanes behind a
 *	NPO_EVENT_DEGRADED.  Absent if the device does not report it.
 * @NPO_ATTR_PORT_BER_LANES: u32, bit n: lane n's pre-FEC BER is above the
 *	warning threshold; names the lanes behind a NPO_EVENT_ERR_THRESHOLD.
 *	Absent if the device does not report it.
 * @NPO_ATTR_OWNER_PID: u32, process (thread group) that opened the file.
 * @NPO_ATTR_OWNER_COMM: string, its command name when it opened the file.
 * @NPO_ATTR_PD: u32, the open file's protection domain.
 * @NPO_ATTR_QUEUE_ID: u32, queue number on the device.
 * @NPO_ATTR_QUEUE_SQ_ENTRIES: u32, submission ring entries.
 * @NPO_ATTR_QUEUE_CQ_ENTRIES: u32, completion ring entries.
 * @NPO_ATTR_QUEUE_RQ_ENTRIES: u32, receive ring entries.
 * @NPO_ATTR_QUEUE_SQ_HEAD: u32, descriptors the device consumed.
 * @NPO_ATTR_QUEUE_CQ_TAIL: u32, completions the device produced.
 * @NPO_ATTR_QUEUE_CQ_HEAD: u32, completions the process consumed.
 * @NPO_ATTR_QUEUE_STATUS: u32, NPO_QSTAT_* bits (<linux/npo_queue.h>).
 * @NPO_ATTR_QUEUE_INTERRUPT: u8, 1 if completions signal an eventfd.
 * @NPO_ATTR_MR_KEY: u32, the region's local key (the remote key is never
 *	reported: it is the owner's to hand out).
 * @NPO_ATTR_MR_ADDR: u64, its start in the owner's address space.
 * @NPO_ATTR_MR_LENGTH: u64, its length in bytes.
 * @NPO_ATTR_MR_ACCESS: u32, NPO_ACCESS_* rights.
 * @NPO_ATTR_CLOCK_PHC_INDEX: u32, N of the device's /dev/ptpN.
 * @NPO_ATTR_CLOCK_ROLE: u32, &enum npo_clock_role.
 * @NPO_ATTR_CLOCK_STATE: u32, &enum npo_clock_state.
 * @NPO_ATTR_CLOCK_PRIORITY: u32, the device's grandmaster priority, 0..255,
 *	lower preferred; ties go to the lower node id.
 * @NPO_ATTR_CLOCK_GM_NODE_ID: u32, the grandmaster's node id.
 * @NPO_ATTR_CLOCK_GM_PRIORITY: u32, the grandmaster's priority.
 * @NPO_ATTR_CLOCK_STEPS: u32, links between the device and the grandmaster.
 * @NPO_ATTR_CLOCK_PARENT_PORT: u32, the port towards the grandmaster;
 *	absent on the grandmaster.
 * @NPO_ATTR_CLOCK_OFFSET: s64, this clock less the parent's at the last
 *	measurement, ns.
 * @NPO_ATTR_CLOCK_PATH_DELAY: s64, path delay to the parent, ns.
 * @NPO_ATTR_CLOCK_FREQ: s64, frequency adjustment, parts per trillion.
 * @NPO_ATTR_CLOCK_STEPS_TAKEN: u64, times the clock was stepped.
 * @NPO_ATTR_JOB: u32, a job (<linux/npo.h>): of an open file in queue and
 *	region dumps, of the requester in NPO_EVENT_REFUSED.
 * @NPO_ATTR_OWNER_UID: u32, the user that opened the file; in
 *	NPO_EVENT_REFUSED, the user that created the queue.
 * @NPO_ATTR_REFUSAL_SIDE: u32, &enum npo_refusal_side.
 * @NPO_ATTR_REFUSAL_PEER_NODE: u32, the other end's node id.
 * @NPO_ATTR_REFUSAL_OPCODE: u32, the request's NPO_OP_* (<linux/npo_queue.h>).
 * @NPO_ATTR_REFUSAL_STATUS: u32, the NPO_STATUS_* the requester saw.
 * @NPO_ATTR_REFUSAL_COUNT: u32, refusals this event reports.
 * @NPO_ATTR_THROTTLE_MS: u32, how long the owner's new queues now wait
 *	before they are created, 0 if they do not.
 * @NPO_ATTR_PORT_RISK_LANES: u32, bit n: lane n is at risk (see
 *	NPO_EVENT_AT_RISK).  Absent if the driver does not watch the port's
 *	lanes (a device older than interface 1.9).
 * @NPO_ATTR_PORT_RISK_REASON: u32, &enum npo_risk of the worst lane.
 * @NPO_ATTR_PORT_RISK_ETA_S: u32, seconds until the worst lane is expected
 *	to fail at its present trend; absent when no trend says.
 * @NPO_ATTR_PORT_RISK_LANE: u32, the worst lane, when a lane is at risk.
 * @NPO_ATTR_LANE_RX_LOW_ALARM: s32, received power below which the lane
 *	fails training at the link's rate, 1/100 dBm.
 * @NPO_ATTR_LANE_RX_LOW_WARN: s32, received power warning threshold,
 *	1/100 dBm.
 * @NPO_ATTR_LANE_BER_ALARM: u32, the training BER threshold, -log10 x 100.
 * @NPO_ATTR_LANE_BER_WARN: u32, the BER warning threshold, -log10 x 100.
 * @NPO_ATTR_LANE_BER_TREND: s32, change of NPO_ATTR_LANE_BER per minute
 *	over the driver's recent readings of an active link (negative:
 *	worsening); absent until there are enough.
 * @NPO_ATTR_LANE_RX_TREND: s32, change of received power per minute,
 *	1/100 dBm, likewise.
 * @NPO_ATTR_EVENT_SEQ: u64, an event's number on its device, from 1; in an
 *	NPO_CMD_EVENT_GET request, dump only the events after it.
 * @NPO_ATTR_EVENT_TIME: u64, when the event happened, ns of CLOCK_REALTIME.
 * @NPO_ATTR_EVENT_FABRIC_TIME: u64, when, ns of the device's fabric clock
 *	(its PHC): comparable across the devices of a synchronized fabric.
 *	Absent when the device's clock did not keep fabric time then: no
 *	clock, or not locked.  A fault that stops the device is stamped with
 *	fabric time carried on the host's clock from the last good reading,
 *	for up to 10 s.
 * @NPO_ATTR_DEV_STATE: u32, &enum npo_dev_state (<linux/npo.h>).
 * @NPO_ATTR_DEV_FAULT: u32, &enum npo_dev_fault.
 * @NPO_ATTR_PORT_DOWN_TIME: u64, in NPO_EVENT_LINK_DOWN: the instant the
 *	link lost its signal, ns of the device's fabric clock, latched by the
 *	device (both ends of a cut latch the same instant); absent if the
 *	device cannot say or its clock was not locked.
 * @NPO_ATTR_PORT_DOWN_LANES_AGE_MS: u32, in NPO_EVENT_LINK_DOWN: the
 *	lanes as last read before the loss follow, as NPO_ATTR_LANE nests
 *	(index, Rx power, BER, eye height), read this many ms before the
 *	driver heard of it; absent if the link watch had no reading.
 * @NPO_ATTR_QUEUE_ERR_STATUS: u32, the NPO_STATUS_* that put the queue in
 *	error; in NPO_EVENT_QUEUE_ERROR and in NPO_CMD_QUEUE_GET replies for
 *	a queue in error whose cause the device reported.
 * @NPO_ATTR_QUEUE_ERR_OPCODE: u32, NPO_OP_* of the failed descriptor or
 *	receive; 255 if no descriptor was at fault (a tail beyond the ring).
 * @NPO_ATTR_QUEUE_ERR_WR_ID: u64, its wr_id.
 * @NPO_ATTR_QUEUE_ERR_PEER_NODE: u32, its destination node, or the sender
 *	of a receive; absent if none.
 * @NPO_ATTR_QUEUE_ERR_PORT: u32, the port it went through; absent in
 *	loopback or if none.
 * @NPO_ATTR_CLOCK_ERROR_BOUND: u64, bound on the clock's error from the
 *	fabric's timescale now, ns: its parent's bound, plus the offset last
 *	measured and what a measurement can be off by, growing at the module
 *	parameter holdover_ppb while the clock follows nothing (holdover, or
 *	a grandmaster elected after losing its own).  Absent if there is no
 *	bound yet (the clock was never measured, or is measured afresh).
 * @NPO_ATTR_CLOCK_REFERENCE: u8, 1 if the clock is the fabric's timescale:
 *	a grandmaster that never lost one, or that user space set.
 * @NPO_ATTR_QUEUE_OUTSTANDING: u32, descriptors posted and not completed,
 *	as the device counts them (interface 1.11).  With it, if any:
 * @NPO_ATTR_QUEUE_OLDEST_AGE_MS: u32, how long the oldest has been at the
 *	head of the queue;
 * @NPO_ATTR_QUEUE_OLDEST_OPCODE: u32, its NPO_OP_*;
 * @NPO_ATTR_QUEUE_OLDEST_NODE: u32, its destination node;
 * @NPO_ATTR_QUEUE_OLDEST_PORT: u32, the port it goes through (absent in
 *	loopback or when no port leads there), whose NPO_ATTR_PORT_STATE and,
 *	when it is down, NPO_ATTR_PORT_REASON follow;
 * @NPO_ATTR_QUEUE_WAIT: u32, &enum npo_queue_wait.
 * @NPO_ATTR_QUEUE_TX_PORTS: u32, the ports the queue's descriptors have
 *	gone out of since it was created, bit n for port n (interface 1.12).
 * @NPO_ATTR_QUEUE_RX_PORTS: u32, the ports messages (SEND, WRITE_IMM) to
 *	the queue have come in through since it was created.
 * @NPO_ATTR_PORT_SELF_TEST_LANES: u32, lanes that failed the port's
 *	self-test after a device reset: in NPO_EVENT_SELF_TEST (0 if it
 *	passed), and while the port is held for it.
 * @NPO_ATTR_CLOCK_SYNC: u8, 1 when the device's clock takes part in
 *	fabric time (the default), 0 when user space owns it
 *	(NPO_CLOCK_ROLE_USER).  Set with NPO_CMD_CLOCK_SET; a clock handed
 *	back follows the fabric's grandmaster before it may lead again.
 * @NPO_ATTR_ROUTE: nest of NPO_ATTR_ROUTE_*, one destination in an
 *	NPO_EVENT_REROUTE.
 * @NPO_ATTR_ROUTE_DEST_NODE: u32, the destination node.
 * @NPO_ATTR_ROUTE_PORT: u32, the port descriptors to it go out of.
 * @NPO_ATTR_ROUTE_HOPS: u32, links on the path, the shortest the device
 *	knows of.
 * @NPO_ATTR_ROUTE_NEXT_NODE: u32, the node at the far end of that port,
 *	which passes them on.
 * @NPO_ATTR_ROUTE_OLD_PORT: u32, in NPO_EVENT_REROUTE: the port before;
 *	absent if the node had no way before.
 * @NPO_ATTR_ROUTE_OLD_HOPS: u32, in NPO_EVENT_REROUTE: the hops before.
 * @NPO_ATTR_ROUTE_MOVED: u32, in NPO_EVENT_REROUTE: destinations whose port
 *	changed or that lost their way, listed or not.
 * @NPO_ATTR_MODULE: nest of NPO_ATTR_MODULE_*, an optical module: a
 *	port's own, or in NPO_ATTR_PEER_DIAG the far end's.
 * @NPO_ATTR_MODULE_VENDOR: string, the module's vendor.
 * @NPO_ATTR_MODULE_PART: string, its part number.
 * @NPO_ATTR_MODULE_SERIAL: string, its serial number.
 * @NPO_ATTR_MODULE_TX_HIGH_ALARM: s32, transmit power high alarm,
 *	1/100 dBm.
 * @NPO_ATTR_MODULE_TX_HIGH_WARN: s32, transmit power high warning.
 * @NPO_ATTR_MODULE_TX_LOW_WARN: s32, transmit power low warning.
 * @NPO_ATTR_MODULE_TX_LOW_ALARM: s32, transmit power low alarm.
 * @NPO_ATTR_MODULE_TEMP_HIGH_ALARM: s32, temperature high alarm,
 *	1/100 degC.
 * @NPO_ATTR_MODULE_TEMP_HIGH_WARN: s32, temperature high warning.
 * @NPO_ATTR_MODULE_BIAS_HIGH_ALARM: u32, laser bias high alarm, 1/100 mA.
 * @NPO_ATTR_MODULE_BIAS_HIGH_WARN: u32, laser bias high warning.
 * @NPO_ATTR_PEER_DIAG: nest, the last report the far end of the link sent:
 *	NPO_ATTR_PEER_DIAG_AGE_MS, the sender's NPO_ATTR_PORT_PEER_NODE_ID
 *	and NPO_ATTR_PORT_PEER_PORT, its NPO_ATTR_MODULE and NPO_ATTR_LANE
 *	nests with NPO_ATTR_LANE_INDEX, _FLAGS, _TX_POWER, _RX_POWER and
 *	_BER as its lanes read.  Only a report from the peer the port
 *	trained with is kept; absent when none came since the driver
 *	started.
 * @NPO_ATTR_PEER_DIAG_AGE_MS: u32, how long ago the report arrived, ms.
 * @NPO_ATTR_PORT_PLANNED_PEER_NODE: u32, the node the cabling plan says
 *	the port's cable leads to; present in NPO_CMD_PORT_GET when a plan
 *	was given.
 * @NPO_ATTR_PORT_PLANNED_PEER_PORT: u32, that node's port.
 * @NPO_ATTR_PORT_PLAN_CLEAR: flag, in NPO_CMD_PORT_SET: forget the port's
 *	plan (it is then never miswired).
 * @NPO_ATTR_PORT_HEALTH: u32, &enum npo_health: the driver's verdict on
 *	the port, in NPO_CMD_PORT_GET and port events.
 * @NPO_ATTR_PORT_HEALTH_REASON: u32, &enum npo_health_reason: why.
 * @NPO_ATTR_CLOCK_HEALTH: u32, &enum npo_health: the driver's verdict on
 *	the clock, in NPO_CMD_CLOCK_GET and clock events.
 * @NPO_ATTR_CLOCK_HEALTH_REASON: u32, &enum npo_health_reason: why.
 * @NPO_ATTR_CLOCK_ERROR_LIMIT: u64, the error bound beyond which the
 *	clock is not to be trusted, ns (module parameter
 *	time_error_limit_ns).
 * @NPO_ATTR_FKEY: nest, one fabric key a device holds, in
 *	NPO_CMD_FABRIC_KEY_GET: NPO_ATTR_FKEY_ID, NPO_ATTR_FKEY_FINGERPRINT,
 *	NPO_ATTR_FKEY_VERIFIED, and NPO_ATTR_FKEY_SEND if messages are signed
 *	with it.
 * @NPO_ATTR_FKEY_ID: u8, a fabric key's number, 1-255: the one every
 *	host gives the same secret.
 * @NPO_ATTR_FKEY_SECRET: binary, 16 to 64 bytes: the key itself.  Only
 *	ever sent to the kernel.
 * @NPO_ATTR_FKEY_SEND: flag: control messages are signed with this key.
 * @NPO_ATTR_FKEY_FINGERPRINT: binary, 8 bytes: the start of the secret's
 *	SHA-256, to tell keys apart.
 * @NPO_ATTR_FKEY_VERIFIED: u64, messages this key authenticated.
 * @NPO_ATTR_FKEY_REJECTED: u64, control messages the device refused:
 *	unsigned while it holds keys, signed with a key it does not hold, or
 *	with a MAC that does not match.
 * @NPO_ATTR_FKEY_UNSIGNED: u64, control messages the device sent unsigned
 *	for want of a key to sign with.
 * @NPO_ATTR_FKEY_REJECTED_AGE_MS: u64, how long ago the device last
 *	refused a control message, ms; absent if it never did.
 * @NPO_ATTR_CLOCK_GM_ALLOW: binary, node ids (u32, host order), at most
 *	16: the only nodes the device follows or relays as grandmaster, and
 *	it leads only if its own is among them.  In NPO_CMD_CLOCK_SET
 *	(empty: any node may) and NPO_CMD_CLOCK_GET (absent when any may).
 * @NPO_ATTR_CLOCK_REFUSED_GM: u64, announcements of a grandmaster not on
 *	the allow-list the device refused.
 * @NPO_ATTR_CLOCK_REFUSED_STEPS: u64, steps the locked clock refused to
 *	take: its parent's time jumped further than the module parameter
 *	locked_step_max_ns without its grandmaster announcing a new time.
 * @NPO_ATTR_CLOCK_REFUSED_AGE_MS: u64, how long ago the last refusal of
 *	either kind was, ms; absent if there was none.
 * @NPO_ATTR_CLOCK_REFUSED_NODE: u32, whom the last refusal was of: the
 *	grandmaster announced, or the parent whose time jumped.
 * @NPO_ATTR_CLOCK_REFUSED_PORT: u32, the port it came through.
 * @__NPO_ATTR_MAX: one past the last attribute.
 * @NPO_ATTR_MAX: the last attribute.
 */
enum npo_attr {
	NPO_ATTR_UNSPEC,
	NPO_ATTR_PAD,
	NPO_ATTR_DEV_INDEX,
	NPO_ATTR_DEV_NAME,
	NPO_ATTR_DEV_NODE_ID,
	NPO_ATTR_PORT_INDEX,
	NPO_ATTR_PORT_STATE,
	NPO_ATTR_PORT_RATE,
	NPO_ATTR_PORT_WIDTH,
	NPO_ATTR_PORT_MAX_RATE,
	NPO_ATTR_PORT_MAX_WIDTH,
	NPO_ATTR_PORT_FLAGS,
	NPO_ATTR_PORT_PEER_NODE_ID,
	NPO_ATTR_PORT_PEER_PORT,
	NPO_ATTR_PORT_REASON,
	NPO_ATTR_PORT_TIME_IN_STATE_MS,
	NPO_ATTR_PORT_FLAPS,
	NPO_ATTR_PORT_ADMIN_UP,
	NPO_ATTR_PORT_TARGET_RATE,
	NPO_ATTR_PORT_TARGET_WIDTH,
	NPO_ATTR_PORT_COUNTERS,
	NPO_ATTR_CNT_CRC_ERRORS,
	NPO_ATTR_CNT_REPLAYS,
	NPO_ATTR_CNT_RECOVERIES,
	NPO_ATTR_CNT_LINK_DOWNS,
	NPO_ATTR_CNT_TRAIN_FAILURES,
	NPO_ATTR_CNT_FEC_CORRECTED,
	NPO_ATTR_CNT_FEC_UNCORRECTABLE,
	NPO_ATTR_CNT_SYMBOL_ERRORS,
	NPO_ATTR_LANE,
	NPO_ATTR_LANE_INDEX,
	NPO_ATTR_LANE_FLAGS,
	NPO_ATTR_LANE_RX_POWER,
	NPO_ATTR_LANE_TX_POWER,
	NPO_ATTR_LANE_BIAS,
	NPO_ATTR_LANE_TEMP,
	NPO_ATTR_LANE_BER,
	NPO_ATTR_LANE_EYE_HEIGHT,
	NPO_ATTR_LANE_EYE_WIDTH,
	NPO_ATTR_LANE_PRESET,
	NPO_ATTR_LANE_FEC_CORRECTED,
	NPO_ATTR_LANE_FEC_UNCORRECTABLE,
	NPO_ATTR_LANE_SYMBOL_ERRORS,
	NPO_ATTR_LANE_PRBS_BITS,
	NPO_ATTR_LANE_PRBS_ERRORS,
	NPO_ATTR_TEST_DURATION_MS,
	NPO_ATTR_EVENT,
	NPO_ATTR_PORT_FAULT_LANES,
	NPO_ATTR_PORT_BER_LANES,
	NPO_ATTR_OWNER_PID,
	NPO_ATTR_OWNER_COMM,
	NPO_ATTR_PD,
	NPO_ATTR_QUEUE_ID,
	NPO_ATTR_QUEUE_SQ_ENTRIES,
	NPO_ATTR_QUEUE_CQ_ENTRIES,
	NPO_ATTR_QUEUE_RQ_ENTRIES,
	NPO_ATTR_QUEUE_SQ_HEAD,
	NPO_ATTR_QUEUE_CQ_TAIL,
	NPO_ATTR_QUEUE_CQ_HEAD,
	NPO_ATTR_QUEUE_STATUS,
	NPO_ATTR_QUEUE_INTERRUPT,
	NPO_ATTR_MR_KEY,
	NPO_ATTR_MR_ADDR,
	NPO_ATTR_MR_LENGTH,
	NPO_ATTR_MR_ACCESS,
	NPO_ATTR_CLOCK_PHC_INDEX,
	NPO_ATTR_CLOCK_ROLE,
	NPO_ATTR_CLOCK_STATE,
	NPO_ATTR_CLOCK_PRIORITY,
	NPO_ATTR_CLOCK_GM_NODE_ID,
	NPO_ATTR_CLOCK_GM_PRIORITY,
	NPO_ATTR_CLOCK_STEPS,
	NPO_ATTR_CLOCK_PARENT_PORT,
	NPO_ATTR_CLOCK_OFFSET,
	NPO_ATTR_CLOCK_PATH_DELAY,
	NPO_ATTR_CLOCK_FREQ,
	NPO_ATTR_CLOCK_STEPS_TAKEN,
	NPO_ATTR_JOB,
	NPO_ATTR_OWNER_UID,
	NPO_ATTR_REFUSAL_SIDE,
	NPO_ATTR_REFUSAL_PEER_NODE,
	NPO_ATTR_REFUSAL_OPCODE,
	NPO_ATTR_REFUSAL_STATUS,
	NPO_ATTR_REFUSAL_COUNT,
	NPO_ATTR_THROTTLE_MS,
	NPO_ATTR_PORT_RISK_LANES,
	NPO_ATTR_PORT_RISK_REASON,
	NPO_ATTR_PORT_RISK_ETA_S,
	NPO_ATTR_PORT_RISK_LANE,
	NPO_ATTR_LANE_RX_LOW_ALARM,
	NPO_ATTR_LANE_RX_LOW_WARN,
	NPO_ATTR_LANE_BER_ALARM,
	NPO_ATTR_LANE_BER_WARN,
	NPO_ATTR_LANE_BER_TREND,
	NPO_ATTR_LANE_RX_TREND,
	NPO_ATTR_EVENT_SEQ,
	NPO_ATTR_EVENT_TIME,
	NPO_ATTR_EVENT_FABRIC_TIME,
	NPO_ATTR_DEV_STATE,
	NPO_ATTR_DEV_FAULT,
	NPO_ATTR_PORT_DOWN_TIME,
	NPO_ATTR_PORT_DOWN_LANES_AGE_MS,
	NPO_ATTR_QUEUE_ERR_STATUS,
	NPO_ATTR_QUEUE_ERR_OPCODE,
	NPO_ATTR_QUEUE_ERR_WR_ID,
	NPO_ATTR_QUEUE_ERR_PEER_NODE,
	NPO_ATTR_QUEUE_ERR_PORT,
	NPO_ATTR_CLOCK_ERROR_BOUND,
	NPO_ATTR_CLOCK_REFERENCE,
	NPO_ATTR_QUEUE_OUTSTANDING,
	NPO_ATTR_QUEUE_OLDEST_AGE_MS,
	NPO_ATTR_QUEUE_OLDEST_OPCODE,
	NPO_ATTR_QUEUE_OLDEST_NODE,
	NPO_ATTR_QUEUE_OLDEST_PORT,
	NPO_ATTR_QUEUE_WAIT,
	NPO_ATTR_QUEUE_TX_PORTS,
	NPO_ATTR_QUEUE_RX_PORTS,
	NPO_ATTR_PORT_SELF_TEST_LANES,
	NPO_ATTR_CLOCK_SYNC,
	NPO_ATTR_ROUTE,
	NPO_ATTR_ROUTE_DEST_NODE,
	NPO_ATTR_ROUTE_PORT,
	NPO_ATTR_ROUTE_HOPS,
	NPO_ATTR_ROUTE_NEXT_NODE,
	NPO_ATTR_ROUTE_OLD_PORT,
	NPO_ATTR_ROUTE_OLD_HOPS,
	NPO_ATTR_ROUTE_MOVED,
	NPO_ATTR_CNT_TX_BYTES,
	NPO_ATTR_CNT_TX_FRAMES,
	NPO_ATTR_CNT_RX_BYTES,
	NPO_ATTR_CNT_RX_FRAMES,
	NPO_ATTR_MODULE,
	NPO_ATTR_MODULE_VENDOR,
	NPO_ATTR_MODULE_PART,
	NPO_ATTR_MODULE_SERIAL,
	NPO_ATTR_MODULE_TX_HIGH_ALARM,
	NPO_ATTR_MODULE_TX_HIGH_WARN,
	NPO_ATTR_MODULE_TX_LOW_WARN,
	NPO_ATTR_MODULE_TX_LOW_ALARM,
	NPO_ATTR_MODULE_TEMP_HIGH_ALARM,
	NPO_ATTR_MODULE_TEMP_HIGH_WARN,
	NPO_ATTR_MODULE_BIAS_HIGH_ALARM,
	NPO_ATTR_MODULE_BIAS_HIGH_WARN,
	NPO_ATTR_PEER_DIAG,
	NPO_ATTR_PEER_DIAG_AGE_MS,
	NPO_ATTR_PORT_PLANNED_PEER_NODE,
	NPO_ATTR_PORT_PLANNED_PEER_PORT,
	NPO_ATTR_PORT_PLAN_CLEAR,
	NPO_ATTR_PORT_HEALTH,
	NPO_ATTR_PORT_HEALTH_REASON,
	NPO_ATTR_CLOCK_HEALTH,
	NPO_ATTR_CLOCK_HEALTH_REASON,
	NPO_ATTR_CLOCK_ERROR_LIMIT,
	NPO_ATTR_FKEY,
	NPO_ATTR_FKEY_ID,
	NPO_ATTR_FKEY_SECRET,
	NPO_ATTR_FKEY_SEND,
	NPO_ATTR_FKEY_FINGERPRINT,
	NPO_ATTR_FKEY_VERIFIED,
	NPO_ATTR_FKEY_REJECTED,
	NPO_ATTR_FKEY_UNSIGNED,
	NPO_ATTR_FKEY_REJECTED_AGE_MS,
	NPO_ATTR_CLOCK_GM_ALLOW,
	NPO_ATTR_CLOCK_REFUSED_GM,
	NPO_ATTR_CLOCK_REFUSED_STEPS,
	NPO_ATTR_CLOCK_REFUSED_AGE_MS,
	NPO_ATTR_CLOCK_REFUSED_NODE,
	NPO_ATTR_CLOCK_REFUSED_PORT,

	__NPO_ATTR_MAX,
	NPO_ATTR_MAX = __NPO_ATTR_MAX - 1
};

#endif /* _UAPI_LINUX_NPO_NETLINK_H */
