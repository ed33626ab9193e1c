// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl fabric key: the keys that sign every device's control messages to
 * its neighbours (Documentation/admin.rst, "The fabric key").  A secret is
 * read from a file, never from the command line (where ps and the shell's
 * history would show it), and never printed: only its fingerprint.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl.h"
#include "npoctl.h"
#include "print.h"

#define FKEY_MIN_LEN	16
#define FKEY_MAX_LEN	64
#define FKEY_FINGERPRINT	8

static void fabric_key_usage(FILE *to)
{
	fprintf(to,
		"Usage: npoctl fabric key [ show [ DEV ] ]\n"
		"       npoctl fabric key add ID FILE [ send ] [ DEV ]\n"
		"       npoctl fabric key send ID [ DEV ]\n"
		"       npoctl fabric key del ID [ DEV ]\n"
		"ID is 1..255; FILE holds the secret, 16 to 64 bytes (- for standard input);\n"
		"without DEV, every device.\n");
}

/* Devices by index, from a dump; and what show prints of each. */
struct fkey_devs {
	long index[256];
	unsigned int n;
	unsigned int without;	/* devices holding no key */
	bool show;
};

static void print_fingerprint(const struct nlattr *a)
{
	char hex[2 * FKEY_FINGERPRINT + 1] = "";
	const unsigned char *b = nla_data(a);
	int i;

	for (i = 0; i < FKEY_FINGERPRINT && i < nla_len(a); i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	print_string("fingerprint", " fingerprint %s", hex);
}

static void print_key(struct nlattr *nest)
{
	struct nlattr *kb[NPO_ATTR_MAX + 1];

	if (nla_parse_nested(kb, NPO_ATTR_MAX, nest, NULL) ||
	    !kb[NPO_ATTR_FKEY_ID])
		return;
	print_open_object(NULL);
	print_uint("id", "  key %llu", nla_get_u8(kb[NPO_ATTR_FKEY_ID]));
	if (print_is_json())
		print_bool("send", "", !!kb[NPO_ATTR_FKEY_SEND]);
	else if (kb[NPO_ATTR_FKEY_SEND])
		print_text(" (signs)");
	if (kb[NPO_ATTR_FKEY_FINGERPRINT])
		print_fingerprint(kb[NPO_ATTR_FKEY_FINGERPRINT]);
	print_uint("verified", ", %llu messages verified",
		   get_u64(kb, NPO_ATTR_FKEY_VERIFIED));
	print_text("\n");
	print_close_object();
}

static int on_fkey(struct nlattr **tb, struct nlattr *attrs, int len,
		   uint8_t cmd, void *arg)
{
	struct fkey_devs *d = arg;
	struct nlattr *a;
	unsigned int keys = 0;
	int rem;

	if (cmd != NPO_CMD_FABRIC_KEY_GET || !tb[NPO_ATTR_DEV_INDEX])
		return 0;
	if (d->n < sizeof(d->index) / sizeof(d->index[0]))
		d->index[d->n++] = get_u32(tb, NPO_ATTR_DEV_INDEX, 0);
	nla_for_each_attr(a, attrs, len, rem)
		keys += nla_type(a) == NPO_ATTR_FKEY;
	d->without += !keys;
	if (!d->show)
		return 0;
	print_open_object(NULL);
	print_string("device", "%s", tb[NPO_ATTR_DEV_NAME] ?
		     nla_get_string(tb[NPO_ATTR_DEV_NAME]) : "?");
	print_uint("node", " (node %llu):", get_u32(tb, NPO_ATTR_DEV_NODE_ID, 0));
	if (!keys)
		print_text(" no fabric key: control messages are not authenticated");
	print_uint("rejected", " %llu refused", get_u64(tb, NPO_ATTR_FKEY_REJECTED));
	print_uint("unsigned_sent", ", %llu sent unsigned\n",
		   get_u64(tb, NPO_ATTR_FKEY_UNSIGNED));
	print_open_array("keys");
	nla_for_each_attr(a, attrs, len, rem)
		if (nla_type(a) == NPO_ATTR_FKEY)
			print_key(a);
	print_close_array();
	print_close_object();
	return 0;
}

static int fkey_list(struct npo_nl *nl, long dev, struct fkey_devs *d)
{
	return npo_nl_dump(nl, NPO_CMD_FABRIC_KEY_GET, dev, on_fkey, d);
}

static int fkey_show(struct npo_nl *nl, long dev)
{
	struct fkey_devs d = { .show = true };
	int err;

	print_open_object(NULL);
	print_open_array("devices");
	err = fkey_list(nl, dev, &d);
	print_close_array();
	print_close_object();
	if (!err && d.without && !print_is_json())
		fprintf(stderr, "npoctl: %u device%s without a fabric key: any peer can speak for the fabric there (admin.rst, \"The fabric key\")\n",
			d.without, d.without == 1 ? "" : "s");
	return npo_nl_report(nl, err, "fabric key");
}

/* The secret in path ("-": standard input): its length, or -1. */
static int read_secret(const char *path, unsigned char *buf)
{
	unsigned char extra;
	ssize_t n, total = 0;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;

	if (fd < 0) {
		npoctl_err("fabric key: %s: %s", path, strerror(errno));
		return -1;
	}
	while (total < FKEY_MAX_LEN &&
	       (n = read(fd, buf + total, FKEY_MAX_LEN - total)) > 0)
		total += n;
	/* A longer file is a mistake, not a key to cut short. */
	if (total == FKEY_MAX_LEN && read(fd, &extra, 1) > 0)
		total = FKEY_MAX_LEN + 1;
	if (fd)
		close(fd);
	if (total < FKEY_MIN_LEN || total > FKEY_MAX_LEN) {
		npoctl_err("fabric key: %s: a secret is %d to %d bytes", path,
			   FKEY_MIN_LEN, FKEY_MAX_LEN);
		return -1;
	}
	return total;
}

static int fkey_set(struct npo_nl *nl, long dev, uint8_t cmd, uint8_t id,
		    const unsigned char *secret, int len, bool send)
{
	struct nl_msg *msg = npo_nl_msg(nl, cmd, 0);

	if (!msg)
		return -ENOMEM;
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
	nla_put_u8(msg, NPO_ATTR_FKEY_ID, id);
	if (secret)
		nla_put(msg, NPO_ATTR_FKEY_SECRET, len, secret);
	if (send)
		nla_put_flag(msg, NPO_ATTR_FKEY_SEND);
	return npo_nl_request(nl, msg, NULL, NULL);
}

static int parse_id(const char *s, uint8_t *id)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 1 || v > 255) {
		npoctl_err("fabric key: ID is 1..255, not \"%s\"", s);
		return -1;
	}
	*id = v;
	return 0;
}

int cmd_fabric_key(int argc, char **argv)
{
	unsigned char secret[FKEY_MAX_LEN + 1];
	struct fkey_devs d = { 0 };
	bool add, send, del, sign = false;
	const char *what = argc ? argv[0] : "show";
	int len = 0, ret, err = 0;
	struct npo_nl nl;
	unsigned int i;
	long dev = -1;
	uint8_t id;

	if (matches(what, "help")) {
		fabric_key_usage(stdout);
		return NPOCTL_EXIT_OK;
	}
	add = matches(what, "add");
	send = matches(what, "send");
	del = matches(what, "del");
	if (!add && !send && !del && !matches(what, "show"))
		goto usage;
	if (!add && !send && !del) {
		if (argc > 2 || (argc == 2 && (dev = npo_parse_dev(argv[1])) < 0))
			goto usage;
		ret = npoctl_nl_open(&nl);
		if (ret)
			return ret;
		ret = fkey_show(&nl, dev);
		npo_nl_close(&nl);
		return ret;
	}
	i = add ? 3 : 2;
	if (argc < (int)i || parse_id(argv[1], &id))
		goto usage;
	if (add && i < (unsigned int)argc && matches(argv[i], "send")) {
		sign = true;
		i++;
	}
	if (i + 1 == (unsigned int)argc && (dev = npo_parse_dev(argv[i])) < 0)
		goto usage;
	if (i + 1 < (unsigned int)argc)
		goto usage;
	if (add) {
		len = read_secret(argv[2], secret);
		if (len < 0) {
			explicit_bzero(secret, sizeof(secret));
			return NPOCTL_EXIT_USAGE;
		}
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		goto out;
	if (dev >= 0) {
		d.index[d.n++] = dev;
	} else {
		err = fkey_list(&nl, -1, &d);
		if (err)
			goto report;
	}
	for (i = 0; i < d.n && !err; i++)
		err = del ? fkey_set(&nl, d.index[i], NPO_CMD_FABRIC_KEY_DEL, id,
				     NULL, 0, false) :
			    fkey_set(&nl, d.index[i], NPO_CMD_FABRIC_KEY_SET, id,
				     add ? secret : NULL, len, send || sign);
report:
	ret = npo_nl_report(&nl, err, "fabric key");
	npo_nl_close(&nl);
out:
	/* Our copy of the secret goes (libnl's message buffer is freed as is). */
	explicit_bzero(secret, sizeof(secret));
	return ret;
usage:
	npoctl_err("fabric key: bad arguments");
	fabric_key_usage(stderr);
	return NPOCTL_EXIT_USAGE;
}
