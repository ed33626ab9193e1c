// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnpo logging: silent unless the application installs a callback, so a
 * library never writes to a collective library's stderr uninvited.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static npo_log_fn log_fn;
static void *log_arg;
static enum npo_log_level log_level = NPO_LOG_WARN;

void npo_set_log_fn(npo_log_fn fn, void *arg)
{
	log_arg = arg;
	__atomic_store_n(&log_fn, fn, __ATOMIC_RELEASE);
}

void npo_set_log_level(enum npo_log_level max_level)
{
	__atomic_store_n(&log_level, max_level, __ATOMIC_RELAXED);
}

void npo_log(enum npo_log_level level, const char *fmt, ...)
{
	npo_log_fn fn = __atomic_load_n(&log_fn, __ATOMIC_ACQUIRE);
	char msg[256];
	va_list ap;

	if (!fn || level > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(level, msg, log_arg);
}
