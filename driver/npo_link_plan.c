// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO cabling plan: each port may be told which peer it is cabled to.
 *
 * A cable in the wrong place trains like any other, and the fabric would
 * route data and follow a grandmaster through it.  Given the peer the
 * plan names for a port (npoctl topo check --apply), the driver compares
 * it with the peer the link trained with.  A port whose link reached
 * another is miswired: it is quarantined (P_CONTROL.QUARANTINE, interface
 * 1.16: the device sends no fabric data out of it), left out of the links
 * this device advertises for routing and out of fabric time (no time
 * message out, none taken in), and NPO_EVENT_MISWIRED names it.  The link
 * stays up, so that link messages, PRBS and the link report still work
 * and the peer it reached stays known to whoever recables it.  A link
 * that comes up as planned, or a plan cleared, takes the port back.
 */
#include <linux/bitfield.h>

#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_health.h"
#include "npo_link.h"
#include "npo_regs.h"

/**
 * npo_link_plan_quarantines() - whether the device can quarantine a port
 * @ndev: the device.
 *
 * Before interface 1.16 a miswired port is only left out of routing and
 * fabric time: the device still sends data for the peer across it.
 *
 * Return: true if it has CONTROL.QUARANTINE.
 */
bool npo_link_plan_quarantines(const struct npo_dev *ndev)
{
	return FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) >=
	       NPO_IF_MINOR_QUARANTINE;
}

/**
 * npo_port_control_plan() - the P_CONTROL bits the plan asks for
 * @port: the port.
 *
 * Return: %NPO_PCTL_QUARANTINE for a miswired port of a device that has
 * it, else 0.
 */
u32 npo_port_control_plan(const struct npo_port *port)
{
	return port->plan.miswired && npo_link_plan_quarantines(port->ndev) ?
	       NPO_PCTL_QUARANTINE : 0;
}

/**
 * npo_port_miswired() - whether a port is quarantined as miswired
 * @port: the port.
 *
 * Context: any; routing and time sync read it without &npo_dev.link_lock.
 * Return: true while its link's peer is not the one planned.
 */
bool npo_port_miswired(const struct npo_port *port)
{
	return READ_ONCE(port->plan.miswired);
}

/*
 * The peer the port trained with is not the planned one.  With no peer
 * known (a cable pulled) the port stays as it was: the cable plugged in
 * next is judged when its link comes up.
 */
static bool npo_link_plan_broken(const struct npo_port *port)
{
	if (!port->plan.set)
		return false;
	if (!port->peer_valid)
		return port->plan.miswired;
	return port->peer_node != port->plan.node ||
	       port->peer_port != port->plan.port;
}

/**
 * npo_link_plan_check() - quarantine or release a port by its plan
 * @port: the port, its peer fields just refreshed.
 *
 * A change is written to the device and reported (NPO_EVENT_MISWIRED, the
 * log, routing).  The port stays quarantined while its link is down, also
 * with the cable pulled: it is released when a link comes up with the
 * planned peer, or the plan goes.
 *
 * Context: under &npo_dev.link_lock, with the device present.
 */
void npo_link_plan_check(struct npo_port *port)
{
	struct npo_dev *ndev = port->ndev;
	bool miswired = npo_link_plan_broken(port);

	lockdep_assert_held(&ndev->link_lock);
	if (miswired == port->plan.miswired)
		return;
	WRITE_ONCE(port->plan.miswired, miswired);
	/*
	 * Only the bit: a port held out of service (a failed self-test)
	 * stays as it is, and nothing retrains.
	 */
	if (ndev->link_running && npo_link_plan_quarantines(ndev)) {
		u32 ctl = npo_port_rd(port, NPO_P_CONTROL) &
			  ~(NPO_PCTL_QUARANTINE | NPO_PCTL_RETRAIN);

		npo_port_wr(port, NPO_P_CONTROL,
			    ctl | npo_port_control_plan(port));
	}
	npo_health_port_event(port, NPO_EVENT_MISWIRED);
}

/**
 * npo_link_plan_set() - tell a port which peer it is cabled to
 * @port: the port.
 * @set: false to forget the plan (the port is then never miswired).
 * @node: the planned peer's node id.
 * @peer_port: the planned peer's port.
 *
 * Context: process context, with the device present; takes
 * &npo_dev.link_lock.
 */
void npo_link_plan_set(struct npo_port *port, bool set, u32 node,
		       u8 peer_port)
{
	mutex_lock(&port->ndev->link_lock);
	port->plan.set = set;
	port->plan.node = set ? node : 0;
	port->plan.port = set ? peer_port : 0;
	npo_link_plan_check(port);
	mutex_unlock(&port->ndev->link_lock);
}
