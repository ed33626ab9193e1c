// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO link self-test after a reset: a device that was just recovered
 * from a fault (firmware hang or assert, a fatal error, a PCIe reset)
 * runs a short PRBS test on every port with a peer before the port trains,
 * and the port carries no traffic until the driver has judged it.  The
 * device holds the port out of service after the test (PRBS.HOLD,
 * interface 1.12); a port whose lanes pass is released to train, one
 * with a lane above the device's BER warning threshold (HIGH_BER) stays
 * out of service, named with
 * its lanes in the kernel log, an NPO_EVENT_SELF_TEST, npoctl and the
 * port's devlink "link" reporter, until the administrator retrains,
 * reconfigures or tests it.  A test the device never reports the end of
 * fails on every lane, and the driver disables the port to keep it out.  The seed's
 * post-recovery check: a link that came back must be proven before a job
 * trusts it again.
 */
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_link.h"

static unsigned int selftest_ms = 20;
module_param(selftest_ms, uint, 0644);
MODULE_PARM_DESC(selftest_ms,
		 "PRBS self-test of each port after a device reset, ms of device time (0: none, at most 65535)");

/* Without the device's threshold (interface < 1.9): 1e-6. */
#define NPO_SELFTEST_DEFAULT_WARN_NLOG_C	600

/* How long past its duration the device may take to report a test's end. */
#define NPO_SELFTEST_GRACE	(5 * HZ)

static bool npo_link_selftest_supported(struct npo_dev *ndev)
{
	return FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
	       NPO_IF_MINOR_SELF_TEST;
}

/**
 * npo_link_selftest_start() - test a port before it trains after a reset
 * @port: the port, just enabled.
 * @test: test it (a recovery); else only forget an earlier test.
 *
 * Context: under &npo_dev.link_lock, links running.
 */
void npo_link_selftest_start(struct npo_port *port, bool test)
{
	unsigned int ms = min(READ_ONCE(selftest_ms), 65535u);

	/* A test the reset cut short is over; the device forgot its hold. */
	port->selftest.state = NPO_SELFTEST_NONE;
	port->selftest.lanes = 0;
	if (!test || !ms || !port->admin_up ||
	    !npo_link_selftest_supported(port->ndev))
		return;
	npo_port_refresh(port);
	if (!(port->status & NPO_PST_PEER_PRESENT))
		return;
	/* Nothing reconfigures the port under it (npo_port_testing()). */
	port->selftest.state = NPO_SELFTEST_RUNNING;
	port->selftest.deadline = jiffies + msecs_to_jiffies(ms) +
				  NPO_SELFTEST_GRACE;
	npo_port_wr(port, NPO_P_PRBS, NPO_PRBS_START | NPO_PRBS_HOLD |
		    FIELD_PREP(NPO_PRBS_DURATION_MS, ms));
	/* Judged when it ends, or failed if the device never says so. */
	mod_delayed_work(system_wq, &port->ndev->selftest_work,
			 msecs_to_jiffies(ms) + NPO_SELFTEST_GRACE);
	npo_dbg(port->ndev, LINK, "port %u: self-test for %u ms\n",
		port->index, ms);
}

/**
 * npo_link_selftest_done() - a PRBS test ended: was it the self-test?
 * @port: the port.
 *
 * Context: under &npo_dev.link_lock.
 * Return: true if it was; its result is judged from a work.
 */
bool npo_link_selftest_done(struct npo_port *port)
{
	if (port->selftest.state != NPO_SELFTEST_RUNNING)
		return false;
	port->selftest.state = NPO_SELFTEST_JUDGING;
	mod_delayed_work(system_wq, &port->ndev->selftest_work, 0);
	return true;
}

/*
 * The lanes the link may use: the port's, within the administrator's
 * width limit.  A lane the link never trains on cannot fail it.
 */
static u32 npo_link_selftest_lanes(struct npo_port *port)
{
	unsigned int n = port->ndev->lanes_per_port;

	if (port->max_width && port->max_width < n)
		n = port->max_width;
	return GENMASK(n - 1, 0);
}

/*
 * The link's lanes whose bit error ratio was above the device's warning
 * threshold (HIGH_BER), taken in whole decades, or that checked no bits.
 */
static u32 npo_link_selftest_failed(struct npo_port *port,
				    const struct npo_hw_port_stats *st)
{
	u32 lanes = npo_link_selftest_lanes(port);
	u32 failed = 0;
	unsigned int i;

	for (i = 0; i < port->ndev->lanes_per_port; i++) {
		const struct npo_hw_lane_stats *l = &st->lane[i];
		u64 bits = le64_to_cpu(l->prbs_bits);
		u64 errors = le64_to_cpu(l->prbs_errors);
		unsigned int warn = le16_to_cpu(l->ber_warn_nlog_c);
		u64 scale = int_pow(10, min(warn ?: NPO_SELFTEST_DEFAULT_WARN_NLOG_C,
					    1800u) / 100);

		if (!(lanes & BIT(i)))
			continue;
		/* errors / bits > 1 / scale, without dividing by bits. */
		if (!bits || errors > div64_u64(bits, scale))
			failed |= BIT(i);
	}
	return failed;
}

/*
 * Judge one port's result, then release or keep it.  @overdue: the device
 * never reported the test's end; no result is no proof.
 */
static void npo_link_selftest_judge(struct npo_port *port, bool overdue)
{
	struct npo_dev *ndev = port->ndev;
	struct npo_hw_port_stats *st = NULL;
	unsigned long lanes;
	u32 failed;

	if (!overdue)
		st = npo_port_read_stats(port, false);
	mutex_lock(&ndev->link_lock);
	if (!ndev->link_running ||
	    port->selftest.state != (overdue ? NPO_SELFTEST_RUNNING :
					 NPO_SELFTEST_JUDGING))
		goto out;
	if (overdue) {
		npo_err(ndev, "port %u: the device never reported the end of its self-test; port disabled until retrained\n",
			port->index);
		failed = npo_link_selftest_lanes(port);
		/*
		 * Nor may it be holding the port: keep it out by disabling
		 * it.  npo_port_apply() enables it again when released.
		 */
		npo_port_wr(port, NPO_P_CONTROL,
			    npo_port_control(port) & ~NPO_PCTL_ENABLE);
	} else if (IS_ERR(st)) {
		/* No result is no proof: keep it, and say why. */
		npo_err(ndev, "port %u: self-test result unreadable (%pe); port held until retrained\n",
			port->index, st);
		failed = npo_link_selftest_lanes(port);
	} else {
		failed = npo_link_selftest_failed(port, st);
	}
	port->selftest.lanes = failed;
	if (failed) {
		port->selftest.state = NPO_SELFTEST_FAILED;
		lanes = failed;
		npo_err(ndev, "port %u: link to node %u port %u failed its self-test after the reset on lanes %*pbl; out of service until retrained\n",
			port->index, port->peer_node, port->peer_port,
			NPO_MAX_LANES, &lanes);
	} else {
		port->selftest.state = NPO_SELFTEST_NONE;
		npo_info(ndev, "port %u: self-test passed; training\n",
			 port->index);
		npo_port_apply(port, true);
	}
	npo_port_refresh(port);
	npo_health_port_event(port, NPO_EVENT_SELF_TEST);
out:
	mutex_unlock(&ndev->link_lock);
	if (!IS_ERR(st))
		kfree(st);
}

/*
 * Judge the tests that ended, fail those the device is overdue to report,
 * and come back for the earliest still running.
 */
static void npo_link_selftest_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(to_delayed_work(work),
					    struct npo_dev, selftest_work);
	unsigned long next = 0;
	unsigned int i;

	for (i = 0; i < ndev->num_ports; i++) {
		struct npo_port *port = &ndev->ports[i];
		bool judge, overdue = false;

		mutex_lock(&ndev->link_lock);
		judge = ndev->link_running &&
			port->selftest.state == NPO_SELFTEST_JUDGING;
		if (ndev->link_running &&
		    port->selftest.state == NPO_SELFTEST_RUNNING) {
			overdue = time_after_eq(jiffies,
						port->selftest.deadline);
			if (!overdue && (!next ||
					 time_before(port->selftest.deadline,
						     next)))
				next = port->selftest.deadline;
		}
		mutex_unlock(&ndev->link_lock);
		if (judge || overdue)
			npo_link_selftest_judge(port, overdue);
	}
	/* Not over a run a test's end asked for meanwhile. */
	if (next)
		queue_delayed_work(system_wq, &ndev->selftest_work,
				   max_t(long, next - jiffies, 1));
}

/**
 * npo_link_selftest_release() - the administrator takes a failed port back
 * @port: the port, being retrained or reconfigured.
 *
 * Context: under &npo_dev.link_lock.
 */
void npo_link_selftest_release(struct npo_port *port)
{
	if (port->selftest.state != NPO_SELFTEST_FAILED)
		return;
	port->selftest.state = NPO_SELFTEST_NONE;
	port->selftest.lanes = 0;
	/* Enabled again if an overdue test disabled it. */
	npo_port_wr(port, NPO_P_CONTROL, npo_port_control(port));
}

/**
 * npo_link_selftest_init() - set up the judging work
 * @ndev: the device.
 */
void npo_link_selftest_init(struct npo_dev *ndev)
{
	INIT_DELAYED_WORK(&ndev->selftest_work, npo_link_selftest_work);
}

/**
 * npo_link_selftest_stop() - stop judging: the device is stopping
 * @ndev: the device, its links stopped.
 *
 * Context: process context, without &npo_dev.link_lock.
 */
void npo_link_selftest_stop(struct npo_dev *ndev)
{
	cancel_delayed_work_sync(&ndev->selftest_work);
}
