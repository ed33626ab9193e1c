// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO DMA queues: ring memory the driver allocates and the device and one
 * process share, the queue's doorbell page, and their mmap().
 *
 * A queue costs its rings and nothing per operation: descriptors go from
 * the process to the device without the kernel.  Destroying a queue stops
 * it in the device first, then revokes every mapping of it, then frees it.
 */
#include <linux/dma-mapping.h>
#include <linux/eventfd.h>
#include <linux/interrupt.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"

/*
 * mmap() offsets, in pages: the kind, then the queue number, then room for
 * the largest ring, so that the ranges of two objects never overlap and
 * revoking one never touches another.
 */
#define NPO_MMAP_QUEUE_SHIFT	12
#define NPO_MMAP_KIND_SHIFT	28
#define NPO_MMAP_RING		1
#define NPO_MMAP_DOORBELL	2

static_assert(NPO_RING_HEADER_SIZE + NPO_MAX_RING_ENTRIES *
	      (sizeof(struct npo_sqe) + sizeof(struct npo_cqe) +
	       sizeof(struct npo_rqe)) <=
	      BIT(NPO_MMAP_QUEUE_SHIFT) * PAGE_SIZE);

/**
 * struct npo_ring_layout - where a queue's rings lie in its ring memory
 * @sq_offset: the submission ring, after the header.
 * @cq_offset: the completion ring, after the submission ring.
 * @rq_offset: the receive ring, after the completion ring.
 * @size: the whole, a whole number of pages.
 *
 * Documentation/hardware.rst, "DMA queues"; the device derives the same
 * from the entry counts QUEUE_CREATE gives it.
 */
struct npo_ring_layout {
	u32 sq_offset;
	u32 cq_offset;
	u32 rq_offset;
	size_t size;
};

static void npo_ring_layout(struct npo_ring_layout *l, u32 sq_entries,
			    u32 cq_entries, u32 rq_entries)
{
	l->sq_offset = NPO_RING_HEADER_SIZE;
	l->cq_offset = l->sq_offset + sq_entries * sizeof(struct npo_sqe);
	l->rq_offset = l->cq_offset + cq_entries * sizeof(struct npo_cqe);
	l->size = PAGE_ALIGN(l->rq_offset +
			     (size_t)rq_entries * sizeof(struct npo_rqe));
}

/**
 * struct npo_queue - a queue pair a file created
 * @id: queue number on the device.
 * @sq_entries: submission ring entries.
 * @cq_entries: completion ring entries.
 * @rq_entries: receive ring entries.
 * @ring: ring memory: header, then the submission, completion and
 *	receive rings, as @layout says.
 * @ring_dma: its bus address.
 * @layout: where the rings lie in it, and its size.
 * @eventfd: signalled by the queue's completion interrupt, or NULL.
 * @irq: Linux interrupt of the queue's vector when @eventfd is set.
 * @irq_name: its name in /proc/interrupts.
 * @owner: who created it.
 */
struct npo_queue {
	u32 id;
	u32 sq_entries;
	u32 cq_entries;
	u32 rq_entries;
	void *ring;
	dma_addr_t ring_dma;
	struct npo_ring_layout layout;
	struct eventfd_ctx *eventfd;
	int irq;
	char irq_name[32];
	struct npo_queue_owner owner;
};

static irqreturn_t npo_queue_irq(int irq, void *data)
{
	struct npo_queue *q = data;

#ifdef NPO_EVENTFD_SIGNAL_NO_COUNT
	eventfd_signal(q->eventfd);
#else
	eventfd_signal(q->eventfd, 1);
#endif
	return IRQ_HANDLED;
}

/* Route the queue's MSI-X vector to the caller's eventfd. */
static int npo_queue_irq_setup(struct npo_dev *ndev, struct npo_queue *q,
			       int fd)
{
	int err;

	/* Vector 0 is the admin vector; queue q has vector 1 + q. */
	if ((int)q->id + 1 >= ndev->num_vectors)
		return -EOPNOTSUPP;
	q->eventfd = eventfd_ctx_fdget(fd);
	if (IS_ERR(q->eventfd)) {
		err = PTR_ERR(q->eventfd);
		q->eventfd = NULL;
		return err;
	}
	q->irq = pci_irq_vector(ndev->pdev, q->id + 1);
	snprintf(q->irq_name, sizeof(q->irq_name), "npo%d-q%u", ndev->minor,
		 q->id);
	err = request_irq(q->irq, npo_queue_irq, 0, q->irq_name, q);
	if (err) {
		eventfd_ctx_put(q->eventfd);
		q->eventfd = NULL;
	}
	return err;
}

static u64 npo_mmap_offset(unsigned int kind, u32 qid)
{
	return ((u64)kind << NPO_MMAP_KIND_SHIFT |
		(u64)qid << NPO_MMAP_QUEUE_SHIFT) << PAGE_SHIFT;
}

/* A ring header index (NPO_RING_*), as the device or the process left it. */
static u32 npo_ring_header_read(const struct npo_queue *q, unsigned int off)
{
	const __le32 *p = q->ring + off;

	return le32_to_cpu(READ_ONCE(*p));
}

/* Stop a queue in the device: it never touches the rings again after. */
static int npo_queue_hw_destroy(struct npo_dev *ndev, u32 id)
{
	return npo_mbox_exec(ndev, NPO_MBOX_OP_QUEUE_DESTROY, &id, 1, NULL, 0);
}

static void npo_queue_free(struct npo_dev *ndev, struct npo_queue *q)
{
	if (q->eventfd) {
		free_irq(q->irq, q);
		eventfd_ctx_put(q->eventfd);
	}
	dma_free_coherent(&ndev->pdev->dev, q->layout.size, q->ring,
			  q->ring_dma);
	ida_free(&ndev->queue_ida, q->id);
	kfree(q);
}

/**
 * npo_queue_create() - create a queue pair in a file's protection domain
 * @nfile: the file.
 * @qc: the ioctl argument; its Out fields are filled in.
 *
 * Context: under @nfile->lock and the device's remove_lock (read).
 * Return: 0 or a negative errno.
 */
int npo_queue_create(struct npo_file *nfile, struct npo_queue_create *qc)
{
	struct npo_dev *ndev = nfile->ndev;
	struct npo_queue *q;
	u32 args[4];
	int id, err;

	if ((qc->flags & ~NPO_QUEUE_CREATE_EVENTFD) ||
	    (!(qc->flags & NPO_QUEUE_CREATE_EVENTFD) && qc->eventfd) ||
	    (qc->rq_entries && !is_power_of_2(qc->rq_entries)) ||
	    qc->rq_entries > NPO_MAX_RING_ENTRIES ||
	    !is_power_of_2(qc->sq_entries) ||
	    !is_power_of_2(qc->cq_entries) ||
	    qc->sq_entries > NPO_MAX_RING_ENTRIES ||
	    qc->cq_entries > NPO_MAX_RING_ENTRIES ||
	    qc->cq_entries < qc->sq_entries)
		return -EINVAL;
	if (!(ndev->caps & NPO_CAPS_QUEUES))
		return -EOPNOTSUPP;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	id = ida_alloc_max(&ndev->queue_ida, ndev->num_queues - 1, GFP_KERNEL);
	if (id < 0) {
		kfree(q);
		return id == -ENOSPC ? -EBUSY : id;
	}
	q->id = id;
	q->sq_entries = qc->sq_entries;
	q->cq_entries = qc->cq_entries;
	q->rq_entries = qc->rq_entries ? qc->rq_entries : 1;
	npo_ring_layout(&q->layout, q->sq_entries, q->cq_entries,
			q->rq_entries);
	q->ring = dma_alloc_coherent(&ndev->pdev->dev, q->layout.size,
				     &q->ring_dma, GFP_KERNEL);
	if (!q->ring) {
		ida_free(&ndev->queue_ida, id);
		kfree(q);
		return -ENOMEM;
	}
	if (qc->flags & NPO_QUEUE_CREATE_EVENTFD) {
		err = npo_queue_irq_setup(ndev, q, qc->eventfd);
		if (err)
			goto err_free;
	}

	args[0] = FIELD_PREP(NPO_QC_QUEUE, id) |
		  FIELD_PREP(NPO_QC_SQ_LOG2, ilog2(q->sq_entries)) |
		  FIELD_PREP(NPO_QC_CQ_LOG2, ilog2(q->cq_entries));
	args[1] = FIELD_PREP(NPO_QC_PD, nfile->pd) |
		  FIELD_PREP(NPO_QC_RQ_LOG2, ilog2(q->rq_entries));
	args[2] = lower_32_bits(q->ring_dma);
	args[3] = upper_32_bits(q->ring_dma);
	err = npo_pd_load_job(ndev, nfile);
	if (err)
		goto err_free;
	/* Who to name if the device refuses the queue's requests. */
	q->owner.tgid = task_tgid_nr(current);
	get_task_comm(q->owner.comm, current);
	q->owner.uid = current_uid();
	q->owner.job = nfile->job;
	err = xa_insert(&ndev->queue_owners, id, &q->owner, GFP_KERNEL);
	if (err)
		goto err_free;
	err = npo_mbox_exec(ndev, NPO_MBOX_OP_QUEUE_CREATE, args,
			    ARRAY_SIZE(args), NULL, 0);
	if (err)
		goto err_owner;
	err = xa_insert(&nfile->queues, id, q, GFP_KERNEL);
	if (err)
		goto err_hw;

	qc->queue_id = id;
	qc->ring_offset = npo_mmap_offset(NPO_MMAP_RING, id);
	qc->ring_size = q->layout.size;
	qc->doorbell_offset = npo_mmap_offset(NPO_MMAP_DOORBELL, id);
	qc->doorbell_size = PAGE_SIZE;
	qc->sq_offset = q->layout.sq_offset;
	qc->cq_offset = q->layout.cq_offset;
	qc->rq_offset = q->layout.rq_offset;
	qc->node_id = ndev->node_id;
	npo_dbg(ndev, DMA, "pd %u: queue %u, %u/%u entries\n", nfile->pd, id,
		q->sq_entries, q->cq_entries);
	return 0;

err_hw:
	npo_queue_hw_destroy(ndev, id);
err_owner:
	xa_erase(&ndev->queue_owners, id);
err_free:
	npo_queue_free(ndev, q);
	return err;
}

/* Stop it in the device, revoke its mappings, free it. */
static void npo_queue_release(struct npo_file *nfile, struct npo_queue *q,
			      bool hw_alive)
{
	struct npo_dev *ndev = nfile->ndev;
	u32 id = q->id;

	if (hw_alive) {
		npo_queue_hw_destroy(ndev, id);
		/* Its refusals name this file's process, not the id's next. */
		npo_refusal_flush(ndev);
	}
	xa_erase(&ndev->queue_owners, id);
	unmap_mapping_range(nfile->mapping,
			    npo_mmap_offset(NPO_MMAP_RING, id), q->layout.size, 1);
	unmap_mapping_range(nfile->mapping,
			    npo_mmap_offset(NPO_MMAP_DOORBELL, id), PAGE_SIZE, 1);
	npo_queue_free(ndev, q);
}

/**
 * npo_queue_destroy() - destroy a queue this file created
 * @nfile: the file.
 * @qid: the queue number.
 *
 * Context: under @nfile->lock and the device's remove_lock (read).
 * Return: 0, or -ENOENT if @nfile has no such queue.
 */
int npo_queue_destroy(struct npo_file *nfile, u32 qid)
{
	struct npo_queue *q = xa_erase(&nfile->queues, qid);

	if (!q)
		return -ENOENT;
	npo_queue_release(nfile, q, true);
	return 0;
}

/**
 * npo_queue_release_all() - destroy every queue of a file
 * @nfile: the file.
 * @hw_alive: false once the device was reset or is going away.
 *
 * Context: under @nfile->lock.
 */
void npo_queue_release_all(struct npo_file *nfile, bool hw_alive)
{
	struct npo_queue *q;
	unsigned long id;

	xa_for_each(&nfile->queues, id, q) {
		xa_erase(&nfile->queues, id);
		npo_queue_release(nfile, q, hw_alive);
	}
}

/*
 * A revoked mapping has no pages; with no .fault, touching it raises
 * SIGBUS instead of mapping anonymous memory.
 */
static const struct vm_operations_struct npo_vm_ops = {};

/**
 * npo_queue_mmap() - map a queue's rings or doorbell page
 * @nfile: the file that owns the queue.
 * @vma: the mapping; its offset names the queue and what to map.
 *
 * Only the owner of a queue can map it, only shared, and only whole: a
 * process never reaches another queue's doorbell.
 *
 * Context: under @nfile->lock and the device's remove_lock (read).
 * Return: 0 or a negative errno.
 */
int npo_queue_mmap(struct npo_file *nfile, struct vm_area_struct *vma)
{
	struct npo_dev *ndev = nfile->ndev;
	unsigned long kind = vma->vm_pgoff >> NPO_MMAP_KIND_SHIFT;
	unsigned long qid = (vma->vm_pgoff >> NPO_MMAP_QUEUE_SHIFT) &
			    (BIT(NPO_MMAP_KIND_SHIFT - NPO_MMAP_QUEUE_SHIFT) - 1);
	unsigned long size = vma->vm_end - vma->vm_start;
	struct npo_queue *q = xa_load(&nfile->queues, qid);
	unsigned long pgoff;
	phys_addr_t db;
	int err;

	if (!q)
		return -ENOENT;
	if (vma->vm_pgoff & (BIT(NPO_MMAP_QUEUE_SHIFT) - 1))
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	vma->vm_ops = &npo_vm_ops;
	switch (kind) {
	case NPO_MMAP_RING:
		if (size != q->layout.size)
			return -EINVAL;
		/* dma_mmap_coherent() reads vm_pgoff as an offset in the ring. */
		pgoff = vma->vm_pgoff;
		vma->vm_pgoff = 0;
		err = dma_mmap_coherent(&ndev->pdev->dev, vma, q->ring,
					q->ring_dma, size);
		vma->vm_pgoff = pgoff;
		return err;
	case NPO_MMAP_DOORBELL:
		if (size != PAGE_SIZE || ndev->db_stride != PAGE_SIZE)
			return -EINVAL;
		db = pci_resource_start(ndev->pdev, NPO_BAR_DOORBELL) +
		     (phys_addr_t)qid * ndev->db_stride;
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
		return io_remap_pfn_range(vma, vma->vm_start, PHYS_PFN(db),
					  PAGE_SIZE, vma->vm_page_prot);
	}
	return -EINVAL;
}

/* The ring header tells how far the device and the process have come. */
static int npo_queue_put(struct sk_buff *skb, const struct npo_queue *q)
{
	if (nla_put_u32(skb, NPO_ATTR_QUEUE_ID, q->id) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_SQ_ENTRIES, q->sq_entries) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_CQ_ENTRIES, q->cq_entries) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_RQ_ENTRIES, q->rq_entries) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_SQ_HEAD,
			npo_ring_header_read(q, NPO_RING_SQ_HEAD)) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_CQ_TAIL,
			npo_ring_header_read(q, NPO_RING_CQ_TAIL)) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_CQ_HEAD,
			npo_ring_header_read(q, NPO_RING_CQ_HEAD)) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_STATUS,
			npo_ring_header_read(q, NPO_RING_STATUS)) ||
	    nla_put_u8(skb, NPO_ATTR_QUEUE_INTERRUPT, !!q->eventfd))
		return -EMSGSIZE;
	return 0;
}

/**
 * npo_queue_dump() - describe a file's queues in a netlink dump
 * @skb: the dump's buffer.
 * @cb: the dump.
 * @nfile: the file, its lock held.
 * @index: the queue to start from; left at the one that did not fit.
 *
 * Return: 0 when every queue is in, -EMSGSIZE when @skb is full.
 */
int npo_queue_dump(struct sk_buff *skb, struct netlink_callback *cb,
		   struct npo_file *nfile, unsigned long *index)
{
	struct npo_queue *q;
	void *hdr;
	int err;

	xa_for_each_start(&nfile->queues, *index, q, *index) {
		hdr = npo_genl_dump_begin(skb, cb, NPO_CMD_QUEUE_GET, nfile);
		if (!hdr)
			return -EMSGSIZE;
		err = npo_genl_end(skb, hdr, npo_queue_put(skb, q));
		if (err)
			return err;
	}
	return 0;
}
