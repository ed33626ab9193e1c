// SPDX-License-Identifier: GPL-2.0-only
/*
 * NCCL's topology XML (nccl.h), as NCCL's own src/graph/xml.cc reads it:
 * <system version="1"> holding a <cpu numaid> per NUMA node, a <pci> per
 * device with its PCI identity and link, and in it a <gpu dev> whose
 * <nvlink target="BUSID" count="N" tclass="CLASS"/> children are the
 * device's links to the devices of this host.
 *
 * NCCL builds rings and trees only between the accelerators it schedules
 * on, which it recognises by a PCI class of 0x03xxxx; an NPO device is the
 * fabric end of such an accelerator, so it is written with the 3D
 * controller class 0x030200 (its own class is in a comment), and an
 * nvlink target of another class would make NCCL merge every target into
 * one switch.  count is the link's width in lanes: NCCL multiplies it by
 * its bandwidth of one link, so the links' bandwidths keep their ratios
 * and a link that trained narrower weighs less.  Links to other hosts are
 * comments: NCCL's file describes one host, and reaches the others
 * through its network.
 *
 * Hand-written rather than through libxml2: the schema is a dozen fixed
 * elements, and libxml2 would bring ICU's 30 MB into every host and guest.
 */
#include <string.h>

#include "nccl.h"

#define NCCL_GPU_CLASS	"0x030200"

/* An attribute value with XML's five special characters escaped. */
static void put_attr(FILE *out, const char *name, const char *value)
{
	fprintf(out, " %s=\"", name);
	for (; *value; value++) {
		switch (*value) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			/* Control characters cannot appear in XML 1.0 at all. */
			fputc((unsigned char)*value < 0x20 ? '?' : *value, out);
		}
	}
	fputc('"', out);
}

/* A comment may not hold "--": host names and device names do not, but
 * a host name is whatever the administrator set. */
static void put_comment_text(FILE *out, const char *text)
{
	for (; *text; text++)
		fputc(*text == '-' && text[1] == '-' ? '_' : *text, out);
}

static void put_dev(FILE *out, const struct nccl_dev *d, size_t di,
		    const struct nccl_dev *devs, const struct nccl_link *links,
		    size_t nlinks)
{
	char dev[16];
	size_t i;

	fprintf(out, "    <!-- %s, PCI class %s -->\n", d->name, d->pci_class);
	fputs("    <pci", out);
	put_attr(out, "busid", d->busid);
	put_attr(out, "class", NCCL_GPU_CLASS);
	put_attr(out, "vendor", d->vendor);
	put_attr(out, "device", d->device);
	put_attr(out, "subsystem_vendor", d->subsystem_vendor);
	put_attr(out, "subsystem_device", d->subsystem_device);
	put_attr(out, "link_speed", d->link_speed);
	put_attr(out, "link_width", d->link_width);
	fputs(">\n      <gpu", out);
	snprintf(dev, sizeof(dev), "%u", d->index);
	put_attr(out, "dev", dev);
	fputs(">\n", out);
	for (i = 0; i < nlinks; i++) {
		const struct nccl_link *l = &links[i];
		char count[16];

		if (l->dev != di)
			continue;
		if (l->peer_dev < 0) {
			fprintf(out, "        <!-- port %u: node %u port %u, on another host -->\n",
				l->port, l->peer_node, l->peer_port);
			continue;
		}
		snprintf(count, sizeof(count), "%u", l->width);
		fputs("        <nvlink", out);
		put_attr(out, "target", devs[l->peer_dev].busid);
		put_attr(out, "count", count);
		put_attr(out, "tclass", NCCL_GPU_CLASS);
		fprintf(out, "/>  <!-- port %u to %s port %u -->\n", l->port,
			devs[l->peer_dev].name, l->peer_port);
	}
	fputs("      </gpu>\n    </pci>\n", out);
}

int nccl_xml_write(FILE *out, const char *host, const struct nccl_dev *devs,
		   size_t ndevs, const struct nccl_link *links, size_t nlinks)
{
	size_t i, j;

	fputs("<!-- The NPO fabric of ", out);
	put_comment_text(out, host);
	fputs(" as npoctl topo found it, for NCCL_TOPO_FILE -->\n", out);
	fputs("<system version=\"1\">\n", out);
	for (i = 0; i < ndevs; i++) {
		char numa[16];

		/* The first device of each NUMA node opens its <cpu>. */
		for (j = 0; j < i && devs[j].numa != devs[i].numa; j++)
			;
		if (j < i)
			continue;
		snprintf(numa, sizeof(numa), "%d", devs[i].numa < 0 ? 0 : devs[i].numa);
		fputs("  <cpu", out);
		put_attr(out, "numaid", numa);
		fputs(">\n", out);
		for (j = i; j < ndevs; j++)
			if (devs[j].numa == devs[i].numa)
				put_dev(out, &devs[j], j, devs, links, nlinks);
		fputs("  </cpu>\n", out);
	}
	fputs("</system>\n", out);
	return ferror(out) ? -1 : 0;
}
