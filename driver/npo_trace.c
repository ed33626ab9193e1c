// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO tracepoints: the one place they are instantiated (npo_trace.h).
 */
#define CREATE_TRACE_POINTS
#include "npo_trace.h"
