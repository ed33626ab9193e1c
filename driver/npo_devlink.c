// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO devlink instance: one per device, named after its PCI function, as
 * iproute2's devlink shows it.  It describes the device (`devlink dev
 * info`), lists its link ports (`devlink port`), updates its firmware
 * (`devlink dev flash`, `devlink dev reload action fw_activate`;
 * npo_fw_flash.c) and carries the health reporters: the device's "fw"
 * (npo_fw_health.c) and each port's "link" (npo_link_health.c).
 */
#include <linux/firmware.h>
#include <linux/pci.h>
#include <net/devlink.h>

#include "npo.h"
#include "npo_fw.h"
#include "npo_health.h"

struct npo_devlink {
	struct npo_dev *ndev;
};

static struct npo_dev *npo_devlink_dev(struct devlink *devlink)
{
	return ((struct npo_devlink *)devlink_priv(devlink))->ndev;
}

/*
 * Stored: "fw" is what the next reset boots, "fw.slot_a" and "fw.slot_b"
 * what each slot holds; a slot that is erased or damaged is left out.
 */
static int npo_devlink_info_flash(struct npo_dev *ndev,
				  struct devlink_info_req *req)
{
	static const char * const names[] = { "fw.slot_a", "fw.slot_b" };
	unsigned int next, i;
	char buf[32];
	u32 state, v;
	int err;

	if (!(ndev->caps & NPO_CAPS_FLASH))
		return 0;
	npo_fw_flash_refresh(ndev);
	state = READ_ONCE(ndev->flash.state);
	next = npo_fw_flash_next(state);
	v = next ? READ_ONCE(ndev->flash.slot_version[next - 1]) : 0;
	if (v) {
		npo_fw_version_str(buf, sizeof(buf), v);
		err = devlink_info_version_stored_put(req,
						      DEVLINK_INFO_VERSION_GENERIC_FW,
						      buf);
		if (err)
			return err;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		v = READ_ONCE(ndev->flash.slot_version[i]);
		if (!v)
			continue;
		npo_fw_version_str(buf, sizeof(buf), v);
		err = devlink_info_version_stored_put(req, names[i], buf);
		if (err)
			return err;
	}
	return 0;
}

static int npo_devlink_info_get(struct devlink *devlink,
				struct devlink_info_req *req,
				struct netlink_ext_ack *extack)
{
	struct npo_dev *ndev = npo_devlink_dev(devlink);
	u32 fw = READ_ONCE(ndev->fw_version);
	char buf[32];
	int err;

#ifdef NPO_DEVLINK_DRIVER_NAME_PUT
	err = devlink_info_driver_name_put(req, NPO_DRIVER_NAME);
	if (err)
		return err;
#endif
	snprintf(buf, sizeof(buf), "%016llx", ndev->serial);
	err = devlink_info_serial_number_put(req, buf);
	if (err)
		return err;
	/* What the board is: its geometry, which a replacement must match. */
	snprintf(buf, sizeof(buf), "npo-%ux%u", ndev->num_ports,
		 ndev->lanes_per_port);
	err = devlink_info_version_fixed_put(req,
					     DEVLINK_INFO_VERSION_GENERIC_BOARD_ID,
					     buf);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%04x", ndev->pdev ?
		 ndev->pdev->device : 0);
	err = devlink_info_version_fixed_put(req,
					     DEVLINK_INFO_VERSION_GENERIC_ASIC_ID,
					     buf);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%lu.%lu",
		 FIELD_GET(NPO_IF_VERSION_MAJOR, ndev->hw_if_version),
		 FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version));
	err = devlink_info_version_fixed_put(req,
					     DEVLINK_INFO_VERSION_GENERIC_ASIC_REV,
					     buf);
	if (err)
		return err;
	/* Loud where it matters: a fabric nobody signs for (admin.rst). */
	err = devlink_info_version_running_put(req, "fabric.auth",
					       npo_fkey_enabled(ndev) ?
					       "hmac-sha256" : "none");
	if (err)
		return err;
	err = npo_devlink_info_flash(ndev, req);
	if (err)
		return err;
	/* No firmware runs after a failed load or a crash: say nothing. */
	if (!fw)
		return 0;
	npo_fw_version_str(buf, sizeof(buf), fw);
	return devlink_info_version_running_put(req,
						DEVLINK_INFO_VERSION_GENERIC_FW,
						buf);
}

static int npo_devlink_flash_update(struct devlink *devlink,
				    struct devlink_flash_update_params *params,
				    struct netlink_ext_ack *extack)
{
	return npo_fw_flash_update(npo_devlink_dev(devlink), params->fw, extack);
}

static int npo_devlink_reload_down(struct devlink *devlink, bool netns_change,
				   enum devlink_reload_action action,
				   enum devlink_reload_limit limit,
				   struct netlink_ext_ack *extack)
{
	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack, "NPO devices do not change network namespace");
		return -EOPNOTSUPP;
	}
	return npo_fw_flash_can_activate(npo_devlink_dev(devlink), extack);
}

static int npo_devlink_reload_up(struct devlink *devlink,
				 enum devlink_reload_action action,
				 enum devlink_reload_limit limit,
				 u32 *actions_performed,
				 struct netlink_ext_ack *extack)
{
	int err = npo_fw_flash_activate(npo_devlink_dev(devlink), extack);

	if (!err)
		*actions_performed = BIT(DEVLINK_RELOAD_ACTION_FW_ACTIVATE);
	return err;
}

static const struct devlink_ops npo_devlink_ops = {
	.info_get = npo_devlink_info_get,
	.flash_update = npo_devlink_flash_update,
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_FW_ACTIVATE),
	.reload_down = npo_devlink_reload_down,
	.reload_up = npo_devlink_reload_up,
};

/**
 * npo_devlink_alloc() - allocate the device's devlink instance
 * @ndev: the device, its PCI function known.
 *
 * Return: 0 or -ENOMEM.
 */
int npo_devlink_alloc(struct npo_dev *ndev)
{
	struct devlink *devlink;

	devlink = devlink_alloc(&npo_devlink_ops, sizeof(struct npo_devlink),
				&ndev->pdev->dev);
	if (!devlink)
		return -ENOMEM;
	((struct npo_devlink *)devlink_priv(devlink))->ndev = ndev;
	ndev->devlink = devlink;
	return 0;
}

static void npo_devlink_ports_unregister(struct npo_dev *ndev,
					 unsigned int count)
{
	while (count--) {
		/* devlink wants a port untyped before it goes. */
		devlink_port_type_clear(&ndev->dl_ports[count]);
		devlink_port_unregister(&ndev->dl_ports[count]);
	}
	kfree(ndev->dl_ports);
	ndev->dl_ports = NULL;
}

static int npo_devlink_ports_register(struct npo_dev *ndev)
{
	struct devlink_port_attrs attrs = {
		.flavour = DEVLINK_PORT_FLAVOUR_PHYSICAL,
	};
	unsigned int i;
	int err;

	if (!ndev->num_ports)
		return 0;
	ndev->dl_ports = kcalloc(ndev->num_ports, sizeof(*ndev->dl_ports),
				 GFP_KERNEL);
	if (!ndev->dl_ports)
		return -ENOMEM;
	for (i = 0; i < ndev->num_ports; i++) {
		attrs.phys.port_number = i;
		devlink_port_attrs_set(&ndev->dl_ports[i], &attrs);
		err = devlink_port_register(ndev->devlink, &ndev->dl_ports[i], i);
		if (err) {
			npo_devlink_ports_unregister(ndev, i);
			return err;
		}
		/*
		 * The fabric's ports carry RDMA-like traffic and no netdev:
		 * typed ib (with no ib_device, which devlink allows) they
		 * show as what they are nearest to, and devlink does not
		 * warn an hour later that a physical port has no type.
		 */
		devlink_port_type_ib_set(&ndev->dl_ports[i], NULL);
	}
	return 0;
}

/**
 * npo_devlink_register() - make the instance, its ports and reporters seen
 * @ndev: the device, started.
 *
 * Return: 0 or a negative errno; nothing is left registered on failure.
 */
int npo_devlink_register(struct npo_dev *ndev)
{
	int err;

	err = npo_devlink_ports_register(ndev);
	if (err)
		return err;
	err = npo_fw_health_create(ndev);
	if (err)
		goto err_ports;
	err = npo_link_health_create(ndev);
	if (err)
		goto err_fw;
	err = npo_queue_health_create(ndev);
	if (err)
		goto err_link;
	err = npo_clock_health_create(ndev);
	if (err)
		goto err_queue;
#ifdef NPO_DEVLINK_SET_FEATURES
	devlink_set_features(ndev->devlink, DEVLINK_F_RELOAD);
#endif
	devlink_register(ndev->devlink);
	/* devlink hears of links from here on, not before it shows them. */
	npo_link_health_start(ndev);
	npo_queue_health_start(ndev);
	npo_clock_health_start(ndev);
	return 0;

err_queue:
	npo_queue_health_destroy(ndev);
err_link:
	npo_link_health_destroy(ndev);
err_fw:
	npo_fw_health_destroy(ndev);
err_ports:
	npo_devlink_ports_unregister(ndev, ndev->num_ports);
	return err;
}

/**
 * npo_devlink_unregister() - undo npo_devlink_register()
 * @ndev: the device, its health watch stopped.
 *
 * Waits for devlink operations in progress on the device.
 */
void npo_devlink_unregister(struct npo_dev *ndev)
{
	npo_link_health_stop(ndev);
	npo_queue_health_stop(ndev);
	npo_clock_health_stop(ndev);
	devlink_unregister(ndev->devlink);
	npo_clock_health_destroy(ndev);
	npo_queue_health_destroy(ndev);
	npo_link_health_destroy(ndev);
	npo_fw_health_destroy(ndev);
	npo_devlink_ports_unregister(ndev, ndev->num_ports);
}

/**
 * npo_devlink_free() - free the devlink instance
 * @ndev: the device, its instance unregistered or never registered.
 */
void npo_devlink_free(struct npo_dev *ndev)
{
	if (ndev->devlink)
		devlink_free(ndev->devlink);
	ndev->devlink = NULL;
}
