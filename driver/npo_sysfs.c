// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO sysfs attributes of /sys/class/npo/npoN; see Documentation/admin.rst.
 * They show values read at probe or kept by the driver, so they stay
 * readable, without touching hardware, for as long as the device exists.
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "npo.h"
#include "npo_fw.h"
#include "npo_mbox.h"

static struct npo_dev *to_npo_dev(struct device *dev)
{
	return container_of(dev, struct npo_dev, dev);
}

static ssize_t serial_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%016llx\n", to_npo_dev(dev)->serial);
}
static DEVICE_ATTR_RO(serial);

static ssize_t node_id_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", to_npo_dev(dev)->node_id);
}
static DEVICE_ATTR_RO(node_id);

static ssize_t fw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	char v[32];

	npo_fw_version_str(v, sizeof(v), READ_ONCE(to_npo_dev(dev)->fw_version));
	return sysfs_emit(buf, "%s\n", v);
}
static DEVICE_ATTR_RO(fw_version);

static ssize_t fw_error_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct npo_dev *ndev = to_npo_dev(dev);
	ssize_t len;

	mutex_lock(&ndev->state_lock);
	len = sysfs_emit(buf, "%s\n", ndev->fw_error[0] ? ndev->fw_error : "none");
	mutex_unlock(&ndev->state_lock);
	return len;
}
static DEVICE_ATTR_RO(fw_error);

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n", npo_state_str(npo_state(to_npo_dev(dev))));
}
static DEVICE_ATTR_RO(state);

static ssize_t num_ports_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_npo_dev(dev)->num_ports);
}
static DEVICE_ATTR_RO(num_ports);

static ssize_t lanes_per_port_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_npo_dev(dev)->lanes_per_port);
}
static DEVICE_ATTR_RO(lanes_per_port);

static ssize_t num_queues_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_npo_dev(dev)->num_queues);
}
static DEVICE_ATTR_RO(num_queues);

static ssize_t hw_if_version_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	u32 v = to_npo_dev(dev)->hw_if_version;
	u32 major = FIELD_GET(NPO_IF_VERSION_MAJOR, v);
	u32 minor = FIELD_GET(NPO_IF_VERSION_MINOR, v);

	return sysfs_emit(buf, "%u.%u\n", major, minor);
}
static DEVICE_ATTR_RO(hw_if_version);

static struct attribute *npo_dev_attrs[] = {
	&dev_attr_serial.attr,
	&dev_attr_node_id.attr,
	&dev_attr_fw_version.attr,
	&dev_attr_fw_error.attr,
	&dev_attr_state.attr,
	&dev_attr_num_ports.attr,
	&dev_attr_lanes_per_port.attr,
	&dev_attr_num_queues.attr,
	&dev_attr_hw_if_version.attr,
	NULL
};

static const struct attribute_group npo_dev_group = {
	.attrs = npo_dev_attrs,
};

/*
 * flash/: the firmware flash as the device last said (npo_fw_flash.c), on
 * devices that have one.
 */
static u32 npo_flash_state(struct device *dev)
{
	return READ_ONCE(to_npo_dev(dev)->flash.state);
}

static ssize_t running_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	static const char * const from[] = {
		[NPO_FW_FROM_NONE] = "none",
		[NPO_FW_FROM_SLOT_A] = "a",
		[NPO_FW_FROM_SLOT_B] = "b",
		[NPO_FW_FROM_HOST] = "host",
	};

	if (!READ_ONCE(to_npo_dev(dev)->fw_version))
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%s\n",
			  from[FIELD_GET(NPO_FLASH_STATE_RUNNING,
					 npo_flash_state(dev))]);
}
static DEVICE_ATTR_RO(running);

static ssize_t active_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	u32 slot = FIELD_GET(NPO_FLASH_STATE_ACTIVE, npo_flash_state(dev));

	return sysfs_emit(buf, "%s\n", npo_fw_slot_str(slot));
}
static DEVICE_ATTR_RO(active);

static ssize_t pending_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	u32 slot = FIELD_GET(NPO_FLASH_STATE_PENDING, npo_flash_state(dev));

	return sysfs_emit(buf, "%s\n", npo_fw_slot_str(slot));
}
static DEVICE_ATTR_RO(pending);

static ssize_t npo_slot_show(struct device *dev, char *buf, unsigned int i)
{
	char v[32];

	npo_fw_version_str(v, sizeof(v),
			   READ_ONCE(to_npo_dev(dev)->flash.slot_version[i]));
	return sysfs_emit(buf, "%s\n", v);
}

static ssize_t slot_a_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return npo_slot_show(dev, buf, 0);
}
static DEVICE_ATTR_RO(slot_a);

static ssize_t slot_b_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return npo_slot_show(dev, buf, 1);
}
static DEVICE_ATTR_RO(slot_b);

static ssize_t last_boot_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	u32 state = npo_flash_state(dev);

	if (!(state & NPO_FLASH_STATE_FELL_BACK))
		return sysfs_emit(buf, "ok\n");
	return sysfs_emit(buf, "slot %s did not boot: %s\n",
			  npo_fw_slot_str(FIELD_GET(NPO_FLASH_STATE_FAILED,
						    state)),
			  npo_mbox_result_str(FIELD_GET(NPO_FLASH_STATE_BOOT_ERROR,
							state)));
}
static DEVICE_ATTR_RO(last_boot);

static struct attribute *npo_flash_attrs[] = {
	&dev_attr_running.attr,
	&dev_attr_active.attr,
	&dev_attr_pending.attr,
	&dev_attr_slot_a.attr,
	&dev_attr_slot_b.attr,
	&dev_attr_last_boot.attr,
	NULL
};

static umode_t npo_flash_visible(struct kobject *kobj, struct attribute *attr,
				 int n)
{
	struct npo_dev *ndev = to_npo_dev(kobj_to_dev(kobj));

	return ndev->caps & NPO_CAPS_FLASH ? attr->mode : 0;
}

static const struct attribute_group npo_flash_group = {
	.name = "flash",
	.attrs = npo_flash_attrs,
	.is_visible = npo_flash_visible,
};

const struct attribute_group *npo_dev_groups[] = {
	&npo_dev_group,
	&npo_flash_group,
	NULL
};
