// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RMA and atomics, straight onto the device's WRITE, WRITE_IMM, READ,
 * FETCH_ADD and CMP_SWAP.  Keys are the device's remote keys, addresses
 * virtual (FI_MR_PROV_KEY | FI_MR_VIRT_ADDR).  Atomics are what the
 * device does: one 64-bit integer, FI_SUM, FI_ATOMIC_READ and FI_CSWAP.
 */
#include <stdio.h>
#include <string.h>

#include "npo_fi.h"

static struct npo_fi_ep *ep_of(struct fid_ep *fep)
{
	return npo_fi_container_of(fep, struct npo_fi_ep, ep);
}

/* inject: one of the fi_*inject* calls, which never complete. */
static bool wants_completion(struct npo_fi_ep *ep, uint64_t flags,
			     bool inject)
{
	return !inject && (!ep->tx_selective || (flags & FI_COMPLETION));
}

/* Start an op with its peer, and the lock taken; NULL with *rc set. */
static struct npo_fi_op *op_start(struct npo_fi_ep *ep,
				  enum npo_fi_op_kind kind, fi_addr_t dest,
				  void *context, uint64_t flags, bool inject,
				  ssize_t *rc)
{
	struct npo_fi_peer *peer;
	struct npo_fi_op *op;
	int err = 0;

	if (!ep->enabled) {
		*rc = -FI_EOPBADSTATE;
		return NULL;
	}
	if (!(ep->dom->caps & FI_RMA) && !(ep->dom->caps & FI_ATOMIC)) {
		*rc = -FI_EOPNOTSUPP;
		return NULL;
	}
	npo_fi_ep_progress(ep);
	peer = npo_fi_peer_get(ep, dest, &err);
	if (!peer) {
		*rc = err;
		return NULL;
	}
	op = npo_fi_op_new(ep, kind, peer, context);
	if (!op) {
		*rc = -FI_ENOMEM;
		return NULL;
	}
	op->inject = inject;
	op->complete = wants_completion(ep, flags, inject);
	return op;
}

static ssize_t rma_common(struct npo_fi_ep *ep, bool write, void *buf,
			  size_t len, void *desc, fi_addr_t peer_addr,
			  uint64_t addr, uint64_t key, uint64_t data,
			  void *context, uint64_t flags, bool inject)
{
	/* FI_INJECT: the buffer is free on return, a completion still due. */
	bool copy = inject || (flags & FI_INJECT);
	struct npo_fi_op *op;
	uint32_t lkey;
	ssize_t rc = 0;
	void *local = buf;

	if (len > UINT32_MAX)
		return -FI_EMSGSIZE;
	if (copy && (!write || len > NPO_FI_EAGER_MAX))
		return -FI_EMSGSIZE;
	pthread_mutex_lock(&ep->dom->lock);
	op = op_start(ep, write ? NPO_FI_OP_WRITE : NPO_FI_OP_RMA_READ,
		      peer_addr, context, flags, inject, &rc);
	if (!op)
		goto out;
	op->cq_flags = FI_RMA | (write ? FI_WRITE : FI_READ);
	op->len = len;
	if (write && len <= NPO_FI_EAGER_MAX &&
	    (copy || !npo_fi_mr_desc(desc)) &&
	    ep->ntx_free > NPO_FI_TX_RESERVE) {
		/* Small writes go from a copy: the buffer is free at once. */
		npo_fi_op_take_buf(ep, op);
		local = npo_fi_tx_addr(ep, op->buf);
		memcpy(local, buf, len);
		lkey = npo_mr_lkey(ep->tx_mr);
	} else {
		if (copy) {
			npo_fi_op_free(ep, op);
			rc = -FI_EAGAIN;
			goto out;
		}
		rc = npo_fi_local_key(ep, desc, buf, len,
				      NPO_ACCESS_LOCAL_WRITE, op, &lkey);
		if (rc) {
			npo_fi_op_free(ep, op);
			goto out;
		}
	}
	if (!write)
		npo_prep_read(&op->sqe, 0, lkey, local, len,
			      op->peer->addr.node_id, key, addr);
	else if (flags & FI_REMOTE_CQ_DATA)
		npo_prep_write_imm(&op->sqe, 0, lkey, local, len,
				   op->peer->addr.node_id,
				   op->peer->addr.queue_id, key, addr,
				   (uint32_t)data);
	else
		npo_prep_write(&op->sqe, 0, lkey, local, len,
			       op->peer->addr.node_id, key, addr);
	npo_fi_op_post(ep, op);
out:
	pthread_mutex_unlock(&ep->dom->lock);
	return rc;
}

void npo_fi_rma_tx_done(struct npo_fi_ep *ep, struct npo_fi_op *op,
			uint32_t status)
{
	char what[96];

	if (op->kind == NPO_FI_OP_ATOMIC && !status && op->result)
		memcpy(op->result, npo_fi_tx_addr(ep, op->buf), 8);
	if (status) {
		snprintf(what, sizeof(what), "%s node %u: %s",
			 op->kind == NPO_FI_OP_ATOMIC ? "atomic at" :
			 op->kind == NPO_FI_OP_WRITE ? "write to" :
			 "read from", op->peer->addr.node_id,
			 npo_status_str(status));
		/* An injected one has no context to report against. */
		if (op->inject)
			NPO_FI_WARN(FI_LOG_EP_DATA, "npo: injected %s\n", what);
		else if (ep->tx_cq)
			npo_fi_cq_push_err(ep->tx_cq, op->context, op->cq_flags,
					   npo_fi_status_to_errno(status),
					   status, 0, 0, 0, 0, what);
	} else if (op->complete && ep->tx_cq) {
		npo_fi_cq_push(ep->tx_cq, op->context, op->cq_flags, 0, NULL,
			       0, 0, FI_ADDR_NOTAVAIL);
	}
	npo_fi_op_free(ep, op);
}

/* A peer's fi_writedata landed: its data is the immediate. */
void npo_fi_rma_rx_imm(struct npo_fi_ep *ep, const struct npo_cqe *c)
{
	if (!ep->rx_cq)
		return;
	if (c->status) {
		npo_fi_cq_push_err(ep->rx_cq, NULL, FI_RMA | FI_REMOTE_WRITE,
				   npo_fi_status_to_errno(c->status), c->status,
				   0, 0, 0, 0, "remote write");
		return;
	}
	npo_fi_cq_push(ep->rx_cq, NULL,
		       FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA, c->length,
		       NULL, c->imm, 0,
		       npo_fi_av_find(ep->av, c->peer_node, c->peer_queue));
}

static ssize_t r_read(struct fid_ep *ep, void *buf, size_t len, void *desc,
		      fi_addr_t src, uint64_t addr, uint64_t key,
		      void *context)
{
	return rma_common(ep_of(ep), false, buf, len, desc, src, addr, key, 0,
			  context, ep_of(ep)->tx_op_flags, false);
}

static ssize_t r_readv(struct fid_ep *ep, const struct iovec *iov,
		       void **desc, size_t count, fi_addr_t src, uint64_t addr,
		       uint64_t key, void *context)
{
	if (count != 1)
		return -FI_EINVAL;
	return rma_common(ep_of(ep), false, iov[0].iov_base, iov[0].iov_len,
			  desc ? desc[0] : NULL, src, addr, key, 0, context,
			  ep_of(ep)->tx_op_flags, false);
}

static ssize_t r_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			 uint64_t flags)
{
	if (msg->iov_count != 1 || msg->rma_iov_count != 1 ||
	    msg->msg_iov[0].iov_len != msg->rma_iov[0].len)
		return -FI_EINVAL;
	return rma_common(ep_of(ep), false, msg->msg_iov[0].iov_base,
			  msg->msg_iov[0].iov_len,
			  msg->desc ? msg->desc[0] : NULL, msg->addr,
			  msg->rma_iov[0].addr, msg->rma_iov[0].key, 0,
			  msg->context, flags, false);
}

static ssize_t r_write(struct fid_ep *ep, const void *buf, size_t len,
		       void *desc, fi_addr_t dest, uint64_t addr, uint64_t key,
		       void *context)
{
	return rma_common(ep_of(ep), true, (void *)buf, len, desc, dest, addr,
			  key, 0, context, ep_of(ep)->tx_op_flags, false);
}

static ssize_t r_writev(struct fid_ep *ep, const struct iovec *iov,
			void **desc, size_t count, fi_addr_t dest,
			uint64_t addr, uint64_t key, void *context)
{
	if (count != 1)
		return -FI_EINVAL;
	return rma_common(ep_of(ep), true, iov[0].iov_base, iov[0].iov_len,
			  desc ? desc[0] : NULL, dest, addr, key, 0, context,
			  ep_of(ep)->tx_op_flags, false);
}

static ssize_t r_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			  uint64_t flags)
{
	if (msg->iov_count != 1 || msg->rma_iov_count != 1 ||
	    msg->msg_iov[0].iov_len != msg->rma_iov[0].len)
		return -FI_EINVAL;
	return rma_common(ep_of(ep), true, msg->msg_iov[0].iov_base,
			  msg->msg_iov[0].iov_len,
			  msg->desc ? msg->desc[0] : NULL, msg->addr,
			  msg->rma_iov[0].addr, msg->rma_iov[0].key, msg->data,
			  msg->context, flags, false);
}

static ssize_t r_inject(struct fid_ep *ep, const void *buf, size_t len,
			fi_addr_t dest, uint64_t addr, uint64_t key)
{
	return rma_common(ep_of(ep), true, (void *)buf, len, NULL, dest, addr,
			  key, 0, NULL, 0, true);
}

static ssize_t r_writedata(struct fid_ep *ep, const void *buf, size_t len,
			   void *desc, uint64_t data, fi_addr_t dest,
			   uint64_t addr, uint64_t key, void *context)
{
	return rma_common(ep_of(ep), true, (void *)buf, len, desc, dest, addr,
			  key, data, context,
			  ep_of(ep)->tx_op_flags | FI_REMOTE_CQ_DATA, false);
}

static ssize_t r_injectdata(struct fid_ep *ep, const void *buf, size_t len,
			    uint64_t data, fi_addr_t dest, uint64_t addr,
			    uint64_t key)
{
	return rma_common(ep_of(ep), true, (void *)buf, len, NULL, dest, addr,
			  key, data, NULL, FI_REMOTE_CQ_DATA, true);
}

struct fi_ops_rma npo_fi_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = r_read,
	.readv = r_readv,
	.readmsg = r_readmsg,
	.write = r_write,
	.writev = r_writev,
	.writemsg = r_writemsg,
	.inject = r_inject,
	.writedata = r_writedata,
	.injectdata = r_injectdata,
};

/* ---- atomics ------------------------------------------------------- */

enum atomic_kind { ATOMIC_WRITE, ATOMIC_FETCH, ATOMIC_COMPARE };

static int atomic_valid(enum fi_datatype dt, enum fi_op op,
			enum atomic_kind kind)
{
	if (dt != FI_UINT64 && dt != FI_INT64)
		return -FI_EOPNOTSUPP;
	switch (kind) {
	case ATOMIC_WRITE:
		return op == FI_SUM ? 0 : -FI_EOPNOTSUPP;
	case ATOMIC_FETCH:
		return op == FI_SUM || op == FI_ATOMIC_READ ? 0 :
		       -FI_EOPNOTSUPP;
	default:
		return op == FI_CSWAP ? 0 : -FI_EOPNOTSUPP;
	}
}

int npo_fi_query_atomic(struct fid_domain *domain, enum fi_datatype datatype,
			enum fi_op op, struct fi_atomic_attr *attr,
			uint64_t flags)
{
	enum atomic_kind kind = flags & FI_COMPARE_ATOMIC ? ATOMIC_COMPARE :
				flags & FI_FETCH_ATOMIC ? ATOMIC_FETCH :
				ATOMIC_WRITE;
	int rc = atomic_valid(datatype, op, kind);

	(void)domain;
	if (rc)
		return rc;
	attr->count = 1;
	attr->size = sizeof(uint64_t);
	return 0;
}

static ssize_t atomic_common(struct npo_fi_ep *ep, enum atomic_kind kind,
			     const void *buf, size_t count,
			     const void *compare, void *result,
			     fi_addr_t dest, uint64_t addr, uint64_t key,
			     enum fi_datatype dt, enum fi_op aop,
			     void *context, uint64_t flags, bool inject)
{
	struct npo_fi_op *op;
	uint64_t operand = 0, cmp = 0;
	ssize_t rc = 0;
	void *scratch;

	rc = atomic_valid(dt, aop, kind);
	if (rc)
		return rc;
	if (count != 1 || (addr & 7) || (kind != ATOMIC_WRITE && !result))
		return -FI_EINVAL;
	if (aop != FI_ATOMIC_READ)
		memcpy(&operand, buf, 8);
	if (kind == ATOMIC_COMPARE)
		memcpy(&cmp, compare, 8);
	pthread_mutex_lock(&ep->dom->lock);
	op = op_start(ep, NPO_FI_OP_ATOMIC, dest, context, flags, inject, &rc);
	if (!op)
		goto out;
	if (ep->ntx_free <= NPO_FI_TX_RESERVE) {
		npo_fi_op_free(ep, op);
		rc = -FI_EAGAIN;
		goto out;
	}
	op->cq_flags = FI_ATOMIC | (kind == ATOMIC_WRITE ? FI_WRITE : FI_READ);
	op->result = result;
	npo_fi_op_take_buf(ep, op);
	scratch = npo_fi_tx_addr(ep, op->buf);
	if (kind == ATOMIC_COMPARE)
		npo_prep_cmp_swap(&op->sqe, 0, npo_mr_lkey(ep->tx_mr), scratch,
				  op->peer->addr.node_id, key, addr, cmp,
				  operand);
	else
		npo_prep_fetch_add(&op->sqe, 0, npo_mr_lkey(ep->tx_mr),
				   scratch, op->peer->addr.node_id, key, addr,
				   operand);
	npo_fi_op_post(ep, op);
out:
	pthread_mutex_unlock(&ep->dom->lock);
	return rc;
}

static ssize_t a_write(struct fid_ep *ep, const void *buf, size_t count,
		       void *desc, fi_addr_t dest, uint64_t addr, uint64_t key,
		       enum fi_datatype dt, enum fi_op op, void *context)
{
	(void)desc;
	return atomic_common(ep_of(ep), ATOMIC_WRITE, buf, count, NULL, NULL,
			     dest, addr, key, dt, op, context,
			     ep_of(ep)->tx_op_flags, false);
}

static ssize_t a_writev(struct fid_ep *ep, const struct fi_ioc *iov,
			void **desc, size_t count, fi_addr_t dest,
			uint64_t addr, uint64_t key, enum fi_datatype dt,
			enum fi_op op, void *context)
{
	(void)desc;
	if (count != 1)
		return -FI_EINVAL;
	return atomic_common(ep_of(ep), ATOMIC_WRITE, iov[0].addr,
			     iov[0].count, NULL, NULL, dest, addr, key, dt, op,
			     context, ep_of(ep)->tx_op_flags, false);
}

static ssize_t a_writemsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
			  uint64_t flags)
{
	if (msg->iov_count != 1 || msg->rma_iov_count != 1)
		return -FI_EINVAL;
	return atomic_common(ep_of(ep), ATOMIC_WRITE, msg->msg_iov[0].addr,
			     msg->msg_iov[0].count, NULL, NULL, msg->addr,
			     msg->rma_iov[0].addr, msg->rma_iov[0].key,
			     msg->datatype, msg->op, msg->context, flags,
			     false);
}

static ssize_t a_inject(struct fid_ep *ep, const void *buf, size_t count,
			fi_addr_t dest, uint64_t addr, uint64_t key,
			enum fi_datatype dt, enum fi_op op)
{
	return atomic_common(ep_of(ep), ATOMIC_WRITE, buf, count, NULL, NULL,
			     dest, addr, key, dt, op, NULL, 0, true);
}

static ssize_t a_readwrite(struct fid_ep *ep, const void *buf, size_t count,
			   void *desc, void *result, void *result_desc,
			   fi_addr_t dest, uint64_t addr, uint64_t key,
			   enum fi_datatype dt, enum fi_op op, void *context)
{
	(void)desc; (void)result_desc;
	return atomic_common(ep_of(ep), ATOMIC_FETCH, buf, count, NULL,
			     result, dest, addr, key, dt, op, context,
			     ep_of(ep)->tx_op_flags, false);
}

static ssize_t a_readwritev(struct fid_ep *ep, const struct fi_ioc *iov,
			    void **desc, size_t count, struct fi_ioc *resultv,
			    void **result_desc, size_t result_count,
			    fi_addr_t dest, uint64_t addr, uint64_t key,
			    enum fi_datatype dt, enum fi_op op, void *context)
{
	(void)desc; (void)result_desc;
	if (count != 1 || result_count != 1)
		return -FI_EINVAL;
	return atomic_common(ep_of(ep), ATOMIC_FETCH, iov[0].addr,
			     iov[0].count, NULL, resultv[0].addr, dest, addr,
			     key, dt, op, context, ep_of(ep)->tx_op_flags,
			     false);
}

static ssize_t a_readwritemsg(struct fid_ep *ep,
			      const struct fi_msg_atomic *msg,
			      struct fi_ioc *resultv, void **result_desc,
			      size_t result_count, uint64_t flags)
{
	(void)result_desc;
	if (msg->iov_count != 1 || msg->rma_iov_count != 1 ||
	    result_count != 1)
		return -FI_EINVAL;
	return atomic_common(ep_of(ep), ATOMIC_FETCH, msg->msg_iov[0].addr,
			     msg->msg_iov[0].count, NULL, resultv[0].addr,
			     msg->addr, msg->rma_iov[0].addr,
			     msg->rma_iov[0].key, msg->datatype, msg->op,
			     msg->context, flags, false);
}

static ssize_t a_compwrite(struct fid_ep *ep, const void *buf, size_t count,
			   void *desc, const void *compare, void *compare_desc,
			   void *result, void *result_desc, fi_addr_t dest,
			   uint64_t addr, uint64_t key, enum fi_datatype dt,
			   enum fi_op op, void *context)
{
	(void)desc; (void)compare_desc; (void)result_desc;
	return atomic_common(ep_of(ep), ATOMIC_COMPARE, buf, count, compare,
			     result, dest, addr, key, dt, op, context,
			     ep_of(ep)->tx_op_flags, false);
}

static ssize_t a_compwritev(struct fid_ep *ep, const struct fi_ioc *iov,
			    void **desc, size_t count,
			    const struct fi_ioc *comparev, void **compare_desc,
			    size_t compare_count, struct fi_ioc *resultv,
			    void **result_desc, size_t result_count,
			    fi_addr_t dest, uint64_t addr, uint64_t key,
			    enum fi_datatype dt, enum fi_op op, void *context)
{
	(void)desc; (void)compare_desc; (void)result_desc;
	if (count != 1 || compare_count != 1 || result_count != 1)
		return -FI_EINVAL;
	return atomic_common(ep_of(ep), ATOMIC_COMPARE, iov[0].addr,
			     iov[0].count, comparev[0].addr, resultv[0].addr,
			     dest, addr, key, dt, op, context,
			     ep_of(ep)->tx_op_flags, false);
}

static ssize_t a_compwritemsg(struct fid_ep *ep,
			      const struct fi_msg_atomic *msg,
			      const struct fi_ioc *comparev,
			      void **compare_desc, size_t compare_count,
			      struct fi_ioc *resultv, void **result_desc,
			      size_t result_count, uint64_t flags)
{
	(void)compare_desc; (void)result_desc;
	if (msg->iov_count != 1 || msg->rma_iov_count != 1 ||
	    compare_count != 1 || result_count != 1)
		return -FI_EINVAL;
	return atomic_common(ep_of(ep), ATOMIC_COMPARE, msg->msg_iov[0].addr,
			     msg->msg_iov[0].count, comparev[0].addr,
			     resultv[0].addr, msg->addr, msg->rma_iov[0].addr,
			     msg->rma_iov[0].key, msg->datatype, msg->op,
			     msg->context, flags, false);
}

static int valid_count(enum fi_datatype dt, enum fi_op op, size_t *count,
		       enum atomic_kind kind)
{
	int rc = atomic_valid(dt, op, kind);

	if (!rc && count)
		*count = 1;
	return rc;
}

static int a_writevalid(struct fid_ep *ep, enum fi_datatype dt,
			enum fi_op op, size_t *count)
{
	(void)ep;
	return valid_count(dt, op, count, ATOMIC_WRITE);
}

static int a_readwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			    enum fi_op op, size_t *count)
{
	(void)ep;
	return valid_count(dt, op, count, ATOMIC_FETCH);
}

static int a_compwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			    enum fi_op op, size_t *count)
{
	(void)ep;
	return valid_count(dt, op, count, ATOMIC_COMPARE);
}

struct fi_ops_atomic npo_fi_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = a_write,
	.writev = a_writev,
	.writemsg = a_writemsg,
	.inject = a_inject,
	.readwrite = a_readwrite,
	.readwritev = a_readwritev,
	.readwritemsg = a_readwritemsg,
	.compwrite = a_compwrite,
	.compwritev = a_compwritev,
	.compwritemsg = a_compwritemsg,
	.writevalid = a_writevalid,
	.readwritevalid = a_readwritevalid,
	.compwritevalid = a_compwritevalid,
};
