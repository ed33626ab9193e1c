// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO link supervision: bring every port up at probe without blocking it,
 * follow the ports from their interrupts, and retrain with backoff after a
 * training failure.  A port with no peer stays quietly in Detect.
 */
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <uapi/linux/npo_netlink.h>
#include <uapi/linux/npo_names.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_timesync.h"

/* How much longer than its duration a PRBS test may take to report. */
#define NPO_PRBS_GRACE		(5 * HZ)

/*
 * The port's state and failure reason go to user space as the device
 * reports them: the hardware's codes are the UAPI's.
 */
static_assert((int)NPO_HW_PORT_DISABLED == (int)NPO_PORT_DISABLED);
static_assert((int)NPO_HW_PORT_DETECT == (int)NPO_PORT_DETECT);
static_assert((int)NPO_HW_PORT_POLLING == (int)NPO_PORT_POLLING);
static_assert((int)NPO_HW_PORT_CONFIG == (int)NPO_PORT_CONFIG);
static_assert((int)NPO_HW_PORT_EQUALIZE == (int)NPO_PORT_EQUALIZE);
static_assert((int)NPO_HW_PORT_ACTIVE == (int)NPO_PORT_ACTIVE);
static_assert((int)NPO_HW_PORT_RECOVERY == (int)NPO_PORT_RECOVERY);
static_assert((int)NPO_HW_PORT_TEST == (int)NPO_PORT_TEST);
static_assert((int)NPO_HW_PORT_LOOPBACK == (int)NPO_PORT_LOOPBACK);
static_assert((int)NPO_HW_FAIL_NONE == (int)NPO_REASON_NONE);
static_assert((int)NPO_HW_FAIL_POLLING_TIMEOUT == (int)NPO_REASON_POLLING_TIMEOUT);
static_assert((int)NPO_HW_FAIL_CONFIG_TIMEOUT == (int)NPO_REASON_CONFIG_TIMEOUT);
static_assert((int)NPO_HW_FAIL_NO_COMMON_RATE == (int)NPO_REASON_NO_COMMON_RATE);
static_assert((int)NPO_HW_FAIL_NO_USABLE_LANES == (int)NPO_REASON_NO_USABLE_LANES);
static_assert((int)NPO_HW_FAIL_LOSS_OF_SIGNAL == (int)NPO_REASON_LOSS_OF_SIGNAL);
static_assert((int)NPO_HW_FAIL_PEER_DISABLED == (int)NPO_REASON_PEER_DISABLED);
static_assert((int)NPO_HW_FAIL_ADMIN_DISABLED == (int)NPO_REASON_ADMIN_DISABLED);
static_assert((int)NPO_HW_FAIL_TEST == (int)NPO_REASON_TEST);
static_assert((int)NPO_HW_FAIL_PEER_TEST == (int)NPO_REASON_PEER_TEST);
static_assert((int)NPO_HW_FAIL_NO_FIRMWARE == (int)NPO_REASON_NO_FIRMWARE);

static const char * const npo_port_state_names[] = NPO_PORT_STATE_NAMES;

static const char * const npo_fail_names[] = NPO_LINK_REASON_NAMES;

static const char * const npo_rate_names[] = {
	[NPO_HW_RATE_NONE] = "-",
	[NPO_HW_RATE_53G] = "53G",
	[NPO_HW_RATE_106G] = "106G",
	[NPO_HW_RATE_212G] = "212G",
};

/**
 * npo_port_state_str() - name of a hardware port state
 * @state: &enum npo_port_state (which is &enum npo_hw_port_state).
 *
 * Return: a constant string.
 */
const char *npo_port_state_str(unsigned int state)
{
	if (state < ARRAY_SIZE(npo_port_state_names))
		return npo_port_state_names[state];
	return "unknown";
}

/**
 * npo_port_fail_str() - describe why training last failed
 * @reason: &enum npo_link_reason: the FAIL field of the port status, or
 *	its DOWN_REASON.
 *
 * Return: a constant string.
 */
const char *npo_port_fail_str(unsigned int reason)
{
	if (reason < ARRAY_SIZE(npo_fail_names))
		return npo_fail_names[reason];
	return "unknown reason";
}

/**
 * npo_port_rate_mbps() - a lane rate in Mb/s
 * @rate: 1..NPO_NUM_RATES, 0 for none.
 *
 * Return: the rate, 0 for none or an unknown rate.
 */
u32 npo_port_rate_mbps(unsigned int rate)
{
	static const u32 mbps[NPO_NUM_RATES + 1] = {
		[NPO_HW_RATE_NONE] = 0,
		[NPO_HW_RATE_53G] = 53125,
		[NPO_HW_RATE_106G] = 106250,
		[NPO_HW_RATE_212G] = 212500,
	};

	return rate < ARRAY_SIZE(mbps) ? mbps[rate] : 0;
}

/**
 * npo_port_rate_str() - name of a lane rate
 * @rate: &enum npo_hw_rate.
 *
 * Return: a constant string such as "106G".
 */
const char *npo_port_rate_str(unsigned int rate)
{
	if (rate < ARRAY_SIZE(npo_rate_names))
		return npo_rate_names[rate];
	return "?";
}

/**
 * npo_port_control() - the CONTROL value the administrator asked for
 * @port: the port.
 *
 * Return: ENABLE, the rate and width limits and, for a miswired port,
 * QUARANTINE; never RETRAIN.
 */
u32 npo_port_control(struct npo_port *port)
{
	u32 ctl = 0;

	if (port->admin_up)
		ctl |= NPO_PCTL_ENABLE;
	ctl |= FIELD_PREP(NPO_PCTL_MAX_RATE, port->max_rate);
	ctl |= FIELD_PREP(NPO_PCTL_MAX_WIDTH, port->max_width);
	return ctl | npo_port_control_plan(port);
}

/**
 * npo_port_refresh() - refresh the cached view of a port from its registers
 * @port: the port.
 *
 * Context: under &npo_dev.link_lock, with the device present.
 */
void npo_port_refresh(struct npo_port *port)
{
	u32 status = npo_port_rd(port, NPO_P_STATUS);
	u32 peer = npo_port_rd(port, NPO_P_PEER_PORT);

	if (FIELD_GET(NPO_PST_STATE, status) !=
	    FIELD_GET(NPO_PST_STATE, port->status))
		port->state_since = ktime_get();
	WRITE_ONCE(port->status, status);
	port->peer_valid = peer & NPO_PPEER_VALID;
	if (port->peer_valid) {
		port->peer_node = npo_port_rd(port, NPO_P_PEER_NODE);
		port->peer_port = FIELD_GET(NPO_PPEER_PORT, peer);
		port->peer_rates = FIELD_GET(NPO_PPEER_RATES, peer);
		port->peer_lanes = FIELD_GET(NPO_PPEER_LANES, peer);
	}
	if (npo_hw_blames_lanes(port->ndev)) {
		port->fault_lanes = npo_port_rd(port, NPO_P_FAULT_LANES);
		port->ber_lanes = npo_port_rd(port, NPO_P_BER_LANES);
		port->down_reason = npo_port_rd(port, NPO_P_DOWN_REASON);
	} else {
		port->down_reason = FIELD_GET(NPO_PST_FAIL, status);
	}
}

/**
 * npo_port_get_param() - a port fact for NPO_IOCTL_GET_PARAM
 * @port: the port.
 * @param: one of the NPO_PARAM_PORT_* of &enum npo_param.
 * @value: where to store it.
 *
 * Context: process context; takes &npo_dev.link_lock.
 * Return: 0, -ENOLINK for the peer of a port that has none, -EINVAL for a
 * parameter that is not a port's.
 */
int npo_port_get_param(struct npo_port *port, u32 param, u64 *value)
{
	int err = 0;

	npo_port_lock_fresh(port);
	switch (param) {
	case NPO_PARAM_PORT_STATE:
		*value = FIELD_GET(NPO_PST_STATE, port->status);
		break;
	case NPO_PARAM_PORT_PEER_NODE:
		*value = port->peer_node;
		err = port->peer_valid ? 0 : -ENOLINK;
		break;
	case NPO_PARAM_PORT_PEER_PORT:
		*value = port->peer_port;
		err = port->peer_valid ? 0 : -ENOLINK;
		break;
	case NPO_PARAM_PORT_RATE_MBPS:
		*value = npo_port_rate_mbps(FIELD_GET(NPO_PST_RATE, port->status));
		break;
	case NPO_PARAM_PORT_WIDTH:
		*value = FIELD_GET(NPO_PST_WIDTH, port->status);
		break;
	default:
		err = -EINVAL;
	}
	npo_port_unlock(port);
	return err;
}

/**
 * npo_port_lock_fresh() - take &npo_dev.link_lock with the port's view fresh
 * @port: the port.
 *
 * Readers of the port's fields call this, then npo_port_unlock().
 *
 * Context: process context, with the device present.
 */
void npo_port_lock_fresh(struct npo_port *port)
{
	mutex_lock(&port->ndev->link_lock);
	if (port->ndev->link_running)
		npo_port_refresh(port);
}

/**
 * npo_port_unlock() - release what npo_port_lock_fresh() took
 * @port: the port.
 */
void npo_port_unlock(struct npo_port *port)
{
	mutex_unlock(&port->ndev->link_lock);
}

/* The device writes the statistics block by DMA (PORT_STATS). */
static struct npo_hw_port_stats *npo_port_fetch_stats(struct npo_port *port)
{
	struct npo_dev *ndev = port->ndev;
	struct device *dev = &ndev->pdev->dev;
	size_t len = npo_hw_port_stats_size(ndev->lanes_per_port);
	struct npo_hw_port_stats *st, *copy;
	dma_addr_t dma;
	u32 args[4];
	int err;

	st = dma_alloc_coherent(dev, len, &dma, GFP_KERNEL);
	if (!st)
		return ERR_PTR(-ENOMEM);
	args[0] = port->index;
	args[1] = lower_32_bits(dma);
	args[2] = upper_32_bits(dma);
	args[3] = len;
	err = npo_mbox_read(ndev, NPO_MBOX_OP_PORT_STATS, args,
			    ARRAY_SIZE(args), NULL, 0);
	npo_mbox_settle(ndev, NPO_MBOX_OP_PORT_STATS, err);
	copy = err ? ERR_PTR(err) : kmemdup(st, len, GFP_KERNEL);
	dma_free_coherent(dev, len, st, dma);
	if (!copy)
		return ERR_PTR(-ENOMEM);
	if (!IS_ERR(copy) &&
	    le32_to_cpu(copy->num_lanes) != ndev->lanes_per_port) {
		npo_err(ndev, "port %u: statistics for %u lanes, not %u\n",
			port->index, le32_to_cpu(copy->num_lanes),
			ndev->lanes_per_port);
		kfree(copy);
		return ERR_PTR(-EIO);
	}
	return copy;
}

/**
 * npo_port_read_stats() - read a port's counters and lane diagnostics
 * @port: the port.
 * @shared: a reading up to NPO_STATS_SHARED_MS old will do (unprivileged
 *	readers); else the device is asked now.
 *
 * Context: process context, with the device present.
 * Return: a copy of the block, to be freed with kfree(), or an ERR_PTR().
 */
struct npo_hw_port_stats *npo_port_read_stats(struct npo_port *port,
					      bool shared)
{
	size_t len = npo_hw_port_stats_size(port->ndev->lanes_per_port);
	struct npo_hw_port_stats *st;

	mutex_lock(&port->stats.lock);
	if (shared && port->stats.block &&
	    time_before(jiffies, port->stats.at +
				 msecs_to_jiffies(NPO_STATS_SHARED_MS))) {
		st = kmemdup(port->stats.block, len, GFP_KERNEL);
		mutex_unlock(&port->stats.lock);
		return st ?: ERR_PTR(-ENOMEM);
	}
	st = npo_port_fetch_stats(port);
	if (!IS_ERR(st)) {
		kfree(port->stats.block);
		port->stats.block = kmemdup(st, len, GFP_KERNEL);
		port->stats.at = jiffies;
	}
	mutex_unlock(&port->stats.lock);
	return st;
}

/* Counters read before a clear are not the port's any more. */
static void npo_port_forget_stats(struct npo_port *port)
{
	mutex_lock(&port->stats.lock);
	kfree(port->stats.block);
	port->stats.block = NULL;
	mutex_unlock(&port->stats.lock);
}

/**
 * npo_port_clear_counters() - zero a port's counters, in the device and ours
 * @port: the port.
 *
 * Context: process context, with the device present.
 * Return: 0 or the mailbox's errno.
 */
int npo_port_clear_counters(struct npo_port *port)
{
	struct npo_dev *ndev = port->ndev;
	u32 arg = port->index;
	int err;

	/* Not under a PRBS test, whose figures the counters hold. */
	mutex_lock(&ndev->link_lock);
	err = npo_port_testing(port) ? -EBUSY : 0;
	mutex_unlock(&ndev->link_lock);
	if (err)
		return err;
	err = npo_mbox_exec(ndev, NPO_MBOX_OP_CLEAR_COUNTERS, &arg, 1, NULL, 0);
	if (err)
		return err;
	npo_port_forget_stats(port);
	mutex_lock(&ndev->link_lock);
	port->flaps = 0;
	port->recoveries_seen = 0;
	mutex_unlock(&ndev->link_lock);
	return 0;
}

static void npo_port_retrain_work(struct work_struct *work)
{
	struct npo_port *port = container_of(to_delayed_work(work),
					     struct npo_port, retrain_work);
	struct npo_dev *ndev = port->ndev;

	mutex_lock(&ndev->link_lock);
	/*
	 * Only a port still waiting after its failure: the link may have
	 * come up meanwhile (the peer trained it) before this work could be
	 * cancelled, and a retrain would take it down again.  Never a port
	 * held for its self-test: only the judge or the administrator
	 * releases one.
	 */
	if (ndev->link_running)
		npo_port_refresh(port);
	if (ndev->link_running && port->admin_up &&
	    port->selftest.state == NPO_SELFTEST_NONE &&
	    FIELD_GET(NPO_PST_STATE, port->status) == NPO_HW_PORT_DETECT) {
		npo_dbg(ndev, LINK, "port %u: retraining after %u ms\n",
			port->index, port->backoff_ms);
		npo_port_wr(port, NPO_P_CONTROL,
			    npo_port_control(port) | NPO_PCTL_RETRAIN);
	}
	mutex_unlock(&ndev->link_lock);
}

/**
 * npo_port_apply() - write the administrator's settings to a port
 * @port: the port.
 * @retrain: retrain now, so new limits take effect.
 *
 * Context: under &npo_dev.link_lock.
 */
void npo_port_apply(struct npo_port *port, bool retrain)
{
	u32 ctl = npo_port_control(port);

	if (!port->ndev->link_running)
		return;
	port->backoff_ms = 0;
	cancel_delayed_work(&port->retrain_work);
	/* Taking a port that failed its self-test back releases it. */
	if (port->selftest.state == NPO_SELFTEST_FAILED) {
		npo_link_selftest_release(port);
		retrain = true;
	}
	if (retrain && port->admin_up)
		ctl |= NPO_PCTL_RETRAIN;
	npo_port_wr(port, NPO_P_CONTROL, ctl);
	npo_port_refresh(port);
}

/**
 * npo_port_configure() - apply the administrator's settings to a port
 * @port: the port.
 * @admin_up: 1 to enable it, 0 to disable it, -1 to leave it.
 * @rate: lane rate limit 1..NPO_NUM_RATES, 0 for none, -1 to leave it.
 * @width: width limit, a power of two, 0 for none, -1 to leave it.
 *
 * A new limit retrains the link so that it takes effect.  Not while a PRBS
 * test runs on the port: the test would end early.
 *
 * Context: process context, with the device present.
 * Return: 0, or -EBUSY while a PRBS test runs on the port.
 */
int npo_port_configure(struct npo_port *port, int admin_up, int rate,
		       int width)
{
	mutex_lock(&port->ndev->link_lock);
	if (npo_port_testing(port)) {
		mutex_unlock(&port->ndev->link_lock);
		return -EBUSY;
	}
	if (admin_up >= 0)
		port->admin_up = admin_up;
	if (rate >= 0)
		port->max_rate = rate;
	if (width >= 0)
		port->max_width = width;
	npo_port_apply(port, rate >= 0 || width >= 0);
	mutex_unlock(&port->ndev->link_lock);
	return 0;
}

/**
 * npo_port_retrain() - retrain a port's link now
 * @port: the port.
 *
 * Context: process context, with the device present.
 * Return: 0, -ENETDOWN if the port is disabled or links are stopped,
 * -EBUSY while a PRBS test runs on it.
 */
int npo_port_retrain(struct npo_port *port)
{
	struct npo_dev *ndev = port->ndev;
	int err = 0;

	mutex_lock(&ndev->link_lock);
	if (!port->admin_up || !ndev->link_running)
		err = -ENETDOWN;
	else if (npo_port_testing(port))
		err = -EBUSY;
	else
		npo_port_apply(port, true);
	mutex_unlock(&ndev->link_lock);
	return err;
}

/**
 * npo_port_prbs_test() - run a PRBS test on a port and wait for its end
 * @port: the port.
 * @ms: duration, 1..65535 ms.
 *
 * The link goes down for the test, the peer loops the pattern back, and
 * the port retrains afterwards; the lanes' PRBS counters hold the result.
 *
 * Context: process context, with the device present; sleeps for @ms.
 * Return: 0 when the test ended; -ENETDOWN if the port is disabled or
 * links are stopped, -ENOLINK without a peer, -EBUSY while another test
 * runs on it, -ETIMEDOUT if the device never reported the end, -ECANCELED
 * if a device reset ended it, -ERESTARTSYS if a signal came first.
 */
int npo_port_prbs_test(struct npo_port *port, u32 ms)
{
	struct npo_dev *ndev = port->ndev;
	bool cut;
	long left;

	mutex_lock(&ndev->link_lock);
	if (ndev->link_gone) {
		mutex_unlock(&ndev->link_lock);
		return -ENODEV;
	}
	if (!port->admin_up || !ndev->link_running) {
		mutex_unlock(&ndev->link_lock);
		return -ENETDOWN;
	}
	npo_port_refresh(port);
	if (!(port->status & NPO_PST_PEER_PRESENT)) {
		mutex_unlock(&ndev->link_lock);
		return -ENOLINK;
	}
	/* Requests run in parallel: one test per port at a time. */
	if (npo_port_testing(port)) {
		mutex_unlock(&ndev->link_lock);
		return -EBUSY;
	}
	/* The administrator's test takes a port held by its self-test back. */
	npo_link_selftest_release(port);
	port->prbs.running = true;
	port->prbs.cut = false;
	reinit_completion(&port->prbs.done);
	npo_port_wr(port, NPO_P_PRBS,
		    NPO_PRBS_START | FIELD_PREP(NPO_PRBS_DURATION_MS, ms));
	mutex_unlock(&ndev->link_lock);

	left = wait_for_completion_interruptible_timeout(&port->prbs.done,
							 msecs_to_jiffies(ms) +
							 NPO_PRBS_GRACE);
	mutex_lock(&ndev->link_lock);
	port->prbs.running = false;
	cut = port->prbs.cut;
	mutex_unlock(&ndev->link_lock);
	if (READ_ONCE(ndev->link_gone))
		return -ENODEV;
	if (left < 0)
		return left;
	if (cut)
		return -ECANCELED;
	return left ? 0 : -ETIMEDOUT;
}

/**
 * npo_link_abort_tests() - end every PRBS test before a removal
 * @ndev: the device, about to be removed.
 *
 * A test can run for a minute while its caller holds the remove_lock for
 * reading; removal wakes it rather than wait.  No test starts after.
 */
void npo_link_abort_tests(struct npo_dev *ndev)
{
	unsigned int i;

	mutex_lock(&ndev->link_lock);
	WRITE_ONCE(ndev->link_gone, true);
	for (i = 0; ndev->ports && i < ndev->num_ports; i++)
		complete_all(&ndev->ports[i].prbs.done);
	mutex_unlock(&ndev->link_lock);
}

/*
 * The port's flight record of a link-down: when the device says the
 * signal went, and the lanes as the watch last read them.
 */
static void npo_port_record_down(struct npo_port *port)
{
	struct npo_dev *ndev = port->ndev;
	struct npo_port_down *d = &port->last_down;
	u32 lo, hi;

	memset(d, 0, sizeof(*d));
	if (FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
	    NPO_IF_MINOR_DOWN_TIME && npo_clock_keeps_fabric(ndev)) {
		/* Latched until the next loss: the halves belong together. */
		lo = npo_port_rd(port, NPO_P_DOWN_TIME_LO);
		hi = npo_port_rd(port, NPO_P_DOWN_TIME_HI);
		d->time = (u64)hi << 32 | lo;
		d->time_known = d->time && d->time != U64_MAX;
	}
	npo_link_watch_last(port, d);
}

static void npo_port_handle(struct npo_port *port, u32 ev)
{
	struct npo_dev *ndev = port->ndev;
	u32 st;

	npo_port_refresh(port);
	st = port->status;
	npo_dbg(ndev, LINK, "port %u: events 0x%x, status 0x%x\n", port->index,
		ev, st);

	if (ev & NPO_PEV_DOWN)
		npo_port_record_down(port);
	/* A trend spans one configuration of the link. */
	if (ev & (NPO_PEV_DOWN | NPO_PEV_RETRAIN | NPO_PEV_UP))
		npo_link_watch_forget(port);
	if (ev & NPO_PEV_DOWN) {
		port->flaps++;
		npo_health_port_event(port, NPO_EVENT_LINK_DOWN);
	}
	if (ev & NPO_PEV_TRAIN_FAIL) {
		/* Reported with the backoff that led up to this failure. */
		npo_health_port_event(port, NPO_EVENT_TRAIN_FAILED);
		port->backoff_ms = clamp(port->backoff_ms * 2,
					 (unsigned int)NPO_BACKOFF_MIN_MS,
					 (unsigned int)NPO_BACKOFF_MAX_MS);
		mod_delayed_work(system_wq, &port->retrain_work,
				 msecs_to_jiffies(port->backoff_ms));
	}
	if (ev & NPO_PEV_RETRAIN) {
		port->recoveries_seen++;
		npo_health_port_event(port, NPO_EVENT_RETRAIN);
	}
	if (ev & (NPO_PEV_UP | NPO_PEV_RECOVERED)) {
		port->backoff_ms = 0;
		cancel_delayed_work(&port->retrain_work);
		npo_health_port_event(port, ev & NPO_PEV_UP ? NPO_EVENT_LINK_UP :
							    NPO_EVENT_RECOVERED);
	}
	if ((ev & NPO_PEV_DEGRADED) && (st & NPO_PST_DEGRADED))
		npo_health_port_event(port, NPO_EVENT_DEGRADED);
	if (ev & NPO_PEV_ERR_THRESHOLD)
		npo_health_port_event(port, NPO_EVENT_ERR_THRESHOLD);
	if ((ev & NPO_PEV_PRBS_DONE) && !npo_link_selftest_done(port)) {
		npo_health_port_event(port, NPO_EVENT_TEST_DONE);
		complete_all(&port->prbs.done);
	}
	/* After LINK_UP: the log says whom it reached, then that it is wrong. */
	npo_link_plan_check(port);
}

static void npo_link_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(work, struct npo_dev, link_work);
	unsigned long pending;
	unsigned int i;

	mutex_lock(&ndev->link_lock);
	if (!ndev->link_running)
		goto out;
	pending = npo_rd32(ndev, NPO_REG_LINK_EVENT_PORTS);
	for_each_set_bit(i, &pending, ndev->num_ports) {
		struct npo_port *port = &ndev->ports[i];
		u32 ev = npo_port_rd(port, NPO_P_EVENTS);

		npo_port_wr(port, NPO_P_EVENTS, ev);
		npo_port_handle(port, ev);
	}
out:
	mutex_unlock(&ndev->link_lock);
}

/**
 * npo_link_irq() - link part of the admin interrupt
 * @ndev: the device.
 *
 * Context: hard interrupt; defers the work to process context.
 */
void npo_link_irq(struct npo_dev *ndev)
{
	queue_work(system_wq, &ndev->link_work);
}

/**
 * npo_link_early_init() - initialise what npo_link_fini() relies on
 * @ndev: the device, just allocated.
 */
void npo_link_early_init(struct npo_dev *ndev)
{
	mutex_init(&ndev->link_lock);
	INIT_WORK(&ndev->link_work, npo_link_work);
	npo_link_selftest_init(ndev);
	npo_link_watch_early_init(ndev);
}

/**
 * npo_link_init() - set up port tracking
 * @ndev: the device, identity read.
 *
 * Return: 0 or -ENOMEM.
 */
int npo_link_init(struct npo_dev *ndev)
{
	unsigned int i;

	if (!(ndev->caps & NPO_CAPS_LINK))
		return 0;
	ndev->ports = kcalloc(ndev->num_ports, sizeof(*ndev->ports),
			      GFP_KERNEL);
	if (!ndev->ports)
		return -ENOMEM;
	ndev->port_rates = FIELD_GET(NPO_PCAPS_RATES,
				     npo_rd32(ndev, NPO_PORT_REG(0, NPO_P_CAPS)));
	for (i = 0; i < ndev->num_ports; i++) {
		struct npo_port *port = &ndev->ports[i];

		port->ndev = ndev;
		port->index = i;
		port->admin_up = true;
		port->state_since = ktime_get();
		init_completion(&port->prbs.done);
		mutex_init(&port->stats.lock);
		/* A lane hovering at a threshold warns a few times a minute. */
		ratelimit_state_init(&port->risk.log, 60 * HZ, 4);
		INIT_DELAYED_WORK(&port->retrain_work, npo_port_retrain_work);
	}
	return npo_link_watch_init(ndev);
}

/**
 * npo_link_start() - enable every port the administrator has not disabled
 * @ndev: the device, with its firmware running.
 * @selftest: test each port with a peer before it trains: the device was
 *	reset to recover it.
 *
 * Training runs in the device; this returns at once.
 */
void npo_link_start(struct npo_dev *ndev, bool selftest)
{
	unsigned int i;

	if (!ndev->ports)
		return;
	mutex_lock(&ndev->link_lock);
	ndev->link_running = true;
	for (i = 0; i < ndev->num_ports; i++) {
		struct npo_port *port = &ndev->ports[i];

		port->backoff_ms = 0;
		npo_port_wr(port, NPO_P_CONTROL, npo_port_control(port));
		npo_link_selftest_start(port, selftest);
		npo_port_refresh(port);
	}
	npo_link_watch_start(ndev);
	mutex_unlock(&ndev->link_lock);
}

/**
 * npo_link_end_tests() - a reset ended every PRBS test: wake their requesters
 * @ndev: the device, reset or about to be.
 *
 * Each waiting npo_port_prbs_test() returns -ECANCELED at once.
 *
 * Context: process context.
 */
void npo_link_end_tests(struct npo_dev *ndev)
{
	unsigned int i;

	mutex_lock(&ndev->link_lock);
	for (i = 0; ndev->ports && i < ndev->num_ports; i++) {
		struct npo_port *port = &ndev->ports[i];

		if (port->prbs.running) {
			port->prbs.cut = true;
			complete_all(&port->prbs.done);
		}
	}
	mutex_unlock(&ndev->link_lock);
}

/**
 * npo_link_stop() - stop supervising the ports
 * @ndev: the device; the caller resets it afterwards, which drops links.
 *
 * Context: process context; waits for link work in progress.
 */
void npo_link_stop(struct npo_dev *ndev)
{
	unsigned int i;

	if (!ndev->ports)
		return;
	mutex_lock(&ndev->link_lock);
	ndev->link_running = false;
	for (i = 0; i < ndev->num_ports; i++) {
		struct npo_port *port = &ndev->ports[i];

		/* A self-test the reset will cut short is no longer running. */
		if (port->selftest.state == NPO_SELFTEST_RUNNING ||
		    port->selftest.state == NPO_SELFTEST_JUDGING)
			port->selftest.state = NPO_SELFTEST_NONE;
	}
	mutex_unlock(&ndev->link_lock);
	/* The reset that follows ends every test: its requester need not wait. */
	npo_link_end_tests(ndev);
	cancel_work_sync(&ndev->link_work);
	npo_link_selftest_stop(ndev);
	cancel_delayed_work_sync(&ndev->link_watch_work);
	for (i = 0; i < ndev->num_ports; i++)
		cancel_delayed_work_sync(&ndev->ports[i].retrain_work);
}

/**
 * npo_link_fini() - free port tracking
 * @ndev: the device, links stopped and its interrupt freed.
 */
void npo_link_fini(struct npo_dev *ndev)
{
	unsigned int i;

	/* An interrupt that raced with npo_link_stop() may have queued it. */
	cancel_work_sync(&ndev->link_work);
	npo_link_selftest_stop(ndev);
	npo_link_watch_fini(ndev);
	for (i = 0; ndev->ports && i < ndev->num_ports; i++)
		kfree(ndev->ports[i].stats.block);
	kfree(ndev->ports);
	ndev->ports = NULL;
}
