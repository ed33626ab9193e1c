// SPDX-License-Identifier: GPL-2.0-only
/*
 * The UAPI's layout is the same for every process: no struct has implicit
 * padding, which would differ between i386 and x86-64 and leak whatever a
 * caller left in it.  Every struct the headers define is listed by the
 * build (uapi-structs.h) and laid out here under -Wpadded as an error, so
 * a new struct with a hole fails to compile; at run time the ioctl numbers
 * must carry the sizes the ABI documents.
 */
#include <stddef.h>
#include <string.h>

#include "kselftest_harness.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wpadded"
#include <linux/npo.h>
#include <linux/npo_fw.h>
#include <linux/npo_netlink.h>
#include <linux/npo_queue.h>

static const struct uapi_struct {
	const char *name;
	size_t size;
	size_t align;
} uapi_structs[] = {
#define NPO_UAPI_STRUCT(s) { #s, sizeof(struct s), _Alignof(struct s) },
#include "uapi-structs.h"
#undef NPO_UAPI_STRUCT
};
#pragma GCC diagnostic pop

/* Every struct the headers define made it into the list above. */
TEST(every_struct_is_laid_out_without_holes)
{
	static const char *const expected[] = {
		"npo_dev_info", "npo_param_query", "npo_queue_create",
		"npo_queue_destroy", "npo_mr_reg", "npo_mr_dereg",
		"npo_dmabuf_reg", "npo_job", "npo_sqe", "npo_cqe", "npo_rqe",
		"npo_fw_header", "npo_fabric_time",
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(expected); i++) {
		for (j = 0; j < ARRAY_SIZE(uapi_structs); j++)
			if (!strcmp(expected[i], uapi_structs[j].name))
				break;
		EXPECT_LT(j, ARRAY_SIZE(uapi_structs))
			TH_LOG("struct %s is missing from uapi-structs.h", expected[i]);
	}
	/* A size that is a multiple of the alignment has no tail to pad. */
	for (j = 0; j < ARRAY_SIZE(uapi_structs); j++) {
		const struct uapi_struct *u = &uapi_structs[j];

		EXPECT_EQ(0, u->size % u->align)
			TH_LOG("struct %.32s: %zu bytes, aligned to %zu",
			       u->name, u->size, u->align);
	}
}

/* The sizes in the ioctl numbers, which the driver also static_asserts. */
TEST(ioctl_numbers_carry_the_documented_sizes)
{
	EXPECT_EQ(64, _IOC_SIZE(NPO_IOCTL_GET_INFO));
	EXPECT_EQ(24, _IOC_SIZE(NPO_IOCTL_GET_PARAM));
	EXPECT_EQ(72, _IOC_SIZE(NPO_IOCTL_CREATE_QUEUE));
	EXPECT_EQ(8, _IOC_SIZE(NPO_IOCTL_DESTROY_QUEUE));
	EXPECT_EQ(40, _IOC_SIZE(NPO_IOCTL_REG_MR));
	EXPECT_EQ(8, _IOC_SIZE(NPO_IOCTL_DEREG_MR));
	EXPECT_EQ(56, _IOC_SIZE(NPO_IOCTL_REG_DMABUF));
	EXPECT_EQ(8, _IOC_SIZE(NPO_IOCTL_SET_JOB));
	EXPECT_EQ(8, _IOC_SIZE(NPO_IOCTL_GET_JOB));
	/* Descriptors and completions are what the device reads and writes. */
	EXPECT_EQ(64, sizeof(struct npo_sqe));
	EXPECT_EQ(32, sizeof(struct npo_cqe));
	EXPECT_EQ(32, sizeof(struct npo_rqe));
}

TEST_HARNESS_MAIN
