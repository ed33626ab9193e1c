// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A fake libnpo.so.2 for the provider's host test (see fake_npo.h): the
 * device, discovery and queue calls of libnpo over devices in this
 * process.  What touches only rings (waiting, flushing a revoked queue,
 * names, endpoint blobs) is libnpo's own code, linked beside this.
 *
 * One engine thread runs every queue's descriptors in posting order, one
 * at a time, under one lock: the rules are hardware.rst's, the timing is
 * not.  A region is the registering handle's: its local key works only
 * on that handle's queues, its remote key only for requests of the job
 * the handle was in when it registered.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "fake_npo.h"

#define FAKE_MAX_DEVICES	8
#define FAKE_RNR_NS		1000000000LL	/* SEND waits this for a buffer */
#define FAKE_DOORBELL_SIZE	4096
/* A descriptor still waiting for its receiver: run it again later. */
#define FAKE_PENDING		UINT32_MAX

/* An open device: the file a process holds, with the job it is in. */
struct fake_handle {
	struct npo_device dev;
	uint32_t job;
};

struct fake_queue {
	struct npo_queue q;		/* what the caller holds */
	struct fake_handle *h;
	uint32_t *hdr;			/* the ring header the device writes */
	uint32_t head, cq_tail, rq_head;
	uint32_t sq_entries, cq_entries, rq_entries;
	bool error;
	int64_t rnr_since;		/* the head SEND found no buffer */
	struct fake_queue *next;
};

struct fake_region {
	struct npo_mr mr;		/* what the caller holds */
	struct fake_handle *h;
	uint32_t access;
	bool revoked;			/* its device was reset */
	struct fake_region *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_t engine;
	bool engine_running;
	int devices;
	uint32_t fail_status[FAKE_MAX_DEVICES + 1];	/* by node */
	uint32_t next_key;
	struct fake_queue *queues;
	struct fake_region *regions;
	uint64_t run;
} fake = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.devices = 3,
	.next_key = 0x100,
};

static int64_t fake_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint32_t hdr_load(const struct fake_queue *fq, unsigned int off)
{
	return __atomic_load_n(&fq->hdr[off / 4], __ATOMIC_ACQUIRE);
}

static void hdr_store(struct fake_queue *fq, unsigned int off, uint32_t v)
{
	__atomic_store_n(&fq->hdr[off / 4], v, __ATOMIC_RELEASE);
}

static uint32_t doorbell(const struct fake_queue *fq, unsigned int off)
{
	return __atomic_load_n(&fq->q.doorbell[off / 4], __ATOMIC_ACQUIRE);
}

static void queue_fail(struct fake_queue *fq)
{
	fq->error = true;
	hdr_store(fq, NPO_RING_STATUS,
		  hdr_load(fq, NPO_RING_STATUS) | NPO_QSTAT_ERROR);
}

static bool cq_has_room(const struct fake_queue *fq)
{
	return fq->cq_tail - hdr_load(fq, NPO_RING_CQ_HEAD) < fq->cq_entries;
}

static void cq_post(struct fake_queue *fq, const struct npo_cqe *c)
{
	fq->q.cqes[fq->cq_tail & (fq->cq_entries - 1)] = *c;
	fq->cq_tail++;
	hdr_store(fq, NPO_RING_CQ_TAIL, fq->cq_tail);
}

static struct fake_region *region_by_lkey(const struct fake_handle *h,
					  uint32_t lkey, uint64_t addr,
					  uint64_t len, uint32_t need)
{
	struct fake_region *r;

	for (r = fake.regions; r; r = r->next)
		if (r->h == h && r->mr.lkey == lkey)
			break;
	if (!r || r->revoked || (r->access & need) != need || addr < r->mr.addr ||
	    len > r->mr.length || addr - r->mr.addr > r->mr.length - len)
		return NULL;
	return r;
}

/* The target's check: the key, the requester's job, the range, the rights. */
static struct fake_region *region_by_rkey(uint32_t node, uint32_t job,
					  uint64_t rkey, uint64_t addr,
					  uint64_t len, uint32_t need)
{
	struct fake_region *r;

	for (r = fake.regions; r; r = r->next)
		if (r->mr.node_id == node && r->mr.rkey == rkey)
			break;
	if (!r || r->revoked || r->mr.job != job || (r->access & need) != need ||
	    addr < r->mr.addr || len > r->mr.length ||
	    addr - r->mr.addr > r->mr.length - len)
		return NULL;
	return r;
}

/* The queue a SEND or WRITE_IMM names, if it takes one of job's. */
static struct fake_queue *target_queue(uint32_t node, uint16_t id,
				       uint32_t job)
{
	struct fake_queue *fq;

	for (fq = fake.queues; fq; fq = fq->next)
		if (fq->q.node_id == node && fq->q.id == id)
			break;
	if (!fq || fq->q.job != job || fq->error ||
	    (hdr_load(fq, NPO_RING_STATUS) & NPO_QSTAT_REVOKED))
		return NULL;
	return fq;
}

static void deliver(struct fake_queue *src, struct fake_queue *dst,
		    struct npo_cqe *c)
{
	c->port = NPO_CQE_PORT_NONE;
	c->peer_node = src->q.node_id;
	c->peer_queue = (uint16_t)src->q.id;
	/* No room: the receiver fails rather than lose it, as in RDMA. */
	if (!cq_has_room(dst)) {
		queue_fail(dst);
		return;
	}
	cq_post(dst, c);
}

static uint32_t run_send(struct fake_queue *fq, const struct npo_sqe *d,
			 const void *src)
{
	struct fake_queue *tq = target_queue(d->dest_node, d->dest_queue,
					     fq->q.job);
	struct npo_cqe c = { .opcode = NPO_OP_RECV };
	struct fake_region *r = NULL;
	struct npo_rqe rqe;

	if (!tq)
		return NPO_STATUS_REMOTE_QUEUE;
	if (tq->rq_head == doorbell(tq, NPO_DB_RQ_TAIL)) {
		if (!fq->rnr_since)
			fq->rnr_since = fake_now_ns();
		return fake_now_ns() - fq->rnr_since < FAKE_RNR_NS ?
		       FAKE_PENDING : NPO_STATUS_RNR;
	}
	rqe = tq->q.rqes[tq->rq_head & (tq->rq_entries - 1)];
	tq->rq_head++;
	hdr_store(tq, NPO_RING_RQ_HEAD, tq->rq_head);
	c.wr_id = rqe.wr_id;
	if (rqe.length < d->length)
		c.status = NPO_STATUS_REMOTE_LENGTH;
	else if (d->length &&
		 !(r = region_by_lkey(tq->h, rqe.key, rqe.addr, d->length,
				      NPO_ACCESS_LOCAL_WRITE)))
		c.status = NPO_STATUS_LOCAL_ACCESS;
	if (c.status) {
		/* The receiver's buffer is at fault: its queue fails. */
		deliver(fq, tq, &c);
		queue_fail(tq);
		return c.status == NPO_STATUS_REMOTE_LENGTH ?
		       NPO_STATUS_REMOTE_LENGTH : NPO_STATUS_REMOTE_QUEUE;
	}
	if (d->length)
		memcpy((void *)(uintptr_t)rqe.addr, src, d->length);
	c.length = d->length;
	deliver(fq, tq, &c);
	return NPO_STATUS_OK;
}

static uint32_t run_atomic(const struct npo_sqe *d, uint64_t *word,
			   uint64_t *result)
{
	if (d->remote_addr & 7 || d->local_addr & 7 || d->length != 8)
		return NPO_STATUS_BAD_DESCRIPTOR;
	if (d->opcode == NPO_OP_FETCH_ADD) {
		*result = __atomic_fetch_add(word, d->compare_add,
					     __ATOMIC_SEQ_CST);
	} else {
		*result = d->compare_add;
		__atomic_compare_exchange_n(word, result, d->swap, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
	return NPO_STATUS_OK;
}

/* Run descriptor d of fq: its status, or FAKE_PENDING. */
static uint32_t run_one(struct fake_queue *fq, const struct npo_sqe *d)
{
	static const uint32_t remote_need[] = {
		[NPO_OP_WRITE] = NPO_ACCESS_REMOTE_WRITE,
		[NPO_OP_WRITE_IMM] = NPO_ACCESS_REMOTE_WRITE,
		[NPO_OP_READ] = NPO_ACCESS_REMOTE_READ,
		[NPO_OP_FETCH_ADD] = NPO_ACCESS_REMOTE_ATOMIC,
		[NPO_OP_CMP_SWAP] = NPO_ACCESS_REMOTE_ATOMIC,
	};
	bool to_local = d->opcode == NPO_OP_READ ||
			d->opcode == NPO_OP_FETCH_ADD ||
			d->opcode == NPO_OP_CMP_SWAP;
	struct fake_region *remote = NULL;
	struct fake_queue *tq;
	void *local = (void *)(uintptr_t)d->local_addr;
	void *far = (void *)(uintptr_t)d->remote_addr;
	uint64_t old;
	uint32_t st;

	if (d->opcode == NPO_OP_NOP)
		return NPO_STATUS_OK;
	if (d->opcode > NPO_OP_SEND)
		return NPO_STATUS_BAD_DESCRIPTOR;
	if (!d->dest_node || d->dest_node > (uint32_t)fake.devices)
		return NPO_STATUS_UNREACHABLE;
	/* A cut node neither hears nor is heard. */
	if (fake.fail_status[d->dest_node])
		return fake.fail_status[d->dest_node];
	if (fake.fail_status[fq->q.node_id])
		return fake.fail_status[fq->q.node_id];
	if (d->length &&
	    !region_by_lkey(fq->h, d->local_key, d->local_addr, d->length,
			    to_local ? NPO_ACCESS_LOCAL_WRITE : 0))
		return NPO_STATUS_LOCAL_ACCESS;
	if (d->opcode == NPO_OP_SEND)
		return run_send(fq, d, local);
	if (d->length &&
	    !(remote = region_by_rkey(d->dest_node, fq->q.job, d->remote_key,
				      d->remote_addr, d->length,
				      remote_need[d->opcode])))
		return NPO_STATUS_REMOTE_ACCESS;
	switch (d->opcode) {
	case NPO_OP_WRITE:
		memmove(far, local, d->length);
		return NPO_STATUS_OK;
	case NPO_OP_READ:
		memmove(local, far, d->length);
		return NPO_STATUS_OK;
	case NPO_OP_WRITE_IMM:
		tq = target_queue(d->dest_node, d->dest_queue, fq->q.job);
		if (!tq)
			return NPO_STATUS_REMOTE_QUEUE;
		memmove(far, local, d->length);
		deliver(fq, tq, &(struct npo_cqe) {
			.opcode = NPO_OP_RECV_IMM, .imm = d->imm,
			.length = d->length });
		return NPO_STATUS_OK;
	default:
		st = run_atomic(d, far, &old);
		if (!st)
			memcpy(local, &old, sizeof(old));
		return st;
	}
}

/* Run what fq has posted, while its completion ring has room. */
static bool run_queue(struct fake_queue *fq)
{
	uint32_t tail = doorbell(fq, NPO_DB_SQ_TAIL);
	bool ran = false;

	if (hdr_load(fq, NPO_RING_STATUS) & NPO_QSTAT_REVOKED)
		return false;
	while (fq->head != tail && cq_has_room(fq)) {
		const struct npo_sqe *d =
			&fq->q.sqes[fq->head & (fq->sq_entries - 1)];
		uint32_t st = fq->error ? NPO_STATUS_FLUSHED : run_one(fq, d);
		struct npo_cqe c = {
			.wr_id = d->wr_id,
			.opcode = d->opcode,
			.port = NPO_CQE_PORT_NONE,
			.peer_node = d->dest_node,
		};

		if (st == FAKE_PENDING)
			break;
		fq->rnr_since = 0;
		c.status = st;
		c.length = st ? 0 : d->length;
		if (d->opcode == NPO_OP_SEND || d->opcode == NPO_OP_WRITE_IMM)
			c.peer_queue = d->dest_queue;
		if (st)
			queue_fail(fq);
		cq_post(fq, &c);
		fq->head++;
		hdr_store(fq, NPO_RING_SQ_HEAD, fq->head);
		fake.run++;
		ran = true;
	}
	return ran;
}

static void *engine(void *arg)
{
	(void)arg;
	for (;;) {
		struct fake_queue *fq;
		bool ran = false;

		pthread_mutex_lock(&fake.lock);
		for (fq = fake.queues; fq; fq = fq->next)
			ran |= run_queue(fq);
		pthread_mutex_unlock(&fake.lock);
		if (!ran)
			usleep(20);
	}
	return NULL;
}

void npo_fake_set_devices(int count)
{
	pthread_mutex_lock(&fake.lock);
	fake.devices = count < 0 ? 0 : count > FAKE_MAX_DEVICES ?
		       FAKE_MAX_DEVICES : count;
	pthread_mutex_unlock(&fake.lock);
}

void npo_fake_fail_node(uint32_t node, uint32_t status)
{
	pthread_mutex_lock(&fake.lock);
	if (node && node <= FAKE_MAX_DEVICES)
		fake.fail_status[node] = status;
	pthread_mutex_unlock(&fake.lock);
}

void npo_fake_reset(uint32_t node)
{
	struct fake_region *r;
	struct fake_queue *fq;

	pthread_mutex_lock(&fake.lock);
	for (fq = fake.queues; fq; fq = fq->next)
		if (fq->q.node_id == node)
			hdr_store(fq, NPO_RING_STATUS, NPO_QSTAT_ERROR |
				  NPO_QSTAT_REVOKED | NPO_QSTAT_FINAL);
	for (r = fake.regions; r; r = r->next)
		if (r->mr.node_id == node)
			r->revoked = true;
	pthread_mutex_unlock(&fake.lock);
}

/* The lowest queue id free on node, as the driver hands them out. */
static uint16_t free_queue_id(uint32_t node)
{
	struct fake_queue *fq;
	uint16_t id = 0;

again:
	for (fq = fake.queues; fq; fq = fq->next) {
		if (fq->q.node_id == node && fq->q.id == id) {
			id++;
			goto again;
		}
	}
	return id;
}

uint64_t npo_fake_descriptors_run(void)
{
	uint64_t n;

	pthread_mutex_lock(&fake.lock);
	n = fake.run;
	pthread_mutex_unlock(&fake.lock);
	return n;
}

unsigned int npo_fake_queues(void)
{
	struct fake_queue *fq;
	unsigned int n = 0;

	pthread_mutex_lock(&fake.lock);
	for (fq = fake.queues; fq; fq = fq->next)
		n++;
	pthread_mutex_unlock(&fake.lock);
	return n;
}

unsigned int npo_fake_regions(void)
{
	struct fake_region *r;
	unsigned int n = 0;

	pthread_mutex_lock(&fake.lock);
	for (r = fake.regions; r; r = r->next)
		n++;
	pthread_mutex_unlock(&fake.lock);
	return n;
}

/* --- libnpo's API --------------------------------------------------------- */

struct npo_device_entry *npo_get_device_list(int *count)
{
	struct npo_device_entry *list;
	int i, n;

	pthread_mutex_lock(&fake.lock);
	n = fake.devices;
	pthread_mutex_unlock(&fake.lock);
	if (!n) {
		errno = ENOENT;
		return NULL;
	}
	list = calloc(n, sizeof(*list));
	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		snprintf(list[i].name, sizeof(list[i].name), "npo%d", i);
		list[i].index = i;
	}
	*count = n;
	return list;
}

void npo_free_device_list(struct npo_device_entry *list)
{
	free(list);
}

struct npo_device *npo_open_device(const char *name)
{
	struct fake_handle *h;
	int index, end = 0, n;

	pthread_mutex_lock(&fake.lock);
	n = fake.devices;
	pthread_mutex_unlock(&fake.lock);
	if (sscanf(name, "npo%d%n", &index, &end) != 1 || name[end] ||
	    index < 0 || index >= n) {
		errno = ENODEV;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->dev.fd = -1;
	snprintf(h->dev.name, sizeof(h->dev.name), "npo%d", index);
	h->dev.node_id = index + 1;
	pthread_mutex_lock(&fake.lock);
	if (!fake.engine_running &&
	    !pthread_create(&fake.engine, NULL, engine, NULL)) {
		pthread_detach(fake.engine);
		fake.engine_running = true;
	}
	pthread_mutex_unlock(&fake.lock);
	return &h->dev;
}

int npo_close_device(struct npo_device *dev)
{
	free(dev);
	return 0;
}

const char *npo_device_name(const struct npo_device *dev)
{
	return dev->name;
}

int npo_query_device(struct npo_device *dev, struct npo_device_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->name, sizeof(attr->name), "%s", dev->name);
	attr->caps = NPO_CAP_QUEUES;
	attr->node_id = dev->node_id;
	attr->state = NPO_DEV_STATE_READY;
	attr->num_queues = 1024;
	return 0;
}

int npo_device_job(struct npo_device *dev, uint32_t *job)
{
	*job = ((struct fake_handle *)dev)->job;
	return 0;
}

int npo_device_set_job(struct npo_device *dev, uint32_t job)
{
	((struct fake_handle *)dev)->job = job;
	return 0;
}

static bool pow2(uint32_t n)
{
	return n && !(n & (n - 1));
}

int npo_create_queue(struct npo_device *dev, const struct npo_queue_attr *attr,
		     struct npo_queue **queue)
{
	struct fake_handle *h = (struct fake_handle *)dev;
	uint32_t cq = attr->cq_entries ? attr->cq_entries : attr->sq_entries;
	struct fake_queue *fq;
	uint32_t *doorbell;
	char *ring;

	if (!pow2(attr->sq_entries) || !pow2(cq) || cq < attr->sq_entries ||
	    (attr->rq_entries && !pow2(attr->rq_entries)))
		return -EINVAL;
	fq = calloc(1, sizeof(*fq));
	ring = calloc(1, NPO_RING_HEADER_SIZE +
			 attr->sq_entries * sizeof(struct npo_sqe) +
			 cq * sizeof(struct npo_cqe) +
			 attr->rq_entries * sizeof(struct npo_rqe));
	doorbell = calloc(1, FAKE_DOORBELL_SIZE);
	if (!fq || !ring || !doorbell) {
		free(doorbell);
		free(ring);
		free(fq);
		return -ENOMEM;
	}
	fq->q.doorbell = doorbell;
	fq->h = h;
	fq->hdr = (uint32_t *)ring;
	fq->sq_entries = attr->sq_entries;
	fq->cq_entries = cq;
	fq->rq_entries = attr->rq_entries;
	fq->q.ring = ring;
	fq->q.sqes = (struct npo_sqe *)(ring + NPO_RING_HEADER_SIZE);
	fq->q.cqes = (struct npo_cqe *)(fq->q.sqes + attr->sq_entries);
	fq->q.rqes = (struct npo_rqe *)(fq->q.cqes + cq);
	fq->q.sq_head = &fq->hdr[NPO_RING_SQ_HEAD / 4];
	fq->q.cq_tail = &fq->hdr[NPO_RING_CQ_TAIL / 4];
	fq->q.cq_head = &fq->hdr[NPO_RING_CQ_HEAD / 4];
	fq->q.status = &fq->hdr[NPO_RING_STATUS / 4];
	fq->q.rq_head = &fq->hdr[NPO_RING_RQ_HEAD / 4];
	fq->q.sq_mask = attr->sq_entries - 1;
	fq->q.cq_mask = cq - 1;
	fq->q.rq_mask = attr->rq_entries ? attr->rq_entries - 1 : 0;
	fq->q.node_id = dev->node_id;
	fq->q.job = h->job;
	fq->q.dev = dev;
	fq->q.event_fd = -1;
	pthread_mutex_lock(&fake.lock);
	fq->q.id = free_queue_id(dev->node_id);
	fq->next = fake.queues;
	fake.queues = fq;
	pthread_mutex_unlock(&fake.lock);
	*queue = &fq->q;
	return 0;
}

int npo_destroy_queue(struct npo_queue *q)
{
	struct fake_queue **p;

	if (!q)
		return 0;
	pthread_mutex_lock(&fake.lock);
	for (p = &fake.queues; *p; p = &(*p)->next) {
		if (&(*p)->q == q) {
			struct fake_queue *fq = *p;

			*p = fq->next;
			free(fq->q.ring);
			free(fq->q.doorbell);
			free(fq);
			break;
		}
	}
	pthread_mutex_unlock(&fake.lock);
	return 0;
}

int npo_reg_mr(struct npo_device *dev, void *addr, size_t length,
	       uint32_t access, struct npo_mr **mr)
{
	struct fake_handle *h = (struct fake_handle *)dev;
	struct fake_region *r;

	if (!addr || !length || access & ~NPO_ACCESS_ALL)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->h = h;
	r->access = access;
	r->mr.dev = dev;
	r->mr.node_id = dev->node_id;
	r->mr.job = h->job;
	r->mr.addr = (uintptr_t)addr;
	r->mr.length = length;
	pthread_mutex_lock(&fake.lock);
	r->mr.lkey = fake.next_key++;
	/* Not guessable from the local key, as the driver's are not. */
	r->mr.rkey = (uint64_t)r->mr.lkey * 0x9e3779b97f4a7c15ull;
	r->next = fake.regions;
	fake.regions = r;
	pthread_mutex_unlock(&fake.lock);
	*mr = &r->mr;
	return 0;
}

int npo_dereg_mr(struct npo_mr *mr)
{
	struct fake_region **p;

	if (!mr)
		return 0;
	pthread_mutex_lock(&fake.lock);
	for (p = &fake.regions; *p; p = &(*p)->next) {
		if (&(*p)->mr == mr) {
			struct fake_region *r = *p;

			*p = r->next;
			free(r);
			break;
		}
	}
	pthread_mutex_unlock(&fake.lock);
	return 0;
}

uint32_t npo_mr_lkey(const struct npo_mr *mr)
{
	return mr->lkey;
}

uint64_t npo_mr_rkey(const struct npo_mr *mr)
{
	return mr->rkey;
}
