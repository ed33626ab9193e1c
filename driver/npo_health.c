// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO error reporting and recovery: what an operator hears about a
 * device's health, and what the driver does about a fault.
 *
 * Every fault the driver learns of is reported here, naming its domain:
 * the device (a fatal error, a PCIe error and the recovery from it) or one
 * of its ports (a link that went down, failed to train, came up degraded,
 * crossed the bit error rate warning threshold or heads for failure).  Reports go to the
 * kernel log and, for ports, to the netlink events group; the link
 * supervisor (npo_link.c) decides what to do about a port, the PCIe error
 * handlers below what to do about the device.
 */
#include <linux/pci.h>
#include <linux/ratelimit.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_genl.h"
#include "npo_health.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_route.h"
#include "npo_trace.h"

/* --- ports ---------------------------------------------------------------- */

static void npo_health_log_port(struct npo_port *port, u32 event)
{
	struct npo_dev *ndev = port->ndev;
	u32 st = port->status;
	unsigned int fail = FIELD_GET(NPO_PST_FAIL, st);
	unsigned long lanes;
	char why[48] = "";

	switch (event) {
	case NPO_EVENT_LINK_DOWN:
		npo_warn(ndev, "port %u: link down: %s\n", port->index,
			 npo_port_fail_str(port->down_reason));
		break;
	case NPO_EVENT_TRAIN_FAILED:
		/*
		 * A peer probed after us fails the first attempt at every
		 * boot: say so quietly, and warn only once it persists.
		 */
		if (!port->backoff_ms)
			npo_info(ndev, "port %u: training failed: %s; retrying with backoff\n",
				 port->index, npo_port_fail_str(fail));
		else if (port->backoff_ms == NPO_BACKOFF_WARN_MS)
			npo_warn(ndev, "port %u: still not trained: %s\n",
				 port->index, npo_port_fail_str(fail));
		break;
	case NPO_EVENT_LINK_UP:
	case NPO_EVENT_RECOVERED:
		npo_info(ndev, "port %u: link %s at %s x%lu to node %u port %u\n",
			 port->index, event == NPO_EVENT_LINK_UP ? "up" : "recovered",
			 npo_port_rate_str(FIELD_GET(NPO_PST_RATE, st)),
			 FIELD_GET(NPO_PST_WIDTH, st), port->peer_node,
			 port->peer_port);
		break;
	case NPO_EVENT_DEGRADED:
		lanes = port->fault_lanes;
		/* An administrative limit degrades a link with no lane at fault. */
		if (lanes)
			scnprintf(why, sizeof(why), "; failing lanes %*pbl",
				  NPO_MAX_LANES, &lanes);
		npo_warn(ndev, "port %u: link degraded: %s x%lu, capable of %s x%u%s\n",
			 port->index,
			 npo_port_rate_str(FIELD_GET(NPO_PST_RATE, st)),
			 FIELD_GET(NPO_PST_WIDTH, st),
			 npo_port_rate_str(fls(ndev->port_rates & port->peer_rates)),
			 min_t(unsigned int, ndev->lanes_per_port, port->peer_lanes),
			 why);
		break;
	case NPO_EVENT_MISWIRED:
		if (port->plan.miswired)
			npo_warn(ndev, "port %u: cabled to node %u port %u, planned for node %u port %u: %s\n",
				 port->index, port->peer_node, port->peer_port,
				 port->plan.node, port->plan.port,
				 npo_link_plan_quarantines(ndev) ?
				 "quarantined, no data or fabric time goes through it" :
				 "left out of routes and fabric time; this device (interface before 1.16) still sends data for that peer through it");
		else
			npo_info(ndev, "port %u: no longer miswired: back in service\n",
				 port->index);
		break;
	case NPO_EVENT_ERR_THRESHOLD:
		lanes = port->ber_lanes;
		npo_warn(ndev, "port %u: pre-FEC bit error rate above the warning threshold on lanes %*pbl\n",
			 port->index, NPO_MAX_LANES, &lanes);
		break;
	case NPO_EVENT_AT_RISK:
		lanes = port->risk.lanes;
		/* The all-clear always: the log's last word must be right. */
		if (!lanes) {
			npo_info(ndev, "port %u: no longer at risk\n",
				 port->index);
			break;
		}
		if (!__ratelimit(&port->risk.log))
			break;
		if (port->risk.eta_s)
			scnprintf(why, sizeof(why), ", failing in about %u s",
				  port->risk.eta_s);
		npo_warn(ndev, "port %u: link to node %u port %u at risk: lane %u %s%s (lanes %*pbl)\n",
			 port->index, port->peer_node, port->peer_port,
			 port->risk.lane, npo_risk_str(port->risk.reason), why,
			 NPO_MAX_LANES, &lanes);
		break;
	}
}

/**
 * npo_health_port_event() - report what happened to a port
 * @port: the port, its cached state fresh.
 * @event: &enum npo_event.
 *
 * Faults go to the kernel log, naming the port, the peer and the lanes to
 * blame; every event goes to the netlink events group.  A training
 * failure is reported with the backoff that preceded it, so that a link
 * that keeps failing is warned about once.
 *
 * Context: process context, under &npo_dev.link_lock.
 */
void npo_health_port_event(struct npo_port *port, u32 event)
{
	trace_npo_port_event(port, event);
	npo_health_log_port(port, event);
	npo_genl_port_event(port, event);
	npo_link_health_event(port, event);
	npo_route_port_event(port, event);
}

/* --- the device ----------------------------------------------------------- */

/**
 * npo_health_dev_event() - report that a device failed or came back
 * @ndev: the device, its state the one after.
 * @fault: &enum npo_dev_fault it was stopped for, NPO_DEV_FAULT_NONE for a
 *	recovery.
 *
 * Context: process context, no device lock held.
 */
void npo_health_dev_event(struct npo_dev *ndev, enum npo_dev_fault fault)
{
	trace_npo_dev_event(ndev, fault, npo_state(ndev));
	npo_genl_dev_event(ndev, fault);
}

/*
 * The device is being stopped or reset: a mailbox command waiting for it
 * gets its answer now (none, -ENODEV) rather than a reset's stale status.
 */
static void npo_health_abort_commands(struct npo_dev *ndev)
{
	smp_wmb(); /* the state change before the count, see npo_mbox_run() */
	atomic_inc(&ndev->stops);
	complete(&ndev->mbox_done);
}

/*
 * Reset the device, hold it dead, and revoke every file's queues and
 * regions from a work (the caller may hold a file's lock, or be an
 * interrupt: the work also turns bus mastering off, which the PCI core
 * does not allow from one).
 */
static void npo_health_stop(struct npo_dev *ndev, bool recoverable)
{
	npo_wr32(ndev, NPO_REG_CONTROL, NPO_CONTROL_RESET);
	if (npo_state(ndev) != NPO_DEV_STATE_DEAD)
		npo_err(ndev, "device stopped: bus mastering off, reset, %s\n",
			recoverable ? "held dead until recovered" :
				      "held dead until an operator recovers it");
	npo_set_state(ndev, NPO_DEV_STATE_DEAD);
	npo_health_abort_commands(ndev);
	get_device(&ndev->dev);
	if (!schedule_work(&ndev->dead_work))
		put_device(&ndev->dev);
}

/* Remember why, for the report once the files' queues are revoked. */
static void npo_health_set_pending(struct npo_dev *ndev,
				   enum npo_dev_fault fault)
{
	unsigned long flags;

	spin_lock_irqsave(&ndev->fwh.lock, flags);
	if (ndev->fwh.pending == NPO_DEV_FAULT_NONE)
		ndev->fwh.pending = fault;
	spin_unlock_irqrestore(&ndev->fwh.lock, flags);
}

/**
 * npo_health_fatal() - the device reported a fatal error
 * @ndev: the device.
 *
 * The device stops at once; the fault is then reported to devlink, which
 * restarts the device (npo_health_restart()).  A firmware assert leaves a
 * crash record, read here before anything else touches the device.
 *
 * Context: hard interrupt.
 */
void npo_health_fatal(struct npo_dev *ndev)
{
	enum npo_dev_fault fault = NPO_DEV_FAULT_FATAL;
	u32 cause = NPO_FATAL_NONE;

	/* FATAL_CAUSE and the crash record came with interface 1.8. */
	if (FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
	    NPO_IF_MINOR_FW_HEALTH)
		cause = npo_rd32(ndev, NPO_REG_FATAL_CAUSE);

	if (cause == NPO_FATAL_FW_ASSERT) {
		fault = NPO_DEV_FAULT_FW_ASSERT;
		npo_fw_health_read_crash(ndev);
		npo_err(ndev, "firmware asserted: reason 0x%x at pc 0x%x\n",
			ndev->fwh.crash.reason, ndev->fwh.crash.pc);
	} else if (cause == NPO_FATAL_PARITY) {
		fault = NPO_DEV_FAULT_PARITY;
		npo_err(ndev, "uncorrectable parity error in the queue engine\n");
	} else {
		npo_err(ndev, "device reported a fatal error (cause %u)\n",
			cause);
	}
	npo_health_set_pending(ndev, fault);
	npo_health_stop(ndev, true);
}

/**
 * npo_health_fail() - stop a device found failing, and report it
 * @ndev: the device.
 * @fault: what was found.
 *
 * As a fatal interrupt does: stopped now, reported to devlink and
 * restarted once every file's queues are revoked.
 *
 * Context: process context; the caller logged what it found.
 */
void npo_health_fail(struct npo_dev *ndev, enum npo_dev_fault fault)
{
	npo_health_set_pending(ndev, fault);
	pci_clear_master(ndev->pdev);
	npo_health_stop(ndev, true);
}

/**
 * npo_health_quarantine() - stop a device that may still reach memory
 * @ndev: the device.
 *
 * When the device failed, or did not confirm that it let go of memory it
 * was given (a destroy it refused, a command that timed out), nothing it
 * was given may be freed until it can no longer reach memory: its bus
 * mastering goes off, it is reset and held dead.  Afterwards every file's
 * queues and regions can be freed without telling it.  It is reported to
 * devlink's "fw" reporter, which leaves it to an operator: devlink health
 * recover, a new probe or a PCIe error recovery brings it back.
 *
 * Context: process context; the caller logged why.
 */
void npo_health_quarantine(struct npo_dev *ndev)
{
	npo_health_set_pending(ndev, NPO_DEV_FAULT_UNANSWERED);
	pci_clear_master(ndev->pdev);
	npo_health_stop(ndev, false);
}

/**
 * npo_health_stop_stuck() - stop a device whose PCIe recovery outlasts a close
 * @ndev: the device, still resetting after a close waited for it.
 *
 * A close frees what its file gave the device; the recovery that would
 * have stopped the device first has not ended.  Stop it here, as far as
 * the platform lets us reach it.
 *
 * Context: process context, under &npo_dev.remove_lock (read).
 */
void npo_health_stop_stuck(struct npo_dev *ndev)
{
	struct pci_dev *pdev = ndev->pdev;

	/*
	 * A channel the PCI core holds offline (AER froze it, DPC took the
	 * port down) carries nothing from the device until the reset that
	 * also ends its queues: its memory may go, and its configuration
	 * space could not be reached to say so anyway.
	 */
	if (!pdev || pci_channel_offline(pdev))
		return;
	/*
	 * A restart under way (resume) stopped the device and revoked the
	 * files' memory before it starts it again: leave it be.
	 */
	if (!mutex_trylock(&ndev->recover_lock))
		return;
	if (npo_state(ndev) == NPO_DEV_STATE_RESETTING) {
		npo_err(ndev, "PCIe recovery still running: bus mastering off and a reset before a close frees memory\n");
		pci_clear_master(pdev);
		npo_wr32(ndev, NPO_REG_CONTROL, NPO_CONTROL_RESET);
	}
	mutex_unlock(&ndev->recover_lock);
}

/**
 * npo_health_gone() - whether the device left the bus, stopping it if so
 * @ndev: the device; a read of one of its registers just gave all ones.
 *
 * A card that falls off the bus (power lost, its PCIe link down, pulled
 * from a hot-plug slot before the operator said so) answers every read
 * with all ones, does no DMA and raises no interrupt, long before the PCI
 * core removes it.  Whoever reads all ones asks here: if the configuration
 * space is gone too, the device is held dead, every waiter is told at once
 * (the mailbox's, and every file's queues are revoked) and the fault is
 * reported, not recovered: the removal that follows ends it.  A register
 * that merely holds all ones leaves the device alone.
 *
 * Context: process context.
 * Return: true if the device is gone.
 */
bool npo_health_gone(struct npo_dev *ndev)
{
	unsigned long flags;
	bool was;

	if (READ_ONCE(ndev->gone))
		return true;
	if (!ndev->pdev)
		return false;
	/*
	 * Gone if the PCI core says so (hot-plug or DPC found it
	 * disconnected), or if its configuration space is gone too.  While
	 * AER or DPC holds the link down for a recovery, reads are all ones
	 * as well: the recovery, not this, decides what comes of it.
	 */
	if (!pci_dev_is_disconnected(ndev->pdev) &&
	    (pci_channel_offline(ndev->pdev) ||
	     pci_device_is_present(ndev->pdev)))
		return false;
	/* Two readers may find it at once: one of them stops it. */
	spin_lock_irqsave(&ndev->fwh.lock, flags);
	was = ndev->gone;
	WRITE_ONCE(ndev->gone, true);
	spin_unlock_irqrestore(&ndev->fwh.lock, flags);
	if (was)
		return true;
	npo_err(ndev, "device left the bus: it reads all ones; held dead until removed\n");
	npo_health_set_pending(ndev, NPO_DEV_FAULT_GONE);
	npo_health_stop(ndev, false);
	return true;
}

/*
 * A stopped device does no DMA and answers no command: end every open
 * file's queues and regions without telling it, so that processes see
 * their queues revoked (NPO_QSTAT_REVOKED) rather than wait on them.
 */
static void npo_health_dead_work(struct work_struct *work)
{
	struct npo_dev *ndev = container_of(work, struct npo_dev, dead_work);

	down_read(&ndev->remove_lock);
	/* Removed meanwhile: removal released everything already. */
	if (ndev->pdev) {
		pci_clear_master(ndev->pdev);
		npo_files_release_dead(ndev);
		/* The reset ended every PRBS test: their requesters hear now. */
		npo_link_end_tests(ndev);
	}
	up_read(&ndev->remove_lock);
	/*
	 * Contained: now say what happened; devlink recovers it, unless
	 * the grace period or the fault (an unanswered command) says not.
	 */
	npo_fw_health_report(ndev);
	put_device(&ndev->dev);
}

/*
 * Stop the device, end every file's queues and regions, and start it
 * again from its firmware.  The caller holds &npo_dev.recover_lock.
 */
static int npo_health_restart_locked(struct npo_dev *ndev)
{
	struct pci_dev *pdev = ndev->pdev;
	int err;

	npo_set_state(ndev, NPO_DEV_STATE_RESETTING);
	trace_npo_recovery_step(ndev, "quiesce", 0);
	/*
	 * The device must not reach memory from here on: a queue destroyed
	 * now is freed without telling it (npo_mbox_release()).  Turning
	 * bus mastering off is not enough for that: a device may keep the
	 * translations it cached (hardware.rst), so it is reset before any
	 * command is ended, and thus before anything it held is freed.
	 */
	pci_clear_master(pdev);
	trace_npo_recovery_step(ndev, "reset", 0);
	npo_wr32(ndev, NPO_REG_CONTROL, NPO_CONTROL_RESET);
	/*
	 * A command already sent to a hung device gets no answer: end it
	 * now, so that the link and refusal work waited for below do not
	 * wait out the mailbox timeout.  Later ones are refused (resetting).
	 */
	npo_health_abort_commands(ndev);
	npo_link_stop(ndev);
	/* Refusals read now could name queues the restart frees and reuses. */
	cancel_work_sync(&ndev->refusal_work);
	npo_queue_error_cancel(ndev);
	trace_npo_recovery_step(ndev, "revoke", 0);
	npo_files_release_dma(ndev, false);
	pci_set_master(pdev);
	trace_npo_recovery_step(ndev, "start", 0);
	err = npo_hw_start(ndev, true);
	/* A firmware that did not load is no recovery. */
	if (!err && npo_state(ndev) != NPO_DEV_STATE_READY)
		err = -EIO;
	trace_npo_recovery_step(ndev, err ? "failed" : "ready", err);
	return err;
}

/**
 * npo_health_restart() - restart a device: devlink's recovery
 * @ndev: the device.
 *
 * Processes see their queues revoked and can create new ones once the
 * device is ready again.
 *
 * Context: process context.
 * Return: 0 if the device came back, a negative errno otherwise (-ENODEV
 * if it is being removed).
 */
int npo_health_restart(struct npo_dev *ndev)
{
	int err = -ENODEV;

	mutex_lock(&ndev->recover_lock);
	down_read(&ndev->remove_lock);
	/* Not once the device is shut down, going away or gone. */
	if (ndev->pdev && !READ_ONCE(ndev->fwh.stopped) &&
	    !READ_ONCE(ndev->gone))
		err = npo_health_restart_locked(ndev);
	up_read(&ndev->remove_lock);
	mutex_unlock(&ndev->recover_lock);
	if (err)
		npo_err(ndev, "restart failed (%pe)\n", ERR_PTR(err));
	else
		npo_info(ndev, "restarted, %s\n",
			 npo_state_str(npo_state(ndev)));
	if (err != -ENODEV)
		npo_health_dev_event(ndev, err ? NPO_DEV_FAULT_RECOVERY_FAILED :
						 NPO_DEV_FAULT_NONE);
	return err;
}

/**
 * npo_health_init() - prepare the device's health state
 * @ndev: the device, being allocated.
 */
void npo_health_init(struct npo_dev *ndev)
{
	INIT_WORK(&ndev->dead_work, npo_health_dead_work);
	mutex_init(&ndev->recover_lock);
	ratelimit_state_init(&ndev->pcie_log, 10 * HZ, 5);
	atomic_set(&ndev->stops, 0);
	npo_fw_health_init(ndev);
	npo_queue_health_init(ndev);
}

static pci_ers_result_t npo_error_detected(struct pci_dev *pdev,
					   pci_channel_state_t state)
{
	struct npo_dev *ndev = pci_get_drvdata(pdev);

	npo_err(ndev, "PCIe error reported, channel %s\n",
		state == pci_channel_io_normal ? "normal" :
		state == pci_channel_io_frozen ? "frozen" : "permanently failed");
	if (state == pci_channel_io_perm_failure) {
		/*
		 * The platform gave up on the link: nothing brings the device
		 * back but a new probe.  Stop it as far as it can still be
		 * reached (a reset, then bus mastering off from the work) and
		 * revoke every file's queues and regions, so that nothing a
		 * close frees later is still the device's.
		 */
		spin_lock_irq(&ndev->fwh.lock);
		WRITE_ONCE(ndev->gone, true);
		spin_unlock_irq(&ndev->fwh.lock);
		npo_health_set_pending(ndev, NPO_DEV_FAULT_PCIE);
		npo_health_stop(ndev, false);
		return PCI_ERS_RESULT_DISCONNECT;
	}
	npo_set_state(ndev, NPO_DEV_STATE_RESETTING);
	npo_link_stop(ndev);
	/* Refusals read now could name queues the recovery frees and reuses. */
	cancel_work_sync(&ndev->refusal_work);
	npo_queue_error_cancel(ndev);
	npo_health_dev_event(ndev, NPO_DEV_FAULT_PCIE);
	return state == pci_channel_io_normal ? PCI_ERS_RESULT_CAN_RECOVER :
						PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t npo_mmio_enabled(struct pci_dev *pdev)
{
	return PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t npo_slot_reset(struct pci_dev *pdev)
{
	struct npo_dev *ndev = pci_get_drvdata(pdev);

	pci_restore_state(pdev);
	pci_save_state(pdev);
	pci_set_master(pdev);
	if (npo_rd32(ndev, NPO_REG_MAGIC) != NPO_MAGIC) {
		npo_err(ndev, "device not accessible after reset\n");
		return PCI_ERS_RESULT_DISCONNECT;
	}
	return PCI_ERS_RESULT_RECOVERED;
}

static void npo_resume(struct pci_dev *pdev)
{
	struct npo_dev *ndev = pci_get_drvdata(pdev);
	int err;

	/*
	 * A non-fatal error resets nothing, and even after a reset the device
	 * must not reach memory while it is freed: stop it, end the files'
	 * queues and regions, then start it again from its firmware.  The
	 * PCI core holds the device lock: no removal runs meanwhile.
	 */
	mutex_lock(&ndev->recover_lock);
	err = npo_health_restart_locked(ndev);
	mutex_unlock(&ndev->recover_lock);
	if (err)
		npo_err(ndev, "not recovered from PCIe error (%pe)\n",
			ERR_PTR(err));
	else
		npo_info(ndev, "recovered from PCIe error, %s\n",
			 npo_state_str(npo_state(ndev)));
	if (!err)
		npo_fw_health_recovered(ndev);
	npo_health_dev_event(ndev, err ? NPO_DEV_FAULT_RECOVERY_FAILED :
					 NPO_DEV_FAULT_NONE);
}

#ifdef NPO_HAVE_COR_ERROR_DETECTED
/*
 * A corrected error costs a replay, not data: count it and say so, at a
 * rate a flaky slot cannot turn into a flood.  The PCI core counts them
 * by type too (aer_dev_correctable), on every kernel.
 */
static void npo_cor_error_detected(struct pci_dev *pdev)
{
	struct npo_dev *ndev;
	u64 n;

	/*
	 * Unlike the other handlers this one runs without the device lock:
	 * take it, so that a removal cannot free the device under us.  While
	 * probe or remove holds it, the PCI core's count is all there is.
	 */
	if (!device_trylock(&pdev->dev))
		return;
	ndev = pci_get_drvdata(pdev);
	if (ndev) {
		n = atomic64_inc_return(&ndev->pcie_correctable);
		if (__ratelimit(&ndev->pcie_log))
			npo_warn(ndev, "node %u: correctable PCIe error (%llu so far)\n",
				 ndev->node_id, n);
	}
	device_unlock(&pdev->dev);
}
#endif

/*
 * PCIe error recovery (AER): stop the links and hold the device while the
 * link is reset, check it answers, then start it again from its firmware.
 * The PCI core calls these one at a time, and never during probe or
 * remove (it holds the device lock).
 */
const struct pci_error_handlers npo_err_handlers = {
	.error_detected = npo_error_detected,
	.mmio_enabled = npo_mmio_enabled,
	.slot_reset = npo_slot_reset,
	.resume = npo_resume,
#ifdef NPO_HAVE_COR_ERROR_DETECTED
	.cor_error_detected = npo_cor_error_detected,
#endif
};
