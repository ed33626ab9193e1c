// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fi_getinfo: one fi_info per NPO device this process may use, matched
 * against the application's hints.  The core filters only by provider,
 * fabric and domain name; everything else is checked here.
 */
#include <stdlib.h>
#include <string.h>

#include "npo_fi.h"

#define NPO_FI_PRIMARY_CAPS \
	(FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC | FI_SEND | FI_RECV | \
	 FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | \
	 FI_DIRECTED_RECV)
#define NPO_FI_SECONDARY_CAPS	(FI_LOCAL_COMM | FI_REMOTE_COMM | FI_SOURCE)
#define NPO_FI_CAPS		(NPO_FI_PRIMARY_CAPS | NPO_FI_SECONDARY_CAPS)
#define NPO_FI_RMA_CAPS \
	(FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ | \
	 FI_REMOTE_WRITE)
#define NPO_FI_MSG_ORDER	FI_ORDER_SAS
#define NPO_FI_TX_OP_FLAGS \
	(FI_COMPLETION | FI_INJECT | FI_INJECT_COMPLETE | \
	 FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE)
#define NPO_FI_RX_OP_FLAGS	FI_COMPLETION
/* RMA keys are the device's, addresses virtual: what the device does. */
#define NPO_FI_RMA_MR_MODE	(FI_MR_VIRT_ADDR | FI_MR_PROV_KEY)

/*
 * The device of this process among count, by its rank among the job's
 * processes on this host, or -1 if no launcher said: an MPI job's ranks
 * each get a device of their own, as NCCL gives each rank its NIC.
 */
static int local_rank_device(int count)
{
	static const char *const local_rank_vars[] = {
		"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
		"PMIX_LOCAL_RANK", "SLURM_LOCALID",
	};
	size_t i;

	for (i = 0; i < sizeof(local_rank_vars) / sizeof(*local_rank_vars);
	     i++) {
		const char *v = getenv(local_rank_vars[i]);

		if (v && *v)
			return atoi(v) % count;
	}
	return -1;
}

static struct fi_info *info_template(const char *dev_name)
{
	struct fi_info *fi = fi_allocinfo();

	if (!fi)
		return NULL;
	fi->caps = NPO_FI_CAPS;
	fi->mode = 0;
	fi->addr_format = FI_FORMAT_UNSPEC;

	fi->tx_attr->caps = NPO_FI_CAPS;
	fi->tx_attr->msg_order = NPO_FI_MSG_ORDER;
	fi->tx_attr->comp_order = FI_ORDER_NONE;
	fi->tx_attr->inject_size = NPO_FI_EAGER_MAX;
	fi->tx_attr->size = NPO_FI_TX_DEPTH;
	fi->tx_attr->iov_limit = 1;
	fi->tx_attr->rma_iov_limit = 1;

	fi->rx_attr->caps = NPO_FI_CAPS;
	fi->rx_attr->msg_order = NPO_FI_MSG_ORDER;
	fi->rx_attr->comp_order = FI_ORDER_NONE;
	fi->rx_attr->size = NPO_FI_RX_BUFS;
	fi->rx_attr->iov_limit = 1;

	fi->ep_attr->type = FI_EP_RDM;
	fi->ep_attr->protocol = FI_PROTO_UNSPEC;
	fi->ep_attr->protocol_version = 1;
	fi->ep_attr->max_msg_size = NPO_FI_MAX_MSG;
	fi->ep_attr->mem_tag_format = ~0ULL;
	fi->ep_attr->tx_ctx_cnt = 1;
	fi->ep_attr->rx_ctx_cnt = 1;

	fi->domain_attr->name = strdup(dev_name);
	fi->domain_attr->threading = FI_THREAD_SAFE;
	fi->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->resource_mgmt = FI_RM_ENABLED;
	fi->domain_attr->av_type = FI_AV_UNSPEC;
	fi->domain_attr->mr_mode = NPO_FI_RMA_MR_MODE;
	fi->domain_attr->mr_key_size = sizeof(uint64_t);
	fi->domain_attr->cq_data_size = sizeof(uint32_t);
	fi->domain_attr->cq_cnt = 256;
	fi->domain_attr->ep_cnt = 64;
	fi->domain_attr->tx_ctx_cnt = 64;
	fi->domain_attr->rx_ctx_cnt = 64;
	fi->domain_attr->max_ep_tx_ctx = 1;
	fi->domain_attr->max_ep_rx_ctx = 1;
	fi->domain_attr->mr_iov_limit = 1;
	fi->domain_attr->mr_cnt = 4096;
	fi->domain_attr->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;

	fi->fabric_attr->name = strdup("npo");
	if (!fi->domain_attr->name || !fi->fabric_attr->name) {
		fi_freeinfo(fi);
		return NULL;
	}
	return fi;
}

/*
 * Fit fi to hints: 0, or -FI_ENODATA naming what cannot be had (logged at
 * info level, as other providers do, so FI_LOG_LEVEL=info says why).
 */
#define NOFIT(fmt, ...) do { \
	FI_INFO(&npo_fi_prov, FI_LOG_CORE, fmt "\n", ##__VA_ARGS__); \
	return -FI_ENODATA; \
} while (0)

static int fit_hints(uint32_t version, struct fi_info *fi,
		     const struct fi_info *h)
{
	uint64_t caps = NPO_FI_CAPS, want_mr;

	if (!h)
		return 0;
	if (h->caps & ~NPO_FI_CAPS)
		NOFIT("npo: capabilities %#llx not supported",
		      (unsigned long long)(h->caps & ~NPO_FI_CAPS));
	if (h->caps)
		caps = h->caps | FI_LOCAL_COMM | FI_REMOTE_COMM;
	if (h->addr_format != FI_FORMAT_UNSPEC)
		NOFIT("npo: address format %u not supported", h->addr_format);
	if (h->ep_attr) {
		if (h->ep_attr->type != FI_EP_UNSPEC &&
		    h->ep_attr->type != FI_EP_RDM)
			NOFIT("npo: only FI_EP_RDM");
		if (h->ep_attr->max_msg_size > NPO_FI_MAX_MSG)
			NOFIT("npo: messages up to %llu bytes",
			      (unsigned long long)NPO_FI_MAX_MSG);
		if (h->ep_attr->tx_ctx_cnt > 1 || h->ep_attr->rx_ctx_cnt > 1)
			NOFIT("npo: no scalable endpoints");
		if (h->ep_attr->mem_tag_format)
			fi->ep_attr->mem_tag_format =
				h->ep_attr->mem_tag_format;
	}
	if (h->domain_attr) {
		const struct fi_domain_attr *d = h->domain_attr;

		if (d->control_progress == FI_PROGRESS_AUTO ||
		    d->data_progress == FI_PROGRESS_AUTO)
			NOFIT("npo: progress is manual");
		if (d->av_type == FI_AV_MAP || d->av_type == FI_AV_TABLE)
			fi->domain_attr->av_type = d->av_type;
		if (d->threading != FI_THREAD_UNSPEC)
			fi->domain_attr->threading = d->threading;
		if (d->cq_data_size > sizeof(uint32_t))
			NOFIT("npo: 4 bytes of remote CQ data");
		if (d->max_ep_tx_ctx > 1 || d->max_ep_rx_ctx > 1)
			NOFIT("npo: one context per endpoint");
		if (d->mr_key_size > sizeof(uint64_t))
			NOFIT("npo: 8-byte keys");
		/*
		 * RMA needs the application to take the device's keys and
		 * virtual addresses; without them it gets messages only.
		 */
		want_mr = d->mr_mode;
		if (FI_VERSION_LT(version, FI_VERSION(1, 5)))
			want_mr = d->mr_mode == FI_MR_SCALABLE ? 0 :
				  NPO_FI_RMA_MR_MODE;
		if ((want_mr & NPO_FI_RMA_MR_MODE) != NPO_FI_RMA_MR_MODE) {
			if (h->caps & NPO_FI_RMA_CAPS & ~(FI_READ | FI_WRITE))
				NOFIT("npo: RMA needs FI_MR_VIRT_ADDR and FI_MR_PROV_KEY");
			caps &= ~NPO_FI_RMA_CAPS;
			fi->domain_attr->mr_mode = 0;
		} else if (FI_VERSION_LT(version, FI_VERSION(1, 5))) {
			fi->domain_attr->mr_mode = FI_MR_BASIC;
		}
	}
	if (h->tx_attr) {
		if (h->tx_attr->msg_order & ~NPO_FI_MSG_ORDER)
			NOFIT("npo: send order %#llx not kept",
			      (unsigned long long)h->tx_attr->msg_order);
		if (h->tx_attr->inject_size > NPO_FI_EAGER_MAX ||
		    h->tx_attr->size > NPO_FI_TX_DEPTH ||
		    h->tx_attr->iov_limit > 1 || h->tx_attr->rma_iov_limit > 1)
			NOFIT("npo: transmit attributes beyond the provider's");
		if (h->tx_attr->op_flags & ~NPO_FI_TX_OP_FLAGS)
			NOFIT("npo: transmit flags %#llx not supported",
			      (unsigned long long)h->tx_attr->op_flags);
		fi->tx_attr->op_flags = h->tx_attr->op_flags;
	}
	if (h->rx_attr) {
		if (h->rx_attr->msg_order & ~NPO_FI_MSG_ORDER)
			NOFIT("npo: receive order %#llx not kept",
			      (unsigned long long)h->rx_attr->msg_order);
		if (h->rx_attr->size > NPO_FI_RX_BUFS ||
		    h->rx_attr->iov_limit > 1 ||
		    h->rx_attr->total_buffered_recv)
			NOFIT("npo: receive attributes beyond the provider's");
		if (h->rx_attr->op_flags & ~(NPO_FI_RX_OP_FLAGS | FI_MULTI_RECV))
			NOFIT("npo: receive flags %#llx not supported",
			      (unsigned long long)h->rx_attr->op_flags);
		if (h->rx_attr->op_flags & FI_MULTI_RECV)
			NOFIT("npo: no FI_MULTI_RECV");
		fi->rx_attr->op_flags = h->rx_attr->op_flags;
	}
	fi->caps = caps;
	fi->tx_attr->caps = caps;
	fi->rx_attr->caps = caps;
	return 0;
}

int npo_fi_getinfo(uint32_t version, const char *node, const char *service,
		   uint64_t flags, const struct fi_info *hints,
		   struct fi_info **info)
{
	struct fi_info *head = NULL, **tail = &head;
	struct npo_device_entry *devs;
	char *want = NULL;
	int count, mine, i, rc = 0;

	*info = NULL;
	/* No names to resolve: endpoints are found through the AV. */
	if (node || service || (hints && (hints->src_addr || hints->dest_addr)))
		NOFIT("npo: no address resolution; exchange fi_getname() blobs");
	(void)flags;
	devs = npo_get_device_list(&count);
	if (!devs || !count) {
		npo_free_device_list(devs);
		NOFIT("npo: no NPO device");
	}
	fi_param_get_str(&npo_fi_prov, "device", &want);
	mine = local_rank_device(count);
	for (i = 0; i < count; i++) {
		const char *name = devs[i].name;
		struct fi_info *fi;

		/*
		 * Asked by name (hints or FI_NPO_DEVICE), or else this
		 * rank's own device, or else every one.
		 */
		if (hints && hints->domain_attr && hints->domain_attr->name) {
			if (strcmp(hints->domain_attr->name, name))
				continue;
		} else if (want && *want) {
			if (strcmp(want, name))
				continue;
		} else if (mine >= 0 && i != mine) {
			continue;
		}
		fi = info_template(name);
		if (!fi) {
			rc = -FI_ENOMEM;
			break;
		}
		rc = fit_hints(version, fi, hints);
		if (rc) {
			fi_freeinfo(fi);
			break;
		}
		*tail = fi;
		tail = &fi->next;
	}
	npo_free_device_list(devs);
	if (rc || !head) {
		fi_freeinfo(head);
		return rc ? rc : -FI_ENODATA;
	}
	*info = head;
	return 0;
}
