// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO debugfs: /sys/kernel/debug/npo/npoN/, root only, for developers.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "npo.h"
#include "npo_fw.h"
#include "npo_job.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_timesync.h"

static struct dentry *npo_debugfs_root;

#define NPO_REG32(_name) { .name = #_name, .offset = NPO_REG_##_name }

static const struct debugfs_reg32 npo_debugfs_regs[] = {
	NPO_REG32(MAGIC),
	NPO_REG32(IF_VERSION),
	NPO_REG32(CAPS),
	NPO_REG32(GEOMETRY),
	NPO_REG32(QUEUES),
	NPO_REG32(DB_LAYOUT),
	NPO_REG32(NODE_ID),
	NPO_REG32(SERIAL_LO),
	NPO_REG32(SERIAL_HI),
	NPO_REG32(SCRATCH),
	NPO_REG32(STATUS),
	NPO_REG32(FW_VERSION),
	NPO_REG32(FW_ERROR),
	NPO_REG32(RESET_COUNT),
	NPO_REG32(FLASH_STATE),
	NPO_REG32(SLOT_A_VERSION),
	NPO_REG32(SLOT_B_VERSION),
	NPO_REG32(MBOX_STATUS),
	NPO_REG32(IRQ_STATUS),
	NPO_REG32(IRQ_MASK),
};

static int npo_debugfs_ports_show(struct seq_file *m, void *unused)
{
	struct npo_dev *ndev = m->private;
	unsigned int i;

	for (i = 0; ndev->ports && i < ndev->num_ports; i++) {
		struct npo_port *port = &ndev->ports[i];
		u32 st;
		s64 ms;

		npo_port_lock_fresh(port);
		st = port->status;
		ms = ktime_ms_delta(ktime_get(), port->state_since);

		seq_printf(m, "port %u: %s %s x%lu", i,
			   npo_port_state_str(FIELD_GET(NPO_PST_STATE, st)),
			   npo_port_rate_str(FIELD_GET(NPO_PST_RATE, st)),
			   FIELD_GET(NPO_PST_WIDTH, st));
		if (port->peer_valid)
			seq_printf(m, " peer %u/%u", port->peer_node,
				   port->peer_port);
		else
			seq_puts(m, " peer -");
		seq_printf(m, " flaps %llu recoveries %llu since %lld ms",
			   port->flaps, port->recoveries_seen, ms);
		if (st & NPO_PST_DEGRADED)
			seq_puts(m, " DEGRADED");
		if (st & NPO_PST_HIGH_BER)
			seq_puts(m, " HIGH-BER");
		if (FIELD_GET(NPO_PST_FAIL, st))
			seq_printf(m, " last-failure \"%s\"",
				   npo_port_fail_str(FIELD_GET(NPO_PST_FAIL, st)));
		seq_putc(m, '\n');
		npo_port_unlock(port);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npo_debugfs_ports);

static int npo_debugfs_offenders_show(struct seq_file *m, void *v)
{
	npo_job_offenders_show(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npo_debugfs_offenders);

static int npo_debugfs_timesync_show(struct seq_file *m, void *v)
{
	npo_timesync_show(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npo_debugfs_timesync);

static int npo_debugfs_routing_show(struct seq_file *m, void *v)
{
	npo_route_show(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npo_debugfs_routing);

/* A debugfs write as a C string in buf (size bytes): 0 or a negative errno. */
static int npo_debugfs_get_str(const char __user *ubuf, size_t len, char *buf,
			       size_t size)
{
	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	return 0;
}

/*
 * A fault's value as its words give it, a decimal number in the fault's
 * unit ("2.5" dB), to the FAULT command's: times 10^decimals, with at
 * most that many decimals and at least one digit.
 */
static int npo_debugfs_fixed(const char *s, unsigned int decimals, u32 *out)
{
	unsigned int digits = 0, frac = 0;
	bool dot = false;
	u64 v = 0;

	for (; *s; s++) {
		if (*s == '.' && !dot) {
			dot = true;
			continue;
		}
		if (!isdigit(*s) || (dot && ++frac > decimals))
			return -EINVAL;
		v = v * 10 + (*s - '0');
		digits++;
		if (v > U32_MAX)
			return -EINVAL;
	}
	for (; frac < decimals; frac++) {
		v *= 10;
		if (v > U32_MAX)
			return -EINVAL;
	}
	if (!digits)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * Test-only fault injection, present when the device has test registers,
 * in the words and units the device model's QMP property "fault" takes
 * (hardware.rst, "Fault injection"):
 *   ber PORT LANE DECADES pre-FEC BER 10^-DECADES, 0 clears
 *   dead PORT LANE 0|1    lane loses light
 *   rxdrop PORT LANE DB   extra receive loss
 *   txdrop PORT LANE DB   the lane launches weaker
 *   berramp PORT LANE R   the lane's BER rises R decades per second
 *   rxdrift PORT LANE R   its loss grows R dB per second (0 stops)
 *   cut PORT 0|1          cut or restore the fibre
 *   burst PORT N          N uncorrectable codewords at once
 *   slow PORT US          the port acts on training sequences US late
 *   mboxfail OPCODE N     the next N mailbox commands OPCODE (hex) fail
 *   fwhang                the firmware stops answering
 *   fwassert CODE         the firmware asserts with reason CODE (hex)
 *   parity                the queue engine fails: device-fatal
 *   fwbootfail            the next image tried from flash does not come up
 *   flashcorrupt a|b      a bit of that flash slot's image flips
 *   vanish                the card leaves the bus, until removed
 *   clear                 remove every fault
 */
static ssize_t npo_debugfs_fault_write(struct file *file,
				       const char __user *ubuf, size_t len,
				       loff_t *ppos)
{
	static const char * const kinds[NPO_HW_NUM_FAULTS] = {
		[NPO_HW_FAULT_CLEAR_ALL] = "clear",
		[NPO_HW_FAULT_LANE_BER] = "ber",
		[NPO_HW_FAULT_LANE_DEAD] = "dead",
		[NPO_HW_FAULT_RX_DROP] = "rxdrop",
		[NPO_HW_FAULT_CUT] = "cut",
		[NPO_HW_FAULT_BURST] = "burst",
		[NPO_HW_FAULT_SLOW_TRAINING] = "slow",
		[NPO_HW_FAULT_MBOX_FAIL] = "mboxfail",
		[NPO_HW_FAULT_FW_HANG] = "fwhang",
		[NPO_HW_FAULT_FW_ASSERT] = "fwassert",
		[NPO_HW_FAULT_PARITY] = "parity",
		[NPO_HW_FAULT_BER_RAMP] = "berramp",
		[NPO_HW_FAULT_RX_DRIFT] = "rxdrift",
		[NPO_HW_FAULT_FW_BOOT_FAIL] = "fwbootfail",
		[NPO_HW_FAULT_FLASH_CORRUPT] = "flashcorrupt",
		[NPO_HW_FAULT_TX_DROP] = "txdrop",
		[NPO_HW_FAULT_VANISH] = "vanish",
		[NPO_HW_FAULT_CLOCK_JUMP] = "clockjump",
	};
	/*
	 * The FAULT command's value is the word's times 10^decimals, at
	 * most max: the device model's table (npo-faults.c) has the same.
	 */
	static const u8 decimals[NPO_HW_NUM_FAULTS] = {
		[NPO_HW_FAULT_LANE_BER] = 2,
		[NPO_HW_FAULT_RX_DROP] = 2,
		[NPO_HW_FAULT_TX_DROP] = 2,
		[NPO_HW_FAULT_BER_RAMP] = 2,
		[NPO_HW_FAULT_RX_DRIFT] = 3,
	};
	static const u32 max[NPO_HW_NUM_FAULTS] = {
		[NPO_HW_FAULT_LANE_BER] = 3000,
		[NPO_HW_FAULT_LANE_DEAD] = 1,
		[NPO_HW_FAULT_RX_DROP] = 100000,
		[NPO_HW_FAULT_TX_DROP] = 100000,
		[NPO_HW_FAULT_BER_RAMP] = 100000,
		[NPO_HW_FAULT_RX_DRIFT] = 1000000,
		[NPO_HW_FAULT_CUT] = 1,
		[NPO_HW_FAULT_BURST] = U32_MAX,
		[NPO_HW_FAULT_SLOW_TRAINING] = 100000,
		[NPO_HW_FAULT_CLOCK_JUMP] = U32_MAX,
	};
	struct npo_dev *ndev = file->private_data;
	unsigned int kind, port = 0, lane = 0, value = 0;
	char buf[64], word[13], num[16], slot;
	int err, end = 0;
	u32 args[2];

	err = npo_debugfs_get_str(ubuf, len, buf, sizeof(buf));
	if (err)
		return err;
	if (sscanf(buf, "%12s%n", word, &end) != 1)
		return -EINVAL;
	for (kind = 0; kind < ARRAY_SIZE(kinds); kind++)
		if (!strcmp(word, kinds[kind]))
			break;
	switch (kind) {
	case NPO_HW_FAULT_CLEAR_ALL:
		break;
	case NPO_HW_FAULT_LANE_BER:
	case NPO_HW_FAULT_LANE_DEAD:
	case NPO_HW_FAULT_RX_DROP:
	case NPO_HW_FAULT_TX_DROP:
	case NPO_HW_FAULT_BER_RAMP:
	case NPO_HW_FAULT_RX_DRIFT:
		if (sscanf(buf, "%*s %u %u %15s%n", &port, &lane, num,
			   &end) != 3 ||
		    npo_debugfs_fixed(num, decimals[kind], &value) ||
		    value > max[kind])
			return -EINVAL;
		break;
	case NPO_HW_FAULT_CUT:
	case NPO_HW_FAULT_BURST:
	case NPO_HW_FAULT_SLOW_TRAINING:
		if (sscanf(buf, "%*s %u %15s%n", &port, num, &end) != 2 ||
		    npo_debugfs_fixed(num, 0, &value) || value > max[kind])
			return -EINVAL;
		break;
	case NPO_HW_FAULT_MBOX_FAIL:
		if (sscanf(buf, "%*s %x %u%n", &value, &port, &end) != 2 ||
		    value > U8_MAX || port > U8_MAX)
			return -EINVAL;
		value |= port << 8;
		port = 0;
		break;
	case NPO_HW_FAULT_CLOCK_JUMP:
		if (sscanf(buf, "%*s %15s%n", num, &end) != 1 ||
		    npo_debugfs_fixed(num, 0, &value) || value > max[kind])
			return -EINVAL;
		break;
	case NPO_HW_FAULT_FW_HANG:
	case NPO_HW_FAULT_PARITY:
	case NPO_HW_FAULT_VANISH:
		break;
	case NPO_HW_FAULT_FW_BOOT_FAIL:
		value = 1;
		break;
	case NPO_HW_FAULT_FLASH_CORRUPT:
		if (sscanf(buf, "%*s %c%n", &slot, &end) != 1 ||
		    (slot != 'a' && slot != 'b'))
			return -EINVAL;
		value = slot == 'a' ? NPO_SLOT_A : NPO_SLOT_B;
		break;
	case NPO_HW_FAULT_FW_ASSERT:
		if (sscanf(buf, "%*s %x%n", &value, &end) != 1)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	/* Nothing may follow but the newline echo writes. */
	if (strspn(buf + end, " \t\n") != strlen(buf + end))
		return -EINVAL;
	if (port > FIELD_MAX(NPO_FAULT_PORT) || lane > FIELD_MAX(NPO_FAULT_LANE))
		return -EINVAL;
	args[0] = FIELD_PREP(NPO_FAULT_KIND, kind) |
		  FIELD_PREP(NPO_FAULT_PORT, port) |
		  FIELD_PREP(NPO_FAULT_LANE, lane);
	args[1] = value;
	err = npo_mbox_exec(ndev, NPO_MBOX_OP_FAULT, args, ARRAY_SIZE(args),
			    NULL, 0);
	if (!err && kind == NPO_HW_FAULT_FLASH_CORRUPT)
		npo_fw_flash_refresh(ndev);
	/* A device-fatal fault stops the device before the command returns. */
	if (err == -ENODEV && (kind == NPO_HW_FAULT_FW_ASSERT ||
			       kind == NPO_HW_FAULT_PARITY))
		err = 0;
	return err ? err : len;
}

/*
 * flash_erase: write "a" or "b" to erase that flash slot, so that a test
 * leaves the device booting as it found it.
 */
static ssize_t npo_debugfs_flash_erase_write(struct file *file,
					     const char __user *ubuf,
					     size_t len, loff_t *ppos)
{
	struct npo_dev *ndev = file->private_data;
	char buf[4];
	int err;

	err = npo_debugfs_get_str(ubuf, len, buf, sizeof(buf));
	if (err)
		return err;
	if (!sysfs_streq(buf, "a") && !sysfs_streq(buf, "b"))
		return -EINVAL;
	err = npo_fw_flash_erase(ndev, buf[0] == 'a' ? NPO_SLOT_A : NPO_SLOT_B);
	return err ? err : len;
}

static const struct file_operations npo_debugfs_flash_erase_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = npo_debugfs_flash_erase_write,
	.llseek = default_llseek,
};

static const struct file_operations npo_debugfs_fault_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = npo_debugfs_fault_write,
	.llseek = default_llseek,
};

/**
 * npo_debugfs_add() - create the device's debugfs directory
 * @ndev: the device, with /dev/npoN created.
 *
 * debugfs is optional: failures are not reported.
 */
void npo_debugfs_add(struct npo_dev *ndev)
{
	struct debugfs_regset32 *regset;

	ndev->debugfs = debugfs_create_dir(dev_name(&ndev->dev),
					   npo_debugfs_root);
	if (ndev->ports)
		debugfs_create_file("ports", 0400, ndev->debugfs, ndev,
				    &npo_debugfs_ports_fops);
	debugfs_create_file("offenders", 0400, ndev->debugfs, ndev,
			    &npo_debugfs_offenders_fops);
	if (npo_lmsg_supported(ndev))
		debugfs_create_file("routing", 0400, ndev->debugfs, ndev,
				    &npo_debugfs_routing_fops);
	if (ndev->ptp) {
		debugfs_create_file("timesync", 0400, ndev->debugfs, ndev,
				    &npo_debugfs_timesync_fops);
		/* Test hook: answer SYNCs late, as a busy host does. */
		if (ndev->caps & NPO_CAPS_FAULT_INJECT)
			debugfs_create_u32("timesync_answer_delay_us", 0600,
					   ndev->debugfs,
					   &ndev->ts.answer_delay_us);
	}
	if (ndev->caps & NPO_CAPS_FAULT_INJECT)
		debugfs_create_file("fault", 0200, ndev->debugfs, ndev,
				    &npo_debugfs_fault_fops);
	if (ndev->caps & NPO_CAPS_FLASH)
		debugfs_create_file("flash_erase", 0200, ndev->debugfs, ndev,
				    &npo_debugfs_flash_erase_fops);
	regset = devm_kzalloc(&ndev->pdev->dev, sizeof(*regset), GFP_KERNEL);
	if (!regset)
		return;
	regset->regs = npo_debugfs_regs;
	regset->nregs = ARRAY_SIZE(npo_debugfs_regs);
	regset->base = ndev->regs;
	regset->dev = &ndev->pdev->dev;
	debugfs_create_regset32("regs", 0400, ndev->debugfs, regset);
}

/**
 * npo_debugfs_del() - remove the device's debugfs directory
 * @ndev: the device.
 */
void npo_debugfs_del(struct npo_dev *ndev)
{
	debugfs_remove_recursive(ndev->debugfs);
	ndev->debugfs = NULL;
}

/**
 * npo_debugfs_init() - create /sys/kernel/debug/npo
 */
void npo_debugfs_init(void)
{
	npo_debugfs_root = debugfs_create_dir(NPO_DRIVER_NAME, NULL);
}

/**
 * npo_debugfs_exit() - remove /sys/kernel/debug/npo
 */
void npo_debugfs_exit(void)
{
	debugfs_remove_recursive(npo_debugfs_root);
}
