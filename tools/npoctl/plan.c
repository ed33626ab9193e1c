// SPDX-License-Identifier: GPL-2.0-only
/*
 * The expected-topology contract (plan.h).  A plan is JSON: either
 * {"links": [LINK...]} or the bare array `npoctl -j topo` prints, so that
 * a fabric that was once right can be kept as its own plan.  A LINK is
 * {"a": {"node_id": N, "port": P}, "b": {...}, "rate_mbps": R, "width": W},
 * rate and width optional (0: not checked).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "plan.h"

const char *plan_kind_str(enum plan_kind k)
{
	switch (k) {
	case PLAN_MISSING:
		return "missing";
	case PLAN_MISWIRED:
		return "miswired";
	case PLAN_UNDER_TRAINED:
		return "under-trained";
	case PLAN_DOWN:
		return "down";
	case PLAN_EXTRA:
		return "extra";
	}
	return "unknown";
}

static int get_u32(struct json_object *o, const char *key, bool need,
		   uint32_t *v)
{
	struct json_object *x;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &x) || json_object_is_type(x, json_type_null)) {
		*v = 0;
		return need ? -1 : 0;
	}
	if (!json_object_is_type(x, json_type_int))
		return -1;
	n = json_object_get_int64(x);
	if (n < 0 || n > UINT32_MAX)
		return -1;
	*v = n;
	return 0;
}

static int get_end(struct json_object *l, const char *key, struct plan_end *e)
{
	struct json_object *o;

	if (!json_object_object_get_ex(l, key, &o) ||
	    !json_object_is_type(o, json_type_object))
		return -1;
	/* A port number is a byte on the wire and in the driver. */
	return get_u32(o, "node_id", true, &e->node) ||
	       get_u32(o, "port", true, &e->port) || e->port > 255 ? -1 : 0;
}

static bool same_end(struct plan_end x, struct plan_end y)
{
	return x.node == y.node && x.port == y.port;
}

int plan_parse(const char *text, struct plan *out, char *err, size_t errlen)
{
	struct json_object *root, *list = NULL, *l;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	root = json_tokener_parse(text);
	if (!root) {
		snprintf(err, errlen, "not JSON");
		return -EINVAL;
	}
	if (json_object_is_type(root, json_type_array))
		list = root;
	else if (!json_object_object_get_ex(root, "links", &list) ||
		 !json_object_is_type(list, json_type_array))
		list = NULL;
	if (!list) {
		snprintf(err, errlen, "no \"links\" array");
		json_object_put(root);
		return -EINVAL;
	}
	out->n = json_object_array_length(list);
	out->links = calloc(out->n ? out->n : 1, sizeof(*out->links));
	if (!out->links) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		json_object_put(root);
		return -ENOMEM;
	}
	for (i = 0; i < out->n; i++) {
		struct plan_link *p = &out->links[i];

		l = json_object_array_get_idx(list, i);
		if (!json_object_is_type(l, json_type_object) ||
		    get_end(l, "a", &p->a) || get_end(l, "b", &p->b) ||
		    get_u32(l, "rate_mbps", false, &p->rate_mbps) ||
		    get_u32(l, "width", false, &p->width)) {
			snprintf(err, errlen, "link %zu: needs a and b, each with node_id and port, and numbers", i);
			goto bad;
		}
		if (same_end(p->a, p->b)) {
			snprintf(err, errlen, "link %zu: node %u/%u cabled to itself",
				 i, p->a.node, p->a.port);
			goto bad;
		}
		/* A port has one cable: the plan must not give it two. */
		for (j = 0; j < i; j++) {
			struct plan_link *q = &out->links[j];
			struct plan_end ends[2] = { p->a, p->b };

			for (int k = 0; k < 2; k++) {
				if (same_end(ends[k], q->a) || same_end(ends[k], q->b)) {
					snprintf(err, errlen,
						 "links %zu and %zu: node %u/%u planned twice",
						 j, i, ends[k].node, ends[k].port);
					goto bad;
				}
			}
		}
	}
	json_object_put(root);
	return 0;
bad:
	json_object_put(root);
	plan_free(out);
	return -EINVAL;
}

void plan_free(struct plan *p)
{
	free(p->links);
	p->links = NULL;
	p->n = 0;
}

static bool is_local(const uint32_t *local, size_t n, uint32_t node)
{
	for (size_t i = 0; i < n; i++)
		if (local[i] == node)
			return true;
	return false;
}

const struct plan_link *plan_link_at(const struct plan *set, struct plan_end e,
				     struct plan_end *other)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct plan_link *l = &set->links[i];

		if (same_end(l->a, e)) {
			*other = l->b;
			return l;
		}
		if (same_end(l->b, e)) {
			*other = l->a;
			return l;
		}
	}
	return NULL;
}

static bool ours(const struct plan_link *l, const uint32_t *local, size_t n)
{
	return is_local(local, n, l->a.node) || is_local(local, n, l->b.node);
}

static void add(struct plan_finding *out, size_t max, int *count,
	       enum plan_kind kind, const struct plan_link *planned,
	       const struct plan_link *found)
{
	if ((size_t)*count < max) {
		struct plan_finding *f = &out[*count];

		memset(f, 0, sizeof(*f));
		f->kind = kind;
		if (planned)
			f->planned = *planned;
		if (found)
			f->found = *found;
	}
	(*count)++;
}

/* A miswired cable, with the peer the plan wants for each of its ends. */
static void add_miswired(const struct plan *plan, struct plan_finding *out,
			 size_t max, int *count, const struct plan_link *p,
			 const struct plan_link *f)
{
	struct plan_finding *x = (size_t)*count < max ? &out[*count] : NULL;

	add(out, max, count, PLAN_MISWIRED, p, f);
	if (!x)
		return;
	x->has_want_a = plan_link_at(plan, f->a, &x->want_a) != NULL;
	x->has_want_b = plan_link_at(plan, f->b, &x->want_b) != NULL;
}

int plan_compare(const struct plan *plan, const struct plan *found,
		 const uint32_t *local, size_t nlocal,
		 struct plan_finding *out, size_t max)
{
	bool *told = calloc(found->n ? found->n : 1, sizeof(*told));
	int count = 0;
	size_t i;

	if (!told)
		return -1;
	for (i = 0; i < plan->n; i++) {
		const struct plan_link *p = &plan->links[i], *fa, *fb;
		struct plan_end fa_peer, fb_peer;

		if (!ours(p, local, nlocal))
			continue;
		fa = plan_link_at(found, p->a, &fa_peer);
		fb = plan_link_at(found, p->b, &fb_peer);
		if (fa && same_end(fa_peer, p->b)) {
			/* Cabled as planned: up, and as fast and wide? */
			if (!fa->active)
				add(out, max, &count, PLAN_DOWN, p, fa);
			else if ((p->rate_mbps && fa->rate_mbps < p->rate_mbps) ||
				 (p->width && fa->width < p->width))
				add(out, max, &count, PLAN_UNDER_TRAINED, p, fa);
			continue;
		}
		/*
		 * A cable at a planned port that goes elsewhere: once per
		 * cable, though both of its ends may be in the plan.
		 */
		if (fa && !told[fa - found->links]) {
			told[fa - found->links] = true;
			add_miswired(plan, out, max, &count, p, fa);
		}
		if (fb && !told[fb - found->links]) {
			told[fb - found->links] = true;
			add_miswired(plan, out, max, &count, p, fb);
		}
		if (!fa && !fb)
			add(out, max, &count, PLAN_MISSING, p, NULL);
	}
	for (i = 0; i < found->n; i++) {
		const struct plan_link *f = &found->links[i];
		struct plan_end other;

		if (!ours(f, local, nlocal))
			continue;
		/* Links at planned ports were judged above. */
		if (plan_link_at(plan, f->a, &other) || plan_link_at(plan, f->b, &other))
			continue;
		add(out, max, &count, PLAN_EXTRA, NULL, f);
	}
	free(told);
	return count;
}
