// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Completion queues.  Completions are kept in the provider's own rings
 * (they come from several device queues: the receiving one and one per
 * peer), errors apart, read first.  Reading progresses every endpoint
 * bound to the queue: with manual progress it is the application's hook.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npo_fi.h"

static int cq_close(struct fid *fid)
{
	struct npo_fi_cq *cq = npo_fi_container_of(fid, struct npo_fi_cq, cq.fid);

	pthread_mutex_lock(&cq->dom->lock);
	if (cq->nep) {
		pthread_mutex_unlock(&cq->dom->lock);
		return -FI_EBUSY;
	}
	cq->dom->refs--;
	pthread_mutex_unlock(&cq->dom->lock);
	free(cq->ring);
	free(cq->errs);
	free(cq);
	return 0;
}

/* Room for one more in a ring of *cap entries holding *count from *head. */
static struct npo_fi_cqe *ring_slot(struct npo_fi_cqe **ring, size_t *head,
				    size_t *count, size_t *cap)
{
	if (*count == *cap) {
		size_t n = *cap ? *cap * 2 : 64, i;
		struct npo_fi_cqe *r = malloc(n * sizeof(*r));

		if (!r)
			return NULL;
		for (i = 0; i < *count; i++)
			r[i] = (*ring)[(*head + i) % *cap];
		free(*ring);
		*ring = r;
		*head = 0;
		*cap = n;
	}
	return &(*ring)[(*head + (*count)++) % *cap];
}

/* A completion's common part into e, cleared first. */
static void cqe_fill(struct npo_fi_cqe *e, void *context, uint64_t flags,
		     size_t len, void *buf, uint64_t data, uint64_t tag,
		     fi_addr_t src)
{
	memset(e, 0, sizeof(*e));
	e->e.op_context = context;
	e->e.flags = flags;
	e->e.len = len;
	e->e.buf = buf;
	e->e.data = data;
	e->e.tag = tag;
	e->src = src;
}

int npo_fi_cq_push(struct npo_fi_cq *cq, void *context, uint64_t flags,
		   size_t len, void *buf, uint64_t data, uint64_t tag,
		   fi_addr_t src)
{
	struct npo_fi_cqe *e = ring_slot(&cq->ring, &cq->head, &cq->count,
					 &cq->cap);

	if (!e)
		return -FI_ENOMEM;
	cqe_fill(e, context, flags, len, buf, data, tag, src);
	return 0;
}

int npo_fi_cq_push_err(struct npo_fi_cq *cq, void *context, uint64_t flags,
		       int err, uint32_t status, size_t len, size_t olen,
		       uint64_t data, uint64_t tag, const char *what)
{
	struct npo_fi_cqe *e = ring_slot(&cq->errs, &cq->ehead, &cq->ecount,
					 &cq->ecap);

	if (!e)
		return -FI_ENOMEM;
	cqe_fill(e, context, flags, len, NULL, data, tag, FI_ADDR_NOTAVAIL);
	e->err = err;
	e->prov_errno = status;
	e->olen = olen;
	snprintf(e->what, sizeof(e->what), "%s", what ? what : "");
	return 0;
}

void npo_fi_cq_progress(struct npo_fi_cq *cq)
{
	int i;

	for (i = 0; i < cq->nep; i++)
		npo_fi_ep_progress(cq->eps[i]);
}

static void copy_entry(enum fi_cq_format format, void *buf, size_t i,
		       const struct fi_cq_tagged_entry *e)
{
	switch (format) {
	case FI_CQ_FORMAT_CONTEXT: {
		struct fi_cq_entry *c = buf;

		c[i].op_context = e->op_context;
		break;
	}
	case FI_CQ_FORMAT_MSG: {
		struct fi_cq_msg_entry *m = buf;

		m[i].op_context = e->op_context;
		m[i].flags = e->flags;
		m[i].len = e->len;
		break;
	}
	case FI_CQ_FORMAT_DATA: {
		struct fi_cq_data_entry *d = buf;

		d[i].op_context = e->op_context;
		d[i].flags = e->flags;
		d[i].len = e->len;
		d[i].buf = e->buf;
		d[i].data = e->data;
		break;
	}
	default:
		((struct fi_cq_tagged_entry *)buf)[i] = *e;
		break;
	}
}

static ssize_t cq_readfrom(struct fid_cq *fcq, void *buf, size_t count,
			   fi_addr_t *src_addr)
{
	struct npo_fi_cq *cq = npo_fi_container_of(fcq, struct npo_fi_cq, cq);
	ssize_t n = 0;

	pthread_mutex_lock(&cq->dom->lock);
	npo_fi_cq_progress(cq);
	if (cq->ecount) {
		n = -FI_EAVAIL;
	} else {
		while ((size_t)n < count && cq->count) {
			struct npo_fi_cqe *e = &cq->ring[cq->head];

			copy_entry(cq->format, buf, n, &e->e);
			if (src_addr)
				src_addr[n] = e->src;
			cq->head = (cq->head + 1) % cq->cap;
			cq->count--;
			n++;
		}
		if (!n)
			n = -FI_EAGAIN;
	}
	pthread_mutex_unlock(&cq->dom->lock);
	return n;
}

static ssize_t cq_read(struct fid_cq *cq, void *buf, size_t count)
{
	return cq_readfrom(cq, buf, count, NULL);
}

static ssize_t cq_readerr(struct fid_cq *fcq, struct fi_cq_err_entry *buf,
			  uint64_t flags)
{
	struct npo_fi_cq *cq = npo_fi_container_of(fcq, struct npo_fi_cq, cq);
	struct npo_fi_cqe *e;
	size_t room;

	(void)flags;
	pthread_mutex_lock(&cq->dom->lock);
	if (!cq->ecount) {
		pthread_mutex_unlock(&cq->dom->lock);
		return -FI_EAGAIN;
	}
	e = &cq->errs[cq->ehead];
	cq->last_err = *e;
	cq->ehead = (cq->ehead + 1) % cq->ecap;
	cq->ecount--;

	/*
	 * Filled under the lock: last_err is what a later fi_cq_strerror()
	 * without the caller's copy reads.  err_data_size is the caller's
	 * buffer since API 1.5.
	 */
	e = &cq->last_err;
	room = buf->err_data_size;
	buf->op_context = e->e.op_context;
	buf->flags = e->e.flags;
	buf->len = e->e.len;
	buf->buf = e->e.buf;
	buf->data = e->e.data;
	buf->tag = e->e.tag;
	buf->olen = e->olen;
	buf->err = e->err;
	buf->prov_errno = e->prov_errno;
	if (room && buf->err_data) {
		size_t n = strlen(e->what) + 1;

		n = n < room ? n : room;
		memcpy(buf->err_data, e->what, n);
		((char *)buf->err_data)[n - 1] = '\0';
		buf->err_data_size = n;
	} else {
		buf->err_data = e->what;
		buf->err_data_size = strlen(e->what) + 1;
	}
	pthread_mutex_unlock(&cq->dom->lock);
	return 1;
}

static ssize_t cq_sreadfrom(struct fid_cq *fcq, void *buf, size_t count,
			    fi_addr_t *src_addr, const void *cond, int timeout)
{
	struct npo_fi_cq *cq = npo_fi_container_of(fcq, struct npo_fi_cq, cq);
	struct timespec start, now;
	ssize_t n;

	(void)cond;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		n = cq_readfrom(fcq, buf, count, src_addr);
		if (n != -FI_EAGAIN)
			return n;
		if (__atomic_exchange_n(&cq->signalled, false, __ATOMIC_ACQ_REL))
			return -FI_EAGAIN;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timeout >= 0 &&
		    (now.tv_sec - start.tv_sec) * 1000 +
		    (now.tv_nsec - start.tv_nsec) / 1000000 >= timeout)
			return -FI_EAGAIN;
		sched_yield();
	}
}

static ssize_t cq_sread(struct fid_cq *cq, void *buf, size_t count,
			const void *cond, int timeout)
{
	return cq_sreadfrom(cq, buf, count, NULL, cond, timeout);
}

static int cq_signal(struct fid_cq *fcq)
{
	struct npo_fi_cq *cq = npo_fi_container_of(fcq, struct npo_fi_cq, cq);

	__atomic_store_n(&cq->signalled, true, __ATOMIC_RELEASE);
	return 0;
}

static const char *cq_strerror(struct fid_cq *fcq, int prov_errno,
			       const void *err_data, char *buf, size_t len)
{
	struct npo_fi_cq *cq = npo_fi_container_of(fcq, struct npo_fi_cq, cq);
	const char *what = err_data ? err_data : "";

	if (!buf || !len) {
		buf = cq->err_buf;
		len = sizeof(cq->err_buf);
	}
	snprintf(buf, len, "%s%s%s", what, *what ? ": " : "",
		 npo_status_str(prov_errno));
	return buf;
}

static struct fi_ops cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = cq_close,
	.bind = npo_fi_no_bind,
	.control = npo_fi_no_control,
	.ops_open = npo_fi_no_ops_open,
};

static struct fi_ops_cq cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = cq_read,
	.readfrom = cq_readfrom,
	.readerr = cq_readerr,
	.sread = cq_sread,
	.sreadfrom = cq_sreadfrom,
	.signal = cq_signal,
	.strerror = cq_strerror,
};

int npo_fi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		   struct fid_cq **fcq, void *context)
{
	struct npo_fi_domain *d =
		npo_fi_container_of(domain, struct npo_fi_domain, domain);
	struct npo_fi_cq *cq;

	if (!attr)
		return -FI_EINVAL;
	switch (attr->format) {
	case FI_CQ_FORMAT_UNSPEC:
	case FI_CQ_FORMAT_CONTEXT:
	case FI_CQ_FORMAT_MSG:
	case FI_CQ_FORMAT_DATA:
	case FI_CQ_FORMAT_TAGGED:
		break;
	default:
		return -FI_ENOSYS;
	}
	/* Progress is manual: a waiter polls; no wait object to hand out. */
	if (attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC)
		return -FI_ENOSYS;
	if (attr->flags & ~FI_AFFINITY)
		return -FI_EBADFLAGS;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	cq->dom = d;
	cq->format = attr->format == FI_CQ_FORMAT_UNSPEC ?
		     FI_CQ_FORMAT_CONTEXT : attr->format;
	cq->cq.fid.fclass = FI_CLASS_CQ;
	cq->cq.fid.context = context;
	cq->cq.fid.ops = &cq_fi_ops;
	cq->cq.ops = &cq_ops;
	pthread_mutex_lock(&d->lock);
	d->refs++;
	pthread_mutex_unlock(&d->lock);
	*fcq = &cq->cq;
	return 0;
}
