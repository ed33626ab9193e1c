// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl output through json-c or printf, see print.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "print.h"

#define MAX_DEPTH 16

static bool json_mode, json_pretty;
static struct json_object *stack[MAX_DEPTH];
static const char *stack_key[MAX_DEPTH];
static int depth;

void print_begin(bool json, bool pretty)
{
	json_mode = json;
	json_pretty = pretty;
	depth = 0;
}

bool print_is_json(void)
{
	return json_mode;
}

bool print_is_pretty(void)
{
	return json_pretty;
}

static void add(const char *key, struct json_object *val)
{
	struct json_object *top;

	if (!depth) {
		/* A lone value at top level becomes the document. */
		stack[depth++] = val;
		return;
	}
	top = stack[depth - 1];
	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, val);
	else
		json_object_object_add(top, key, val);
}

static void open_container(const char *key, struct json_object *c)
{
	if (depth == MAX_DEPTH) {
		fprintf(stderr, "npoctl: output nested too deeply\n");
		exit(1);
	}
	stack_key[depth] = key;
	stack[depth++] = c;
}

static void close_container(void)
{
	struct json_object *c = stack[--depth];

	if (depth)
		add(stack_key[depth], c);
	else
		stack[depth++] = c;	/* the finished document */
}

void print_open_array(const char *key)
{
	if (json_mode)
		open_container(key, json_object_new_array());
}

void print_close_array(void)
{
	if (json_mode)
		close_container();
}

void print_open_object(const char *key)
{
	if (json_mode)
		open_container(key, json_object_new_object());
}

void print_close_object(void)
{
	if (json_mode)
		close_container();
}

void print_json(const char *key, struct json_object *value)
{
	if (json_mode)
		add(key, value);
	else
		json_object_put(value);
}

void print_string(const char *key, const char *fmt, const char *value)
{
	if (json_mode)
		add(key, json_object_new_string(value));
	else if (fmt)
		printf(fmt, value);
}

void print_uint(const char *key, const char *fmt, uint64_t value)
{
	if (json_mode)
		add(key, json_object_new_uint64(value));
	else
		printf(fmt, (unsigned long long)value);
}

void print_int(const char *key, const char *fmt, int64_t value)
{
	if (json_mode)
		add(key, json_object_new_int64(value));
	else
		printf(fmt, (long long)value);
}

void print_double(const char *key, const char *fmt, double value)
{
	if (json_mode)
		add(key, json_object_new_double(value));
	else
		printf(fmt, value);
}

void print_null(const char *key, const char *fmt)
{
	if (json_mode)
		add(key, NULL);
	else
		printf(fmt, "-");
}

void print_bool(const char *key, const char *fmt, bool value)
{
	if (json_mode)
		add(key, json_object_new_boolean(value));
	else
		printf(fmt, value ? "yes" : "no");
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (json_mode)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

int print_end(void)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (json_pretty ? JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_SPACED :
				   JSON_C_TO_STRING_PLAIN);

	if (!json_mode)
		return fflush(stdout) ? 1 : 0;
	if (depth) {
		puts(json_object_to_json_string_ext(stack[0], flags));
		json_object_put(stack[0]);
		depth = 0;
	}
	return fflush(stdout) ? 1 : 0;
}

/* A lane mask as "0-3,7" into text[len]. */
void print_lanes_str(char *text, size_t len, uint32_t mask)
{
	size_t at = 0;
	unsigned int i, end;

	text[0] = '\0';
	for (i = 0; i < 32; i = end + 1) {
		end = i;
		if (!(mask & (1u << i)))
			continue;
		while (end < 31 && (mask & (1u << (end + 1))))
			end++;
		at += snprintf(text + at, len - at,
			       end > i ? "%s%u-%u" : "%s%u", at ? "," : "", i, end);
		if (at >= len)
			break;
	}
}

/* The same with its noun: "lane 3" or "lanes 0-5,7". */
const char *print_lanes_text(char *text, size_t len, uint32_t mask)
{
	char list[48];

	print_lanes_str(list, sizeof(list), mask);
	snprintf(text, len, "lane%s %.47s", mask & (mask - 1) ? "s" : "", list);
	return text;
}
