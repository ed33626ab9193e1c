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

/**
 * NPO_UAPI_VERSION - version of this interface, major << 16 | minor.
 *
 * The minor grows with what a caller of the same major may ignore; the
 * major when a layout shared with userspace changes (2: 64-bit remote keys
 * in descriptors and registrations, jobs).
 */
#define NPO_UAPI_VERSION	((2 << 16) | 3)

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
#define NPO_CAP_QUEUES		_BITULL(2)	/* DMA queues and memory regions */

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
 * @NPO_PARAM_PORT_STATE: port @index's link state, &enum npo_port_state of
 *	<linux/npo_netlink.h>.
 * @NPO_PARAM_PORT_PEER_NODE: node id of port @index's peer; -ENOLINK while
 *	no peer is known.
 * @NPO_PARAM_PORT_PEER_PORT: the peer's port number; -ENOLINK likewise.
 * @NPO_PARAM_PORT_RATE_MBPS: port @index's lane rate in Mb/s, 0 when down.
 * @NPO_PARAM_PORT_WIDTH: port @index's lanes in use, 0 when down.
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
	NPO_PARAM_PORT_STATE = 12,
	NPO_PARAM_PORT_PEER_NODE = 13,
	NPO_PARAM_PORT_PEER_PORT = 14,
	NPO_PARAM_PORT_RATE_MBPS = 15,
	NPO_PARAM_PORT_WIDTH = 16,
};

/**
 * struct npo_param_query - NPO_IOCTL_GET_PARAM argument
 * @param: In. &enum npo_param.
 * @index: In. Port number for NPO_PARAM_PORT_*; 0 otherwise.
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

/*
 * Ring sizes: powers of two, at most NPO_MAX_RING_ENTRIES entries each, and
 * the ring memory (a 4 KiB header, then 64 bytes per SQ entry, 32 per CQ
 * entry and 32 per RQ entry, rounded up to pages) at most NPO_MAX_RING_BYTES,
 * the largest contiguous allocation Linux makes.
 */
#define NPO_MAX_RING_ENTRIES	32768
#define NPO_MAX_RING_BYTES	(4u << 20)

/**
 * struct npo_queue_create - NPO_IOCTL_CREATE_QUEUE argument
 * @flags: In. NPO_QUEUE_CREATE_* bits; others must be 0.
 * @sq_entries: In. Submission ring entries, a power of two.
 * @cq_entries: In. Completion ring entries, a power of two no smaller than
 *	@sq_entries.
 * @queue_id: Out. Queue number on the device: the dest_queue other queues
 *	name to reach this one.
 * @ring_offset: Out. mmap() offset of the ring memory (header, SQ, CQ).
 * @ring_size: Out. Bytes to map at @ring_offset.
 * @doorbell_offset: Out. mmap() offset of the queue's doorbell page.
 * @doorbell_size: Out. Bytes to map at @doorbell_offset.
 * @sq_offset: Out. Offset of the submission ring in the ring memory.
 * @cq_offset: Out. Offset of the completion ring in the ring memory.
 * @node_id: Out. Fabric node id of the device: the dest_node of loopback.
 * @eventfd: In. With NPO_QUEUE_CREATE_EVENTFD, an eventfd the queue's
 *	completion interrupt signals once armed through the CQ_ARM doorbell;
 *	else must be 0.
 * @rq_entries: In. Receive ring entries for SEND, a power of two; 0 for a
 *	queue that receives no SENDs (it gets one entry).
 * @rq_offset: Out. Offset of the receive ring in the ring memory.
 * @rsvd: In. Write 0; ignored (interface 2.1; before, implicit padding
 *	that made the struct 68 bytes on i386 and 72 on x86-64, which
 *	callers built then may have left uninitialised).
 *
 * The ring header layout, the entry formats and the doorbell registers are
 * in <linux/npo_queue.h>.  The queue belongs to the open file's protection
 * domain and job, and goes away with the file.
 */
struct npo_queue_create {
	__u32 flags;
	__u32 sq_entries;
	__u32 cq_entries;
	__u32 queue_id;
	__u64 ring_offset;
	__u64 ring_size;
	__u64 doorbell_offset;
	__u32 doorbell_size;
	__u32 sq_offset;
	__u32 cq_offset;
	__u32 node_id;
	__s32 eventfd;
	__u32 rq_entries;
	__u32 rq_offset;
	__u32 rsvd;
};

/* npo_queue_create.flags */
#define NPO_QUEUE_CREATE_EVENTFD	_BITUL(0)

/**
 * struct npo_queue_destroy - NPO_IOCTL_DESTROY_QUEUE argument
 * @queue_id: In. A queue this file created.
 * @flags: In. Must be 0.
 *
 * The device stops the queue before the ioctl returns; mappings of its
 * rings and doorbell are revoked: from then on they show a stand-in page,
 * whose ring status reads NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED, and writes
 * to them reach nothing.
 */
struct npo_queue_destroy {
	__u32 queue_id;
	__u32 flags;
};

/**
 * struct npo_mr_reg - NPO_IOCTL_REG_MR argument
 * @flags: In. Must be 0.
 * @access: In. NPO_ACCESS_* rights (<linux/npo_queue.h>); local read is
 *	always allowed.
 * @addr: In. Start of the memory in the caller's address space; also the
 *	address descriptors use for it.
 * @length: In. Bytes, at least 1.
 * @lkey: Out. Local key: names the region in this file's descriptors
 *	(&struct npo_sqe.local_key, &struct npo_rqe.key) and to
 *	NPO_IOCTL_DEREG_MR.
 * @pad: Out. Zero.
 * @rkey: Out. Remote key: names the region in other queues' descriptors
 *	(&struct npo_sqe.remote_key), on this device or across the fabric,
 *	within the rights @access grants and only for queues of the same job
 *	(NPO_IOCTL_SET_JOB).  48 of its bits are random.
 *
 * The pages are pinned and count against RLIMIT_MEMLOCK (unless the caller
 * has CAP_IPC_LOCK).  Memory that is not mapped, or not writable when
 * @access includes a write or atomic right, fails with EFAULT.  The region
 * belongs to the file's job as it is at registration.
 */
struct npo_mr_reg {
	__u32 flags;
	__u32 access;
	__u64 addr;
	__u64 length;
	__u32 lkey;
	__u32 pad;
	__u64 rkey;
};

/**
 * struct npo_mr_dereg - NPO_IOCTL_DEREG_MR argument
 * @lkey: In. The local key of a region this file registered.
 * @flags: In. Must be 0.
 *
 * Once the ioctl returns, the device no longer reaches the memory.
 */
struct npo_mr_dereg {
	__u32 lkey;
	__u32 flags;
};

/**
 * struct npo_dmabuf_reg - NPO_IOCTL_REG_DMABUF argument
 * @flags: In. Must be 0.
 * @access: In. NPO_ACCESS_* rights, as for NPO_IOCTL_REG_MR.
 * @fd: In. A dma-buf file descriptor (from a GPU or other exporter).
 * @pad: In. Must be 0.
 * @offset: In. Start of the region within the buffer, page aligned.
 * @length: In. Bytes, at least 1, within the buffer.
 * @iova: In. The address descriptors use for the region's first byte,
 *	page aligned; any value the caller likes, since the buffer may have no
 *	address in the caller's memory.
 * @lkey: Out. The region's local key, as for NPO_IOCTL_REG_MR.
 * @pad2: Out. Zero.
 * @rkey: Out. The region's remote key, as for NPO_IOCTL_REG_MR.
 *
 * The device reaches the buffer's memory directly; the exporter keeps it
 * in place while the region exists.  Deregister with NPO_IOCTL_DEREG_MR.
 */
struct npo_dmabuf_reg {
	__u32 flags;
	__u32 access;
	__s32 fd;
	__u32 pad;
	__u64 offset;
	__u64 length;
	__u64 iova;
	__u32 lkey;
	__u32 pad2;
	__u64 rkey;
};

/*
 * Jobs.  Every open file of /dev/npoN (a protection domain) belongs to a
 * job, and so do its queues and regions.  A request from another queue,
 * on this device or across the fabric, reaches a region or a receiving
 * queue only if both belong to the same job; within a job, remote keys
 * and protection domains decide as before.  A file starts in its process'
 * default job, which the driver derives from the process (NPO_JOB_DEFAULT
 * set) and nobody can choose; a launcher with CAP_NET_ADMIN puts a file in
 * a job it assigns (NPO_JOB_MIN..NPO_JOB_MAX), typically before handing
 * the file to the job's processes.  See Documentation/uapi.rst, "Jobs".
 */
#define NPO_JOB_MIN		1
#define NPO_JOB_MAX		0x7fffffff
#define NPO_JOB_DEFAULT		0x80000000U	/* set in every default job */

/**
 * struct npo_job - NPO_IOCTL_SET_JOB and NPO_IOCTL_GET_JOB argument
 * @job: In (SET): the job to join, NPO_JOB_MIN..NPO_JOB_MAX.  Out (GET):
 *	the file's job.
 * @flags: In. Must be 0.
 *
 * SET needs CAP_NET_ADMIN and a file that has no queue and no region yet
 * (EBUSY otherwise); the file keeps the job wherever it is passed.
 */
struct npo_job {
	__u32 job;
	__u32 flags;
};

/* No bound on a clock's error (struct npo_fabric_time). */
#define NPO_TIME_BOUND_NONE	(~(__u64)0)
/* The clock is the fabric's timescale (struct npo_fabric_time.status). */
#define NPO_TIME_REFERENCE	_BITUL(0)

/**
 * struct npo_fabric_time - NPO_IOCTL_GET_TIME argument (interface 2.3)
 * @time_ns: Out. The device's clock: fabric time, ns.
 * @error_bound_ns: Out. Bound on its error from the fabric's timescale,
 *	ns, or NPO_TIME_BOUND_NONE if there is none (the clock is unlocked,
 *	or measured afresh).  It grows while the clock follows no
 *	grandmaster (Documentation/timesync.rst, "Error bound").
 * @monotonic_ns: Out. CLOCK_MONOTONIC when the clock was read.
 * @state: Out. The clock's &enum npo_clock_state.
 * @gm_node: Out. The node whose clock it follows (itself as grandmaster).
 * @flags: In. Must be 0.
 * @status: Out. NPO_TIME_REFERENCE if this clock is the timescale.
 *
 * Fails with EOPNOTSUPP on a device without a clock and EAGAIN while the
 * device is not ready (being reset).
 */
struct npo_fabric_time {
	__u64 time_ns;
	__u64 error_bound_ns;
	__u64 monotonic_ns;
	__u32 state;
	__u32 gm_node;
	__u32 flags;
	__u32 status;
};

/** NPO_IOCTL_GET_INFO - describe the device, see &struct npo_dev_info. */
#define NPO_IOCTL_GET_INFO	_IOWR(NPO_IOCTL_MAGIC, 0x00, struct npo_dev_info)
/** NPO_IOCTL_GET_PARAM - query one fact, see &enum npo_param. */
#define NPO_IOCTL_GET_PARAM	_IOWR(NPO_IOCTL_MAGIC, 0x01, struct npo_param_query)
/** NPO_IOCTL_CREATE_QUEUE - create a queue pair, see &struct npo_queue_create. */
#define NPO_IOCTL_CREATE_QUEUE	_IOWR(NPO_IOCTL_MAGIC, 0x10, struct npo_queue_create)
/** NPO_IOCTL_DESTROY_QUEUE - destroy a queue, see &struct npo_queue_destroy. */
#define NPO_IOCTL_DESTROY_QUEUE	_IOW(NPO_IOCTL_MAGIC, 0x11, struct npo_queue_destroy)
/** NPO_IOCTL_REG_MR - register memory, see &struct npo_mr_reg. */
#define NPO_IOCTL_REG_MR	_IOWR(NPO_IOCTL_MAGIC, 0x12, struct npo_mr_reg)
/** NPO_IOCTL_DEREG_MR - deregister memory, see &struct npo_mr_dereg. */
#define NPO_IOCTL_DEREG_MR	_IOW(NPO_IOCTL_MAGIC, 0x13, struct npo_mr_dereg)
/** NPO_IOCTL_REG_DMABUF - register a dma-buf, see &struct npo_dmabuf_reg. */
#define NPO_IOCTL_REG_DMABUF	_IOWR(NPO_IOCTL_MAGIC, 0x14, struct npo_dmabuf_reg)
/** NPO_IOCTL_SET_JOB - put the file in a job, see &struct npo_job. */
#define NPO_IOCTL_SET_JOB	_IOW(NPO_IOCTL_MAGIC, 0x15, struct npo_job)
/** NPO_IOCTL_GET_JOB - the file's job, see &struct npo_job. */
#define NPO_IOCTL_GET_JOB	_IOWR(NPO_IOCTL_MAGIC, 0x16, struct npo_job)
/** NPO_IOCTL_GET_TIME - fabric time and its error bound, see &struct npo_fabric_time. */
#define NPO_IOCTL_GET_TIME	_IOWR(NPO_IOCTL_MAGIC, 0x17, struct npo_fabric_time)

#endif /* _UAPI_LINUX_NPO_H */
