// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO sysfs attributes of /sys/class/npo/npoN; see Documentation/admin.rst.
 * They show values read at probe or kept by the driver, so they stay
 * readable, without touching hardware, for as long as the device exists.
 */
#include <linux/device.h>
#include <linux/sysfs.h>
#include <uapi/linux/npo_fw.h>

#include "npo.h"

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
	u32 v = READ_ONCE(to_npo_dev(dev)->fw_version);

	if (!v)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%u.%u.%u\n", NPO_FW_VERSION_MAJOR(v),
			  NPO_FW_VERSION_MINOR(v), NPO_FW_VERSION_PATCH(v));
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
	return sysfs_emit(buf, "%s\n", npo_state_name(npo_state(to_npo_dev(dev))));
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

const struct attribute_group *npo_dev_groups[] = {
	&npo_dev_group,
	NULL
};
