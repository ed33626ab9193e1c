/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: DMA queues and memory regions, what a file creates for its
 * protection domain (npo_queue.c, npo_mr.c).
 */
#ifndef _NPO_QUEUE_H
#define _NPO_QUEUE_H

#include <linux/sched.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "npo_health.h"
#include "npo_job.h"

struct netlink_callback;
struct npo_dmabuf_reg;
struct npo_file;
struct npo_mr_reg;
struct npo_queue_create;
struct sk_buff;
struct vm_area_struct;

/**
 * struct npo_queue_owner - who created a queue, for refusal and error reports
 * @tgid: the process (thread group id, in the initial namespace).
 * @comm: its command name then.
 * @uid: its user.
 * @charge: whom the queue's refusals count against besides its job
 *	(npo_job_charge()).
 * @pd: the queue's protection domain.
 * @job: the queue's job.
 * @failed: the device put the queue in error, for @error
 *	(npo_queue_health.c); under the table's lock.
 * @error: what it logged.
 *
 * The process that creates a queue may not be the one that opened the
 * file: a launcher opens it and hands it over.
 */
struct npo_queue_owner {
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	kuid_t uid;
	struct npo_charge charge;
	u32 pd;
	u32 job;
	bool failed;
	struct npo_queue_error error;
};

/* npo_queue.c: rings, doorbells, fault-time mappings */
int npo_queue_create(struct npo_file *nfile, struct npo_queue_create *qc);
int npo_queue_destroy(struct npo_file *nfile, u32 qid);
void npo_queue_release_all(struct npo_file *nfile, bool hw_alive);
void npo_queue_revoke_all(struct npo_file *nfile);
int npo_queue_mmap(struct npo_file *nfile, struct vm_area_struct *vma);
void npo_file_free_revoked(struct npo_file *nfile);
int npo_queue_dump(struct sk_buff *skb, struct netlink_callback *cb,
		   struct npo_file *nfile, unsigned long *index);

/* npo_mr.c: memory regions */
int npo_mr_register(struct npo_file *nfile, struct npo_mr_reg *reg);
int npo_mr_register_dmabuf(struct npo_file *nfile, struct npo_dmabuf_reg *reg);
int npo_mr_deregister(struct npo_file *nfile, u32 key);
void npo_mr_release_all(struct npo_file *nfile, bool hw_alive);
int npo_mr_dump(struct sk_buff *skb, struct netlink_callback *cb,
		struct npo_file *nfile, unsigned long *index);

#endif /* _NPO_QUEUE_H */
