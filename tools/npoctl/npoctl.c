// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl: NPO diagnostics.
 *
 *   npoctl [OPTIONS] OBJECT [COMMAND [ARGS]]
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "npoctl.h"
#include "print.h"

#ifndef NPO_VERSION
#define NPO_VERSION "unknown"
#endif

const char *progname = "npoctl";

void npoctl_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Like iproute2: a command may be abbreviated to any prefix. */
bool matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len <= strlen(word) && !strncmp(arg, word, len);
}

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: npoctl [OPTIONS] OBJECT [COMMAND [ARGS]]\n"
		"where  OBJECT := { dev | link | lane | monitor | events | health | topo | route |\n"
		"                  queue | clock | job | export | fabric | help }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -V[ersion] | -h[elp] }\n"
		"\n"
		"Run 'npoctl OBJECT help' for the commands of an object.\n");
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} objects[] = {
	{ "dev", cmd_dev },
	{ "link", cmd_link },
	{ "lane", cmd_lane },
	{ "monitor", cmd_monitor },
	{ "events", cmd_events },
	{ "health", cmd_health },
	{ "export", cmd_export },
	{ "topo", cmd_topo },
	{ "route", cmd_route },
	{ "queue", cmd_queue },
	{ "clock", cmd_clock },
	{ "job", cmd_job },
	{ "fabric", cmd_fabric },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool json = false, pretty = false;
	unsigned int i;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+jpVh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'p':
			pretty = true;
			break;
		case 'V':
			printf("npoctl %s\n", NPO_VERSION);
			return NPOCTL_EXIT_OK;
		case 'h':
			usage(stdout);
			return NPOCTL_EXIT_OK;
		default:
			usage(stderr);
			return NPOCTL_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return NPOCTL_EXIT_USAGE;
	}
	if (matches(argv[0], "help")) {
		usage(stdout);
		return NPOCTL_EXIT_OK;
	}
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		if (!matches(argv[0], objects[i].name))
			continue;
		print_begin(json, pretty);
		ret = objects[i].fn(argc - 1, argv + 1);
		if (print_end() && !ret)
			ret = NPOCTL_EXIT_ERROR;
		return ret;
	}
	npoctl_err("unknown object '%s'; try 'npoctl help'", argv[0]);
	return NPOCTL_EXIT_USAGE;
}
