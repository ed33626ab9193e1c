// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The provider's entry point, its fabric and its event queue, and what the
 * other files share: NPO statuses as libfabric errors, -FI_ENOSYS stubs
 * (libfabric 1.17 exports none of its own).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npo_fi.h"

static void npo_fi_cleanup(void)
{
}

struct fi_provider npo_fi_prov = {
	.name = "npo",
	.version = NPO_FI_VERSION,
	.fi_version = NPO_FI_API,
	.getinfo = npo_fi_getinfo,
	.fabric = NULL,		/* set by fi_prov_ini: defined below */
	.cleanup = npo_fi_cleanup,
};

int npo_fi_status_to_errno(uint32_t status)
{
	switch (status) {
	case NPO_STATUS_OK:
		return 0;
	case NPO_STATUS_LOCAL_KEY:
	case NPO_STATUS_LOCAL_ACCESS:
	case NPO_STATUS_REMOTE_KEY:
	case NPO_STATUS_REMOTE_ACCESS:
		return FI_EACCES;
	case NPO_STATUS_REMOTE_QUEUE:
	case NPO_STATUS_UNREACHABLE:
		return FI_EHOSTUNREACH;
	case NPO_STATUS_LINK_DOWN:
		return FI_ENETDOWN;
	case NPO_STATUS_FLUSHED:
		return FI_ECANCELED;
	case NPO_STATUS_RNR:
		/* After 30 tries of a second: not a "try again". */
		return FI_ETIMEDOUT;
	case NPO_STATUS_REMOTE_LENGTH:
		return FI_EMSGSIZE;
	case NPO_STATUS_RESET:
		return FI_ENODEV;
	default:
		return FI_EIO;
	}
}

int npo_fi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid; (void)bfid; (void)flags;
	return -FI_ENOSYS;
}

int npo_fi_no_control(struct fid *fid, int command, void *arg)
{
	(void)fid; (void)command; (void)arg;
	return -FI_ENOSYS;
}

int npo_fi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		       void **ops, void *context)
{
	(void)fid; (void)name; (void)flags; (void)ops; (void)context;
	return -FI_ENOSYS;
}

/* ---- event queue: nothing of ours reports through one ------------- */

static int eq_close(struct fid *fid)
{
	free(npo_fi_container_of(fid, struct npo_fi_eq, eq.fid));
	return 0;
}

static ssize_t eq_read(struct fid_eq *eq, uint32_t *event, void *buf,
		       size_t len, uint64_t flags)
{
	(void)eq; (void)event; (void)buf; (void)len; (void)flags;
	return -FI_EAGAIN;
}

static ssize_t eq_readerr(struct fid_eq *eq, struct fi_eq_err_entry *buf,
			  uint64_t flags)
{
	(void)eq; (void)buf; (void)flags;
	return -FI_EAGAIN;
}

static ssize_t eq_write(struct fid_eq *eq, uint32_t event, const void *buf,
			size_t len, uint64_t flags)
{
	(void)eq; (void)event; (void)buf; (void)len; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t eq_sread(struct fid_eq *eq, uint32_t *event, void *buf,
			size_t len, int timeout, uint64_t flags)
{
	(void)timeout;
	return eq_read(eq, event, buf, len, flags);
}

static const char *eq_strerror(struct fid_eq *eq, int prov_errno,
			       const void *err_data, char *buf, size_t len)
{
	(void)eq; (void)err_data;
	if (buf && len)
		snprintf(buf, len, "%s", npo_status_str(prov_errno));
	return npo_status_str(prov_errno);
}

static struct fi_ops eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = eq_close,
	.bind = npo_fi_no_bind,
	.control = npo_fi_no_control,
	.ops_open = npo_fi_no_ops_open,
};

static struct fi_ops_eq eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = eq_read,
	.readerr = eq_readerr,
	.write = eq_write,
	.sread = eq_sread,
	.strerror = eq_strerror,
};

int npo_fi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		   struct fid_eq **eq, void *context)
{
	struct npo_fi_eq *e;

	if (attr && attr->wait_obj != FI_WAIT_NONE &&
	    attr->wait_obj != FI_WAIT_UNSPEC)
		return -FI_ENOSYS;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FI_ENOMEM;
	(void)fabric;
	e->eq.fid.fclass = FI_CLASS_EQ;
	e->eq.fid.context = context;
	e->eq.fid.ops = &eq_fi_ops;
	e->eq.ops = &eq_ops;
	*eq = &e->eq;
	return 0;
}

/* ---- fabric ------------------------------------------------------- */

static int fabric_close(struct fid *fid)
{
	free(npo_fi_container_of(fid, struct npo_fi_fabric, fabric.fid));
	return 0;
}

static int no_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
			 struct fid_pep **pep, void *context)
{
	(void)fabric; (void)info; (void)pep; (void)context;
	return -FI_ENOSYS;
}

static int no_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
			struct fid_wait **waitset)
{
	(void)fabric; (void)attr; (void)waitset;
	return -FI_ENOSYS;
}

static int fabric_trywait(struct fid_fabric *fabric, struct fid **fids,
			  int count)
{
	(void)fabric; (void)fids; (void)count;
	/* Progress is manual: a waiter must poll. */
	return -FI_EAGAIN;
}

static struct fi_ops fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fabric_close,
	.bind = npo_fi_no_bind,
	.control = npo_fi_no_control,
	.ops_open = npo_fi_no_ops_open,
};

static struct fi_ops_fabric fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = npo_fi_domain_open,
	.passive_ep = no_passive_ep,
	.eq_open = npo_fi_eq_open,
	.wait_open = no_wait_open,
	.trywait = fabric_trywait,
};

static int npo_fi_fabric_open(struct fi_fabric_attr *attr,
			      struct fid_fabric **fabric, void *context)
{
	struct npo_fi_fabric *f;

	if (attr && attr->name && strcmp(attr->name, "npo"))
		return -FI_ENODATA;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -FI_ENOMEM;
	f->fabric.fid.fclass = FI_CLASS_FABRIC;
	f->fabric.fid.context = context;
	f->fabric.fid.ops = &fabric_fi_ops;
	f->fabric.ops = &fabric_ops;
	*fabric = &f->fabric;
	return 0;
}

FI_EXT_INI
{
	npo_fi_prov.fabric = npo_fi_fabric_open;
	fi_param_define(&npo_fi_prov, "device", FI_PARAM_STRING,
			"the NPO device to use, \"npoN\" (default: by local "
			"rank among the devices, else npo0)");
	fi_param_define(&npo_fi_prov, "job", FI_PARAM_STRING,
			"put the devices in this job (needs CAP_NET_ADMIN; "
			"default: the job the device file already has)");
	fi_param_define(&npo_fi_prov, "unexp_max", FI_PARAM_SIZE_T,
			"bytes an endpoint spends on unexpected messages before "
			"it leaves them in their receive buffers (default "
			"256 MiB)");
	return &npo_fi_prov;
}
