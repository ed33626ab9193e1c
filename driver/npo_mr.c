// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO memory regions: user memory pinned, DMA-mapped and entered in the
 * device's memory table, so that descriptors can name it by key.
 *
 * Metadata is a page pointer and a bus address per page (16 bytes per
 * 4 KiB, 0.4%); the device keeps its own copy of the page list, sent in
 * NPO_MR_PAGES_PER_CMD chunks through the command buffer.
 */
#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/genetlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_genl.h"
#include "npo_job.h"
#include "npo_mbox.h"
#include "npo_queue.h"

/**
 * struct npo_mr - a registered memory region
 * @key: the local key descriptors of its own file name it by.
 * @rkey: the remote key other queues of its job name it by.
 * @access: NPO_ACCESS_* rights.
 * @addr: user address of the first byte, also its device address.
 * @length: bytes.
 * @npages: pinned pages.
 * @pages: the pinned pages.
 * @dma: bus address of each page.
 * @mm: the address space whose RLIMIT_MEMLOCK the pages count against.
 * @writable: pinned for write, so dirtied on release.
 * @dir: how the device may use the pages: it only reads a region with no
 *	write right.
 * @attach: for a dma-buf region, the attachment that keeps the buffer's
 *	memory in place (and @pages is unused).
 * @sgt: its mapping for the device.
 * @cg: the rdma cgroup it is charged to, as one object (npo_quota.c).
 */
struct npo_mr {
	u32 key;
	u64 rkey;
	u32 access;
	u64 addr;
	u64 length;
	unsigned long npages;
	struct page **pages;
	dma_addr_t *dma;
	struct mm_struct *mm;
	bool writable;
	enum dma_data_direction dir;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct rdma_cgroup *cg;
};

static int npo_mr_account(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

static void npo_mr_unpin(struct npo_dev *ndev, struct npo_mr *mr,
			 unsigned long mapped, unsigned long pinned)
{
	unsigned long i;

	for (i = 0; i < mapped; i++)
		dma_unmap_page(&ndev->pdev->dev, mr->dma[i], PAGE_SIZE,
			       mr->dir);
	unpin_user_pages_dirty_lock(mr->pages, pinned, mr->writable);
}

static void npo_mr_free(struct npo_dev *ndev, struct npo_mr *mr)
{
	npo_quota_uncharge(ndev, mr->cg, RDMACG_RESOURCE_HCA_OBJECT);
	if (mr->mm) {
		atomic64_sub(mr->npages, &mr->mm->pinned_vm);
		mmdrop(mr->mm);
	}
	kvfree(mr->pages);
	kvfree(mr->dma);
	kfree(mr);
}

/*
 * Pin every page; on failure none stays pinned.  This can wait without
 * bound (a FUSE-backed range), so it runs without the remove_lock.
 */
static int npo_mr_pin(struct npo_mr *mr)
{
	unsigned int gup = FOLL_LONGTERM | (mr->writable ? FOLL_WRITE : 0);
	unsigned long start = mr->addr & PAGE_MASK, pinned = 0;
	int n, err = 0;

	while (pinned < mr->npages) {
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		n = pin_user_pages_fast(start + pinned * PAGE_SIZE,
					min_t(unsigned long, mr->npages - pinned,
					      PAGE_SIZE / sizeof(struct page *)),
					gup, mr->pages + pinned);
		if (n <= 0) {
			err = n ? n : -EFAULT;
			break;
		}
		pinned += n;
	}
	if (err)
		unpin_user_pages(mr->pages, pinned);
	return err;
}

/*
 * Map every pinned page for the device; on failure none stays mapped.  A
 * fatal signal ends it too (-EINTR): millions of pages take a while.
 */
static int npo_mr_map(struct npo_dev *ndev, struct npo_mr *mr)
{
	unsigned long i;
	int err = 0;

	for (i = 0; i < mr->npages; i++) {
		if (!(i % NPO_MR_PAGES_PER_CMD) && fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		mr->dma[i] = dma_map_page(&ndev->pdev->dev, mr->pages[i], 0,
					  PAGE_SIZE, mr->dir);
		if (dma_mapping_error(&ndev->pdev->dev, mr->dma[i])) {
			err = -ENOMEM;
			break;
		}
	}
	if (err)
		while (i--)
			dma_unmap_page(&ndev->pdev->dev, mr->dma[i], PAGE_SIZE,
				       mr->dir);
	return err;
}

/*
 * Take a region out of the device's memory table: no DMA reaches it after,
 * or the whole device is stopped.
 */
static void npo_mr_hw_destroy(struct npo_dev *ndev, u32 key)
{
	npo_mbox_release(ndev, NPO_MBOX_OP_MR_DESTROY, &key, 1);
}

/*
 * Enter the region in the device's memory table, in the file's job.  A
 * 64 GiB region is some 33,000 MR_PAGES commands: the command buffer is
 * taken for one at a time, so that time sync and routing, which share it,
 * get in between (a neighbour would otherwise lose this device's clock,
 * and the fabric its node), and a fatal signal ends the registration.
 */
static int npo_mr_load(struct npo_dev *ndev, struct npo_mr *mr,
		       struct npo_file *nfile)
{
	struct npo_hw_mr_create *c = ndev->cmd_buf;
	struct npo_hw_mr_pages *h = ndev->cmd_buf;
	__le64 *list = (__le64 *)(h + 1);
	u32 args[2] = { lower_32_bits(ndev->cmd_dma),
			upper_32_bits(ndev->cmd_dma) };
	unsigned long first, i, count;
	bool created;
	int err;

	err = npo_pd_load_job(ndev, nfile);
	if (err)
		return err;
	mutex_lock(&ndev->cmd_lock);
	c->key = cpu_to_le32(mr->key);
	c->pd = cpu_to_le32(nfile->pd);
	c->access = cpu_to_le32(mr->access);
	c->page_shift = cpu_to_le32(PAGE_SHIFT);
	c->iova = cpu_to_le64(mr->addr);
	c->length = cpu_to_le64(mr->length);
	c->rkey = cpu_to_le64(mr->rkey);
	err = npo_mbox_exec(ndev, NPO_MBOX_OP_MR_CREATE, args,
			    ARRAY_SIZE(args), NULL, 0);
	mutex_unlock(&ndev->cmd_lock);
	created = !err;
	for (first = 0; !err && first < mr->npages; first += count) {
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		count = min_t(unsigned long, mr->npages - first,
			      NPO_MR_PAGES_PER_CMD);
		mutex_lock(&ndev->cmd_lock);
		h->key = cpu_to_le32(mr->key);
		h->count = cpu_to_le32(count);
		h->first = cpu_to_le64(first);
		for (i = 0; i < count; i++)
			list[i] = cpu_to_le64(mr->dma[first + i]);
		err = npo_mbox_exec(ndev, NPO_MBOX_OP_MR_PAGES, args,
				    ARRAY_SIZE(args), NULL, 0);
		mutex_unlock(&ndev->cmd_lock);
		cond_resched();
	}
	/* A region created but not given all its pages must not linger. */
	if (err && created)
		npo_mr_hw_destroy(ndev, mr->key);
	else if (err)
		npo_mbox_settle(ndev, NPO_MBOX_OP_MR_CREATE, err);
	return err;
}

/*
 * A free slot of the device's memory table, at random: the slot is the
 * low bits of both keys, and the lowest free one would let any user of
 * the device watch others register and deregister (and know every index
 * a victim's regions have).  From a random point up, then from the
 * bottom.
 */
static int npo_mr_alloc_index(struct npo_dev *ndev)
{
	unsigned int max = ndev->num_mrs - 1;
	unsigned int from = 1 + get_random_u32_below(max);
	int idx;

	idx = ida_alloc_range(&ndev->mr_ida, from, max, GFP_KERNEL);
	if (idx == -ENOSPC && from > 1)
		idx = ida_alloc_range(&ndev->mr_ida, 1, from - 1, GFP_KERNEL);
	return idx;
}

/*
 * Give a region whose memory is mapped a key, enter it in the device's
 * memory table and in the file; on failure none of that remains.
 */
static int npo_mr_insert(struct npo_file *nfile, struct npo_mr *mr)
{
	struct npo_dev *ndev = nfile->ndev;
	int idx, err;

	idx = npo_mr_alloc_index(ndev);
	if (idx < 0)
		return idx;
	/*
	 * The local key only works in its own protection domain; the remote
	 * key's 48 random bits make one of another region hopeless to guess.
	 */
	mr->key = FIELD_PREP(NPO_MR_KEY_TAG, get_random_u32()) |
		  FIELD_PREP(NPO_MR_KEY_INDEX, idx);
	do {
		mr->rkey = FIELD_PREP(NPO_MR_RKEY_TAG, get_random_u64()) |
			   FIELD_PREP(NPO_MR_RKEY_INDEX, idx);
	} while (!FIELD_GET(NPO_MR_RKEY_TAG, mr->rkey));
	mutex_lock(&nfile->lock);
	err = npo_mr_load(ndev, mr, nfile);
	if (!err) {
		err = xa_insert(&nfile->mrs, idx, mr, GFP_KERNEL);
		if (err)
			npo_mr_hw_destroy(ndev, mr->key);
	}
	mutex_unlock(&nfile->lock);
	if (err) {
		ida_free(&ndev->mr_ida, idx);
		return err;
	}
	npo_dbg(ndev, DMA, "pd %u: region 0x%08x, %llu bytes, access 0x%x%s\n",
		nfile->pd, mr->key, mr->length, mr->access,
		mr->attach ? ", dma-buf" : "");
	return 0;
}

/* Let go of a region's memory: unpin user pages, or detach a dma-buf. */
static void npo_mr_put_memory(struct npo_dev *ndev, struct npo_mr *mr)
{
	struct dma_buf *dmabuf;

	if (!mr->attach) {
		npo_mr_unpin(ndev, mr, mr->npages, mr->npages);
		return;
	}
	dmabuf = mr->attach->dmabuf;
	dma_buf_unmap_attachment_unlocked(mr->attach, mr->sgt, mr->dir);
	dma_buf_detach(dmabuf, mr->attach);
	dma_buf_put(dmabuf);
}

/* Any right that lets the device write the region's memory. */
static bool npo_access_writes(u32 access)
{
	return access & (NPO_ACCESS_LOCAL_WRITE | NPO_ACCESS_REMOTE_WRITE |
			 NPO_ACCESS_REMOTE_ATOMIC);
}

/**
 * npo_mr_register() - pin, map and register user memory
 * @nfile: the registering file; the region joins its protection domain.
 * @reg: the ioctl argument; its keys are filled in.
 *
 * Pins without @nfile->lock, which mmap() takes under the mmap lock that
 * pinning takes too, and without the device's remove_lock, which removal
 * must not wait on for a pin that can take forever; takes it once the
 * pages are pinned.
 *
 * Context: process context, holding neither lock.
 * Return: 0 or a negative errno.
 */
int npo_mr_register(struct npo_file *nfile, struct npo_mr_reg *reg)
{
	struct npo_dev *ndev = nfile->ndev;
	struct npo_mr *mr;
	u64 end;
	int err;

	if (reg->flags || reg->pad || !reg->length ||
	    (reg->access & ~NPO_ACCESS_ALL) ||
	    check_add_overflow(reg->addr, reg->length - 1, &end) ||
	    end >= TASK_SIZE)
		return -EINVAL;
	if ((end >> PAGE_SHIFT) - (reg->addr >> PAGE_SHIFT) + 1 > NPO_MR_MAX_PAGES)
		return -E2BIG;
	if (!(ndev->caps & NPO_CAPS_QUEUES))
		return -EOPNOTSUPP;
	/* Checked again once pinned; this spares the pinning. */
	if (npo_state(ndev) != NPO_DEV_STATE_READY)
		return READ_ONCE(ndev->pdev) ? -EIO : -ENODEV;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return -ENOMEM;
	err = npo_quota_charge(ndev, &mr->cg, RDMACG_RESOURCE_HCA_OBJECT);
	if (err)
		goto err_free;
	mr->access = reg->access;
	mr->addr = reg->addr;
	mr->length = reg->length;
	mr->npages = (end >> PAGE_SHIFT) - (reg->addr >> PAGE_SHIFT) + 1;
	mr->writable = npo_access_writes(reg->access);
	mr->dir = mr->writable ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
	/* The limit first: over it, not even the page lists are allocated. */
	err = npo_mr_account(current->mm, mr->npages);
	if (err)
		goto err_free;
	mr->mm = current->mm;
	mmgrab(mr->mm);
	/* Up to 128 MiB each, charged to the caller's memory cgroup. */
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages),
				   GFP_KERNEL_ACCOUNT);
	mr->dma = kvmalloc_array(mr->npages, sizeof(*mr->dma),
				 GFP_KERNEL_ACCOUNT);
	if (!mr->pages || !mr->dma) {
		err = -ENOMEM;
		goto err_free;
	}

	err = npo_mr_pin(mr);
	if (err)
		goto err_free;
	down_read(&ndev->remove_lock);
	/* Removed, reset or stopped while pinning: nothing to register with. */
	err = !ndev->pdev ? -ENODEV :
	      npo_state(ndev) != NPO_DEV_STATE_READY ? -EIO : npo_mr_map(ndev, mr);
	if (!err) {
		err = npo_mr_insert(nfile, mr);
		if (err)
			npo_mr_unpin(ndev, mr, mr->npages, 0);
	}
	up_read(&ndev->remove_lock);
	if (err) {
		unpin_user_pages(mr->pages, mr->npages);
		goto err_free;
	}
	reg->lkey = mr->key;
	reg->rkey = mr->rkey;
	return 0;

err_free:
	npo_mr_free(ndev, mr);
	return err;
}

/* Device first, so that no DMA reaches the pages once they are unpinned. */
static void npo_mr_release(struct npo_file *nfile, struct npo_mr *mr,
			   bool hw_alive)
{
	struct npo_dev *ndev = nfile->ndev;

	if (hw_alive)
		npo_mr_hw_destroy(ndev, mr->key);
	ida_free(&ndev->mr_ida, FIELD_GET(NPO_MR_KEY_INDEX, mr->key));
	npo_mr_put_memory(ndev, mr);
	npo_mr_free(ndev, mr);
}

/* The bus address of every page of [offset, offset + length) of sgt. */
static int npo_mr_dma_pages(struct npo_mr *mr, struct sg_table *sgt,
			    u64 offset)
{
	struct scatterlist *sg;
	unsigned long n = 0;
	u64 pos = 0;
	int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		u64 len = sg_dma_len(sg), off;

		/* The device's page list is in whole pages. */
		if (!PAGE_ALIGNED(addr) || (!PAGE_ALIGNED(len) &&
					    !sg_is_last(sg)))
			return -EINVAL;
		for (off = 0; off < len && n < mr->npages; off += PAGE_SIZE) {
			if (pos + off >= offset)
				mr->dma[n++] = addr + off;
		}
		pos += len;
	}
	return n == mr->npages ? 0 : -EINVAL;
}

/**
 * npo_mr_register_dmabuf() - register (part of) a dma-buf
 * @nfile: the registering file; the region joins its protection domain.
 * @reg: the ioctl argument; its keys are filled in.
 *
 * The attachment is static, so the exporter keeps the memory in place
 * until the region is deregistered.  The memory is the exporter's, but
 * the device holds it as long as a pinned region, so its pages count
 * against the caller's RLIMIT_MEMLOCK all the same (and against the same
 * %NPO_MR_MAX_PAGES): a dma-buf is no way around either.
 *
 * Context: process context, under the device's remove_lock (read).
 * Return: 0 or a negative errno.
 */
int npo_mr_register_dmabuf(struct npo_file *nfile, struct npo_dmabuf_reg *reg)
{
	struct npo_dev *ndev = nfile->ndev;
	struct dma_buf *dmabuf;
	struct npo_mr *mr;
	u64 end;
	int err;

	if (reg->flags || reg->pad || reg->pad2 || !reg->length ||
	    (reg->access & ~NPO_ACCESS_ALL) || !PAGE_ALIGNED(reg->offset) ||
	    !PAGE_ALIGNED(reg->iova) ||
	    check_add_overflow(reg->offset, reg->length, &end) ||
	    check_add_overflow(reg->iova, reg->length - 1, &end))
		return -EINVAL;
	if (DIV_ROUND_UP(reg->length, PAGE_SIZE) > NPO_MR_MAX_PAGES)
		return -E2BIG;
	if (!(ndev->caps & NPO_CAPS_QUEUES))
		return -EOPNOTSUPP;
	dmabuf = dma_buf_get(reg->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (reg->offset + reg->length > dmabuf->size) {
		err = -EINVAL;
		goto err_put;
	}
	/* A buffer its exporter handed out read-only stays read-only. */
	if (npo_access_writes(reg->access) &&
	    !(dmabuf->file->f_mode & FMODE_WRITE)) {
		err = -EACCES;
		goto err_put;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_put;
	}
	err = npo_quota_charge(ndev, &mr->cg, RDMACG_RESOURCE_HCA_OBJECT);
	if (err)
		goto err_free;
	mr->access = reg->access;
	mr->addr = reg->iova;
	mr->length = reg->length;
	mr->npages = DIV_ROUND_UP(reg->length, PAGE_SIZE);
	mr->dir = npo_access_writes(reg->access) ? DMA_BIDIRECTIONAL :
						   DMA_TO_DEVICE;
	err = npo_mr_account(current->mm, mr->npages);
	if (err)
		goto err_free;
	mr->mm = current->mm;
	mmgrab(mr->mm);
	mr->dma = kvmalloc_array(mr->npages, sizeof(*mr->dma),
				 GFP_KERNEL_ACCOUNT);
	if (!mr->dma) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->attach = dma_buf_attach(dmabuf, &ndev->pdev->dev);
	if (IS_ERR(mr->attach)) {
		err = PTR_ERR(mr->attach);
		mr->attach = NULL;
		goto err_free;
	}
	mr->sgt = dma_buf_map_attachment_unlocked(mr->attach, mr->dir);
	if (IS_ERR(mr->sgt)) {
		err = PTR_ERR(mr->sgt);
		goto err_detach;
	}
	err = npo_mr_dma_pages(mr, mr->sgt, reg->offset);
	if (!err)
		err = npo_mr_insert(nfile, mr);
	if (err)
		goto err_unmap;
	reg->lkey = mr->key;
	reg->rkey = mr->rkey;
	return 0;

err_unmap:
	dma_buf_unmap_attachment_unlocked(mr->attach, mr->sgt, mr->dir);
err_detach:
	dma_buf_detach(dmabuf, mr->attach);
	mr->attach = NULL;
err_free:
	npo_mr_free(ndev, mr);
err_put:
	dma_buf_put(dmabuf);
	return err;
}

/**
 * npo_mr_deregister() - remove a region this file registered
 * @nfile: the file.
 * @key: the region's local key.
 *
 * Context: under @nfile->lock and the device's remove_lock (read).
 * Return: 0, or -ENOENT if @nfile has no region with @key.
 */
int npo_mr_deregister(struct npo_file *nfile, u32 key)
{
	struct npo_mr *mr = xa_load(&nfile->mrs, FIELD_GET(NPO_MR_KEY_INDEX, key));
	enum npo_dev_state state = npo_state(nfile->ndev);

	if (!mr || mr->key != key)
		return -ENOENT;
	/* As for queues: the recovery releases it once the device stopped. */
	if (state == NPO_DEV_STATE_RESETTING)
		return -EAGAIN;
	xa_erase(&nfile->mrs, FIELD_GET(NPO_MR_KEY_INDEX, key));
	npo_mr_release(nfile, mr, state == NPO_DEV_STATE_READY);
	return 0;
}

/**
 * npo_mr_release_all() - remove every region of a file
 * @nfile: the file.
 * @hw_alive: the device can still be told; false once it was reset or
 *	removed, when its memory table is gone already.
 *
 * Context: under @nfile->lock, after the file's queues are destroyed.
 */
void npo_mr_release_all(struct npo_file *nfile, bool hw_alive)
{
	struct npo_mr *mr;
	unsigned long idx;

	xa_for_each(&nfile->mrs, idx, mr) {
		xa_erase(&nfile->mrs, idx);
		npo_mr_release(nfile, mr, hw_alive);
	}
}

static int npo_mr_put(struct sk_buff *skb, const struct npo_mr *mr)
{
	if (nla_put_u32(skb, NPO_ATTR_MR_KEY, mr->key) ||
	    nla_put_u64_64bit(skb, NPO_ATTR_MR_ADDR, mr->addr, NPO_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, NPO_ATTR_MR_LENGTH, mr->length,
			      NPO_ATTR_PAD) ||
	    nla_put_u32(skb, NPO_ATTR_MR_ACCESS, mr->access))
		return -EMSGSIZE;
	return 0;
}

/**
 * npo_mr_dump() - describe a file's regions in a netlink dump
 * @skb: the dump's buffer.
 * @cb: the dump.
 * @nfile: the file, its lock held.
 * @index: the region to start from; left at the one that did not fit.
 *
 * Return: 0 when every region is in, -EMSGSIZE when @skb is full.
 */
int npo_mr_dump(struct sk_buff *skb, struct netlink_callback *cb,
		struct npo_file *nfile, unsigned long *index)
{
	struct npo_mr *mr;
	void *hdr;
	int err;

	xa_for_each_start(&nfile->mrs, *index, mr, *index) {
		hdr = npo_genl_dump_begin(skb, cb, NPO_CMD_MR_GET, nfile);
		if (!hdr)
			return -EMSGSIZE;
		err = npo_genl_end(skb, hdr, npo_mr_put(skb, mr));
		if (err)
			return err;
	}
	return 0;
}
