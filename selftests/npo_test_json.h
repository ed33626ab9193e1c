/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading npoctl's JSON in the selftests.  A key that is not there reads
 * as -1, "" or NaN, never as 0: a counter npoctl forgot to print must not
 * pass for a counter that stayed at zero.
 */
#ifndef NPO_TEST_JSON_H
#define NPO_TEST_JSON_H

#include <math.h>
#include <stdint.h>

#include <json-c/json.h>

/* The member key of object o, or NULL (also when o is NULL). */
static inline struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (o)
		json_object_object_get_ex(o, key, &v);
	return v;
}

static inline int64_t jint(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v ? json_object_get_int64(v) : -1;
}

static inline const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v ? json_object_get_string(v) : "";
}

static inline double jdouble(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v ? json_object_get_double(v) : NAN;
}

#endif
