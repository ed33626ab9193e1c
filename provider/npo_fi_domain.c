// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A domain is one NPO device opened by this process, in the job every
 * process of the application shares; its regions are NPO memory regions,
 * named to peers by the device's remote key and the virtual address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "npo_fi.h"

static int domain_close(struct fid *fid)
{
	struct npo_fi_domain *d =
		npo_fi_container_of(fid, struct npo_fi_domain, domain.fid);

	if (d->refs)
		return -FI_EBUSY;
	npo_close_device(d->dev);
	pthread_mutex_destroy(&d->lock);
	free(d);
	return 0;
}

/* ---- memory regions ------------------------------------------------ */

static int mr_close(struct fid *fid)
{
	struct npo_fi_mr *m = npo_fi_container_of(fid, struct npo_fi_mr, mr.fid);
	struct npo_fi_domain *d = m->dom;
	int rc;

	pthread_mutex_lock(&d->lock);
	rc = npo_dereg_mr(m->nmr);
	if (!rc)
		d->refs--;
	pthread_mutex_unlock(&d->lock);
	if (rc)
		return -FI_EBUSY;
	free(m);
	return 0;
}

static struct fi_ops mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mr_close,
	.bind = npo_fi_no_bind,
	.control = npo_fi_no_control,
	.ops_open = npo_fi_no_ops_open,
};

/* The NPO region behind a descriptor from fi_mr_desc(), or NULL. */
struct npo_mr *npo_fi_mr_desc(void *desc)
{
	struct npo_fi_mr *m = desc;

	return m && m->mr.fid.fclass == FI_CLASS_MR ? m->nmr : NULL;
}

static uint32_t npo_access(uint64_t access)
{
	uint32_t a = NPO_ACCESS_LOCAL_WRITE;

	/* No rights given means all of them (fi_mr_reg(3)). */
	if (!access)
		return NPO_ACCESS_ALL;
	if (access & FI_REMOTE_READ)
		a |= NPO_ACCESS_REMOTE_READ;
	if (access & FI_REMOTE_WRITE)
		a |= NPO_ACCESS_REMOTE_WRITE | NPO_ACCESS_REMOTE_ATOMIC;
	return a;
}

static int mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
		      uint64_t flags, struct fid_mr **mr)
{
	struct npo_fi_domain *d =
		npo_fi_container_of(fid, struct npo_fi_domain, domain.fid);
	struct npo_fi_mr *m;
	int rc;

	if (flags || !attr || attr->iov_count != 1 || !attr->mr_iov)
		return -FI_EINVAL;
	if (attr->iface != FI_HMEM_SYSTEM)
		return -FI_EOPNOTSUPP;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -FI_ENOMEM;
	pthread_mutex_lock(&d->lock);
	rc = npo_reg_mr(d->dev, attr->mr_iov->iov_base, attr->mr_iov->iov_len,
			npo_access(attr->access), &m->nmr);
	if (!rc)
		d->refs++;
	pthread_mutex_unlock(&d->lock);
	if (rc) {
		free(m);
		return rc == -ENOMEM ? -FI_ENOMEM : -FI_EINVAL;
	}
	m->dom = d;
	m->mr.fid.fclass = FI_CLASS_MR;
	m->mr.fid.context = attr->context;
	m->mr.fid.ops = &mr_fi_ops;
	m->mr.mem_desc = m;
	m->mr.key = npo_mr_rkey(m->nmr);
	*mr = &m->mr;
	return 0;
}

static int mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		   uint64_t access, uint64_t offset, uint64_t requested_key,
		   uint64_t flags, struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key,
		.context = context,
		.iface = FI_HMEM_SYSTEM,
	};

	return mr_regattr(fid, &attr, flags, mr);
}

static int mr_reg(struct fid *fid, const void *buf, size_t len,
		  uint64_t access, uint64_t offset, uint64_t requested_key,
		  uint64_t flags, struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return mr_regv(fid, &iov, 1, access, offset, requested_key, flags, mr,
		       context);
}

static struct fi_ops_mr domain_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = mr_reg,
	.regv = mr_regv,
	.regattr = mr_regattr,
};

/* ---- the domain ------------------------------------------------------ */

static int no_scalable_ep(struct fid_domain *domain, struct fi_info *info,
			  struct fid_ep **sep, void *context)
{
	(void)domain; (void)info; (void)sep; (void)context;
	return -FI_ENOSYS;
}

static int no_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
			struct fid_cntr **cntr, void *context)
{
	(void)domain; (void)attr; (void)cntr; (void)context;
	return -FI_ENOSYS;
}

static int no_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
			struct fid_poll **pollset)
{
	(void)domain; (void)attr; (void)pollset;
	return -FI_ENOSYS;
}

static int no_stx_ctx(struct fid_domain *domain, struct fi_tx_attr *attr,
		      struct fid_stx **stx, void *context)
{
	(void)domain; (void)attr; (void)stx; (void)context;
	return -FI_ENOSYS;
}

static int no_srx_ctx(struct fid_domain *domain, struct fi_rx_attr *attr,
		      struct fid_ep **rx_ep, void *context)
{
	(void)domain; (void)attr; (void)rx_ep; (void)context;
	return -FI_ENOSYS;
}

static int no_query_collective(struct fid_domain *domain,
			       enum fi_collective_op coll,
			       struct fi_collective_attr *attr, uint64_t flags)
{
	(void)domain; (void)coll; (void)attr; (void)flags;
	return -FI_ENOSYS;
}

static int endpoint2(struct fid_domain *domain, struct fi_info *info,
		     struct fid_ep **ep, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EINVAL;
	return npo_fi_endpoint(domain, info, ep, context);
}

static struct fi_ops domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = domain_close,
	.bind = npo_fi_no_bind,
	.control = npo_fi_no_control,
	.ops_open = npo_fi_no_ops_open,
};

static struct fi_ops_domain domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = npo_fi_av_open,
	.cq_open = npo_fi_cq_open,
	.endpoint = npo_fi_endpoint,
	.scalable_ep = no_scalable_ep,
	.cntr_open = no_cntr_open,
	.poll_open = no_poll_open,
	.stx_ctx = no_stx_ctx,
	.srx_ctx = no_srx_ctx,
	.query_atomic = npo_fi_query_atomic,
	.query_collective = no_query_collective,
	.endpoint2 = endpoint2,
};

int npo_fi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_domain **domain, void *context)
{
	struct npo_device_attr attr;
	struct npo_fi_domain *d;
	char *job = NULL, *end;
	unsigned long jobv;
	int rc;

	(void)fabric;
	if (!info || !info->domain_attr || !info->domain_attr->name)
		return -FI_EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FI_ENOMEM;
	d->dev = npo_open_device(info->domain_attr->name);
	if (!d->dev) {
		NPO_FI_WARN(FI_LOG_DOMAIN, "npo: cannot open %s: %s\n",
			    info->domain_attr->name, strerror(errno));
		free(d);
		return errno == EACCES ? -FI_EACCES : -FI_ENODEV;
	}
	if (fi_param_get_str(&npo_fi_prov, "job", &job) == FI_SUCCESS && job) {
		errno = 0;
		jobv = strtoul(job, &end, 0);
		rc = errno || *end || jobv > UINT32_MAX ? -EINVAL :
		     npo_device_set_job(d->dev, (uint32_t)jobv);
		if (rc) {
			NPO_FI_WARN(FI_LOG_DOMAIN,
				    "npo: cannot put %s in job %s: %s\n",
				    info->domain_attr->name, job,
				    npo_strerror(rc));
			npo_close_device(d->dev);
			free(d);
			return rc == -EPERM ? -FI_EPERM : -FI_EINVAL;
		}
	}
	if (npo_device_job(d->dev, &d->job) ||
	    npo_query_device(d->dev, &attr)) {
		npo_close_device(d->dev);
		free(d);
		return -FI_ENODEV;
	}
	d->node_id = attr.node_id;
	d->caps = info->caps;
	pthread_mutex_init(&d->lock, NULL);
	d->domain.fid.fclass = FI_CLASS_DOMAIN;
	d->domain.fid.context = context;
	d->domain.fid.ops = &domain_fi_ops;
	d->domain.ops = &domain_ops;
	d->domain.mr = &domain_mr_ops;
	*domain = &d->domain;
	return 0;
}
