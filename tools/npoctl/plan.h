/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The expected-topology contract: a plan of the fabric's links, and its
 * comparison with the links the ports discovered (npoctl topo check).
 * No netlink here, so that the comparison is tested on the host.
 */
#ifndef NPOCTL_PLAN_H
#define NPOCTL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct plan_end {
	uint32_t node, port;
};

/* A link, planned or found; rate and width 0 when not said or down. */
struct plan_link {
	struct plan_end a, b;
	uint32_t rate_mbps, width;
	bool active;		/* found links: the link is up */
};

struct plan {
	struct plan_link *links;
	size_t n;
};

enum plan_kind {
	PLAN_MISSING,		/* planned, not there */
	PLAN_MISWIRED,		/* a planned port cabled to another port */
	PLAN_UNDER_TRAINED,	/* there, below the planned rate or width */
	PLAN_DOWN,		/* there, cabled as planned, not up */
	PLAN_EXTRA,		/* there, not planned */
};

struct plan_finding {
	enum plan_kind kind;
	struct plan_link planned;	/* MISSING, MISWIRED, UNDER_TRAINED, DOWN */
	struct plan_link found;		/* all but MISSING */
	/* MISWIRED: where the plan wants each end of the found cable. */
	bool has_want_a, has_want_b;
	struct plan_end want_a, want_b;
};

int plan_parse(const char *text, struct plan *out, char *err, size_t errlen);
void plan_free(struct plan *p);
/*
 * Compare found with plan for the links with an end on one of the nodes
 * in local (nlocal of them): the rest are other hosts' to check.  Returns
 * the number of findings (as many as fit in out, max) or -1.
 */
int plan_compare(const struct plan *plan, const struct plan *found,
		 const uint32_t *local, size_t nlocal,
		 struct plan_finding *out, size_t max);
const char *plan_kind_str(enum plan_kind k);
/* The link of set that has end e, or NULL; *other gets its far end. */
const struct plan_link *plan_link_at(const struct plan *set, struct plan_end e,
				     struct plan_end *other);

#endif
