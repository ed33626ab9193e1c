/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npoctl output: one set of calls prints both the human form and JSON.
 * In JSON mode values go into a json-c tree printed by print_end(); in text
 * mode each call prints its value through its printf format at once.
 */
#ifndef NPOCTL_PRINT_H
#define NPOCTL_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void print_begin(bool json, bool pretty);
int print_end(void);
bool print_is_json(void);
bool print_is_pretty(void);

/* Containers: key is NULL inside an array or at the top level. */
void print_open_array(const char *key);
void print_close_array(void);
void print_open_object(const char *key);
void print_close_object(void);

/*
 * fmt is the text form; in JSON mode key names the member.  A NULL fmt
 * (print_string only) prints nothing in text mode.
 */
void print_string(const char *key, const char *fmt, const char *value);
void print_uint(const char *key, const char *fmt, uint64_t value);
void print_bool(const char *key, const char *fmt, bool value);
void print_int(const char *key, const char *fmt, int64_t value);
void print_double(const char *key, const char *fmt, double value);
/* A value built with json-c, owned from now on; text mode drops it. */
struct json_object;
void print_json(const char *key, struct json_object *value);
/* JSON null, text "-" through fmt's %s. */
void print_null(const char *key, const char *fmt);
/* A lane mask as "0-3,7" into text[len]. */
void print_lanes_str(char *text, size_t len, uint32_t mask);
/* The same with its noun, "lane 3" or "lanes 0-5,7"; returns text. */
const char *print_lanes_text(char *text, size_t len, uint32_t mask);
/* Text mode only: headers, separators, line ends. */
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
