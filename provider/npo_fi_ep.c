// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Endpoints: the receiving queue with its buffers, the queues to peers,
 * and progress.  A peer's queue keeps its descriptors in order; when one
 * fails, the device completes the rest FLUSHED and the queue stays in
 * error, so the provider makes the peer a new queue and posts again what
 * the device never carried out (flushed, or refused for want of a receive
 * buffer), in the same order.  Nothing is carried out twice: a flushed
 * descriptor never started (only WRITEs run side by side, and a WRITE
 * done again writes the same bytes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "npo_fi.h"

/* A peer refusing for want of receive buffers, a second each time. */
#define NPO_FI_RNR_RETRIES	30
/*
 * Peers one endpoint keeps a queue to, at most: senders name themselves,
 * and a hostile one must not make the endpoint take every queue.
 */
#define NPO_FI_MAX_PEERS	4096
/* How long a peer's failed queue may go without a new one, in seconds. */
#define NPO_FI_REPAIR_S		5

/* A queue the device would not give: out of queues is no retry matter. */
static int queue_errno(int rc)
{
	switch (rc) {
	case -ENOMEM:
		return -FI_ENOMEM;
	case -EBUSY:
	case -ENOSPC:
	case -EDQUOT:
		return -FI_ENOSPC;
	default:
		return -FI_EIO;
	}
}

static unsigned int peer_hash(uint32_t node, uint16_t queue)
{
	return (node * 31u + queue) % 64;
}

static struct npo_fi_peer *peer_find(struct npo_fi_ep *ep,
				     const struct npo_endpoint *a, int *err)
{
	unsigned int h = peer_hash(a->node_id, a->queue_id);
	struct npo_queue_attr qa = {
		.sq_entries = NPO_FI_TX_DEPTH,
		.cq_entries = NPO_FI_TX_DEPTH,
	};
	struct npo_fi_peer *p;
	int rc;

	for (p = ep->peers[h]; p; p = p->hnext)
		if (p->addr.node_id == a->node_id &&
		    p->addr.queue_id == a->queue_id)
			return p;
	if (ep->npeers >= NPO_FI_MAX_PEERS) {
		NPO_FI_WARN(FI_LOG_EP_DATA, "npo: %u peers already, none more "
			    "for node %u\n", ep->npeers, a->node_id);
		*err = -FI_ENOSPC;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		*err = -FI_ENOMEM;
		return NULL;
	}
	rc = npo_create_queue(ep->dom->dev, &qa, &p->txq);
	if (rc) {
		NPO_FI_WARN(FI_LOG_EP_DATA, "npo: no queue for node %u: %s\n",
			    a->node_id, npo_strerror(rc));
		free(p);
		*err = queue_errno(rc);
		return NULL;
	}
	ep->npeers++;
	p->addr = *a;
	npo_fi_list_init(&p->waiting);
	npo_fi_list_init(&p->posted);
	npo_fi_list_init(&p->retry);
	p->hnext = ep->peers[h];
	ep->peers[h] = p;
	return p;
}

struct npo_fi_peer *npo_fi_peer_get(struct npo_fi_ep *ep, fi_addr_t addr,
				    int *err)
{
	struct npo_endpoint a;

	if (npo_fi_av_get(ep->av, addr, &a)) {
		*err = -FI_EINVAL;
		return NULL;
	}
	return peer_find(ep, &a, err);
}

/* The peer at (node, queue): a message's sender, say. */
struct npo_fi_peer *npo_fi_peer_at(struct npo_fi_ep *ep, uint32_t node,
				   uint16_t queue, int *err)
{
	struct npo_endpoint a = {
		.node_id = node, .queue_id = queue, .job = ep->dom->job,
	};

	return peer_find(ep, &a, err);
}

/* A transmit buffer for op, counted against its peer: the slot, or -1. */
int npo_fi_op_take_buf(struct npo_fi_ep *ep, struct npo_fi_op *op)
{
	if (!ep->ntx_free)
		return -1;
	op->buf = ep->tx_free[--ep->ntx_free];
	op->peer->nbufs++;
	return op->buf;
}

void *npo_fi_tx_addr(struct npo_fi_ep *ep, int slot)
{
	return (char *)ep->tx_bufs + (size_t)slot * NPO_FI_BUF_SIZE;
}

struct npo_fi_op *npo_fi_op_new(struct npo_fi_ep *ep, enum npo_fi_op_kind k,
				struct npo_fi_peer *peer, void *context)
{
	struct npo_fi_op *op = calloc(1, sizeof(*op));

	(void)ep;
	if (!op)
		return NULL;
	npo_fi_list_init(&op->link);
	npo_fi_list_init(&op->rdv_link);
	op->kind = k;
	op->peer = peer;
	op->context = context;
	op->buf = -1;
	return op;
}

void npo_fi_op_free(struct npo_fi_ep *ep, struct npo_fi_op *op)
{
	npo_fi_list_del(&op->rdv_link);
	if (op->buf >= 0) {
		ep->tx_free[ep->ntx_free++] = op->buf;
		op->peer->nbufs--;
	}
	if (op->tmp_mr)
		npo_dereg_mr(op->tmp_mr);
	free(op);
}

/*
 * The local key for len bytes at buf: the region of desc, or one
 * registered for this operation alone (freed with it).
 */
int npo_fi_local_key(struct npo_fi_ep *ep, void *desc, void *buf, size_t len,
		     uint32_t access, struct npo_fi_op *op, uint32_t *lkey)
{
	struct npo_mr *mr = npo_fi_mr_desc(desc);
	int rc;

	*lkey = 0;
	if (!len)
		return 0;
	if (mr) {
		*lkey = npo_mr_lkey(mr);
		return 0;
	}
	rc = npo_reg_mr(ep->dom->dev, buf, len, access, &op->tmp_mr);
	if (rc) {
		NPO_FI_WARN(FI_LOG_EP_DATA,
			    "npo: cannot register %zu bytes at %p: %s\n", len,
			    buf, npo_strerror(rc));
		return rc == -ENOMEM ? -FI_ENOMEM : -FI_EINVAL;
	}
	*lkey = npo_mr_lkey(op->tmp_mr);
	return 0;
}

static void peer_post(struct npo_fi_peer *p)
{
	bool rung = false;

	while (!p->broken && !npo_fi_list_empty(&p->waiting)) {
		struct npo_fi_op *op = npo_fi_container_of(p->waiting.next,
							   struct npo_fi_op,
							   link);
		struct npo_sqe *sqe = npo_get_sqe(p->txq);

		if (!sqe)
			break;
		*sqe = op->sqe;
		sqe->wr_id = (uintptr_t)op;
		npo_fi_list_del(&op->link);
		npo_fi_list_add_tail(&p->posted, &op->link);
		p->nposted++;
		rung = true;
	}
	if (rung)
		npo_submit(p->txq);
}

void npo_fi_op_post(struct npo_fi_ep *ep, struct npo_fi_op *op)
{
	(void)ep;
	npo_fi_list_add_tail(&op->peer->waiting, &op->link);
	peer_post(op->peer);
}

static void op_done(struct npo_fi_ep *ep, struct npo_fi_op *op,
		    uint32_t status)
{
	switch (op->kind) {
	case NPO_FI_OP_WRITE:
	case NPO_FI_OP_RMA_READ:
	case NPO_FI_OP_ATOMIC:
		npo_fi_rma_tx_done(ep, op, status);
		break;
	default:
		npo_fi_msg_tx_done(ep, op, status);
		break;
	}
}

/* Every operation of a peer that will never run, failed with status. */
static void peer_fail_all(struct npo_fi_ep *ep, struct npo_fi_peer *p,
			  uint32_t status)
{
	struct npo_fi_list *lists[] = { &p->retry, &p->waiting };
	size_t i;

	for (i = 0; i < 2; i++) {
		while (!npo_fi_list_empty(lists[i])) {
			struct npo_fi_op *op = npo_fi_container_of(
				lists[i]->next, struct npo_fi_op, link);

			npo_fi_list_del(&op->link);
			op_done(ep, op, status);
		}
	}
}

/* A new queue for a peer whose queue failed, once nothing is on it. */
static void peer_repair(struct npo_fi_ep *ep, struct npo_fi_peer *p)
{
	struct npo_queue_attr qa = {
		.sq_entries = NPO_FI_TX_DEPTH,
		.cq_entries = NPO_FI_TX_DEPTH,
	};
	struct npo_queue *q;

	if (p->nposted)
		return;
	if (npo_create_queue(ep->dom->dev, &qa, &q)) {
		struct timespec now;

		/* Tried again on each progress, for a while. */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!p->repair_since.tv_sec)
			p->repair_since = now;
		if (now.tv_sec - p->repair_since.tv_sec < NPO_FI_REPAIR_S)
			return;
		NPO_FI_WARN(FI_LOG_EP_DATA, "npo: no new queue for node %u in "
			    "%d s: its operations fail\n", p->addr.node_id,
			    NPO_FI_REPAIR_S);
		peer_fail_all(ep, p, NPO_STATUS_RESET);
		npo_fi_msg_peer_lost(ep, p, NPO_STATUS_RESET);
		p->repair_since.tv_sec = 0;
		return;
	}
	p->repair_since.tv_sec = 0;
	npo_destroy_queue(p->txq);
	p->txq = q;
	p->broken = false;
	/* What the old queue never carried out goes first, in order. */
	if (!npo_fi_list_empty(&p->retry)) {
		p->retry.prev->next = p->waiting.next;
		p->waiting.next->prev = p->retry.prev;
		p->waiting.next = p->retry.next;
		p->retry.next->prev = &p->waiting;
		npo_fi_list_init(&p->retry);
	}
}

static void peer_progress(struct npo_fi_ep *ep, struct npo_fi_peer *p)
{
	struct npo_cqe *c;

	if (npo_queue_revoked(p->txq) && npo_flush_revoked(p->txq) < 0 &&
	    !npo_peek_cqe(p->txq)) {
		/* The device reset under it: what is left never completes. */
		while (!npo_fi_list_empty(&p->posted)) {
			struct npo_fi_op *op = npo_fi_container_of(
				p->posted.next, struct npo_fi_op, link);

			npo_fi_list_del(&op->link);
			p->nposted--;
			op_done(ep, op, NPO_STATUS_RESET);
		}
		p->broken = true;
	}
	while ((c = npo_peek_cqe(p->txq))) {
		struct npo_fi_op *op = (struct npo_fi_op *)(uintptr_t)c->wr_id;
		uint32_t status = c->status;

		npo_cq_advance(p->txq, 1);
		if (!op)
			continue;
		npo_fi_list_del(&op->link);
		p->nposted--;
		if (status)
			p->broken = true;
		/* The peer is gone: sends it was to read from fail too. */
		if (status == NPO_STATUS_LINK_DOWN ||
		    status == NPO_STATUS_UNREACHABLE ||
		    status == NPO_STATUS_REMOTE_QUEUE ||
		    status == NPO_STATUS_RESET)
			npo_fi_msg_peer_lost(ep, p, status);
		/* A FIN (64 bytes, owed) is sent until it goes. */
		if (status == NPO_STATUS_FLUSHED ||
		    (status == NPO_STATUS_RNR &&
		     (op->kind == NPO_FI_OP_FIN ||
		      ++op->rnr_tries < NPO_FI_RNR_RETRIES))) {
			npo_fi_list_add_tail(&p->retry, &op->link);
			continue;
		}
		op_done(ep, op, status);
	}
	if (p->broken)
		peer_repair(ep, p);
	peer_post(p);
}

/* Give receive buffer idx back to the device, unless the queue died. */
void npo_fi_rx_repost(struct npo_fi_ep *ep, uint64_t idx)
{
	void *buf = (char *)ep->rx_bufs + idx * NPO_FI_BUF_SIZE;

	if (npo_queue_in_error(ep->rxq) || npo_queue_revoked(ep->rxq))
		return;
	npo_post_recv(ep->rxq, idx, npo_mr_lkey(ep->rx_mr), buf,
		      NPO_FI_BUF_SIZE);
}

void npo_fi_ep_progress(struct npo_fi_ep *ep)
{
	struct npo_cqe *c;
	unsigned int i;

	if (!ep->enabled)
		return;
	while ((c = npo_peek_cqe(ep->rxq))) {
		struct npo_cqe cqe = *c;
		bool kept = false;

		npo_cq_advance(ep->rxq, 1);
		if (cqe.opcode == NPO_OP_RECV_IMM) {
			npo_fi_rma_rx_imm(ep, &cqe);
			continue;
		}
		if (cqe.opcode != NPO_OP_RECV || cqe.wr_id >= NPO_FI_RX_BUFS)
			continue;
		/*
		 * A message that failed on its way (its sender gone, a link
		 * down) costs nothing but itself: the buffer goes back.
		 */
		if (!cqe.status)
			kept = npo_fi_msg_rx(ep, &cqe, (char *)ep->rx_bufs +
					     cqe.wr_id * NPO_FI_BUF_SIZE);
		else
			ep->recv_failed = cqe.status;
		if (!kept)
			npo_fi_rx_repost(ep, cqe.wr_id);
	}
	if (!ep->rx_dead && (npo_queue_in_error(ep->rxq) ||
			     npo_queue_revoked(ep->rxq))) {
		NPO_FI_WARN(FI_LOG_EP_DATA, "npo: receiving queue %u of %s "
			    "failed (%s): this endpoint receives no more\n",
			    ep->rxq->id, npo_device_name(ep->dom->dev),
			    npo_status_str(ep->recv_failed));
		ep->rx_dead = true;
		npo_fi_msg_fail_recvs(ep);
	}
	for (i = 0; i < 64; i++) {
		struct npo_fi_peer *p;

		for (p = ep->peers[i]; p; p = p->hnext)
			peer_progress(ep, p);
	}
	npo_fi_msg_progress(ep);
}

/* ---- set-up ------------------------------------------------------- */

static int ep_enable(struct npo_fi_ep *ep)
{
	struct npo_queue_attr qa = {
		.sq_entries = 8,
		.cq_entries = NPO_FI_RX_CQ,
		.rq_entries = NPO_FI_RX_BUFS,
	};
	size_t size = (size_t)NPO_FI_BUF_SIZE * NPO_FI_RX_BUFS;
	int rc, i;

	if (ep->enabled)
		return 0;
	if (!ep->av || (!ep->tx_cq && !ep->rx_cq))
		return -FI_ENOAV;
	ep->rx_bufs = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ep->tx_bufs = mmap(NULL, (size_t)NPO_FI_BUF_SIZE * NPO_FI_TX_BUFS,
			   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	if (ep->rx_bufs == MAP_FAILED || ep->tx_bufs == MAP_FAILED) {
		rc = -FI_ENOMEM;
		goto fail;
	}
	rc = npo_reg_mr(ep->dom->dev, ep->rx_bufs, size,
			NPO_ACCESS_LOCAL_WRITE, &ep->rx_mr);
	if (!rc)
		rc = npo_reg_mr(ep->dom->dev, ep->tx_bufs,
				(size_t)NPO_FI_BUF_SIZE * NPO_FI_TX_BUFS,
				NPO_ACCESS_LOCAL_WRITE, &ep->tx_mr);
	if (!rc)
		rc = npo_create_queue(ep->dom->dev, &qa, &ep->rxq);
	if (rc) {
		NPO_FI_WARN(FI_LOG_EP_CTRL, "npo: cannot set up an endpoint "
			    "on %s: %s\n", npo_device_name(ep->dom->dev),
			    npo_strerror(rc));
		rc = rc == -ENOMEM ? -FI_ENOMEM : -FI_EINVAL;
		goto fail;
	}
	if (fi_param_get_size_t(&npo_fi_prov, "unexp_max",
				&ep->unexp_max) != FI_SUCCESS)
		ep->unexp_max = NPO_FI_UNEXP_MAX;
	for (i = 0; i < NPO_FI_RX_BUFS; i++)
		npo_fi_rx_repost(ep, i);
	for (i = 0; i < NPO_FI_TX_BUFS; i++)
		ep->tx_free[i] = NPO_FI_TX_BUFS - 1 - i;
	ep->ntx_free = NPO_FI_TX_BUFS;
	ep->enabled = true;
	return 0;
fail:
	if (ep->rx_mr)
		npo_dereg_mr(ep->rx_mr);
	if (ep->tx_mr)
		npo_dereg_mr(ep->tx_mr);
	ep->rx_mr = ep->tx_mr = NULL;
	if (ep->rx_bufs != MAP_FAILED && ep->rx_bufs)
		munmap(ep->rx_bufs, size);
	if (ep->tx_bufs != MAP_FAILED && ep->tx_bufs)
		munmap(ep->tx_bufs, (size_t)NPO_FI_BUF_SIZE * NPO_FI_TX_BUFS);
	ep->rx_bufs = ep->tx_bufs = NULL;
	return rc;
}

static void cq_unbind(struct npo_fi_cq *cq, struct npo_fi_ep *ep)
{
	int i;

	for (i = 0; cq && i < cq->nep; i++) {
		if (cq->eps[i] == ep) {
			cq->eps[i] = cq->eps[--cq->nep];
			return;
		}
	}
}

static void peer_free(struct npo_fi_ep *ep, struct npo_fi_peer *p)
{
	struct npo_fi_list *lists[] = { &p->waiting, &p->posted, &p->retry };
	size_t i;

	npo_destroy_queue(p->txq);
	for (i = 0; i < 3; i++) {
		while (!npo_fi_list_empty(lists[i])) {
			struct npo_fi_op *op = npo_fi_container_of(
				lists[i]->next, struct npo_fi_op, link);

			npo_fi_list_del(&op->link);
			npo_fi_msg_op_drop(ep, op);
		}
	}
	free(p);
}

static int ep_close(struct fid *fid)
{
	struct npo_fi_ep *ep = npo_fi_container_of(fid, struct npo_fi_ep, ep.fid);
	struct npo_fi_domain *d = ep->dom;
	unsigned int i;

	pthread_mutex_lock(&d->lock);
	npo_fi_msg_close(ep);
	for (i = 0; i < 64; i++) {
		while (ep->peers[i]) {
			struct npo_fi_peer *p = ep->peers[i];

			ep->peers[i] = p->hnext;
			peer_free(ep, p);
		}
	}
	if (ep->rxq)
		npo_destroy_queue(ep->rxq);
	if (ep->rx_mr)
		npo_dereg_mr(ep->rx_mr);
	if (ep->tx_mr)
		npo_dereg_mr(ep->tx_mr);
	if (ep->rx_bufs)
		munmap(ep->rx_bufs, (size_t)NPO_FI_BUF_SIZE * NPO_FI_RX_BUFS);
	if (ep->tx_bufs)
		munmap(ep->tx_bufs, (size_t)NPO_FI_BUF_SIZE * NPO_FI_TX_BUFS);
	cq_unbind(ep->tx_cq, ep);
	if (ep->rx_cq != ep->tx_cq)
		cq_unbind(ep->rx_cq, ep);
	if (ep->av)
		ep->av->refs--;
	d->refs--;
	pthread_mutex_unlock(&d->lock);
	free(ep);
	return 0;
}

static int cq_bind(struct npo_fi_ep *ep, struct npo_fi_cq *cq)
{
	int i;

	for (i = 0; i < cq->nep; i++)
		if (cq->eps[i] == ep)
			return 0;
	if (cq->nep == (int)(sizeof(cq->eps) / sizeof(cq->eps[0])))
		return -FI_ENOSPC;
	cq->eps[cq->nep++] = ep;
	return 0;
}

static int ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct npo_fi_ep *ep = npo_fi_container_of(fid, struct npo_fi_ep, ep.fid);
	int rc = 0;

	pthread_mutex_lock(&ep->dom->lock);
	if (ep->enabled) {
		rc = -FI_EOPBADSTATE;
		goto out;
	}
	switch (bfid->fclass) {
	case FI_CLASS_AV:
		if (ep->av) {
			rc = -FI_EINVAL;
			break;
		}
		ep->av = npo_fi_container_of(bfid, struct npo_fi_av, av.fid);
		ep->av->refs++;
		break;
	case FI_CLASS_CQ: {
		struct npo_fi_cq *cq =
			npo_fi_container_of(bfid, struct npo_fi_cq, cq.fid);

		if ((flags & ~(FI_TRANSMIT | FI_RECV |
			       FI_SELECTIVE_COMPLETION)) ||
		    !(flags & (FI_TRANSMIT | FI_RECV))) {
			rc = -FI_EBADFLAGS;
			break;
		}
		if ((flags & FI_TRANSMIT && ep->tx_cq) ||
		    (flags & FI_RECV && ep->rx_cq)) {
			rc = -FI_EINVAL;
			break;
		}
		rc = cq_bind(ep, cq);
		if (rc)
			break;
		if (flags & FI_TRANSMIT) {
			ep->tx_cq = cq;
			ep->tx_selective = flags & FI_SELECTIVE_COMPLETION;
		}
		if (flags & FI_RECV) {
			ep->rx_cq = cq;
			ep->rx_selective = flags & FI_SELECTIVE_COMPLETION;
		}
		break;
	}
	case FI_CLASS_EQ:
		break;
	default:
		rc = -FI_ENOSYS;
		break;
	}
out:
	pthread_mutex_unlock(&ep->dom->lock);
	return rc;
}

static int ep_control(struct fid *fid, int command, void *arg)
{
	struct npo_fi_ep *ep = npo_fi_container_of(fid, struct npo_fi_ep, ep.fid);
	uint64_t *flags = arg;
	int rc = 0;

	pthread_mutex_lock(&ep->dom->lock);
	switch (command) {
	case FI_ENABLE:
		rc = ep_enable(ep);
		break;
	case FI_GETOPSFLAG:
		*flags = *flags & FI_TRANSMIT ? ep->tx_op_flags :
			 ep->rx_op_flags;
		break;
	case FI_SETOPSFLAG:
		if (*flags & FI_TRANSMIT)
			ep->tx_op_flags = *flags & ~FI_TRANSMIT;
		else
			ep->rx_op_flags = *flags & ~FI_RECV;
		break;
	default:
		rc = -FI_ENOSYS;
		break;
	}
	pthread_mutex_unlock(&ep->dom->lock);
	return rc;
}

static ssize_t ep_cancel(fid_t fid, void *context)
{
	struct npo_fi_ep *ep = npo_fi_container_of(fid, struct npo_fi_ep, ep.fid);
	int rc;

	pthread_mutex_lock(&ep->dom->lock);
	rc = npo_fi_msg_cancel(ep, context);
	pthread_mutex_unlock(&ep->dom->lock);
	return rc;
}

static int ep_getopt(fid_t fid, int level, int optname, void *optval,
		     size_t *optlen)
{
	(void)fid; (void)level; (void)optname; (void)optval; (void)optlen;
	return -FI_ENOPROTOOPT;
}

static int ep_setopt(fid_t fid, int level, int optname, const void *optval,
		     size_t optlen)
{
	(void)fid; (void)level; (void)optname; (void)optval; (void)optlen;
	return -FI_ENOPROTOOPT;
}

static int no_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		  struct fid_ep **ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static int no_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
		     struct fid_ep **ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static ssize_t rx_size_left(struct fid_ep *fep)
{
	(void)fep;
	return NPO_FI_RX_BUFS;
}

static ssize_t tx_size_left(struct fid_ep *fep)
{
	struct npo_fi_ep *ep = npo_fi_container_of(fep, struct npo_fi_ep, ep);
	ssize_t n;

	pthread_mutex_lock(&ep->dom->lock);
	n = ep->ntx_free > NPO_FI_TX_RESERVE ?
	    ep->ntx_free - NPO_FI_TX_RESERVE : 0;
	pthread_mutex_unlock(&ep->dom->lock);
	return n;
}

static int ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct npo_fi_ep *ep = npo_fi_container_of(fid, struct npo_fi_ep, ep.fid);
	size_t room = *addrlen;
	int rc;

	*addrlen = NPO_ENDPOINT_BLOB_SIZE;
	if (room < NPO_ENDPOINT_BLOB_SIZE)
		return -FI_ETOOSMALL;
	pthread_mutex_lock(&ep->dom->lock);
	rc = ep->enabled ? npo_endpoint_pack(ep->rxq, addr, room) :
	     -FI_EOPBADSTATE;
	pthread_mutex_unlock(&ep->dom->lock);
	if (rc == -FI_EOPBADSTATE)
		return rc;
	return rc < 0 ? -FI_EINVAL : 0;
}

static int no_setname(fid_t fid, void *addr, size_t addrlen)
{
	(void)fid; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

static int no_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	(void)ep; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

static int no_connect(struct fid_ep *ep, const void *addr,
		      const void *param, size_t paramlen)
{
	(void)ep; (void)addr; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

static int no_listen(struct fid_pep *pep)
{
	(void)pep;
	return -FI_ENOSYS;
}

static int no_accept(struct fid_ep *ep, const void *param, size_t paramlen)
{
	(void)ep; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

static int no_reject(struct fid_pep *pep, fid_t handle, const void *param,
		     size_t paramlen)
{
	(void)pep; (void)handle; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

static int no_shutdown(struct fid_ep *ep, uint64_t flags)
{
	(void)ep; (void)flags;
	return -FI_ENOSYS;
}

static int no_join(struct fid_ep *ep, const void *addr, uint64_t flags,
		   struct fid_mc **mc, void *context)
{
	(void)ep; (void)addr; (void)flags; (void)mc; (void)context;
	return -FI_ENOSYS;
}

static struct fi_ops ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = ep_close,
	.bind = ep_bind,
	.control = ep_control,
	.ops_open = npo_fi_no_ops_open,
};

static struct fi_ops_ep ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = ep_cancel,
	.getopt = ep_getopt,
	.setopt = ep_setopt,
	.tx_ctx = no_ctx,
	.rx_ctx = no_rx_ctx,
	.rx_size_left = rx_size_left,
	.tx_size_left = tx_size_left,
};

static struct fi_ops_cm ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = no_setname,
	.getname = ep_getname,
	.getpeer = no_getpeer,
	.connect = no_connect,
	.listen = no_listen,
	.accept = no_accept,
	.reject = no_reject,
	.shutdown = no_shutdown,
	.join = no_join,
};

int npo_fi_endpoint(struct fid_domain *domain, struct fi_info *info,
		    struct fid_ep **fep, void *context)
{
	struct npo_fi_domain *d =
		npo_fi_container_of(domain, struct npo_fi_domain, domain);
	struct npo_fi_ep *ep;
	int i;

	if (info && info->ep_attr && info->ep_attr->type != FI_EP_RDM &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->dom = d;
	if (info && info->tx_attr)
		ep->tx_op_flags = info->tx_attr->op_flags;
	if (info && info->rx_attr)
		ep->rx_op_flags = info->rx_attr->op_flags;
	for (i = 0; i < 2; i++) {
		npo_fi_list_init(&ep->recvs[i]);
		npo_fi_list_init(&ep->unexp[i]);
	}
	npo_fi_list_init(&ep->rdv);
	npo_fi_list_init(&ep->fin_wait);
	ep->ep.fid.fclass = FI_CLASS_EP;
	ep->ep.fid.context = context;
	ep->ep.fid.ops = &ep_fi_ops;
	ep->ep.ops = &ep_ops;
	ep->ep.cm = &ep_cm_ops;
	ep->ep.msg = &npo_fi_msg_ops;
	ep->ep.tagged = &npo_fi_tagged_ops;
	ep->ep.rma = &npo_fi_rma_ops;
	ep->ep.atomic = &npo_fi_atomic_ops;
	pthread_mutex_lock(&d->lock);
	d->refs++;
	pthread_mutex_unlock(&d->lock);
	*fep = &ep->ep;
	return 0;
}
