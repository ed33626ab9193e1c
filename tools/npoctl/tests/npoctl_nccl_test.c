// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the NCCL topology XML writer (tools/npoctl/nccl.c): the
 * element tree NCCL's xml.cc reads, a <cpu> per NUMA node holding its
 * devices, each link from its own end with its width as the count, links
 * to other hosts as comments, and values escaped so that the document
 * stays well formed whatever sysfs or the host name hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "nccl.h"

static const struct nccl_dev devs[] = {
	{ "npo0", 0, 0, "0000:01:00.0", "0x028000", "0x1234", "0x4e50", "0x1af4",
	  "0x1100", "16.0 GT/s PCIe", "16" },
	{ "npo1", 1, 1, "0000:81:00.0", "0x028000", "0x1234", "0x4e50", "0x1af4",
	  "0x1100", "32.0 GT/s PCIe", "8" },
	{ "npo2", 2, 0, "0000:02:00.0", "0x028000", "0x1234", "0x4e50", "0x1af4",
	  "0x1100", "odd \"<&>' speed", "16" },
};

static const struct nccl_link links[] = {
	{ .dev = 0, .port = 0, .width = 8, .peer_node = 2, .peer_port = 1, .peer_dev = 1 },
	{ .dev = 1, .port = 1, .width = 8, .peer_node = 1, .peer_port = 0, .peer_dev = 0 },
	{ .dev = 1, .port = 0, .width = 2, .peer_node = 3, .peer_port = 1, .peer_dev = 2 },
	{ .dev = 2, .port = 1, .width = 2, .peer_node = 2, .peer_port = 0, .peer_dev = 1 },
	{ .dev = 2, .port = 0, .width = 8, .peer_node = 9, .peer_port = 1, .peer_dev = -1 },
};

static char *write_xml(const char *host)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (nccl_xml_write(f, host, devs, 3, links, 5)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* The text of the <pci> element of busid, up to its end. */
static char *pci_block(const char *xml, const char *busid)
{
	char key[64];
	const char *at, *end;

	snprintf(key, sizeof(key), "<pci busid=\"%s\"", busid);
	at = strstr(xml, key);
	end = at ? strstr(at, "</pci>") : NULL;
	return end ? strndup(at, end - at) : NULL;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what)))
		n++, s++;
	return n;
}

TEST(each_device_lists_its_links_by_bus_id)
{
	char *xml = write_xml("node-a");
	char *b0, *b1, *b2;

	ASSERT_NE(NULL, xml);
	EXPECT_EQ(0, strncmp(strstr(xml, "<system"), "<system version=\"1\">\n", 21));
	EXPECT_EQ(1, count(xml, "</system>"));
	b0 = pci_block(xml, "0000:01:00.0");
	b1 = pci_block(xml, "0000:81:00.0");
	b2 = pci_block(xml, "0000:02:00.0");
	ASSERT_NE(NULL, b0);
	ASSERT_NE(NULL, b1);
	ASSERT_NE(NULL, b2);
	/* The class NCCL schedules on, for the device and the targets alike. */
	EXPECT_NE(NULL, strstr(b0, " class=\"0x030200\" vendor=\"0x1234\" device=\"0x4e50\" "
			       "subsystem_vendor=\"0x1af4\" subsystem_device=\"0x1100\" "
			       "link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">")) TH_LOG("%s", b0);
	EXPECT_NE(NULL, strstr(b0, "<gpu dev=\"0\">"));
	EXPECT_NE(NULL, strstr(b0, "<nvlink target=\"0000:81:00.0\" count=\"8\" tclass=\"0x030200\"/>"));
	EXPECT_EQ(1, count(b0, "<nvlink"));
	/* npo1: both of its links, the narrow one counting 2. */
	EXPECT_NE(NULL, strstr(b1, "<nvlink target=\"0000:01:00.0\" count=\"8\""));
	EXPECT_NE(NULL, strstr(b1, "<nvlink target=\"0000:02:00.0\" count=\"2\""));
	EXPECT_EQ(2, count(b1, "<nvlink"));
	/* npo2: the link to another host is only a comment. */
	EXPECT_EQ(1, count(b2, "<nvlink"));
	EXPECT_NE(NULL, strstr(b2, "<!-- port 0: node 9 port 1, on another host -->"));
	free(b0);
	free(b1);
	free(b2);
	free(xml);
}

TEST(devices_sit_under_their_numa_node)
{
	char *xml = write_xml("node-a");
	const char *cpu0, *cpu1;

	ASSERT_NE(NULL, xml);
	EXPECT_EQ(2, count(xml, "<cpu "));
	EXPECT_EQ(2, count(xml, "</cpu>"));
	cpu0 = strstr(xml, "<cpu numaid=\"0\">");
	cpu1 = strstr(xml, "<cpu numaid=\"1\">");
	ASSERT_NE(NULL, cpu0);
	ASSERT_NE(NULL, cpu1);
	/* npo0 and npo2 in node 0's element, npo1 in node 1's. */
	EXPECT_LT(cpu0, strstr(xml, "busid=\"0000:01:00.0\""));
	EXPECT_LT(strstr(xml, "busid=\"0000:02:00.0\""), strstr(xml, "</cpu>"));
	EXPECT_LT(cpu1, strstr(xml, "busid=\"0000:81:00.0\""));
	EXPECT_EQ(3, count(xml, "<pci "));
	EXPECT_EQ(3, count(xml, "</pci>"));
	EXPECT_EQ(3, count(xml, "<gpu "));
	free(xml);
}

TEST(values_and_comments_are_escaped)
{
	char *xml = write_xml("evil--host\"<x>");
	const char *c;

	ASSERT_NE(NULL, xml);
	EXPECT_NE(NULL, strstr(xml, "link_speed=\"odd &quot;&lt;&amp;&gt;&apos; speed\""));
	/* No "--" inside a comment: every comment's text is free of it. */
	for (c = xml; (c = strstr(c, "<!--")); c += 4) {
		const char *end = strstr(c + 4, "-->");

		ASSERT_NE(NULL, end);
		for (const char *p = c + 4; p < end; p++)
			EXPECT_FALSE(p[0] == '-' && p[1] == '-') TH_LOG("%.*s",
				(int)(end - c + 3), c);
	}
	free(xml);
}

TEST_HARNESS_MAIN
