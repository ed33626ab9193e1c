/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: jobs and quotas.  A job fences one workload's queues and
 * regions from another's (npo_job.c); the rdma cgroup limits how much a
 * cgroup may create (npo_quota.c).
 */
#ifndef _NPO_JOB_H
#define _NPO_JOB_H

#include <linux/cgroup_rdma.h>
#include <linux/uidgid.h>
#include <linux/types.h>

struct npo_dev;
struct npo_file;
struct seq_file;

/* npo_job.c: jobs, and the refusals of work outside them */
u32 npo_job_default(void);
int npo_job_set(struct npo_file *nfile, u32 job);
int npo_pd_load_job(struct npo_dev *ndev, struct npo_file *nfile);
int npo_job_throttle(struct npo_file *nfile);
void npo_job_offenders_show(struct npo_dev *ndev, struct seq_file *m);
/**
 * struct npo_charge - whom a task's refusals count against, besides its job
 * @userns: @id is a user namespace's inode number, not a uid.
 * @id: a uid in the initial namespace, or that inode number.
 */
struct npo_charge {
	bool userns;
	u32 id;
};

struct npo_charge npo_job_charge(void);
void npo_refusal_irq(struct npo_dev *ndev);
void npo_refusal_flush(struct npo_dev *ndev);
void npo_job_init(struct npo_dev *ndev);
void npo_job_fini(struct npo_dev *ndev);

/* npo_quota.c: the rdma cgroup's limits on handles and objects */
#ifdef CONFIG_CGROUP_RDMA
void npo_quota_init(struct npo_dev *ndev);
void npo_quota_fini(struct npo_dev *ndev);
int npo_quota_charge(struct npo_dev *ndev, struct rdma_cgroup **cg,
		     enum rdmacg_resource_type what);
void npo_quota_uncharge(struct npo_dev *ndev, struct rdma_cgroup *cg,
			enum rdmacg_resource_type what);
#else
struct rdma_cgroup;
static inline void npo_quota_init(struct npo_dev *ndev) {}
static inline void npo_quota_fini(struct npo_dev *ndev) {}
static inline int npo_quota_charge(struct npo_dev *ndev,
				   struct rdma_cgroup **cg,
				   enum rdmacg_resource_type what)
{
	*cg = NULL;
	return 0;
}

static inline void npo_quota_uncharge(struct npo_dev *ndev,
				      struct rdma_cgroup *cg,
				      enum rdmacg_resource_type what) {}
#endif

#endif /* _NPO_JOB_H */
