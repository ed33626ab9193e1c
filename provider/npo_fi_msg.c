// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Messages and tagged messages: eager and rendezvous, matching, unexpected
 * messages, FI_PEEK, FI_CLAIM, FI_DISCARD and cancel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npo_fi.h"

static struct npo_fi_ep *ep_of(struct fid_ep *fep)
{
	return npo_fi_container_of(fep, struct npo_fi_ep, ep);
}

static void describe(char *buf, size_t len, const char *op,
		     uint32_t node, uint16_t queue, uint32_t status)
{
	snprintf(buf, len, "%s node %u queue %u: %s", op, node, queue,
		 npo_status_str(status));
}

/* ---- sending -------------------------------------------------------- */

/*
 * inject: one of the fi_*inject* calls, which never complete; FI_INJECT in
 * flags only says the buffer is free on return, which every eager send is.
 */
static ssize_t send_common(struct npo_fi_ep *ep, const void *buf, size_t len,
			   void *desc, fi_addr_t dest, uint64_t tag,
			   uint64_t data, void *context, uint64_t flags,
			   bool tagged, bool inject)
{
	struct npo_fi_hdr *h;
	struct npo_fi_peer *peer;
	struct npo_fi_op *op;
	uint32_t lkey;
	int err = 0, slot;
	ssize_t rc;

	if (len > NPO_FI_MAX_MSG)
		return -FI_EMSGSIZE;
	if ((inject || (flags & FI_INJECT)) && len > NPO_FI_EAGER_MAX)
		return -FI_EMSGSIZE;
	pthread_mutex_lock(&ep->dom->lock);
	if (!ep->enabled) {
		rc = -FI_EOPBADSTATE;
		goto out;
	}
	npo_fi_ep_progress(ep);
	if (ep->ntx_free <= NPO_FI_TX_RESERVE) {
		rc = -FI_EAGAIN;
		goto out;
	}
	peer = npo_fi_peer_get(ep, dest, &err);
	if (!peer) {
		rc = err;
		goto out;
	}
	/* A peer that does not take what it was sent waits alone. */
	if (peer->nbufs >= NPO_FI_PEER_BUFS) {
		rc = -FI_EAGAIN;
		goto out;
	}
	op = npo_fi_op_new(ep, len > NPO_FI_EAGER_MAX ? NPO_FI_OP_RTS :
			   NPO_FI_OP_SEND, peer, context);
	if (!op) {
		rc = -FI_ENOMEM;
		goto out;
	}
	op->inject = inject;
	op->complete = !inject &&
		       (!ep->tx_selective || (flags & FI_COMPLETION));
	op->cq_flags = FI_SEND | (tagged ? FI_TAGGED : FI_MSG);
	op->tag = tag;
	op->data = data;
	op->len = len;
	slot = npo_fi_op_take_buf(ep, op);
	h = npo_fi_tx_addr(ep, slot);
	memset(h, 0, sizeof(*h));
	h->magic = NPO_FI_HDR_MAGIC;
	h->flags = (tagged ? NPO_FI_HDR_TAGGED : 0) |
		   (flags & FI_REMOTE_CQ_DATA ? NPO_FI_HDR_DATA : 0);
	h->src_queue = ep->rxq->id;
	h->len = len;
	h->tag = tag;
	h->data = data;
	if (op->kind == NPO_FI_OP_SEND) {
		h->type = NPO_FI_EAGER;
		if (len)
			memcpy(h + 1, buf, len);
		npo_prep_send(&op->sqe, 0, npo_mr_lkey(ep->tx_mr), h,
			      sizeof(*h) + len, peer->addr.node_id,
			      peer->addr.queue_id);
	} else {
		/*
		 * A region of its own, readable by the receiver alone for as
		 * long as the rendezvous lasts (desc's may lack the right).
		 */
		(void)desc;
		rc = npo_fi_local_key(ep, NULL, (void *)buf, len,
				      NPO_ACCESS_REMOTE_READ |
				      NPO_ACCESS_LOCAL_WRITE, op, &lkey);
		if (rc) {
			npo_fi_op_free(ep, op);
			goto out;
		}
		h->type = NPO_FI_RTS;
		h->id = op->id = ++ep->next_rdv;
		npo_fi_list_add_tail(&ep->rdv, &op->rdv_link);
		h->rkey = npo_mr_rkey(op->tmp_mr);
		h->addr = (uintptr_t)buf;
		npo_prep_send(&op->sqe, 0, npo_mr_lkey(ep->tx_mr), h,
			      sizeof(*h), peer->addr.node_id,
			      peer->addr.queue_id);
	}
	npo_fi_op_post(ep, op);
	rc = 0;
out:
	pthread_mutex_unlock(&ep->dom->lock);
	return rc;
}

static void send_complete(struct npo_fi_ep *ep, struct npo_fi_op *op,
			  uint32_t status)
{
	char what[96];

	if (status) {
		describe(what, sizeof(what), "send to", op->peer->addr.node_id,
			 op->peer->addr.queue_id, status);
		/*
		 * An injected send has no context to report against (Open
		 * MPI asserts one on every error completion): logged only.
		 */
		if (op->inject)
			NPO_FI_WARN(FI_LOG_EP_DATA, "npo: injected %s\n", what);
		else if (ep->tx_cq)
			npo_fi_cq_push_err(ep->tx_cq, op->context, op->cq_flags,
					   npo_fi_status_to_errno(status),
					   status, 0, 0, op->data, op->tag,
					   what);
	} else if (op->complete && ep->tx_cq) {
		npo_fi_cq_push(ep->tx_cq, op->context, op->cq_flags, 0, NULL,
			       0, 0, FI_ADDR_NOTAVAIL);
	}
}

/* ---- receiving ------------------------------------------------------ */

static bool rx_wants_completion(struct npo_fi_ep *ep, uint64_t flags)
{
	return !ep->rx_selective || (flags & FI_COMPLETION);
}

/* Whether message u (from node/queue with hdr) is for receive r. */
static bool matches(struct npo_fi_ep *ep, const struct npo_fi_recv *r,
		    uint32_t node, uint16_t queue, const struct npo_fi_hdr *h)
{
	struct npo_endpoint a;

	if ((r->flags & FI_TAGGED) && ((h->tag ^ r->tag) & ~r->ignore))
		return false;
	if (r->src == FI_ADDR_UNSPEC || r->src == FI_ADDR_NOTAVAIL)
		return true;
	if (npo_fi_av_get(ep->av, r->src, &a))
		return false;
	return a.node_id == node && a.queue_id == queue;
}

static void recv_complete(struct npo_fi_ep *ep, struct npo_fi_recv *r,
			  size_t len, uint32_t status)
{
	uint64_t flags = FI_RECV | (r->flags & FI_TAGGED ? FI_TAGGED : FI_MSG);
	char what[96];

	if (r->hdr.flags & NPO_FI_HDR_DATA)
		flags |= FI_REMOTE_CQ_DATA;
	if (!ep->rx_cq)
		return;
	if (status) {
		describe(what, sizeof(what), "receive from", r->src_node,
			 r->src_queue, status);
		npo_fi_cq_push_err(ep->rx_cq, r->context, flags,
				   npo_fi_status_to_errno(status), status, 0,
				   0, r->hdr.data, r->hdr.tag, what);
	} else if (r->hdr.len > r->len) {
		snprintf(what, sizeof(what), "message from node %u queue %u "
			 "truncated: %llu bytes into %zu", r->src_node,
			 r->src_queue, (unsigned long long)r->hdr.len, r->len);
		npo_fi_cq_push_err(ep->rx_cq, r->context, flags, FI_ETRUNC,
				   0, len, r->hdr.len - len, r->hdr.data,
				   r->hdr.tag, what);
	} else if (rx_wants_completion(ep, r->flags)) {
		npo_fi_cq_push(ep->rx_cq, r->context, flags, len, r->buf,
			       r->hdr.data, r->hdr.tag,
			       npo_fi_av_find(ep->av, r->src_node,
					      r->src_queue));
	}
}

/*
 * A header alone (FIN, PING) to peer's receiving queue, in a transmit
 * buffer, which the caller made sure is free: 0, or -FI_ENOMEM.
 */
static int send_control(struct npo_fi_ep *ep, struct npo_fi_peer *peer,
			enum npo_fi_op_kind kind, uint8_t type, uint64_t id)
{
	struct npo_fi_op *op = npo_fi_op_new(ep, kind, peer, NULL);
	struct npo_fi_hdr *h;

	if (!op)
		return -FI_ENOMEM;
	npo_fi_op_take_buf(ep, op);
	h = npo_fi_tx_addr(ep, op->buf);
	memset(h, 0, sizeof(*h));
	h->magic = NPO_FI_HDR_MAGIC;
	h->type = type;
	h->src_queue = ep->rxq->id;
	h->id = id;
	npo_prep_send(&op->sqe, 0, npo_mr_lkey(ep->tx_mr), h, sizeof(*h),
		      peer->addr.node_id, peer->addr.queue_id);
	npo_fi_op_post(ep, op);
	return 0;
}

/*
 * Tell the sender of rendezvous r that its buffer is free again: 0, or
 * -FI_EAGAIN to try again later, or why no FIN can ever go.
 */
static int send_fin(struct npo_fi_ep *ep, struct npo_fi_recv *r)
{
	struct npo_fi_peer *peer;
	int err = 0;

	if (!ep->ntx_free)
		return -FI_EAGAIN;
	peer = npo_fi_peer_at(ep, r->src_node, r->src_queue, &err);
	if (!peer)
		return err == -FI_ENOMEM ? -FI_EAGAIN : err;
	return send_control(ep, peer, NPO_FI_OP_FIN, NPO_FI_FIN, r->hdr.id) ?
	       -FI_EAGAIN : 0;
}

static struct npo_fi_recv *recv_new(void)
{
	struct npo_fi_recv *r = calloc(1, sizeof(*r));

	if (r) {
		npo_fi_list_init(&r->link);
		r->rx_buf = -1;
	}
	return r;
}

static void recv_free(struct npo_fi_ep *ep, struct npo_fi_recv *r)
{
	ep->unexp_bytes -= r->charged;
	if (r->mr)
		npo_dereg_mr(r->mr);
	/* A message left in its receive buffer gives the buffer back. */
	if (r->rx_buf >= 0)
		npo_fi_rx_repost(ep, r->rx_buf);
	else
		free(r->payload);
	free(r);
}

/*
 * A rendezvous receive is over: FIN, then its completion (none for a
 * message discarded unread).
 */
static void rdv_finish(struct npo_fi_ep *ep, struct npo_fi_recv *r)
{
	int rc = send_fin(ep, r);

	if (rc == -FI_EAGAIN) {
		npo_fi_list_add_tail(&ep->fin_wait, &r->link);
		return;
	}
	/* No way back to the sender: the data came, but it is not told. */
	if (rc)
		NPO_FI_WARN(FI_LOG_EP_DATA, "npo: no FIN to node %u: %s\n",
			    r->src_node, fi_strerror(-rc));
	if (!r->discarded)
		recv_complete(ep, r, r->done, r->status);
	recv_free(ep, r);
}

/* Start READing the message of RTS r->hdr into r's buffer. */
static void rdv_start(struct npo_fi_ep *ep, struct npo_fi_recv *r)
{
	uint64_t len = r->hdr.len < r->len ? r->hdr.len : r->len, off;
	struct npo_fi_peer *peer;
	int err = 0, rc;

	if (!len) {
		rdv_finish(ep, r);
		return;
	}
	peer = npo_fi_peer_at(ep, r->src_node, r->src_queue, &err);
	if (!peer) {
		r->status = NPO_STATUS_UNREACHABLE;
		rdv_finish(ep, r);
		return;
	}
	rc = npo_reg_mr(ep->dom->dev, r->buf, len, NPO_ACCESS_LOCAL_WRITE,
			&r->mr);
	if (rc) {
		r->status = NPO_STATUS_LOCAL_KEY;
		rdv_finish(ep, r);
		return;
	}
	for (off = 0; off < len; off += NPO_FI_READ_CHUNK) {
		uint32_t n = len - off < NPO_FI_READ_CHUNK ?
			     len - off : NPO_FI_READ_CHUNK;
		struct npo_fi_op *op = npo_fi_op_new(ep, NPO_FI_OP_READ, peer,
						     NULL);

		if (!op) {
			r->status = NPO_STATUS_LOCAL_ACCESS;
			break;
		}
		op->recv = r;
		op->len = n;
		npo_prep_read(&op->sqe, 0, npo_mr_lkey(r->mr),
			      (char *)r->buf + off, n, peer->addr.node_id,
			      r->hdr.rkey, r->hdr.addr + off);
		r->reads++;
		npo_fi_op_post(ep, op);
	}
	if (!r->reads)
		rdv_finish(ep, r);
}

/* Message u arrived (or was found unexpected) for posted receive r. */
static void deliver(struct npo_fi_ep *ep, struct npo_fi_recv *r,
		    const struct npo_fi_hdr *h, uint32_t node, uint16_t queue,
		    const void *payload)
{
	size_t n;

	r->hdr = *h;
	r->src_node = node;
	r->src_queue = queue;
	if (h->type == NPO_FI_RTS) {
		rdv_start(ep, r);
		return;
	}
	n = h->len < r->len ? h->len : r->len;
	if (n)
		memcpy(r->buf, payload, n);
	recv_complete(ep, r, n, 0);
	free(r);
}

static void fin_rx(struct npo_fi_ep *ep, const struct npo_fi_hdr *h,
		   uint32_t node)
{
	struct npo_fi_list *l;

	for (l = ep->rdv.next; l != &ep->rdv; l = l->next) {
		struct npo_fi_op *op = npo_fi_container_of(l, struct npo_fi_op,
							   rdv_link);

		if (op->id != h->id || op->peer->addr.node_id != node ||
		    op->peer->addr.queue_id != h->src_queue)
			continue;
		/*
		 * The receiver may be done before this side saw its RTS
		 * complete: then that completion finishes the send.
		 */
		if (!op->rts_sent) {
			op->fin_seen = true;
			return;
		}
		send_complete(ep, op, 0);
		npo_fi_op_free(ep, op);
		return;
	}
	NPO_FI_WARN(FI_LOG_EP_DATA, "npo: FIN %llu from node %u for no send\n",
		    (unsigned long long)h->id, node);
}

/*
 * A message arrived in receive buffer buf.  Returns whether the buffer is
 * kept (a message parked there); else it goes back to the device.
 */
bool npo_fi_msg_rx(struct npo_fi_ep *ep, const struct npo_cqe *c, void *buf)
{
	const struct npo_fi_hdr *h = buf;
	bool tagged;
	struct npo_fi_list *l, *recvs;
	struct npo_fi_recv *u;

	if (c->length < sizeof(*h) || h->magic != NPO_FI_HDR_MAGIC ||
	    (h->type == NPO_FI_EAGER && h->len != c->length - sizeof(*h)) ||
	    (h->type != NPO_FI_EAGER && h->type != NPO_FI_RTS &&
	     h->type != NPO_FI_FIN && h->type != NPO_FI_PING) ||
	    (h->type == NPO_FI_RTS && h->len > NPO_FI_MAX_MSG)) {
		NPO_FI_WARN(FI_LOG_EP_DATA, "npo: a malformed message of %u "
			    "bytes from node %u, dropped\n", c->length,
			    c->peer_node);
		return false;
	}
	if (h->type == NPO_FI_FIN) {
		fin_rx(ep, h, c->peer_node);
		return false;
	}
	/* A sender that waits for our FIN, making sure we are there. */
	if (h->type == NPO_FI_PING)
		return false;
	tagged = h->flags & NPO_FI_HDR_TAGGED;
	recvs = &ep->recvs[tagged];
	for (l = recvs->next; l != recvs; l = l->next) {
		struct npo_fi_recv *r = npo_fi_container_of(
			l, struct npo_fi_recv, link);

		if (matches(ep, r, c->peer_node, h->src_queue, h)) {
			npo_fi_list_del(&r->link);
			deliver(ep, r, h, c->peer_node, h->src_queue, h + 1);
			return false;
		}
	}
	/*
	 * Unexpected: its bytes copied out of the receive buffer, or, past
	 * unexp_max, left there (the buffer is not given back), so
	 * that a peer's flood ends as its sends waiting for buffers.
	 */
	u = recv_new();
	if (!u) {
		NPO_FI_WARN(FI_LOG_EP_DATA, "npo: no memory for a message from "
			    "node %u, dropped\n", c->peer_node);
		return false;
	}
	u->hdr = *h;
	u->src_node = c->peer_node;
	u->src_queue = h->src_queue;
	u->charged = sizeof(*u);
	if (ep->unexp_bytes + sizeof(*u) + h->len > ep->unexp_max ||
	    (h->type == NPO_FI_EAGER && h->len &&
	     !(u->payload = malloc(h->len)))) {
		u->rx_buf = c->wr_id;
		u->payload = (struct npo_fi_hdr *)buf + 1;
	} else if (u->payload) {
		memcpy(u->payload, h + 1, h->len);
		u->charged += h->len;
	}
	ep->unexp_bytes += u->charged;
	npo_fi_list_add_tail(&ep->unexp[tagged], &u->link);
	return u->rx_buf >= 0;
}

/* Peer p is gone: rendezvous sends it was to read from fail with status. */
void npo_fi_msg_peer_lost(struct npo_fi_ep *ep, struct npo_fi_peer *p,
			  uint32_t status)
{
	struct npo_fi_list *l = ep->rdv.next;

	while (l != &ep->rdv) {
		struct npo_fi_op *op = npo_fi_container_of(l, struct npo_fi_op,
							   rdv_link);

		l = l->next;
		if (op->peer != p || !op->rts_sent)
			continue;
		send_complete(ep, op, status);
		npo_fi_op_free(ep, op);
	}
}

void npo_fi_msg_tx_done(struct npo_fi_ep *ep, struct npo_fi_op *op,
			uint32_t status)
{
	struct npo_fi_recv *r;

	switch (op->kind) {
	case NPO_FI_OP_SEND:
		send_complete(ep, op, status);
		break;
	case NPO_FI_OP_RTS:
		if (!status && !op->fin_seen) {
			/* Waits on ep->rdv for the receiver's FIN. */
			ep->tx_free[ep->ntx_free++] = op->buf;
			op->peer->nbufs--;
			op->buf = -1;
			op->rts_sent = true;
			clock_gettime(CLOCK_MONOTONIC, &op->sent_at);
			return;
		}
		/* A FIN came: the data was read, whatever the RTS says. */
		send_complete(ep, op, op->fin_seen ? 0 : status);
		break;
	case NPO_FI_OP_FIN:
		if (status)
			NPO_FI_WARN(FI_LOG_EP_DATA, "npo: FIN to node %u: %s\n",
				    op->peer->addr.node_id,
				    npo_status_str(status));
		break;
	case NPO_FI_OP_READ:
		r = op->recv;
		if (status && !r->status)
			r->status = status;
		if (!status)
			r->done += op->len;
		if (!--r->reads)
			rdv_finish(ep, r);
		break;
	default:
		break;
	}
	npo_fi_op_free(ep, op);
}

static int64_t ms_between(const struct timespec *a, const struct timespec *b)
{
	return ((int64_t)b->tv_sec - a->tv_sec) * 1000 +
	       (b->tv_nsec - a->tv_nsec) / 1000000;
}

/*
 * A rendezvous send waits for its FIN as long as the receiver takes to
 * post a buffer for it, which may be long.  But a receiver that closed or
 * died, or can no longer reach us, never sends the FIN, and nothing on
 * our side fails unless we send something.  So a receiver that has owed
 * a FIN for NPO_FI_PROBE_MS, with nothing else on its queue, gets a PING
 * to its receiving queue every NPO_FI_PROBE_MS, which it drops.  One that
 * fails for a lost peer (the link, the node, the queue gone) fails its
 * sends in peer_progress(), as any request to it would.
 */
static void probe_peers(struct npo_fi_ep *ep)
{
	struct npo_fi_list *l;
	struct timespec now;

	if (npo_fi_list_empty(&ep->rdv))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* Not on every call of the data path: a tenth of the period. */
	if (ms_between(&ep->probe_check, &now) < NPO_FI_PROBE_MS / 10)
		return;
	ep->probe_check = now;
	for (l = ep->rdv.next; l != &ep->rdv; l = l->next) {
		struct npo_fi_op *rts = npo_fi_container_of(l, struct npo_fi_op,
							    rdv_link);
		struct npo_fi_peer *p = rts->peer;

		if (!rts->rts_sent || p->broken || p->nposted ||
		    !npo_fi_list_empty(&p->waiting) ||
		    ms_between(&rts->sent_at, &now) < NPO_FI_PROBE_MS ||
		    ms_between(&p->probed_at, &now) < NPO_FI_PROBE_MS)
			continue;
		if (!ep->ntx_free ||
		    send_control(ep, p, NPO_FI_OP_PROBE, NPO_FI_PING, 0))
			return;
		p->probed_at = now;
	}
}

/* FINs that found no transmit buffer or queue: each tried once a call. */
void npo_fi_msg_progress(struct npo_fi_ep *ep)
{
	struct npo_fi_list *l = ep->fin_wait.next;

	while (l != &ep->fin_wait) {
		struct npo_fi_recv *r = npo_fi_container_of(
			l, struct npo_fi_recv, link);
		int rc;

		l = l->next;
		rc = send_fin(ep, r);
		if (rc == -FI_EAGAIN)
			continue;
		npo_fi_list_del(&r->link);
		if (rc)
			NPO_FI_WARN(FI_LOG_EP_DATA, "npo: no FIN to node %u: "
				    "%s\n", r->src_node, fi_strerror(-rc));
		if (!r->discarded)
			recv_complete(ep, r, r->done, r->status);
		recv_free(ep, r);
	}
	probe_peers(ep);
}

/* The receiving queue is gone: posted receives end in error. */
void npo_fi_msg_fail_recvs(struct npo_fi_ep *ep)
{
	int i;

	for (i = 0; i < 2; i++) {
		while (!npo_fi_list_empty(&ep->recvs[i])) {
			struct npo_fi_recv *r = npo_fi_container_of(
				ep->recvs[i].next, struct npo_fi_recv, link);

			npo_fi_list_del(&r->link);
			r->src_node = ep->dom->node_id;
			r->src_queue = ep->rxq->id;
			recv_complete(ep, r, 0, ep->recv_failed ?
				      ep->recv_failed : NPO_STATUS_RESET);
			recv_free(ep, r);
		}
	}
}

/* An op dropped with its endpoint: a READ lets go of its receive. */
void npo_fi_msg_op_drop(struct npo_fi_ep *ep, struct npo_fi_op *op)
{
	if (op->kind == NPO_FI_OP_READ && op->recv && !--op->recv->reads)
		recv_free(ep, op->recv);
	npo_fi_op_free(ep, op);
}

/* Claim, discard or take an unexpected message u for receive r. */
static void unexp_take(struct npo_fi_ep *ep, struct npo_fi_recv *u,
		       struct npo_fi_recv *r)
{
	npo_fi_list_del(&u->link);
	r->hdr = u->hdr;
	r->src_node = u->src_node;
	r->src_queue = u->src_queue;
	if (u->hdr.type == NPO_FI_RTS) {
		rdv_start(ep, r);
	} else {
		size_t n = u->hdr.len < r->len ? u->hdr.len : r->len;

		if (n)
			memcpy(r->buf, u->payload, n);
		recv_complete(ep, r, n, 0);
		free(r);
	}
	recv_free(ep, u);
}

/* Drop an unexpected message unread; a rendezvous sender is let go. */
static void unexp_discard(struct npo_fi_ep *ep, struct npo_fi_recv *u)
{
	npo_fi_list_del(&u->link);
	if (u->hdr.type == NPO_FI_RTS) {
		u->discarded = true;
		rdv_finish(ep, u);
		return;
	}
	recv_free(ep, u);
}

static struct npo_fi_recv *unexp_find(struct npo_fi_ep *ep, bool tagged,
				      const struct npo_fi_recv *r,
				      void *claimed_by)
{
	struct npo_fi_list *l, *q = &ep->unexp[tagged];

	for (l = q->next; l != q; l = l->next) {
		struct npo_fi_recv *u = npo_fi_container_of(
			l, struct npo_fi_recv, link);

		if (claimed_by) {
			if (u->claim == claimed_by)
				return u;
		} else if (!u->claim &&
			   matches(ep, r, u->src_node, u->src_queue, &u->hdr)) {
			return u;
		}
	}
	return NULL;
}

static void peek_complete(struct npo_fi_ep *ep, struct npo_fi_recv *r,
			  const struct npo_fi_recv *u)
{
	uint64_t flags = FI_RECV | (r->flags & FI_TAGGED ? FI_TAGGED : FI_MSG);

	if (u->hdr.flags & NPO_FI_HDR_DATA)
		flags |= FI_REMOTE_CQ_DATA;
	if (ep->rx_cq)
		npo_fi_cq_push(ep->rx_cq, r->context, flags, u->hdr.len, NULL,
			       u->hdr.data, u->hdr.tag,
			       npo_fi_av_find(ep->av, u->src_node,
					      u->src_queue));
}

static ssize_t recv_common(struct npo_fi_ep *ep, void *buf, size_t len,
			   fi_addr_t src, uint64_t tag, uint64_t ignore,
			   void *context, uint64_t flags, bool tagged)
{
	struct npo_fi_recv *r, *u;
	ssize_t rc = 0;

	pthread_mutex_lock(&ep->dom->lock);
	if (!ep->enabled) {
		rc = -FI_EOPBADSTATE;
		goto out;
	}
	npo_fi_ep_progress(ep);
	r = recv_new();
	if (!r) {
		rc = -FI_ENOMEM;
		goto out;
	}
	r->context = context;
	r->flags = flags | (tagged ? FI_TAGGED : 0);
	r->buf = buf;
	r->len = len;
	r->src = (ep->dom->caps & FI_DIRECTED_RECV) ? src : FI_ADDR_UNSPEC;
	r->tag = tag;
	r->ignore = ignore;
	if (flags & FI_PEEK) {
		u = unexp_find(ep, tagged, r, NULL);
		if (!u) {
			if (ep->rx_cq)
				npo_fi_cq_push_err(ep->rx_cq, context,
						   FI_RECV | (tagged ? FI_TAGGED :
							      FI_MSG),
						   FI_ENOMSG, 0, 0, 0, 0, tag,
						   "no message matches");
		} else {
			peek_complete(ep, r, u);
			if (flags & FI_DISCARD)
				unexp_discard(ep, u);
			else if (flags & FI_CLAIM)
				u->claim = context;
		}
		free(r);
		goto out;
	}
	if (flags & FI_CLAIM) {
		u = unexp_find(ep, tagged, r, context);
		if (!u) {
			free(r);
			rc = -FI_EINVAL;
			goto out;
		}
		if (flags & FI_DISCARD) {
			peek_complete(ep, r, u);
			unexp_discard(ep, u);
			free(r);
		} else {
			unexp_take(ep, u, r);
		}
		goto out;
	}
	u = unexp_find(ep, tagged, r, NULL);
	if (u) {
		unexp_take(ep, u, r);
	} else if (ep->rx_dead) {
		/* Nothing more can come: a receive would wait forever. */
		free(r);
		rc = -FI_EIO;
	} else {
		npo_fi_list_add_tail(&ep->recvs[tagged], &r->link);
	}
out:
	pthread_mutex_unlock(&ep->dom->lock);
	return rc;
}

int npo_fi_msg_cancel(struct npo_fi_ep *ep, void *context)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct npo_fi_list *l;

		for (l = ep->recvs[i].next; l != &ep->recvs[i]; l = l->next) {
			struct npo_fi_recv *r = npo_fi_container_of(
				l, struct npo_fi_recv, link);

			if (r->context != context)
				continue;
			npo_fi_list_del(&r->link);
			if (ep->rx_cq)
				npo_fi_cq_push_err(ep->rx_cq, context,
						   FI_RECV | (i ? FI_TAGGED :
							      FI_MSG),
						   FI_ECANCELED, 0, 0, 0, 0,
						   r->tag, "cancelled");
			free(r);
			return 0;
		}
	}
	return -FI_ENOENT;
}

void npo_fi_msg_close(struct npo_fi_ep *ep)
{
	struct npo_fi_list *lists[] = {
		&ep->recvs[0], &ep->recvs[1], &ep->unexp[0], &ep->unexp[1],
		&ep->fin_wait,
	};
	size_t i;

	for (i = 0; i < sizeof(lists) / sizeof(*lists); i++) {
		while (!npo_fi_list_empty(lists[i])) {
			struct npo_fi_recv *r = npo_fi_container_of(
				lists[i]->next, struct npo_fi_recv, link);

			npo_fi_list_del(&r->link);
			recv_free(ep, r);
		}
	}
	/* Sends waiting for a FIN; those still on a queue go with it. */
	while (!npo_fi_list_empty(&ep->rdv)) {
		struct npo_fi_op *op = npo_fi_container_of(ep->rdv.next,
							   struct npo_fi_op,
							   rdv_link);

		npo_fi_list_del(&op->rdv_link);
		if (op->rts_sent)
			npo_fi_op_free(ep, op);
	}
}

/* ---- the ops tables ------------------------------------------------ */

static const void *iov_base(const struct iovec *iov, size_t count)
{
	return count ? iov[0].iov_base : NULL;
}

static size_t iov_len(const struct iovec *iov, size_t count)
{
	return count ? iov[0].iov_len : 0;
}

static ssize_t m_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
		      fi_addr_t src, void *context)
{
	(void)desc;
	return recv_common(ep_of(ep), buf, len, src, 0, 0, context,
			   ep_of(ep)->rx_op_flags, false);
}

static ssize_t m_recvv(struct fid_ep *ep, const struct iovec *iov,
		       void **desc, size_t count, fi_addr_t src, void *context)
{
	(void)desc;
	if (count > 1)
		return -FI_EINVAL;
	return recv_common(ep_of(ep), (void *)iov_base(iov, count),
			   iov_len(iov, count), src, 0, 0, context,
			   ep_of(ep)->rx_op_flags, false);
}

static ssize_t m_recvmsg(struct fid_ep *ep, const struct fi_msg *msg,
			 uint64_t flags)
{
	if (msg->iov_count > 1)
		return -FI_EINVAL;
	return recv_common(ep_of(ep), (void *)iov_base(msg->msg_iov,
						       msg->iov_count),
			   iov_len(msg->msg_iov, msg->iov_count), msg->addr, 0,
			   0, msg->context, flags, false);
}

static ssize_t m_send(struct fid_ep *ep, const void *buf, size_t len,
		      void *desc, fi_addr_t dest, void *context)
{
	return send_common(ep_of(ep), buf, len, desc, dest, 0, 0, context,
			   ep_of(ep)->tx_op_flags, false, false);
}

static ssize_t m_sendv(struct fid_ep *ep, const struct iovec *iov,
		       void **desc, size_t count, fi_addr_t dest,
		       void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return send_common(ep_of(ep), iov_base(iov, count),
			   iov_len(iov, count), desc ? desc[0] : NULL, dest,
			   0, 0, context, ep_of(ep)->tx_op_flags, false, false);
}

static ssize_t m_sendmsg(struct fid_ep *ep, const struct fi_msg *msg,
			 uint64_t flags)
{
	if (msg->iov_count > 1)
		return -FI_EINVAL;
	return send_common(ep_of(ep), iov_base(msg->msg_iov, msg->iov_count),
			   iov_len(msg->msg_iov, msg->iov_count),
			   msg->desc ? msg->desc[0] : NULL, msg->addr, 0,
			   msg->data, msg->context, flags, false, false);
}

static ssize_t m_inject(struct fid_ep *ep, const void *buf, size_t len,
			fi_addr_t dest)
{
	return send_common(ep_of(ep), buf, len, NULL, dest, 0, 0, NULL,
			   0, false, true);
}

static ssize_t m_senddata(struct fid_ep *ep, const void *buf, size_t len,
			  void *desc, uint64_t data, fi_addr_t dest,
			  void *context)
{
	return send_common(ep_of(ep), buf, len, desc, dest, 0, data, context,
			   ep_of(ep)->tx_op_flags | FI_REMOTE_CQ_DATA, false,
			   false);
}

static ssize_t m_injectdata(struct fid_ep *ep, const void *buf, size_t len,
			    uint64_t data, fi_addr_t dest)
{
	return send_common(ep_of(ep), buf, len, NULL, dest, 0, data, NULL,
			   FI_REMOTE_CQ_DATA, false, true);
}

struct fi_ops_msg npo_fi_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = m_recv,
	.recvv = m_recvv,
	.recvmsg = m_recvmsg,
	.send = m_send,
	.sendv = m_sendv,
	.sendmsg = m_sendmsg,
	.inject = m_inject,
	.senddata = m_senddata,
	.injectdata = m_injectdata,
};

static ssize_t t_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
		      fi_addr_t src, uint64_t tag, uint64_t ignore,
		      void *context)
{
	(void)desc;
	return recv_common(ep_of(ep), buf, len, src, tag, ignore, context,
			   ep_of(ep)->rx_op_flags, true);
}

static ssize_t t_recvv(struct fid_ep *ep, const struct iovec *iov,
		       void **desc, size_t count, fi_addr_t src, uint64_t tag,
		       uint64_t ignore, void *context)
{
	(void)desc;
	if (count > 1)
		return -FI_EINVAL;
	return recv_common(ep_of(ep), (void *)iov_base(iov, count),
			   iov_len(iov, count), src, tag, ignore, context,
			   ep_of(ep)->rx_op_flags, true);
}

static ssize_t t_recvmsg(struct fid_ep *ep, const struct fi_msg_tagged *msg,
			 uint64_t flags)
{
	if (msg->iov_count > 1)
		return -FI_EINVAL;
	return recv_common(ep_of(ep), (void *)iov_base(msg->msg_iov,
						       msg->iov_count),
			   iov_len(msg->msg_iov, msg->iov_count),
			   flags & FI_CLAIM ? FI_ADDR_UNSPEC : msg->addr,
			   msg->tag, msg->ignore, msg->context, flags, true);
}

static ssize_t t_send(struct fid_ep *ep, const void *buf, size_t len,
		      void *desc, fi_addr_t dest, uint64_t tag, void *context)
{
	return send_common(ep_of(ep), buf, len, desc, dest, tag, 0, context,
			   ep_of(ep)->tx_op_flags, true, false);
}

static ssize_t t_sendv(struct fid_ep *ep, const struct iovec *iov,
		       void **desc, size_t count, fi_addr_t dest, uint64_t tag,
		       void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return send_common(ep_of(ep), iov_base(iov, count),
			   iov_len(iov, count), desc ? desc[0] : NULL, dest,
			   tag, 0, context, ep_of(ep)->tx_op_flags, true, false);
}

static ssize_t t_sendmsg(struct fid_ep *ep, const struct fi_msg_tagged *msg,
			 uint64_t flags)
{
	if (msg->iov_count > 1)
		return -FI_EINVAL;
	return send_common(ep_of(ep), iov_base(msg->msg_iov, msg->iov_count),
			   iov_len(msg->msg_iov, msg->iov_count),
			   msg->desc ? msg->desc[0] : NULL, msg->addr,
			   msg->tag, msg->data, msg->context, flags, true, false);
}

static ssize_t t_inject(struct fid_ep *ep, const void *buf, size_t len,
			fi_addr_t dest, uint64_t tag)
{
	return send_common(ep_of(ep), buf, len, NULL, dest, tag, 0, NULL,
			   0, true, true);
}

static ssize_t t_senddata(struct fid_ep *ep, const void *buf, size_t len,
			  void *desc, uint64_t data, fi_addr_t dest,
			  uint64_t tag, void *context)
{
	return send_common(ep_of(ep), buf, len, desc, dest, tag, data, context,
			   ep_of(ep)->tx_op_flags | FI_REMOTE_CQ_DATA, true,
			   false);
}

static ssize_t t_injectdata(struct fid_ep *ep, const void *buf, size_t len,
			    uint64_t data, fi_addr_t dest, uint64_t tag)
{
	return send_common(ep_of(ep), buf, len, NULL, dest, tag, data, NULL,
			   FI_REMOTE_CQ_DATA, true, true);
}

struct fi_ops_tagged npo_fi_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = t_recv,
	.recvv = t_recvv,
	.recvmsg = t_recvmsg,
	.send = t_send,
	.sendv = t_sendv,
	.sendmsg = t_sendmsg,
	.inject = t_inject,
	.senddata = t_senddata,
	.injectdata = t_injectdata,
};
