// SPDX-License-Identifier: GPL-2.0-only
/*
 * npoctl export: this host's NPO devices, ports, lanes, clocks and devlink
 * health reporters in the Prometheus text exposition format (0.0.4), for
 * node_exporter's textfile collector or any scraper that runs a command.
 * Debian packages no C client library for the format, so the writer is
 * here: each family's HELP and TYPE, then all its samples together (the
 * format wants them so), label values escaped.  Names follow Prometheus'
 * conventions: base units (seconds, amperes, volts, bits per second),
 * counters end in _total, enumerations are one series per value.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/devlink.h>
#include <netlink/genl/ctrl.h>

#include "nl.h"
#include "npoctl.h"

enum family_id {
	F_DEV_INFO, F_DEV_STATE, F_DEV_PORTS, F_DEV_FW_SLOT, F_DEV_FW_FALLBACK,
	F_PORT_UP, F_PORT_STATE, F_PORT_RATE, F_PORT_WIDTH, F_PORT_MAX_RATE,
	F_PORT_MAX_WIDTH, F_PORT_PEER, F_PORT_FLAPS, F_PORT_IN_STATE,
	F_PORT_DEGRADED, F_PORT_HIGH_BER, F_PORT_AT_RISK, F_PORT_FAULT_LANES,
	F_PORT_CRC, F_PORT_REPLAYS, F_PORT_RECOVERIES, F_PORT_LINK_DOWNS,
	F_PORT_TRAIN_FAILURES, F_PORT_FEC_CORR, F_PORT_FEC_UNCORR,
	F_PORT_SYMBOL_ERRORS, F_PORT_TX_BYTES, F_PORT_TX_FRAMES, F_PORT_RX_BYTES,
	F_PORT_RX_FRAMES,
	F_LANE_RX_POWER, F_LANE_TX_POWER, F_LANE_BIAS, F_LANE_TEMP, F_LANE_BER,
	F_LANE_EYE, F_LANE_FEC_CORR, F_LANE_FEC_UNCORR, F_LANE_SYMBOL_ERRORS,
	F_LANE_SIGNAL, F_LANE_CDR_LOCKED,
	F_CLOCK_STATE, F_CLOCK_OFFSET, F_CLOCK_PATH_DELAY, F_CLOCK_FREQ,
	F_CLOCK_ERROR_BOUND, F_CLOCK_GM, F_CLOCK_STEPS,
	F_HEALTH_HEALTHY, F_HEALTH_ERRORS, F_HEALTH_RECOVERIES,
	F_SCRAPE_OK,
	F_COUNT
};

struct family {
	const char *name;
	const char *type;
	const char *help;
	FILE *f;		/* the samples, until all are in */
	char *buf;
	size_t len;
};

static struct family fam[F_COUNT] = {
	[F_DEV_INFO] = { "npo_device_info", "gauge",
		"NPO device identity: node, serial, PCI address, firmware (always 1)" },
	[F_DEV_STATE] = { "npo_device_state", "gauge",
		"1 for the state the device is in, 0 for the others" },
	[F_DEV_PORTS] = { "npo_device_ports", "gauge", "Link ports of the device" },
	[F_DEV_FW_SLOT] = { "npo_device_firmware_slot_info", "gauge",
		"A firmware flash slot holding an image: its version, whether it runs, "
		"is active (booted last) or pending (boots next) (always 1)" },
	[F_DEV_FW_FALLBACK] = { "npo_device_firmware_fallback", "gauge",
		"1 while the device records that a flash image did not come up "
		"and it fell back" },
	[F_PORT_UP] = { "npo_port_up", "gauge", "1 while the link is active" },
	[F_PORT_STATE] = { "npo_port_state", "gauge",
		"1 for the link state the port is in, 0 for the others" },
	[F_PORT_RATE] = { "npo_port_lane_rate_bits_per_second", "gauge",
		"Negotiated lane rate, 0 when down" },
	[F_PORT_WIDTH] = { "npo_port_width_lanes", "gauge",
		"Negotiated lanes, 0 when down" },
	[F_PORT_MAX_RATE] = { "npo_port_max_lane_rate_bits_per_second", "gauge",
		"Highest lane rate both ends support" },
	[F_PORT_MAX_WIDTH] = { "npo_port_max_width_lanes", "gauge",
		"Lanes the port has" },
	[F_PORT_PEER] = { "npo_port_peer_info", "gauge",
		"The node and port at the far end of the link (always 1)" },
	[F_PORT_FLAPS] = { "npo_port_flaps_total", "counter",
		"Times the link left the active state" },
	[F_PORT_IN_STATE] = { "npo_port_time_in_state_seconds", "gauge",
		"Time since the port entered its current state" },
	[F_PORT_DEGRADED] = { "npo_port_degraded", "gauge",
		"1 when the link trained below its rate or width" },
	[F_PORT_HIGH_BER] = { "npo_port_high_ber", "gauge",
		"1 when a lane's bit error ratio is above the port's limit" },
	[F_PORT_AT_RISK] = { "npo_port_at_risk", "gauge",
		"1 when the link watch expects a lane to fail" },
	[F_PORT_FAULT_LANES] = { "npo_port_failing_lanes", "gauge",
		"Lanes the link dropped as failing" },
	[F_PORT_CRC] = { "npo_port_crc_errors_total", "counter",
		"Frames received with a bad CRC" },
	[F_PORT_REPLAYS] = { "npo_port_replays_total", "counter",
		"Frames sent again by the link layer" },
	[F_PORT_RECOVERIES] = { "npo_port_recoveries_total", "counter",
		"Times the link retrained in place" },
	[F_PORT_LINK_DOWNS] = { "npo_port_link_downs_total", "counter",
		"Times the link went down" },
	[F_PORT_TRAIN_FAILURES] = { "npo_port_train_failures_total", "counter",
		"Link trainings that failed" },
	[F_PORT_FEC_CORR] = { "npo_port_fec_corrected_total", "counter",
		"Codewords the FEC corrected" },
	[F_PORT_FEC_UNCORR] = { "npo_port_fec_uncorrectable_total", "counter",
		"Codewords the FEC could not correct" },
	[F_PORT_SYMBOL_ERRORS] = { "npo_port_symbol_errors_total", "counter",
		"Symbol errors (absent where the device does not count them)" },
	[F_PORT_TX_BYTES] = { "npo_port_transmit_bytes_total", "counter",
		"Bytes of fabric transport frames (requests, data, answers) sent" },
	[F_PORT_TX_FRAMES] = { "npo_port_transmit_frames_total", "counter",
		"Fabric transport frames sent" },
	[F_PORT_RX_BYTES] = { "npo_port_receive_bytes_total", "counter",
		"Bytes of fabric transport frames received" },
	[F_PORT_RX_FRAMES] = { "npo_port_receive_frames_total", "counter",
		"Fabric transport frames received" },
	[F_LANE_RX_POWER] = { "npo_lane_rx_power_dbm", "gauge",
		"Received optical power" },
	[F_LANE_TX_POWER] = { "npo_lane_tx_power_dbm", "gauge",
		"Transmitted optical power" },
	[F_LANE_BIAS] = { "npo_lane_laser_bias_amperes", "gauge",
		"Laser bias current" },
	[F_LANE_TEMP] = { "npo_lane_temperature_celsius", "gauge",
		"Optical module temperature" },
	[F_LANE_BER] = { "npo_lane_pre_fec_bit_error_ratio", "gauge",
		"Bit error ratio before FEC" },
	[F_LANE_EYE] = { "npo_lane_eye_height_volts", "gauge",
		"Receiver eye height" },
	[F_LANE_FEC_CORR] = { "npo_lane_fec_corrected_total", "counter",
		"Codewords the FEC corrected on the lane" },
	[F_LANE_FEC_UNCORR] = { "npo_lane_fec_uncorrectable_total", "counter",
		"Codewords the FEC could not correct on the lane" },
	[F_LANE_SYMBOL_ERRORS] = { "npo_lane_symbol_errors_total", "counter",
		"Symbol errors on the lane" },
	[F_LANE_SIGNAL] = { "npo_lane_signal_detected", "gauge",
		"0 on loss of signal" },
	[F_LANE_CDR_LOCKED] = { "npo_lane_cdr_locked", "gauge",
		"1 when the receiver's clock recovery is locked" },
	[F_CLOCK_STATE] = { "npo_clock_state", "gauge",
		"1 for the state the fabric clock is in, 0 for the others" },
	[F_CLOCK_OFFSET] = { "npo_clock_offset_seconds", "gauge",
		"This clock less its parent's at the last sync" },
	[F_CLOCK_PATH_DELAY] = { "npo_clock_path_delay_seconds", "gauge",
		"Measured delay of the link to the parent" },
	[F_CLOCK_FREQ] = { "npo_clock_frequency_adjustment_ratio", "gauge",
		"Frequency adjustment of the clock" },
	[F_CLOCK_ERROR_BOUND] = { "npo_clock_error_bound_seconds", "gauge",
		"How far the clock may be from fabric time (absent if unknown)" },
	[F_CLOCK_GM] = { "npo_clock_grandmaster_node", "gauge",
		"Node id of the fabric's grandmaster as this clock sees it" },
	[F_CLOCK_STEPS] = { "npo_clock_steps_total", "counter",
		"Times the clock was stepped rather than slewed" },
	[F_HEALTH_HEALTHY] = { "npo_health_reporter_healthy", "gauge",
		"1 when the devlink health reporter is healthy" },
	[F_HEALTH_ERRORS] = { "npo_health_reporter_errors_total", "counter",
		"Errors the devlink health reporter has seen" },
	[F_HEALTH_RECOVERIES] = { "npo_health_reporter_recoveries_total", "counter",
		"Recoveries the devlink health reporter has run" },
	[F_SCRAPE_OK] = { "npo_scrape_device_success", "gauge",
		"1 when the device's ports, lanes and clock could be read" },
};

/* A label value as the format wants it: backslash, quote, newline escaped. */
static void put_label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/*
 * One sample: labels as alternating names and values, NULL-ended.  Gauges
 * print with 15 significant digits; counters of 64 bits take sample_u64().
 */
static void sample_open(enum family_id id, va_list ap)
{
	struct family *fm = &fam[id];
	const char *name, *sep = "";

	fputs(fm->name, fm->f);
	fputc('{', fm->f);
	while ((name = va_arg(ap, const char *))) {
		fprintf(fm->f, "%s%s=\"", sep, name);
		put_label_value(fm->f, va_arg(ap, const char *));
		fputc('"', fm->f);
		sep = ",";
	}
	fputc('}', fm->f);
}

static void sample(enum family_id id, double value, ...)
{
	va_list ap;

	va_start(ap, value);
	sample_open(id, ap);
	va_end(ap);
	if (isnan(value))
		fputs(" NaN\n", fam[id].f);
	else if (isinf(value))
		fputs(value > 0 ? " +Inf\n" : " -Inf\n", fam[id].f);
	else	/* 15 digits: -4.4, not -4.4000000000000004 */
		fprintf(fam[id].f, " %.15g\n", value);
}

static void sample_u64(enum family_id id, uint64_t value, ...)
{
	va_list ap;

	va_start(ap, value);
	sample_open(id, ap);
	va_end(ap);
	fprintf(fam[id].f, " %llu\n", (unsigned long long)value);
}

static void families_write(FILE *out);

static int families_open(void)
{
	int i;

	for (i = 0; i < F_COUNT; i++) {
		fam[i].f = open_memstream(&fam[i].buf, &fam[i].len);
		if (!fam[i].f) {
			families_write(NULL);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Where each family's samples end, to take back what a device or the
 * health dump added when it fails part way: a memory stream's size is
 * its position when it is closed.
 */
struct families_mark {
	long pos[F_COUNT];
};

static void families_mark(struct families_mark *m)
{
	int i;

	for (i = 0; i < F_COUNT; i++)
		m->pos[i] = ftell(fam[i].f);
}

static void families_rollback(const struct families_mark *m)
{
	int i;

	for (i = 0; i < F_COUNT; i++)
		fseek(fam[i].f, m->pos[i], SEEK_SET);
}

/* Every family with samples, each whole, to out (NULL: nowhere); freed. */
static void families_write(FILE *out)
{
	int i;

	for (i = 0; i < F_COUNT; i++) {
		if (fam[i].f)
			fclose(fam[i].f);
		if (out && fam[i].len) {
			fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", fam[i].name,
				fam[i].help, fam[i].name, fam[i].type);
			fwrite(fam[i].buf, 1, fam[i].len, out);
		}
		free(fam[i].buf);
		fam[i].f = NULL;
		fam[i].buf = NULL;
		fam[i].len = 0;
	}
}

/* --- devices, from sysfs: no device file to open, so any user can scrape -- */

static void read_attr(const char *dev, const char *attr, char *buf, size_t len)
{
	if (npo_sysfs_read(dev, attr, buf, len))
		snprintf(buf, len, "unknown");
}

/*
 * The firmware flash (sysfs flash/), on devices that have one: a slot
 * info sample per slot holding an image, and the fallback record.
 */
static void flash_samples(const char *name)
{
	char running[16], active[16], pending[16], version[32], last[96], attr[32];
	static const char *const slots[] = { "a", "b" };
	unsigned int i;

	if (npo_sysfs_read(name, "flash/running", running, sizeof(running)) ||
	    npo_sysfs_read(name, "flash/active", active, sizeof(active)) ||
	    npo_sysfs_read(name, "flash/pending", pending, sizeof(pending)) ||
	    npo_sysfs_read(name, "flash/last_boot", last, sizeof(last)))
		return;
	for (i = 0; i < 2; i++) {
		snprintf(attr, sizeof(attr), "flash/slot_%s", slots[i]);
		if (npo_sysfs_read(name, attr, version, sizeof(version)) ||
		    !strcmp(version, "none"))
			continue;
		sample(F_DEV_FW_SLOT, 1, "device", name, "slot", slots[i],
		       "version", version,
		       "running", !strcmp(running, slots[i]) ? "1" : "0",
		       "active", !strcmp(active, slots[i]) ? "1" : "0",
		       "pending", !strcmp(pending, slots[i]) ? "1" : "0", NULL);
	}
	sample(F_DEV_FW_FALLBACK, strcmp(last, "ok") != 0, "device", name, NULL);
}

/* The PCI address behind npoN: devlink names devices by it. */
static void dev_pci_addr(const char *dev, char *buf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	const char *slash;

	snprintf(buf, len, "unknown");
	snprintf(path, sizeof(path), "%s/class/npo/%s/device", npo_sysfs_root(), dev);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	slash = strrchr(target, '/');
	slash = slash ? slash + 1 : target;
	if (strlen(slash) < len)
		memcpy(buf, slash, strlen(slash) + 1);
}

#define MAX_DEVS 256

struct dev_names {
	char name[MAX_DEVS][16];
	char pci[MAX_DEVS][32];
	int ports[MAX_DEVS];		/* as sysfs says */
	int count;
};

/* The driver's device states, as sysfs names them (admin.rst). */
static const char *const dev_states[] = {
	"probing", "ready", "fw-error", "resetting", "dead",
};

static int collect_devices(struct dev_names *devs)
{
	char path[PATH_MAX], v[128], node[16], serial[32], fw[32], ports[16];
	struct dirent *de;
	unsigned int i;
	DIR *d;

	snprintf(path, sizeof(path), "%s/class/npo", npo_sysfs_root());
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && devs->count < MAX_DEVS) {
		char *name = devs->name[devs->count], *pci = devs->pci[devs->count];

		if (strncmp(de->d_name, "npo", 3) || !de->d_name[3])
			continue;
		if (strlen(de->d_name) >= sizeof(devs->name[0]))
			continue;
		snprintf(name, sizeof(devs->name[0]), "%.15s", de->d_name);
		dev_pci_addr(name, pci, sizeof(devs->pci[0]));
		read_attr(name, "node_id", node, sizeof(node));
		read_attr(name, "serial", serial, sizeof(serial));
		read_attr(name, "fw_version", fw, sizeof(fw));
		read_attr(name, "num_ports", ports, sizeof(ports));
		read_attr(name, "state", v, sizeof(v));
		sample(F_DEV_INFO, 1, "device", name, "node", node, "serial", serial,
		       "pci", pci, "firmware", fw, NULL);
		for (i = 0; i < sizeof(dev_states) / sizeof(dev_states[0]); i++)
			sample(F_DEV_STATE, !strcmp(v, dev_states[i]), "device", name,
			       "state", dev_states[i], NULL);
		devs->ports[devs->count] = atoi(ports);
		sample(F_DEV_PORTS, devs->ports[devs->count], "device", name, NULL);
		flash_samples(name);
		devs->count++;
	}
	closedir(d);
	return 0;
}

/* --- ports, lanes and clocks, from the npo netlink family ---------------- */

#define MAX_PORTS 4096

struct port_list {
	uint32_t dev[MAX_PORTS];
	uint32_t port[MAX_PORTS];
	char name[MAX_PORTS][16];
	int count;
};

static const char *dev_label(struct nlattr **tb)
{
	return tb[NPO_ATTR_DEV_NAME] ? nla_get_string(tb[NPO_ATTR_DEV_NAME]) : "unknown";
}

static void port_counters(struct nlattr *nest, const char *dev, const char *port)
{
	static const struct { int attr; enum family_id id; } c[] = {
		{ NPO_ATTR_CNT_CRC_ERRORS, F_PORT_CRC },
		{ NPO_ATTR_CNT_REPLAYS, F_PORT_REPLAYS },
		{ NPO_ATTR_CNT_RECOVERIES, F_PORT_RECOVERIES },
		{ NPO_ATTR_CNT_LINK_DOWNS, F_PORT_LINK_DOWNS },
		{ NPO_ATTR_CNT_TRAIN_FAILURES, F_PORT_TRAIN_FAILURES },
		{ NPO_ATTR_CNT_FEC_CORRECTED, F_PORT_FEC_CORR },
		{ NPO_ATTR_CNT_FEC_UNCORRECTABLE, F_PORT_FEC_UNCORR },
		{ NPO_ATTR_CNT_SYMBOL_ERRORS, F_PORT_SYMBOL_ERRORS },
		{ NPO_ATTR_CNT_TX_BYTES, F_PORT_TX_BYTES },
		{ NPO_ATTR_CNT_TX_FRAMES, F_PORT_TX_FRAMES },
		{ NPO_ATTR_CNT_RX_BYTES, F_PORT_RX_BYTES },
		{ NPO_ATTR_CNT_RX_FRAMES, F_PORT_RX_FRAMES },
	};
	struct nlattr *tb[NPO_ATTR_MAX + 1];
	unsigned int i;

	if (!nest || nla_parse_nested(tb, NPO_ATTR_MAX, nest, NULL))
		return;
	/* A counter the device does not keep is left out, never shown as 0. */
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (tb[c[i].attr])
			sample_u64(c[i].id, nla_get_u64(tb[c[i].attr]),
				   "device", dev, "port", port, NULL);
}

static int on_port(struct nlattr **tb, UNUSED struct nlattr *attrs,
		   UNUSED int len, uint8_t cmd, void *arg)
{
	struct port_list *ports = arg;
	uint32_t state = get_u32(tb, NPO_ATTR_PORT_STATE, 0);
	uint32_t flags = get_u32(tb, NPO_ATTR_PORT_FLAGS, 0);
	const char *dev = dev_label(tb);
	char port[16], peer_node[16], peer_port[16];
	uint32_t s;

	if (cmd != NPO_CMD_PORT_GET)
		return 0;
	snprintf(port, sizeof(port), "%u", get_u32(tb, NPO_ATTR_PORT_INDEX, 0));
	if (ports->count < MAX_PORTS) {
		ports->dev[ports->count] = get_u32(tb, NPO_ATTR_DEV_INDEX, 0);
		ports->port[ports->count] = get_u32(tb, NPO_ATTR_PORT_INDEX, 0);
		snprintf(ports->name[ports->count], sizeof(ports->name[0]), "%s", dev);
		ports->count++;
	}
	sample(F_PORT_UP, state == NPO_PORT_ACTIVE, "device", dev, "port", port, NULL);
	for (s = NPO_PORT_DISABLED; s <= NPO_PORT_LOOPBACK; s++)
		sample(F_PORT_STATE, state == s, "device", dev, "port", port,
		       "state", npo_port_state_str(s), NULL);
	sample(F_PORT_RATE, get_u32(tb, NPO_ATTR_PORT_RATE, 0) * 1e6,
	       "device", dev, "port", port, NULL);
	sample(F_PORT_WIDTH, get_u32(tb, NPO_ATTR_PORT_WIDTH, 0),
	       "device", dev, "port", port, NULL);
	sample(F_PORT_MAX_RATE, get_u32(tb, NPO_ATTR_PORT_MAX_RATE, 0) * 1e6,
	       "device", dev, "port", port, NULL);
	sample(F_PORT_MAX_WIDTH, get_u32(tb, NPO_ATTR_PORT_MAX_WIDTH, 0),
	       "device", dev, "port", port, NULL);
	if (tb[NPO_ATTR_PORT_PEER_NODE_ID]) {
		snprintf(peer_node, sizeof(peer_node), "%u",
			 nla_get_u32(tb[NPO_ATTR_PORT_PEER_NODE_ID]));
		snprintf(peer_port, sizeof(peer_port), "%u",
			 get_u32(tb, NPO_ATTR_PORT_PEER_PORT, 0));
		sample(F_PORT_PEER, 1, "device", dev, "port", port,
		       "peer_node", peer_node, "peer_port", peer_port, NULL);
	}
	sample_u64(F_PORT_FLAPS, get_u64(tb, NPO_ATTR_PORT_FLAPS),
		   "device", dev, "port", port, NULL);
	sample(F_PORT_IN_STATE, get_u64(tb, NPO_ATTR_PORT_TIME_IN_STATE_MS) / 1e3,
	       "device", dev, "port", port, NULL);
	sample(F_PORT_DEGRADED, !!(flags & NPO_PORT_FLAG_DEGRADED),
	       "device", dev, "port", port, NULL);
	sample(F_PORT_HIGH_BER, !!(flags & NPO_PORT_FLAG_HIGH_BER),
	       "device", dev, "port", port, NULL);
	/* What the driver does not say is left out, never guessed as 0. */
	if (tb[NPO_ATTR_PORT_RISK_LANES])
		sample(F_PORT_AT_RISK, nla_get_u32(tb[NPO_ATTR_PORT_RISK_LANES]) != 0,
		       "device", dev, "port", port, NULL);
	if (tb[NPO_ATTR_PORT_FAULT_LANES])
		sample(F_PORT_FAULT_LANES,
		       __builtin_popcount(nla_get_u32(tb[NPO_ATTR_PORT_FAULT_LANES])),
		       "device", dev, "port", port, NULL);
	port_counters(tb[NPO_ATTR_PORT_COUNTERS], dev, port);
	return 0;
}

struct lane_ctx {
	const char *dev;
	const char *port;
};

static int on_lanes(UNUSED struct nlattr **tb, struct nlattr *attrs, int len,
		    uint8_t cmd, void *arg)
{
	const struct lane_ctx *ctx = arg;
	struct nlattr *lane;
	int rem;

	if (cmd != NPO_CMD_LANE_GET)
		return 0;
	nla_for_each_attr(lane, attrs, len, rem) {
		struct nlattr *lt[NPO_ATTR_MAX + 1];
		char idx[16];
		uint32_t flags;

		if (nla_type(lane) != NPO_ATTR_LANE ||
		    nla_parse_nested(lt, NPO_ATTR_MAX, lane, NULL))
			continue;
		flags = get_u32(lt, NPO_ATTR_LANE_FLAGS, 0);
		snprintf(idx, sizeof(idx), "%u", get_u32(lt, NPO_ATTR_LANE_INDEX, 0));
#define LANE_LABELS "device", ctx->dev, "port", ctx->port, "lane", idx, NULL
		sample(F_LANE_RX_POWER,
		       (int32_t)get_u32(lt, NPO_ATTR_LANE_RX_POWER, 0) / 100.0, LANE_LABELS);
		sample(F_LANE_TX_POWER,
		       (int32_t)get_u32(lt, NPO_ATTR_LANE_TX_POWER, 0) / 100.0, LANE_LABELS);
		sample(F_LANE_BIAS, get_u32(lt, NPO_ATTR_LANE_BIAS, 0) / 1e5, LANE_LABELS);
		sample(F_LANE_TEMP,
		       (int32_t)get_u32(lt, NPO_ATTR_LANE_TEMP, 0) / 100.0, LANE_LABELS);
		sample(F_LANE_BER,
		       get_ber(lt, NPO_ATTR_LANE_BER), LANE_LABELS);
		sample(F_LANE_EYE, get_u32(lt, NPO_ATTR_LANE_EYE_HEIGHT, 0) / 1e3,
		       LANE_LABELS);
		sample_u64(F_LANE_FEC_CORR, get_u64(lt, NPO_ATTR_LANE_FEC_CORRECTED),
			   LANE_LABELS);
		sample_u64(F_LANE_FEC_UNCORR,
			   get_u64(lt, NPO_ATTR_LANE_FEC_UNCORRECTABLE), LANE_LABELS);
		if (lt[NPO_ATTR_LANE_SYMBOL_ERRORS])
			sample_u64(F_LANE_SYMBOL_ERRORS,
				   get_u64(lt, NPO_ATTR_LANE_SYMBOL_ERRORS), LANE_LABELS);
		sample(F_LANE_SIGNAL, !(flags & NPO_LANE_FLAG_LOS), LANE_LABELS);
		sample(F_LANE_CDR_LOCKED, !!(flags & NPO_LANE_FLAG_CDR_LOCK), LANE_LABELS);
#undef LANE_LABELS
	}
	return 0;
}

static int collect_lanes(struct npo_nl *nl, const struct port_list *ports,
			 int from)
{
	struct lane_ctx ctx;
	struct nl_msg *msg;
	char port[16];
	int i, err;

	for (i = from; i < ports->count; i++) {
		msg = npo_nl_msg(nl, NPO_CMD_LANE_GET, 0);
		if (!msg)
			return -ENOMEM;
		nla_put_u32(msg, NPO_ATTR_DEV_INDEX, ports->dev[i]);
		nla_put_u32(msg, NPO_ATTR_PORT_INDEX, ports->port[i]);
		snprintf(port, sizeof(port), "%u", ports->port[i]);
		ctx.dev = ports->name[i];
		ctx.port = port;
		err = npo_nl_request(nl, msg, on_lanes, &ctx);
		if (err)
			return err;
	}
	return 0;
}

static int on_clock(struct nlattr **tb, UNUSED struct nlattr *attrs,
		    UNUSED int len, uint8_t cmd, UNUSED void *arg)
{
	const char *dev = dev_label(tb);
	struct npo_nl_clock c;
	uint32_t s;

	if (cmd != NPO_CMD_CLOCK_GET)
		return 0;
	npo_nl_clock_decode(tb, &c);
	for (s = NPO_CLOCK_UNLOCKED; s <= NPO_CLOCK_HOLDOVER; s++)
		sample(F_CLOCK_STATE, c.state == s, "device", dev,
		       "state", npo_clock_state_str(s), NULL);
	if (tb[NPO_ATTR_CLOCK_OFFSET])
		sample(F_CLOCK_OFFSET, c.offset_ns / 1e9, "device", dev, NULL);
	if (tb[NPO_ATTR_CLOCK_PATH_DELAY])
		sample(F_CLOCK_PATH_DELAY, c.path_delay_ns / 1e9, "device", dev,
		       NULL);
	if (tb[NPO_ATTR_CLOCK_FREQ])
		sample(F_CLOCK_FREQ, c.freq_ppt / 1e12, "device", dev, NULL);
	if (c.has_bound)
		sample(F_CLOCK_ERROR_BOUND, c.error_bound_ns / 1e9, "device", dev,
		       NULL);
	sample(F_CLOCK_GM, c.gm_node, "device", dev, NULL);
	sample_u64(F_CLOCK_STEPS, c.steps_taken, "device", dev, NULL);
	return 0;
}

/*
 * A device that is resetting, failed or gone answers with these: its
 * figures are left out and npo_scrape_device_success says so, while every
 * other device is exported.  Anything else (no memory, no permission, a
 * driver that does not speak the family) fails the whole scrape.
 */
static bool device_error(int err)
{
	return err == -EAGAIN || err == -ENODEV || err == -ENOENT || err == -EIO ||
	       err == -ETIMEDOUT || err == -EBUSY || err == -ENXIO;
}

static int collect_device(struct npo_nl *nl, const char *name, int nports,
			  struct port_list *ports)
{
	struct families_mark mark;
	int first = ports->count;
	long idx = npo_parse_dev(name);
	int err;

	if (idx < 0)
		return 0;
	families_mark(&mark);
	err = npo_nl_dump(nl, NPO_CMD_PORT_GET, idx, on_port, ports);
	/* A device that is not ready lists no ports rather than failing. */
	if (!err && ports->count - first != nports)
		err = -EAGAIN;
	if (!err)
		err = collect_lanes(nl, ports, first);
	if (!err)
		err = npo_nl_dump(nl, NPO_CMD_CLOCK_GET, idx, on_clock, NULL);
	if (err) {
		families_rollback(&mark);
		ports->count = first;
		if (!device_error(err))
			return err;
	}
	sample(F_SCRAPE_OK, !err, "device", name, NULL);
	return 0;
}

/* --- devlink health reporters, from the devlink family ----------------- */

/* enum devlink_health_reporter_state lives in the kernel's net/devlink.h. */
#define REPORTER_STATE_HEALTHY	0

struct health_ctx {
	const struct dev_names *devs;
};

static int on_reporter(struct nl_msg *m, void *arg)
{
	const struct health_ctx *ctx = arg;
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1], *rt[DEVLINK_ATTR_MAX + 1];
	const char *bus, *pci, *dev = NULL, *name;
	char port[16];
	int i;

	if (genlmsg_parse(nlmsg_hdr(m), 0, tb, DEVLINK_ATTR_MAX, NULL) ||
	    !tb[DEVLINK_ATTR_BUS_NAME] || !tb[DEVLINK_ATTR_DEV_NAME] ||
	    !tb[DEVLINK_ATTR_HEALTH_REPORTER] ||
	    nla_parse_nested(rt, DEVLINK_ATTR_MAX, tb[DEVLINK_ATTR_HEALTH_REPORTER],
			     NULL) || !rt[DEVLINK_ATTR_HEALTH_REPORTER_NAME])
		return NL_OK;
	bus = nla_get_string(tb[DEVLINK_ATTR_BUS_NAME]);
	pci = nla_get_string(tb[DEVLINK_ATTR_DEV_NAME]);
	/* Other drivers' reporters are not ours to export. */
	for (i = 0; i < ctx->devs->count && strcmp(bus, "pci") == 0; i++)
		if (!strcmp(ctx->devs->pci[i], pci))
			dev = ctx->devs->name[i];
	if (!dev)
		return NL_OK;
	name = nla_get_string(rt[DEVLINK_ATTR_HEALTH_REPORTER_NAME]);
	if (tb[DEVLINK_ATTR_PORT_INDEX])
		snprintf(port, sizeof(port), "%u",
			 nla_get_u32(tb[DEVLINK_ATTR_PORT_INDEX]));
	else
		snprintf(port, sizeof(port), "%s", "");
#define HEALTH_LABELS "device", dev, "reporter", name, "port", port, NULL
	if (rt[DEVLINK_ATTR_HEALTH_REPORTER_STATE])
		sample(F_HEALTH_HEALTHY,
		       nla_get_u8(rt[DEVLINK_ATTR_HEALTH_REPORTER_STATE]) ==
		       REPORTER_STATE_HEALTHY, HEALTH_LABELS);
	if (rt[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT])
		sample_u64(F_HEALTH_ERRORS,
			   nla_get_u64(rt[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT]),
			   HEALTH_LABELS);
	if (rt[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT])
		sample_u64(F_HEALTH_RECOVERIES,
			   nla_get_u64(rt[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT]),
			   HEALTH_LABELS);
#undef HEALTH_LABELS
	return NL_OK;
}

/* The kernel without devlink, or without health reporters, has none. */
static int collect_health(const struct dev_names *devs)
{
	struct health_ctx ctx = { devs };
	struct nl_sock *sk = nl_socket_alloc();
	struct families_mark mark;
	int family, err = -EIO;

	if (!sk)
		return -ENOMEM;
	families_mark(&mark);
	if (genl_connect(sk) || (family = genl_ctrl_resolve(sk, DEVLINK_GENL_NAME)) < 0)
		goto out;
	err = genl_send_simple(sk, family, DEVLINK_CMD_HEALTH_REPORTER_GET,
			       DEVLINK_GENL_VERSION, NLM_F_DUMP);
	if (err < 0) {
		err = -EIO;
		goto out;
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_reporter, &ctx);
	err = nl_recvmsgs_default(sk) < 0 ? -EIO : 0;
out:
	/* Some reporters would read as the others gone: none, then. */
	if (err)
		families_rollback(&mark);
	nl_socket_free(sk);
	return err;
}

static void export_usage(FILE *to)
{
	fprintf(to,
		"Usage: npoctl export\n"
		"Prints every NPO device's, port's, lane's, clock's and health\n"
		"reporter's figures in the Prometheus text format.\n");
}

int cmd_export(int argc, char **argv)
{
	static struct port_list ports;
	static struct dev_names devs;
	struct npo_nl nl;
	int ret, err, i;

	if (argc > 0) {
		bool help = argc == 1 && matches(argv[0], "help");

		export_usage(help ? stdout : stderr);
		return help ? NPOCTL_EXIT_OK : NPOCTL_EXIT_USAGE;
	}
	ret = npoctl_nl_open(&nl);
	if (ret)
		return ret;
	if (families_open()) {
		npoctl_err("out of memory");
		npo_nl_close(&nl);
		return NPOCTL_EXIT_ERROR;
	}
	ports.count = 0;
	devs.count = 0;
	err = collect_devices(&devs);
	for (i = 0; !err && i < devs.count; i++)
		err = collect_device(&nl, devs.name[i], devs.ports[i], &ports);
	if (!err && collect_health(&devs))
		npoctl_err("devlink health reporters: not readable, left out");
	/* Half a scrape would read as counters reset: all of it or nothing. */
	families_write(err ? NULL : stdout);
	ret = err ? npo_nl_report(&nl, err, "export") :
	      fflush(stdout) || ferror(stdout) ? NPOCTL_EXIT_ERROR : NPOCTL_EXIT_OK;
	npo_nl_close(&nl);
	return ret;
}
