/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fabric in the topology XML that NCCL reads (NCCL_TOPO_FILE), for
 * collective libraries to choose rings and trees over NPO's links.  No
 * netlink or sysfs here, so that the writer is tested on the host.
 */
#ifndef NPOCTL_NCCL_H
#define NPOCTL_NCCL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A device of this host, as its PCI function shows it. */
struct nccl_dev {
	char name[32];		/* npoN */
	unsigned int index;	/* N */
	int numa;		/* -1: unknown */
	char busid[16];		/* 0000:01:00.0, lower case */
	char pci_class[12];	/* its own, 0x028000 */
	char vendor[8], device[8], subsystem_vendor[8], subsystem_device[8];
	char link_speed[32];	/* "16.0 GT/s PCIe", as sysfs says */
	char link_width[8];
};

/* An active link from a device of this host. */
struct nccl_link {
	unsigned int dev;	/* index into the devices */
	uint32_t port, width;
	uint32_t peer_node, peer_port;
	int peer_dev;		/* index into the devices; -1: another host */
};

/* Write the XML; 0 or -1 if out failed. */
int nccl_xml_write(FILE *out, const char *host, const struct nccl_dev *devs,
		   size_t ndevs, const struct nccl_link *links, size_t nlinks);

#endif
