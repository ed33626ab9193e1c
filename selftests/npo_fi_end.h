/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One endpoint of the provider's tests, opened as an application opens
 * one: fi_getinfo for a device by name, then fabric, domain, AV, CQ and
 * an enabled FI_EP_RDM endpoint, its name ready for the others' AVs.
 * Shared by the VM's selftest (npo_fi_test.c) and the host test over the
 * fake libnpo (provider/tests/provider_fi_test.c).
 */
#ifndef NPO_FI_END_H
#define NPO_FI_END_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define MAX_ENDS	4
#define NAME_LEN	16

struct fi_end {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	uint8_t name[NAME_LEN];
	fi_addr_t peer[MAX_ENDS];
};

static inline struct fi_info *npo_hints(const char *dev, uint64_t caps)
{
	struct fi_info *h = fi_allocinfo();

	if (!h)
		return NULL;
	h->caps = caps;
	h->ep_attr->type = FI_EP_RDM;
	h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY;
	h->fabric_attr->prov_name = strdup("npo");
	if (dev)
		h->domain_attr->name = strdup(dev);
	return h;
}

static inline int end_open(struct fi_end *e, int dev)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
	struct fi_av_attr av_attr = { .type = FI_AV_MAP };
	struct fi_info *hints;
	size_t len = NAME_LEN;
	char name[16];
	int rc;

	snprintf(name, sizeof(name), "npo%d", dev);
	hints = npo_hints(name, FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC |
			  FI_DIRECTED_RECV);
	if (!hints)
		return -FI_ENOMEM;
	rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &e->info);
	fi_freeinfo(hints);
	if (rc)
		return rc;
	rc = fi_fabric(e->info->fabric_attr, &e->fabric, NULL);
	if (!rc)
		rc = fi_domain(e->fabric, e->info, &e->domain, NULL);
	if (!rc)
		rc = fi_av_open(e->domain, &av_attr, &e->av, NULL);
	if (!rc)
		rc = fi_cq_open(e->domain, &cq_attr, &e->cq, NULL);
	if (!rc)
		rc = fi_endpoint(e->domain, e->info, &e->ep, NULL);
	if (!rc)
		rc = fi_ep_bind(e->ep, &e->av->fid, 0);
	if (!rc)
		rc = fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV);
	if (!rc)
		rc = fi_enable(e->ep);
	if (!rc)
		rc = fi_getname(&e->ep->fid, e->name, &len);
	return rc;
}

static inline void end_close(struct fi_end *e)
{
	if (e->ep)
		fi_close(&e->ep->fid);
	if (e->cq)
		fi_close(&e->cq->fid);
	if (e->av)
		fi_close(&e->av->fid);
	if (e->domain)
		fi_close(&e->domain->fid);
	if (e->fabric)
		fi_close(&e->fabric->fid);
	if (e->info)
		fi_freeinfo(e->info);
	memset(e, 0, sizeof(*e));
}

#endif
