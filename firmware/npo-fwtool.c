// SPDX-License-Identifier: GPL-2.0-only
/*
 * npo-fwtool: build an NPO firmware image from its source description, or
 * check and describe an existing image.
 *
 *   npo-fwtool build SOURCE -o IMAGE
 *   npo-fwtool info IMAGE
 */
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "npo_fw_validate.h"

#define MAX_PRESETS 64

struct fw_source {
	char name[NPO_FW_NAME_LEN + 1];
	unsigned int major, minor, patch;
	char info[256];
	struct npo_fw_link_params link;
	int have_link;
	struct npo_fw_eq_preset presets[MAX_PRESETS];
	unsigned int num_presets;
	struct npo_fw_target target;
	int have_target;
};

static const char *src_path;
static unsigned int src_line;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "npo-fwtool: ");
	if (src_path)
		fprintf(stderr, "%s:%u: ", src_path, src_line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static unsigned long parse_ulong(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max)
		die("'%s' is not a number in 0..%lu", s, max);
	return v;
}

static uint16_t parse_centi_db(const char *s)
{
	char *end;
	double db;

	errno = 0;
	db = strtod(s, &end);
	if (errno || end == s || *end || db < 0 || db > 20)
		die("'%s' is not a level in 0..20 dB", s);
	return (uint16_t)lround(db * 100);
}

static void parse_link(struct fw_source *src, char *args)
{
	static const struct {
		const char *key;
		unsigned long max;
	} keys[] = {
		{ "detect_timeout_ms", 1000 },
		{ "polling_timeout_ms", 1000 },
		{ "config_timeout_ms", 1000 },
		{ "ber_threshold_exp", 30 },
		{ "replay_limit", 255 },
	};
	unsigned long val[5] = { 0 };
	char *tok, *save;
	unsigned int i;

	for (tok = strtok_r(args, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			die("expected key=value, got '%s'", tok);
		*eq = '\0';
		for (i = 0; i < 5; i++)
			if (!strcmp(tok, keys[i].key))
				break;
		if (i == 5)
			die("unknown link parameter '%s'", tok);
		val[i] = parse_ulong(eq + 1, keys[i].max);
	}
	for (i = 0; i < 5; i++)
		if (!val[i])
			die("link parameter %s missing or zero", keys[i].key);
	src->link.detect_timeout_ms = htole16(val[0]);
	src->link.polling_timeout_ms = htole16(val[1]);
	src->link.config_timeout_ms = htole16(val[2]);
	src->link.ber_threshold_exp = val[3];
	src->link.replay_limit = val[4];
	src->have_link = 1;
}

static void parse_source(const char *path, struct fw_source *src)
{
	FILE *f = fopen(path, "r");
	char line[512];

	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	src_path = path;
	memset(src, 0, sizeof(*src));
	while (fgets(line, sizeof(line), f)) {
		char *key, *rest, *save;

		src_line++;
		line[strcspn(line, "\r\n#")] = '\0';
		key = strtok_r(line, " \t", &save);
		if (!key)
			continue;
		rest = save + strspn(save, " \t");
		if (!strcmp(key, "name")) {
			if (!*rest || strlen(rest) > NPO_FW_NAME_LEN)
				die("name must be 1..%d characters",
				    NPO_FW_NAME_LEN);
			strcpy(src->name, rest);
		} else if (!strcmp(key, "version")) {
			if (sscanf(rest, "%u.%u.%u", &src->major, &src->minor,
				   &src->patch) != 3 || src->major > 255 ||
			    src->minor > 255 || src->patch > 65535 ||
			    !(src->major | src->minor | src->patch))
				die("version must be MAJOR.MINOR.PATCH, not 0.0.0");
		} else if (!strcmp(key, "info")) {
			if (strlen(rest) >= sizeof(src->info))
				die("info too long");
			strcpy(src->info, rest);
		} else if (!strcmp(key, "link")) {
			parse_link(src, rest);
		} else if (!strcmp(key, "target")) {
			unsigned int vendor, device;
			char end;

			if (sscanf(rest, "%x:%x%c", &vendor, &device, &end) != 2 ||
			    !vendor || !device || vendor > 0xffff ||
			    device > 0xffff || src->have_target)
				die("expected one 'target VENDOR:DEVICE', PCI ids in hex");
			src->target.vendor = htole16(vendor);
			src->target.device = htole16(device);
			src->have_target = 1;
		} else if (!strcmp(key, "preset")) {
			char *id = strtok_r(NULL, " \t", &save);
			char *pre = strtok_r(NULL, " \t", &save);
			char *post = strtok_r(NULL, " \t", &save);
			struct npo_fw_eq_preset *p;

			if (!id || !pre || !post || strtok_r(NULL, " \t", &save))
				die("expected: preset ID PRE_DB POST_DB");
			if (src->num_presets == MAX_PRESETS)
				die("more than %d presets", MAX_PRESETS);
			p = &src->presets[src->num_presets++];
			p->id = parse_ulong(id, 255);
			p->pre_cursor_centi_db = htole16(parse_centi_db(pre));
			p->post_cursor_centi_db = htole16(parse_centi_db(post));
		} else {
			die("unknown keyword '%s'", key);
		}
	}
	fclose(f);
	src_line = 0;
	if (!src->name[0] || !(src->major | src->minor | src->patch))
		die("name and version are required");
	if (!src->have_link || !src->num_presets)
		die("link parameters and at least one preset are required");
	src_path = NULL;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static time_t build_time(const char *src_file)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	struct stat st;

	/* Reproducible: the same source gives the same image. */
	if (epoch)
		return (time_t)parse_ulong(epoch, ~0UL);
	if (stat(src_file, &st) == 0)
		return st.st_mtime;
	return 0;
}

static void cmd_build(const char *in, const char *out)
{
	struct fw_source src;
	struct npo_fw_header *h;
	struct npo_fw_section *sec;
	struct npo_fw_contents check;
	size_t off, len, info_len, presets_len, nsec;
	enum npo_fw_verdict v;
	uint8_t *img;
	FILE *f;

	parse_source(in, &src);
	info_len = strlen(src.info) + 1;
	presets_len = src.num_presets * sizeof(src.presets[0]);
	nsec = src.have_target ? 4 : 3;
	off = align8(sizeof(*h) + nsec * sizeof(*sec));
	len = off + align8(info_len) + align8(presets_len) +
	      align8(sizeof(src.link)) +
	      (src.have_target ? align8(sizeof(src.target)) : 0);
	img = calloc(1, len);
	if (!img)
		die("out of memory");

	h = (void *)img;
	sec = (void *)(img + sizeof(*h));
	h->magic = htole32(NPO_FW_MAGIC);
	h->format_version = htole16(NPO_FW_FORMAT_VERSION);
	h->header_size = htole16(sizeof(*h));
	h->fw_version = htole32(NPO_FW_VERSION(src.major, src.minor,
					       src.patch));
	h->total_length = htole32(len);
	h->num_sections = htole32(nsec);
	h->build_time = htole64((uint64_t)build_time(in));
	memcpy(h->name, src.name, strlen(src.name));

#define ADD_SECTION(i, t, data, n) do {				\
		sec[i].type = htole32(t);				\
		sec[i].offset = htole32(off);				\
		sec[i].length = htole32(n);				\
		memcpy(img + off, data, n);				\
		off += align8(n);					\
	} while (0)
	ADD_SECTION(0, NPO_FW_SEC_INFO, src.info, info_len);
	ADD_SECTION(1, NPO_FW_SEC_EQ_PRESETS, src.presets, presets_len);
	ADD_SECTION(2, NPO_FW_SEC_LINK_PARAMS, &src.link, sizeof(src.link));
	if (src.have_target)
		ADD_SECTION(3, NPO_FW_SEC_TARGET, &src.target,
			    sizeof(src.target));
#undef ADD_SECTION

	h->crc32 = htole32(npo_fw_crc(img, len));
	v = npo_fw_validate(img, len, &check);
	if (v != NPO_FW_VALID)
		die("internal error: built image is invalid: %s",
		    npo_fw_verdict_str(v));

	f = fopen(out, "wb");
	if (!f || fwrite(img, 1, len, f) != len || fclose(f))
		die("cannot write %s: %s", out, strerror(errno));
	free(img);
}

static void cmd_info(const char *path)
{
	struct npo_fw_contents c;
	enum npo_fw_verdict v;
	uint8_t *img;
	long len;
	FILE *f = fopen(path, "rb");
	unsigned int i;

	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		die("cannot size %s", path);
	img = malloc(len ? len : 1);
	if (!img || fread(img, 1, len, f) != (size_t)len)
		die("cannot read %s", path);
	fclose(f);

	v = npo_fw_validate(img, len, &c);
	if (v != NPO_FW_VALID) {
		fprintf(stderr, "npo-fwtool: %s: invalid image: %s\n", path,
			npo_fw_verdict_str(v));
		free(img);
		exit(1);
	}
	printf("image:    %s (%ld bytes)\n", path, len);
	printf("name:     %s\n", c.name);
	printf("version:  %u.%u.%u\n", NPO_FW_VERSION_MAJOR(c.fw_version),
	       NPO_FW_VERSION_MINOR(c.fw_version),
	       NPO_FW_VERSION_PATCH(c.fw_version));
	if (c.info)
		printf("info:     %s\n", c.info);
	if (c.has_target)
		printf("target:   PCI %04x:%04x\n", c.target_vendor,
		       c.target_device);
	else
		printf("target:   none (loads anywhere; cannot be flashed)\n");
	printf("link:     detect %u ms, polling %u ms, config %u ms, BER < 1e-%u, replay limit %u\n",
	       le16toh(c.link.detect_timeout_ms),
	       le16toh(c.link.polling_timeout_ms),
	       le16toh(c.link.config_timeout_ms), c.link.ber_threshold_exp,
	       c.link.replay_limit);
	for (i = 0; i < c.num_presets; i++)
		printf("preset %2u: pre-shoot %.1f dB, de-emphasis %.1f dB\n",
		       c.presets[i].id,
		       le16toh(c.presets[i].pre_cursor_centi_db) / 100.0,
		       le16toh(c.presets[i].post_cursor_centi_db) / 100.0);
	free(img);
}

static void usage(FILE *to, int status)
{
	fprintf(to,
		"usage: npo-fwtool build SOURCE -o IMAGE\n"
		"       npo-fwtool info IMAGE\n");
	exit(status);
}

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		usage(stdout, 0);
	if (argc == 5 && !strcmp(argv[1], "build") && !strcmp(argv[3], "-o"))
		cmd_build(argv[2], argv[4]);
	else if (argc == 3 && !strcmp(argv[1], "info"))
		cmd_info(argv[2]);
	else
		usage(stderr, 2);
	return 0;
}
