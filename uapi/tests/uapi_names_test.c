// SPDX-License-Identifier: GPL-2.0-only
/*
 * The name tables of <linux/npo_names.h> name every value of their enum
 * and nothing past its last: the driver, libnpo and the device model
 * build their tables from them.
 */
#include <string.h>
#include <linux/npo_netlink.h>
#include <linux/npo_names.h>

#include "kselftest_harness.h"

#define NUM(a)	(sizeof(a) / sizeof((a)[0]))

/* Every entry of names, one per value up to last, is a name. */
#define EXPECT_ALL_NAMED(names, last) do {				\
	size_t _i;							\
	EXPECT_EQ((size_t)(last) + 1, NUM(names));			\
	for (_i = 0; _i < NUM(names); _i++) {				\
		EXPECT_NE(NULL, names[_i]) TH_LOG(#names " %zu", _i);	\
		if (names[_i])						\
			EXPECT_NE(0, strlen(names[_i]));		\
	}								\
} while (0)

TEST(every_value_has_a_name)
{
	static const char *const port_states[] = NPO_PORT_STATE_NAMES;
	static const char *const reasons[] = NPO_LINK_REASON_NAMES;
	static const char *const clock_states[] = NPO_CLOCK_STATE_NAMES;
	static const char *const roles[] = NPO_CLOCK_ROLE_NAMES;
	static const char *const risks[] = NPO_RISK_NAMES;
	static const char *const faults[] = NPO_DEV_FAULT_NAMES;
	static const char *const health[] = NPO_HEALTH_NAMES;

	EXPECT_ALL_NAMED(port_states, NPO_PORT_LOOPBACK);
	EXPECT_ALL_NAMED(reasons, NPO_REASON_NO_FIRMWARE);
	EXPECT_ALL_NAMED(clock_states, NPO_CLOCK_HOLDOVER);
	EXPECT_ALL_NAMED(roles, NPO_CLOCK_ROLE_FREE);
	EXPECT_ALL_NAMED(risks, NPO_RISK_RX_POWER);
	EXPECT_ALL_NAMED(faults, NPO_DEV_FAULT_GONE);
	EXPECT_ALL_NAMED(health, NPO_HEALTH_FAILED);
	EXPECT_STREQ("peer did not answer (polling timeout)",
		     reasons[NPO_REASON_POLLING_TIMEOUT]);
}

TEST_HARNESS_MAIN
