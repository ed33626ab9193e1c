// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl dev: list and show NPO devices.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npo.h>
#include <linux/npo_fw.h>

#include "npoctl.h"
#include "print.h"

static void dev_usage(FILE *to)
{
	fprintf(to,
		"Usage: npoctl dev [ show [ DEV ] ]\n"
		"       npoctl dev help\n"
		"where  DEV := npoN\n");
}

/* The firmware's failure reason from sysfs, or "" if there is none. */
static void read_fw_error(const char *name, char *buf, size_t len)
{
	if (npo_sysfs_read(name, "fw_error", buf, len) || !strcmp(buf, "none"))
		buf[0] = '\0';
}

static void format_fw_version(uint32_t v, char *buf, size_t len)
{
	if (!v)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%u.%u.%u", NPO_FW_VERSION_MAJOR(v),
			 NPO_FW_VERSION_MINOR(v), NPO_FW_VERSION_PATCH(v));
}

/*
 * The firmware flash (sysfs flash/, hardware interface 1.14): where the
 * running firmware came from, each slot, and the last boot.  Nothing on
 * a device without one.
 */
static void print_flash(const char *name)
{
	static const char *const keys[] = {
		"running", "active", "pending", "slot_a", "slot_b", "last_boot",
	};
	char v[6][96], attr[32];
	unsigned int i;

	for (i = 0; i < 6; i++) {
		snprintf(attr, sizeof(attr), "flash/%s", keys[i]);
		if (npo_sysfs_read(name, attr, v[i], sizeof(v[i])))
			return;
	}
	print_open_object("flash");
	print_string("running", NULL, v[0]);
	print_text("  running from   %s\n",
		   !strcmp(v[0], "host") ? "host (/lib/firmware)" :
		   !strcmp(v[0], "a") ? "flash slot a" :
		   !strcmp(v[0], "b") ? "flash slot b" : v[0]);
	print_string("slot_a", "  flash slot a   %s", v[3]);
	print_text("%s%s\n", !strcmp(v[1], "a") ? " (active)" : "",
		   !strcmp(v[2], "a") ? " (pending: boots at the next reset)" : "");
	print_string("slot_b", "  flash slot b   %s", v[4]);
	print_text("%s%s\n", !strcmp(v[1], "b") ? " (active)" : "",
		   !strcmp(v[2], "b") ? " (pending: boots at the next reset)" : "");
	print_string("active", NULL, v[1]);
	print_string("pending", NULL, v[2]);
	print_string("last_boot", "  last boot      %s\n", v[5]);
	print_close_object();
}

static void print_dev(const struct npo_device_attr *a, bool detail)
{
	char fw[32], serial[17], fw_error[128], ifv[16];

	format_fw_version(a->fw_version, fw, sizeof(fw));
	snprintf(serial, sizeof(serial), "%016llx",
		 (unsigned long long)a->serial);
	snprintf(ifv, sizeof(ifv), "%u.%u", a->hw_if_version >> 16,
		 a->hw_if_version & 0xffff);
	read_fw_error(a->name, fw_error, sizeof(fw_error));

	print_open_object(NULL);
	if (detail) {
		print_string("dev", "%s:\n", a->name);
		print_string("pci", "  pci            %s\n", a->pci_addr);
		print_uint("node_id", "  node id        %llu\n", a->node_id);
		print_string("serial", "  serial         %s\n", serial);
		print_string("state", "  state          %s\n",
			     npo_state_str(a->state));
		print_string("fw_version", "  firmware       %s\n", fw);
		if (fw_error[0])
			print_string("fw_error", "  fw error       %s\n",
				     fw_error);
		print_flash(a->name);
		print_uint("ports", "  ports          %llu", a->num_ports);
		print_uint("lanes_per_port", " x %llu lanes\n",
			   a->lanes_per_port);
		print_uint("queues", "  queues         %llu\n", a->num_queues);
		print_string("hw_if_version", "  interface      %s\n", ifv);
		print_open_array("caps");
		print_text("  capabilities  ");
		if (a->caps & NPO_CAP_FW_MAILBOX)
			print_string(NULL, " %s", "fw-mailbox");
		if (a->caps & NPO_CAP_AER)
			print_string(NULL, " %s", "aer");
		print_text("\n");
		print_close_array();
	} else {
		print_string("dev", "%-6s", a->name);
		print_string("pci", "  %-12s", a->pci_addr);
		print_uint("node_id", "  %6llu", a->node_id);
		print_string("serial", "  %-16s", serial);
		print_string("fw_version", "  %-9s", fw);
		print_uint("ports", "  %3llu", a->num_ports);
		print_uint("lanes_per_port", "x%-3llu", a->lanes_per_port);
		print_string("state", "  %s", npo_state_str(a->state));
		if (fw_error[0])
			print_string("fw_error", " (%s)", fw_error);
		print_text("\n");
	}
	print_close_object();
}

static int query(const char *name, struct npo_device_attr *attr)
{
	struct npo_device *dev = npo_open_device(name);
	int err;

	if (!dev) {
		err = errno;
		if (err == ENOENT)
			npoctl_err("%s: no such device", name);
		else
			npoctl_err("%s: %s", name, npo_strerror(err));
		return -err;
	}
	err = npo_query_device(dev, attr);
	if (err)
		npoctl_err("%s: %s", name, npo_strerror(err));
	npo_close_device(dev);
	return err;
}

static int dev_show(const char *only)
{
	struct npo_device_entry *list;
	struct npo_device_attr attr;
	int i, n, ret = NPOCTL_EXIT_OK;

	list = npo_get_device_list(&n);
	if (!list) {
		if (errno == ENOENT)
			npoctl_err("the npo driver is not loaded (try 'modprobe npo')");
		else
			npoctl_err("cannot list devices: %s", npo_strerror(errno));
		return NPOCTL_EXIT_ERROR;
	}

	print_open_array(NULL);
	if (only) {
		if (query(only, &attr))
			ret = NPOCTL_EXIT_ERROR;
		else
			print_dev(&attr, true);
	} else if (!n) {
		npoctl_err("no NPO devices found");
		ret = NPOCTL_EXIT_ERROR;
	} else {
		print_text("%-6s  %-12s  %6s  %-16s  %-9s  %-7s  %s\n", "DEV",
			   "PCI", "NODE", "SERIAL", "FIRMWARE", "PORTS",
			   "STATE");
		for (i = 0; i < n; i++) {
			if (query(list[i].name, &attr))
				ret = NPOCTL_EXIT_ERROR;
			else
				print_dev(&attr, false);
		}
	}
	print_close_array();
	npo_free_device_list(list);
	return ret;
}

int cmd_dev(int argc, char **argv)
{
	if (argc == 0)
		return dev_show(NULL);
	if (matches(argv[0], "help")) {
		dev_usage(stdout);
		return NPOCTL_EXIT_OK;
	}
	if (matches(argv[0], "show") || matches(argv[0], "list")) {
		if (argc == 1)
			return dev_show(NULL);
		if (argc == 2)
			return dev_show(argv[1]);
	}
	npoctl_err("dev: bad arguments");
	dev_usage(stderr);
	return NPOCTL_EXIT_USAGE;
}
