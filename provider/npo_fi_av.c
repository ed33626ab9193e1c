// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Address vectors: an fi_addr_t is an index into a table of libnpo
 * endpoints (node, receiving queue, job), inserted from the blobs
 * fi_getname() gave out.  FI_AV_MAP and FI_AV_TABLE behave alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npo_fi.h"

static int av_close(struct fid *fid)
{
	struct npo_fi_av *av = npo_fi_container_of(fid, struct npo_fi_av, av.fid);

	pthread_mutex_lock(&av->dom->lock);
	if (av->refs) {
		pthread_mutex_unlock(&av->dom->lock);
		return -FI_EBUSY;
	}
	av->dom->refs--;
	pthread_mutex_unlock(&av->dom->lock);
	free(av->tab);
	free(av);
	return 0;
}

static int av_grow(struct npo_fi_av *av)
{
	size_t cap = av->cap ? av->cap * 2 : 64;
	struct npo_fi_av_entry *t = realloc(av->tab, cap * sizeof(*t));

	if (!t)
		return -FI_ENOMEM;
	av->tab = t;
	av->cap = cap;
	return 0;
}

static int av_insert(struct fid_av *fav, const void *addr, size_t count,
		     fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct npo_fi_av *av = npo_fi_container_of(fav, struct npo_fi_av, av);
	struct npo_fi_domain *d = av->dom;
	size_t i;
	int n = 0;

	(void)context;
	if (flags)
		return -FI_EBADFLAGS;
	pthread_mutex_lock(&d->lock);
	for (i = 0; i < count; i++) {
		const char *blob = (const char *)addr + i * NPO_ENDPOINT_BLOB_SIZE;
		struct npo_endpoint ep;

		if (fi_addr)
			fi_addr[i] = FI_ADDR_NOTAVAIL;
		if (npo_endpoint_unpack(blob, NPO_ENDPOINT_BLOB_SIZE, &ep) < 0) {
			NPO_FI_WARN(FI_LOG_AV,
				    "npo: address %zu is not an NPO endpoint\n",
				    i);
			continue;
		}
		if (ep.job != d->job) {
			NPO_FI_WARN(FI_LOG_AV,
				    "npo: node %u queue %u is in job %#x, this "
				    "process in %#x: no request could reach it "
				    "(set FI_NPO_JOB, or run under npoctl job "
				    "run)\n", ep.node_id, ep.queue_id, ep.job,
				    d->job);
			continue;
		}
		if (av->count == av->cap && av_grow(av))
			break;
		av->tab[av->count].ep = ep;
		memcpy(av->tab[av->count].blob, blob, NPO_ENDPOINT_BLOB_SIZE);
		av->tab[av->count].used = true;
		if (fi_addr)
			fi_addr[i] = av->count;
		av->count++;
		n++;
	}
	pthread_mutex_unlock(&d->lock);
	return n;
}

static int av_insertsvc(struct fid_av *av, const char *node,
			const char *service, fi_addr_t *fi_addr,
			uint64_t flags, void *context)
{
	(void)av; (void)node; (void)service; (void)fi_addr; (void)flags;
	(void)context;
	return -FI_ENOSYS;
}

static int av_insertsym(struct fid_av *av, const char *node, size_t nodecnt,
			const char *service, size_t svccnt, fi_addr_t *fi_addr,
			uint64_t flags, void *context)
{
	(void)av; (void)node; (void)nodecnt; (void)service; (void)svccnt;
	(void)fi_addr; (void)flags; (void)context;
	return -FI_ENOSYS;
}

static int av_remove(struct fid_av *fav, fi_addr_t *fi_addr, size_t count,
		     uint64_t flags)
{
	struct npo_fi_av *av = npo_fi_container_of(fav, struct npo_fi_av, av);
	size_t i;
	int rc = 0;

	if (flags)
		return -FI_EBADFLAGS;
	pthread_mutex_lock(&av->dom->lock);
	for (i = 0; i < count; i++) {
		if (fi_addr[i] >= av->count || !av->tab[fi_addr[i]].used)
			rc = -FI_EINVAL;
		else
			av->tab[fi_addr[i]].used = false;
	}
	pthread_mutex_unlock(&av->dom->lock);
	return rc;
}

static int av_lookup(struct fid_av *fav, fi_addr_t fi_addr, void *addr,
		     size_t *addrlen)
{
	struct npo_fi_av *av = npo_fi_container_of(fav, struct npo_fi_av, av);
	int rc = -FI_EINVAL;

	pthread_mutex_lock(&av->dom->lock);
	if (fi_addr < av->count && av->tab[fi_addr].used) {
		memcpy(addr, av->tab[fi_addr].blob,
		       *addrlen < NPO_ENDPOINT_BLOB_SIZE ?
		       *addrlen : NPO_ENDPOINT_BLOB_SIZE);
		rc = 0;
	}
	pthread_mutex_unlock(&av->dom->lock);
	*addrlen = NPO_ENDPOINT_BLOB_SIZE;
	return rc;
}

static const char *av_straddr(struct fid_av *av, const void *addr, char *buf,
			      size_t *len)
{
	struct npo_endpoint ep;
	int n;

	(void)av;
	if (npo_endpoint_unpack(addr, NPO_ENDPOINT_BLOB_SIZE, &ep) < 0)
		n = snprintf(buf, *len, "npo://invalid");
	else
		n = snprintf(buf, *len, "npo://node%u/queue%u/job%#x",
			     ep.node_id, ep.queue_id, ep.job);
	*len = n + 1;
	return buf;
}

static struct fi_ops av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = av_close,
	.bind = npo_fi_no_bind,
	.control = npo_fi_no_control,
	.ops_open = npo_fi_no_ops_open,
};

static struct fi_ops_av av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = av_insert,
	.insertsvc = av_insertsvc,
	.insertsym = av_insertsym,
	.remove = av_remove,
	.lookup = av_lookup,
	.straddr = av_straddr,
};

int npo_fi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		   struct fid_av **fav, void *context)
{
	struct npo_fi_domain *d =
		npo_fi_container_of(domain, struct npo_fi_domain, domain);
	struct npo_fi_av *av;

	if (attr && (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_MAP &&
		     attr->type != FI_AV_TABLE))
		return -FI_EINVAL;
	if (attr && (attr->name || attr->rx_ctx_bits || attr->flags))
		return -FI_ENOSYS;
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	av->dom = d;
	av->av.fid.fclass = FI_CLASS_AV;
	av->av.fid.context = context;
	av->av.fid.ops = &av_fi_ops;
	av->av.ops = &av_ops;
	pthread_mutex_lock(&d->lock);
	d->refs++;
	pthread_mutex_unlock(&d->lock);
	*fav = &av->av;
	return 0;
}

/* Caller holds the domain lock.  0, or -FI_EINVAL for an unknown addr. */
int npo_fi_av_get(struct npo_fi_av *av, fi_addr_t addr,
		  struct npo_endpoint *ep)
{
	if (!av || addr >= av->count || !av->tab[addr].used)
		return -FI_EINVAL;
	*ep = av->tab[addr].ep;
	return 0;
}

/* The fi_addr_t of (node, queue), or FI_ADDR_NOTAVAIL. */
fi_addr_t npo_fi_av_find(struct npo_fi_av *av, uint32_t node, uint16_t queue)
{
	size_t i;

	if (!av)
		return FI_ADDR_NOTAVAIL;
	/* Newest first: a peer inserted again after a restart. */
	for (i = av->count; i-- > 0;) {
		if (av->tab[i].used && av->tab[i].ep.node_id == node &&
		    av->tab[i].ep.queue_id == queue)
			return i;
	}
	return FI_ADDR_NOTAVAIL;
}
