// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO DMA queues: ring memory the driver allocates and the device and one
 * process share, the queue's doorbell page, and their mmap().
 *
 * A queue costs its rings and nothing per operation: descriptors go from
 * the process to the device without the kernel.  Destroying a queue stops
 * it in the device first, then revokes every mapping of it, then frees it.
 *
 * Mappings are filled lazily, one page per fault, under the file's lock:
 * ->mmap() itself maps nothing.  A page table entry can then only exist in
 * a VMA already linked into the file's mapping, so the unmap_mapping_range()
 * of a destroy, under the same lock, reaches every one of them; a mapping
 * whose queue is gone faults in the file's revoked page instead.
 */
#include <linux/cc_platform.h>
#include <linux/dma-mapping.h>
#include <linux/eventfd.h>
#include <linux/interrupt.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/genetlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_genl.h"
#include "npo_health.h"
#include "npo_job.h"
#include "npo_link.h"
#include "npo_mbox.h"
#include "npo_queue.h"
#include "npo_trace.h"

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

/* What a stalled queue waits for goes to user space as the device says it. */
static_assert((int)NPO_HW_QWAIT_NONE == (int)NPO_QUEUE_WAIT_NONE);
static_assert((int)NPO_HW_QWAIT_CQ_FULL == (int)NPO_QUEUE_WAIT_CQ_FULL);
static_assert((int)NPO_HW_QWAIT_LINK == (int)NPO_QUEUE_WAIT_LINK);
static_assert((int)NPO_HW_QWAIT_REMOTE == (int)NPO_QUEUE_WAIT_REMOTE);
static_assert((int)NPO_HW_QWAIT_RNR == (int)NPO_QUEUE_WAIT_RNR);
static_assert((int)NPO_HW_QWAIT_TX == (int)NPO_QUEUE_WAIT_TX);

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
 * @ring_pages: its pages, which faults map into the process.
 * @layout: where the rings lie in it, and its size.
 * @serial: this file's count of queues when it was created: a mapping
 *	made of an earlier queue with the same @id never reaches this one.
 * @eventfd: signalled by the queue's completion interrupt, or NULL.
 * @irq: Linux interrupt of the queue's vector when @eventfd is set.
 * @irq_name: its name in /proc/interrupts.
 * @owner: who created it.
 * @cg: the rdma cgroup it is charged to, as one object (npo_quota.c).
 */
struct npo_queue {
	u32 id;
	u32 sq_entries;
	u32 cq_entries;
	u32 rq_entries;
	void *ring;
	dma_addr_t ring_dma;
	struct sg_table ring_pages;
	struct npo_ring_layout layout;
	unsigned long serial;
	struct eventfd_ctx *eventfd;
	int irq;
	char irq_name[32];
	struct npo_queue_owner owner;
	struct rdma_cgroup *cg;
};

static void npo_queue_wake(struct npo_queue *q)
{
#ifdef NPO_EVENTFD_SIGNAL_NO_COUNT
	eventfd_signal(q->eventfd);
#else
	eventfd_signal(q->eventfd, 1);
#endif
}

static irqreturn_t npo_queue_irq(int irq, void *data)
{
	npo_queue_wake(data);
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

/*
 * Stop a queue in the device: it never touches the rings again after, or
 * the whole device is stopped.
 */
static void npo_queue_hw_destroy(struct npo_dev *ndev, u32 id)
{
	npo_mbox_release(ndev, NPO_MBOX_OP_QUEUE_DESTROY, &id, 1);
}

static void npo_queue_free(struct npo_dev *ndev, struct npo_queue *q)
{
	if (q->eventfd) {
		free_irq(q->irq, q);
		/*
		 * A thread asleep on the queue wakes and finds it revoked
		 * (its mappings show the final rings or the revoked page by
		 * now), rather than sleep on for a completion that cannot
		 * come.
		 */
		npo_queue_wake(q);
		eventfd_ctx_put(q->eventfd);
	}
	sg_free_table(&q->ring_pages);
	dma_free_coherent(&ndev->pdev->dev, q->layout.size, q->ring,
			  q->ring_dma);
	ida_free(&ndev->queue_ida, q->id);
	npo_quota_uncharge(ndev, q->cg, RDMACG_RESOURCE_HCA_OBJECT);
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

	/*
	 * @rsvd is not checked: it was implicit padding before 2.1, which
	 * x86-64 callers built then may have left uninitialised.
	 */
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
	err = npo_quota_charge(ndev, &q->cg, RDMACG_RESOURCE_HCA_OBJECT);
	if (err) {
		kfree(q);
		return err;
	}
	id = ida_alloc_max(&ndev->queue_ida, ndev->num_queues - 1, GFP_KERNEL);
	if (id < 0) {
		npo_quota_uncharge(ndev, q->cg, RDMACG_RESOURCE_HCA_OBJECT);
		kfree(q);
		return id == -ENOSPC ? -EBUSY : id;
	}
	q->id = id;
	q->sq_entries = qc->sq_entries;
	q->cq_entries = qc->cq_entries;
	q->rq_entries = qc->rq_entries ? qc->rq_entries : 1;
	npo_ring_layout(&q->layout, q->sq_entries, q->cq_entries,
			q->rq_entries);
	/* The device wants one contiguous ring memory: the page allocator's most. */
	if (q->layout.size > NPO_MAX_RING_BYTES) {
		err = -EINVAL;
		goto err_id;
	}
	/* Contiguous memory can run out: that is -ENOMEM, not a warning. */
	q->ring = dma_alloc_coherent(&ndev->pdev->dev, q->layout.size,
				     &q->ring_dma, GFP_KERNEL | __GFP_NOWARN);
	if (!q->ring) {
		err = -ENOMEM;
		goto err_id;
	}
	/* Where the coherent memory's pages are, for npo_queue_fault(). */
	err = dma_get_sgtable(&ndev->pdev->dev, &q->ring_pages, q->ring,
			      q->ring_dma, q->layout.size);
	if (err) {
		dma_free_coherent(&ndev->pdev->dev, q->layout.size, q->ring,
				  q->ring_dma);
		goto err_id;
	}
	q->serial = ++nfile->queue_serial;
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
	q->owner.charge = npo_job_charge();
	q->owner.pd = nfile->pd;
	q->owner.job = nfile->job;
	q->owner.failed = false;
	err = xa_insert(&ndev->queue_owners, id, &q->owner, GFP_KERNEL);
	if (err)
		goto err_free;
	err = npo_mbox_exec(ndev, NPO_MBOX_OP_QUEUE_CREATE, args,
			    ARRAY_SIZE(args), NULL, 0);
	if (err) {
		/* A create that timed out may still point the device here. */
		npo_mbox_settle(ndev, NPO_MBOX_OP_QUEUE_CREATE, err);
		goto err_owner;
	}
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
	npo_queue_owner_forget(ndev, id);
err_free:
	npo_queue_free(ndev, q);
	return err;
err_id:
	ida_free(&ndev->queue_ida, id);
	npo_quota_uncharge(ndev, q->cg, RDMACG_RESOURCE_HCA_OBJECT);
	kfree(q);
	return err;
}

/**
 * struct npo_queue_final - a queue's rings as the device left them
 * @qid: the queue's number.
 * @size: bytes in @ring, a whole number of pages.
 * @ring: the copy, in the ring memory's layout; the process's mappings of
 *	the queue show it.
 *
 * Kept when the device stopped under a process (reset, removal), so that
 * the completions it had not consumed, and which descriptors have none,
 * can still be read (uapi.rst, "Queues and memory").
 */
struct npo_queue_final {
	u32 qid;
	size_t size;
	void *ring;
};

static void npo_queue_final_free(struct npo_queue_final *f)
{
	vfree(f->ring);
	kfree(f);
}

/*
 * Copy a stopped queue's rings for the file, keyed by the queue's serial,
 * which its mappings carry.  Called once every mapping of the live rings
 * is gone, under the file's lock, so the process writes nothing more to
 * them that the copy would miss.  Without memory the mappings show the
 * stand-in, as before 2.2.
 */
static void npo_queue_keep_final(struct npo_file *nfile,
				 const struct npo_queue *q)
{
	struct npo_queue_final *f;
	__le32 *status;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return;
	f->qid = q->id;
	f->size = q->layout.size;
	f->ring = vmalloc(f->size);
	if (!f->ring)
		goto err;
	memcpy(f->ring, q->ring, f->size);
	status = f->ring + NPO_RING_STATUS;
	*status = cpu_to_le32(NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED |
			      NPO_QSTAT_FINAL);
	if (xa_insert(&nfile->finals, q->serial, f, GFP_KERNEL))
		goto err;
	return;
err:
	npo_warn(nfile->ndev, "queue %u: no memory to keep its final rings\n",
		 q->id);
	vfree(f->ring);
	kfree(f);
}

/*
 * How a queue ends: the process destroys it or closes the file with the
 * device alive (the device is told), or with it stopped (nothing to tell),
 * or the device stopped under the process (its final rings are kept).
 */
enum npo_queue_end {
	NPO_QUEUE_END_DESTROY,
	NPO_QUEUE_END_CLOSE_STOPPED,
	NPO_QUEUE_END_REVOKE,
};

/* Stop it in the device, revoke its mappings, free it. */
static void npo_queue_release(struct npo_file *nfile, struct npo_queue *q,
			      enum npo_queue_end end)
{
	struct npo_dev *ndev = nfile->ndev;
	u32 id = q->id;

	if (end == NPO_QUEUE_END_DESTROY) {
		npo_queue_hw_destroy(ndev, id);
		/* Its refusals and error name this process, not the id's next. */
		npo_refusal_flush(ndev);
		npo_queue_error_flush(ndev);
	}
	npo_queue_owner_forget(ndev, id);
	unmap_mapping_range(nfile->mapping,
			    npo_mmap_offset(NPO_MMAP_RING, id), q->layout.size, 1);
	unmap_mapping_range(nfile->mapping,
			    npo_mmap_offset(NPO_MMAP_DOORBELL, id), PAGE_SIZE, 1);
	if (end == NPO_QUEUE_END_REVOKE)
		npo_queue_keep_final(nfile, q);
	npo_queue_free(ndev, q);
}

/* Free the oldest final rings the file kept of queue @qid, if any. */
static bool npo_queue_drop_final(struct npo_file *nfile, u32 qid)
{
	struct npo_queue_final *f;
	unsigned long serial;

	xa_for_each(&nfile->finals, serial, f) {
		if (f->qid != qid)
			continue;
		xa_erase(&nfile->finals, serial);
		/*
		 * The process may still map it: no page table entry may
		 * outlive the memory.  A live queue of the same number only
		 * faults its pages in again.
		 */
		unmap_mapping_range(nfile->mapping,
				    npo_mmap_offset(NPO_MMAP_RING, qid),
				    f->size, 1);
		npo_queue_final_free(f);
		return true;
	}
	return false;
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
	enum npo_dev_state state = npo_state(nfile->ndev);
	struct npo_queue *q;

	/*
	 * During a PCIe error recovery the device may still run the queue;
	 * the recovery releases it once the device is stopped.
	 */
	if (state == NPO_DEV_STATE_RESETTING)
		return -EAGAIN;
	q = xa_erase(&nfile->queues, qid);
	if (!q)
		return npo_queue_drop_final(nfile, qid) ? 0 : -ENOENT;
	/* A stopped device holds nothing to tell it about. */
	npo_queue_release(nfile, q, state == NPO_DEV_STATE_READY ?
				    NPO_QUEUE_END_DESTROY :
				    NPO_QUEUE_END_CLOSE_STOPPED);
	return 0;
}

/**
 * npo_queue_release_all() - destroy every queue of a closing file
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
		npo_queue_release(nfile, q, hw_alive ? NPO_QUEUE_END_DESTROY :
					    NPO_QUEUE_END_CLOSE_STOPPED);
	}
}

/**
 * npo_queue_revoke_all() - end every queue of a file the device stopped under
 * @nfile: the file, which stays open.
 *
 * The device was reset or is going away: it holds no queue and does no
 * DMA.  Each queue's final rings are kept for the process.
 *
 * Context: under @nfile->lock.
 */
void npo_queue_revoke_all(struct npo_file *nfile)
{
	struct npo_queue *q;
	unsigned long id;

	xa_for_each(&nfile->queues, id, q) {
		xa_erase(&nfile->queues, id);
		trace_npo_queue_revoked(nfile->ndev, q->id, q->owner.tgid);
		npo_queue_release(nfile, q, NPO_QUEUE_END_REVOKE);
	}
}

/* The page at @pgoff of a queue's ring memory. */
static struct page *npo_ring_page(const struct npo_queue *q, pgoff_t pgoff)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(&q->ring_pages, sg, i) {
		pgoff_t n = sg->length >> PAGE_SHIFT;

		if (pgoff < n)
			return nth_page(sg_page(sg), pgoff);
		pgoff -= n;
	}
	return NULL;
}

/*
 * What a revoked mapping shows: for rings, a header whose status says the
 * queue is in error and gone (libnpo's polls then end) and empty rings;
 * for doorbells, a page that absorbs the writes.  One of each per file,
 * made on first need: the process sees only its own writes to them.
 */
static struct page *npo_revoked_page(struct npo_file *nfile, bool ring)
{
	struct page **page = ring ? &nfile->revoked_ring : &nfile->revoked_db;
	__le32 *status;

	if (*page)
		return *page;
	*page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (*page && ring) {
		status = page_address(*page) + NPO_RING_STATUS;
		*status = cpu_to_le32(NPO_QSTAT_ERROR | NPO_QSTAT_REVOKED);
	}
	return *page;
}

/**
 * npo_file_free_revoked() - free a file's revoked pages and final rings
 * @nfile: the file, being released: no mapping of it is left.
 */
void npo_file_free_revoked(struct npo_file *nfile)
{
	struct npo_queue_final *f;
	unsigned long serial;

	xa_for_each(&nfile->finals, serial, f)
		npo_queue_final_free(f);
	xa_destroy(&nfile->finals);
	if (nfile->revoked_ring)
		__free_page(nfile->revoked_ring);
	if (nfile->revoked_db)
		__free_page(nfile->revoked_db);
}

static void npo_mmap_decode(const struct vm_area_struct *vma,
			    unsigned long *kind, unsigned long *qid)
{
	*kind = vma->vm_pgoff >> NPO_MMAP_KIND_SHIFT;
	*qid = (vma->vm_pgoff >> NPO_MMAP_QUEUE_SHIFT) &
	       (BIT(NPO_MMAP_KIND_SHIFT - NPO_MMAP_QUEUE_SHIFT) - 1);
}

/* The page at @pgoff of the final rings kept of queue @serial, or NULL. */
static struct page *npo_final_page(struct npo_file *nfile,
				   unsigned long serial, pgoff_t pgoff)
{
	struct npo_queue_final *f = xa_load(&nfile->finals, serial);

	if (!f || pgoff >= f->size >> PAGE_SHIFT)
		return NULL;
	return vmalloc_to_page(f->ring + (pgoff << PAGE_SHIFT));
}

/*
 * One page of a mapping: the queue's own if the queue the mapping was made
 * of still lives, else its final rings if the device stopped under it, else
 * the revoked page.  Under the file's lock, which destroy holds while it
 * revokes and frees.
 */
static vm_fault_t npo_queue_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct npo_file *nfile = vma->vm_file->private_data;
	/* In the ring, whatever part of the mapping this VMA is now. */
	pgoff_t pgoff = vmf->pgoff & (BIT(NPO_MMAP_QUEUE_SHIFT) - 1);
	pgprot_t prot = vma->vm_page_prot;
	unsigned long kind, qid, pfn;
	struct npo_queue *q = NULL;
	struct page *page;
	vm_fault_t ret;

	npo_mmap_decode(vma, &kind, &qid);
	mutex_lock(&nfile->lock);
	if (!nfile->detached)
		q = xa_load(&nfile->queues, qid);
	if (q && q->serial != (unsigned long)vma->vm_private_data)
		q = NULL;
	if (!q) {
		page = NULL;
		if (kind == NPO_MMAP_RING)
			page = npo_final_page(nfile,
					      (unsigned long)vma->vm_private_data,
					      pgoff);
		if (!page)
			page = npo_revoked_page(nfile, kind == NPO_MMAP_RING);
		if (!page) {
			ret = VM_FAULT_OOM;
			goto out;
		}
		pfn = page_to_pfn(page);
	} else if (kind == NPO_MMAP_RING) {
		page = npo_ring_page(q, pgoff);
		if (!page) {
			ret = VM_FAULT_SIGBUS;
			goto out;
		}
		pfn = page_to_pfn(page);
		/*
		 * In an encrypted guest (SEV, TDX) coherent memory is shared
		 * with the host, decrypted, as dma_mmap_coherent() would map
		 * it; the revoked page is private memory like any other.
		 */
		if (cc_platform_has(CC_ATTR_GUEST_MEM_ENCRYPT))
			prot = pgprot_decrypted(prot);
	} else {
		pfn = PHYS_PFN(pci_resource_start(nfile->ndev->pdev,
						  NPO_BAR_DOORBELL) +
			       (phys_addr_t)qid * nfile->ndev->db_stride);
		prot = pgprot_noncached(prot);
	}
	ret = vmf_insert_pfn_prot(vma, vmf->address, pfn, prot);
out:
	mutex_unlock(&nfile->lock);
	return ret;
}

static const struct vm_operations_struct npo_vm_ops = {
	.fault = npo_queue_fault,
};

/* vm_flags_set() came in 6.3 and is the only way to change them since. */
static void npo_vma_set_flags(struct vm_area_struct *vma, vm_flags_t set,
			      vm_flags_t clear)
{
#ifdef NPO_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/**
 * npo_queue_mmap() - map a queue's rings or doorbell page
 * @nfile: the file that owns the queue.
 * @vma: the mapping; its offset names the queue and what to map.
 *
 * Only the owner of a queue can map it, only shared, and only whole: a
 * process never reaches another queue's doorbell.  Nothing is mapped yet:
 * npo_queue_fault() fills the pages when they are touched.
 *
 * Context: under @nfile->lock.
 * Return: 0 or a negative errno.
 */
int npo_queue_mmap(struct npo_file *nfile, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	unsigned long kind, qid;
	struct npo_queue *q;

	npo_mmap_decode(vma, &kind, &qid);
	q = xa_load(&nfile->queues, qid);
	if (!q)
		return -ENOENT;
	if (vma->vm_pgoff & (BIT(NPO_MMAP_QUEUE_SHIFT) - 1))
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	switch (kind) {
	case NPO_MMAP_RING:
		if (size != q->layout.size)
			return -EINVAL;
		break;
	case NPO_MMAP_DOORBELL:
		if (size != PAGE_SIZE || nfile->ndev->db_stride != PAGE_SIZE)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	/*
	 * Pages without struct page refcounting (PFNMAP), never copied into a
	 * core dump, never grown by mremap(), never made executable.
	 */
	npo_vma_set_flags(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP,
			  VM_MAYEXEC);
	vma->vm_private_data = (void *)q->serial;
	vma->vm_ops = &npo_vm_ops;
	return 0;
}

/*
 * Hang attribution: what the queue's oldest outstanding descriptor waits
 * for, how long, where it goes and through which port, in what state.
 * The count and the wait are the device's; the descriptor is read from
 * the ring, which the process may have scribbled on since: it only names
 * where the process sent it.
 */
static int npo_queue_oldest_put(struct sk_buff *skb, struct npo_dev *ndev,
				const struct npo_queue *q)
{
	const struct npo_sqe *sqe;
	u32 args[1] = { q->id }, rets[2], n, port, head;
	struct npo_port *p;
	u32 state;

	if (FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) <
	    NPO_IF_MINOR_QUEUE_ERRORS ||
	    npo_mbox_read(ndev, NPO_MBOX_OP_QUEUE_QUERY, args, 1, rets, 2))
		return 0;
	n = min_t(u32, FIELD_GET(NPO_QQ_OUTSTANDING, rets[0]), q->sq_entries);
	if (nla_put_u32(skb, NPO_ATTR_QUEUE_OUTSTANDING, n))
		return -EMSGSIZE;
	if (!n)
		return 0;
	head = npo_ring_header_read(q, NPO_RING_SQ_HEAD) & (q->sq_entries - 1);
	sqe = q->ring + q->layout.sq_offset + head * sizeof(*sqe);
	if (nla_put_u32(skb, NPO_ATTR_QUEUE_OLDEST_AGE_MS, rets[1]) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_OLDEST_OPCODE,
			READ_ONCE(sqe->opcode)) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_OLDEST_NODE,
			READ_ONCE(sqe->dest_node)) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_WAIT,
			FIELD_GET(NPO_QQ_WAIT, rets[0])))
		return -EMSGSIZE;
	port = FIELD_GET(NPO_QQ_PORT, rets[0]);
	if (port >= ndev->num_ports)
		return 0;
	p = &ndev->ports[port];
	state = FIELD_GET(NPO_PST_STATE, READ_ONCE(p->status));
	if (nla_put_u32(skb, NPO_ATTR_QUEUE_OLDEST_PORT, port) ||
	    nla_put_u32(skb, NPO_ATTR_PORT_STATE, state) ||
	    (state != NPO_HW_PORT_ACTIVE &&
	     nla_put_u32(skb, NPO_ATTR_PORT_REASON, READ_ONCE(p->down_reason))))
		return -EMSGSIZE;
	return 0;
}

/*
 * The ports the queue's work went out of and its messages came in
 * through: what it loses when one of them fails (npoctl topo impact).
 */
static int npo_queue_ports_put(struct sk_buff *skb, struct npo_dev *ndev,
			       const struct npo_queue *q)
{
	u32 args[1] = { q->id }, rets[2];

	if (FIELD_GET(NPO_IF_VERSION_MINOR, ndev->hw_if_version) <
	    NPO_IF_MINOR_QUEUE_PORTS ||
	    npo_mbox_read(ndev, NPO_MBOX_OP_QUEUE_PORTS, args, 1, rets, 2))
		return 0;
	if (nla_put_u32(skb, NPO_ATTR_QUEUE_TX_PORTS, rets[0]) ||
	    nla_put_u32(skb, NPO_ATTR_QUEUE_RX_PORTS, rets[1]))
		return -EMSGSIZE;
	return 0;
}

/* The ring header tells how far the device and the process have come. */
static int npo_queue_put(struct sk_buff *skb, struct npo_dev *ndev,
			 const struct npo_queue *q)
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
	return npo_queue_error_put(skb, ndev, q->id) ?:
	       npo_queue_oldest_put(skb, ndev, q) ?:
	       npo_queue_ports_put(skb, ndev, q);
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
		err = npo_genl_end(skb, hdr,
				   npo_queue_put(skb, nfile->ndev, q));
		if (err)
			return err;
	}
	return 0;
}
