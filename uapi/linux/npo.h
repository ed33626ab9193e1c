/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * NPO supernode interconnect: character device UAPI.
 *
 * Conventions (see Documentation/uapi.rst):
 *  - every ioctl argument is a fixed-layout struct of fixed-width fields,
 *    naturally aligned, with explicit padding;
 *  - structs may grow at the end: the kernel dispatches on the ioctl number
 *    and takes the caller's size from the ioctl command, reads the fields the
 *    caller knows about, requires any newer fields it does not know to be
 *    zero, and writes back only as much as the caller's struct holds;
 *  - flags, pad and reserved fields must be zero, or the ioctl fails with
 *    -EINVAL, so that they can be given a meaning later;
 *  - an unknown ioctl fails with -ENOTTY.
 */
#ifndef _UAPI_LINUX_NPO_H
#define _UAPI_LINUX_NPO_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/** NPO_UAPI_VERSION - version of this interface, major << 16 | minor. */
#define NPO_UAPI_VERSION	((1 << 16) | 0)

#define NPO_IOCTL_MAGIC		0xB6

/**
 * enum npo_dev_state - driver's view of a device
 * @NPO_DEV_STATE_PROBING: probe in progress.
 * @NPO_DEV_STATE_READY: firmware running, device usable.
 * @NPO_DEV_STATE_FW_ERROR: firmware missing or rejected; the device is held
 *	safe (no links, no DMA) until a good image is loaded.
 * @NPO_DEV_STATE_RESETTING: a device reset is in progress.
 * @NPO_DEV_STATE_DEAD: the device stopped responding or reported a fatal
 *	error; only removal or a reset can recover it.
 */
enum npo_dev_state {
	NPO_DEV_STATE_PROBING = 0,
	NPO_DEV_STATE_READY = 1,
	NPO_DEV_STATE_FW_ERROR = 2,
	NPO_DEV_STATE_RESETTING = 3,
	NPO_DEV_STATE_DEAD = 4,
};

/* Device capabilities, reported in &npo_dev_info.caps and NPO_PARAM_CAPS. */
#define NPO_CAP_FW_MAILBOX	_BITULL(0)	/* firmware loaded via mailbox */
#define NPO_CAP_AER		_BITULL(1)	/* PCIe AER reporting */

/**
 * struct npo_dev_info - NPO_IOCTL_GET_INFO argument
 * @flags: In. Must be 0.
 * @pad: In. Must be 0.
 * @uapi_version: Out. NPO_UAPI_VERSION the driver implements.
 * @hw_if_version: Out. Register interface version, major << 16 | minor.
 * @caps: Out. NPO_CAP_* bits.
 * @serial: Out. Device serial number.
 * @node_id: Out. Fabric node id of this device.
 * @state: Out. &enum npo_dev_state.
 * @fw_version: Out. Running firmware, major << 24 | minor << 16 | patch,
 *	0 if none is running.
 * @num_ports: Out. Number of link ports.
 * @lanes_per_port: Out. Lanes in each port.
 * @num_queues: Out. Number of DMA queue pairs.
 * @pci_domain: Out. PCI domain of the device.
 * @pci_bus: Out. PCI bus number.
 * @pci_devfn: Out. PCI device and function, (dev << 3) | fn.
 * @pad2: Out. Zero.
 * @minor: Out. Index N of /dev/npoN.
 */
struct npo_dev_info {
	__u32 flags;
	__u32 pad;
	__u32 uapi_version;
	__u32 hw_if_version;
	__u64 caps;
	__u64 serial;
	__u32 node_id;
	__u32 state;
	__u32 fw_version;
	__u16 num_ports;
	__u16 lanes_per_port;
	__u32 num_queues;
	__u32 pci_domain;
	__u8 pci_bus;
	__u8 pci_devfn;
	__u16 pad2;
	__u32 minor;
};

/**
 * enum npo_param - facts queried one at a time with NPO_IOCTL_GET_PARAM
 * @NPO_PARAM_UAPI_VERSION: NPO_UAPI_VERSION.
 * @NPO_PARAM_HW_IF_VERSION: register interface version.
 * @NPO_PARAM_CAPS: NPO_CAP_* bits.
 * @NPO_PARAM_SERIAL: device serial number.
 * @NPO_PARAM_NODE_ID: fabric node id.
 * @NPO_PARAM_STATE: &enum npo_dev_state.
 * @NPO_PARAM_FW_VERSION: running firmware version, 0 if none.
 * @NPO_PARAM_NUM_PORTS: number of link ports.
 * @NPO_PARAM_LANES_PER_PORT: lanes in each port.
 * @NPO_PARAM_NUM_QUEUES: number of DMA queue pairs.
 * @NPO_PARAM_DOORBELL_STRIDE: bytes between two queues' doorbells.
 * @NPO_PARAM_NUM_IRQ_VECTORS: MSI-X vectors the driver enabled.
 *
 * Append only: a new fact gets a new number.
 */
enum npo_param {
	NPO_PARAM_UAPI_VERSION = 0,
	NPO_PARAM_HW_IF_VERSION = 1,
	NPO_PARAM_CAPS = 2,
	NPO_PARAM_SERIAL = 3,
	NPO_PARAM_NODE_ID = 4,
	NPO_PARAM_STATE = 5,
	NPO_PARAM_FW_VERSION = 6,
	NPO_PARAM_NUM_PORTS = 7,
	NPO_PARAM_LANES_PER_PORT = 8,
	NPO_PARAM_NUM_QUEUES = 9,
	NPO_PARAM_DOORBELL_STRIDE = 10,
	NPO_PARAM_NUM_IRQ_VECTORS = 11,
};

/**
 * struct npo_param_query - NPO_IOCTL_GET_PARAM argument
 * @param: In. &enum npo_param.
 * @index: In. Port or lane index for per-port facts; 0 otherwise.
 * @flags: In. Must be 0.
 * @pad: In. Must be 0.
 * @value: Out. The value.
 */
struct npo_param_query {
	__u32 param;
	__u32 index;
	__u32 flags;
	__u32 pad;
	__u64 value;
};

/** NPO_IOCTL_GET_INFO - describe the device, see &struct npo_dev_info. */
#define NPO_IOCTL_GET_INFO	_IOWR(NPO_IOCTL_MAGIC, 0x00, struct npo_dev_info)
/** NPO_IOCTL_GET_PARAM - query one fact, see &enum npo_param. */
#define NPO_IOCTL_GET_PARAM	_IOWR(NPO_IOCTL_MAGIC, 0x01, struct npo_param_query)

#endif /* _UAPI_LINUX_NPO_H */
