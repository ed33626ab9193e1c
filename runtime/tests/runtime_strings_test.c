// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo's names: errno values, device states, and what the netlink family
 * reports, each table keyed by the UAPI enum it names.
 */
#include <errno.h>
#include <string.h>
#include <linux/npo_netlink.h>
#include "kselftest_harness.h"
#include "npo.h"

TEST(errors_and_device_states)
{
	EXPECT_STREQ("success", npo_strerror(0));
	EXPECT_STREQ(npo_strerror(ENODEV), npo_strerror(-ENODEV));
	EXPECT_NE(NULL, strstr(npo_strerror(ENOENT), "not loaded"));
	EXPECT_NE(NULL, npo_strerror(EBADF));
	EXPECT_STREQ("unknown error", npo_strerror(100000));
	EXPECT_STREQ("ready", npo_state_str(NPO_DEV_STATE_READY));
	EXPECT_STREQ("fw-error", npo_state_str(NPO_DEV_STATE_FW_ERROR));
	EXPECT_STREQ("unknown", npo_state_str((enum npo_dev_state)99));
}

TEST(port_states_and_reasons)
{
	EXPECT_STREQ("disabled", npo_port_state_str(NPO_PORT_DISABLED));
	EXPECT_STREQ("active", npo_port_state_str(NPO_PORT_ACTIVE));
	EXPECT_STREQ("loopback", npo_port_state_str(NPO_PORT_LOOPBACK));
	EXPECT_STREQ("unknown", npo_port_state_str(NPO_PORT_LOOPBACK + 1));
	EXPECT_STREQ("none", npo_link_reason_str(NPO_REASON_NONE));
	EXPECT_STREQ("loss of signal",
		     npo_link_reason_str(NPO_REASON_LOSS_OF_SIGNAL));
	EXPECT_STREQ("firmware stopped",
		     npo_link_reason_str(NPO_REASON_NO_FIRMWARE));
	EXPECT_STREQ("unknown", npo_link_reason_str(NPO_REASON_NO_FIRMWARE + 1));
	EXPECT_STREQ("unknown", npo_link_reason_str(UINT32_MAX));
}

TEST(events_and_clocks)
{
	EXPECT_STREQ("unknown", npo_event_str(NPO_EVENT_UNSPEC));
	EXPECT_STREQ("link-up", npo_event_str(NPO_EVENT_LINK_UP));
	EXPECT_STREQ("train-failed", npo_event_str(NPO_EVENT_TRAIN_FAILED));
	EXPECT_STREQ("clock", npo_event_str(NPO_EVENT_CLOCK));
	EXPECT_STREQ("refused", npo_event_str(NPO_EVENT_REFUSED));
	EXPECT_STREQ("at-risk", npo_event_str(NPO_EVENT_AT_RISK));
	EXPECT_STREQ("device", npo_event_str(NPO_EVENT_DEVICE));
	EXPECT_STREQ("queue-error", npo_event_str(NPO_EVENT_QUEUE_ERROR));
	EXPECT_STREQ("self-test", npo_event_str(NPO_EVENT_SELF_TEST));
	EXPECT_STREQ("reroute", npo_event_str(NPO_EVENT_REROUTE));
	EXPECT_STREQ("miswired", npo_event_str(NPO_EVENT_MISWIRED));
	EXPECT_STREQ("unknown", npo_event_str(NPO_EVENT_MISWIRED + 1));
	EXPECT_STREQ("none", npo_risk_str(NPO_RISK_NONE));
	EXPECT_STREQ("low Rx power", npo_risk_str(NPO_RISK_RX_POWER));
	EXPECT_STREQ("unknown", npo_risk_str(NPO_RISK_RX_POWER + 1));
	EXPECT_STREQ("firmware assert", npo_dev_fault_str(NPO_DEV_FAULT_FW_ASSERT));
	EXPECT_STREQ("recovery failed",
		     npo_dev_fault_str(NPO_DEV_FAULT_RECOVERY_FAILED));
	EXPECT_STREQ("command unanswered",
		     npo_dev_fault_str(NPO_DEV_FAULT_UNANSWERED));
	EXPECT_STREQ("left the bus", npo_dev_fault_str(NPO_DEV_FAULT_GONE));
	EXPECT_STREQ("unknown", npo_dev_fault_str(NPO_DEV_FAULT_GONE + 1));
	EXPECT_STREQ("grandmaster",
		     npo_clock_role_str(NPO_CLOCK_ROLE_GRANDMASTER));
	EXPECT_STREQ("follower", npo_clock_role_str(NPO_CLOCK_ROLE_FOLLOWER));
	EXPECT_STREQ("user", npo_clock_role_str(NPO_CLOCK_ROLE_USER));
	EXPECT_STREQ("free", npo_clock_role_str(NPO_CLOCK_ROLE_FREE));
	EXPECT_STREQ("unknown", npo_clock_role_str(NPO_CLOCK_ROLE_FREE + 1));
	EXPECT_STREQ("holdover", npo_clock_state_str(NPO_CLOCK_HOLDOVER));
	EXPECT_STREQ("unknown", npo_clock_state_str(NPO_CLOCK_HOLDOVER + 1));
}

TEST(health_verdicts)
{
	EXPECT_STREQ("ok", npo_health_str(NPO_HEALTH_OK));
	EXPECT_STREQ("degraded", npo_health_str(NPO_HEALTH_DEGRADED));
	EXPECT_STREQ("at-risk", npo_health_str(NPO_HEALTH_AT_RISK));
	EXPECT_STREQ("failed", npo_health_str(NPO_HEALTH_FAILED));
	EXPECT_STREQ("unknown", npo_health_str(NPO_HEALTH_FAILED + 1));
}

TEST(every_known_value_has_a_name)
{
	uint32_t v;

	for (v = NPO_PORT_DISABLED; v <= NPO_PORT_LOOPBACK; v++)
		EXPECT_STRNE("unknown", npo_port_state_str(v));
	for (v = NPO_REASON_NONE; v <= NPO_REASON_NO_FIRMWARE; v++)
		EXPECT_STRNE("unknown", npo_link_reason_str(v));
	for (v = NPO_EVENT_LINK_UP; v <= NPO_EVENT_DEVICE; v++)
		EXPECT_STRNE("unknown", npo_event_str(v));
	for (v = NPO_RISK_NONE; v <= NPO_RISK_RX_POWER; v++)
		EXPECT_STRNE("unknown", npo_risk_str(v));
	for (v = NPO_CLOCK_UNLOCKED; v <= NPO_CLOCK_HOLDOVER; v++)
		EXPECT_STRNE("unknown", npo_clock_state_str(v));
	for (v = NPO_DEV_FAULT_NONE; v <= NPO_DEV_FAULT_GONE; v++)
		EXPECT_STRNE("unknown", npo_dev_fault_str(v));
}

TEST(lane_rates)
{
	EXPECT_STREQ("53G", npo_lane_rate_str(53125));
	EXPECT_STREQ("106G", npo_lane_rate_str(106250));
	EXPECT_STREQ("212G", npo_lane_rate_str(212500));
	EXPECT_STREQ("-", npo_lane_rate_str(0));
	EXPECT_STREQ("-", npo_lane_rate_str(100000));
}

TEST_HARNESS_MAIN
