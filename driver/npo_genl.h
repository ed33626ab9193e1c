/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: the "npo" generic netlink family, its events and their
 * history (npo_genl.c, npo_history.c).  Each object's handlers live with
 * the object; this family parses, checks, calls and replies.
 */
#ifndef _NPO_GENL_H
#define _NPO_GENL_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <uapi/linux/npo_netlink.h>

struct netlink_callback;
struct npo_dev;
struct npo_file;
struct npo_port;
struct sk_buff;

struct npo_history_entry;

/**
 * struct npo_history - the events a device sent, kept (npo_history.c)
 * @lock: protects the fields below.
 * @last_seq: the number of the last event.
 * @head: the oldest event kept in @ring.
 * @count: events kept.
 * @ring: the events.
 */
struct npo_history {
	spinlock_t lock; /* all fields */
	u64 last_seq;
	unsigned int head;
	unsigned int count;
	struct npo_history_entry *ring[NPO_EVENT_HISTORY];
};

/* npo_genl.c: the "npo" generic netlink family and its events */
int npo_genl_init(void);
void npo_genl_exit(void);
void *npo_genl_put(struct sk_buff *msg, u32 portid, u32 seq, int flags,
		   u8 cmd);
int npo_genl_end(struct sk_buff *msg, void *hdr, int err);
int npo_genl_put_attrs(struct sk_buff *msg, const void *attrs, int len,
		       bool all);
int npo_genl_dump_devices(struct sk_buff *skb, struct netlink_callback *cb,
			  int (*fill)(struct sk_buff *skb,
				      struct netlink_callback *cb,
				      struct npo_dev *ndev));
void *npo_genl_dump_begin(struct sk_buff *skb, struct netlink_callback *cb,
			  u8 cmd, struct npo_file *nfile);
struct sk_buff *npo_genl_event_new(u32 event, void **hdr);
void npo_genl_dev_event(struct npo_dev *ndev, u32 fault);
void npo_genl_event_send(struct npo_dev *ndev, struct sk_buff *msg,
			 void *hdr, int err);
void npo_genl_port_event(struct npo_port *port, u32 event);
u32 npo_lane_flags(u8 hw);

/* npo_history.c: the events a device sent, kept */
void npo_history_init(struct npo_dev *ndev);
int npo_history_stamp(struct npo_dev *ndev, struct sk_buff *msg, u64 *seq);
void npo_history_add(struct npo_dev *ndev, u64 seq, const void *attrs,
		     size_t len);
int npo_history_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			 struct npo_dev *ndev, u64 after, bool admin);
void npo_history_fini(struct npo_dev *ndev);

#endif /* _NPO_GENL_H */
