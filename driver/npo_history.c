// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO event history: operators arrive after the failure.  Every event a
 * device sends to the netlink events group (npo_genl.c) is also kept, the
 * last NPO_EVENT_HISTORY of them, whether anyone listened or not, with its
 * number, the wall-clock time and the time on the device's fabric clock,
 * so that the two ends of a link can be put side by side.  NPO_CMD_EVENT_GET
 * dumps them with the very attributes the live event carried ("events" or
 * "events-admin", as the requester may see).
 */
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_genl.h"
#include "npo_timesync.h"

/**
 * struct npo_history_entry - one event kept
 * @seq: its number on the device, from 1.
 * @len: bytes of @attrs.
 * @attrs: the event's netlink attributes, stamps included.
 */
struct npo_history_entry {
	u64 seq;
	u32 len;
	u8 attrs[];
};

/**
 * npo_history_init() - prepare a device's event history
 * @ndev: the device, being allocated.
 */
void npo_history_init(struct npo_dev *ndev)
{
	spin_lock_init(&ndev->history.lock);
}

/**
 * npo_history_stamp() - number and time an event, in its message
 * @ndev: the device the event is about.
 * @msg: the event's message, its attributes put.
 * @seq: set to the event's number.
 *
 * The number is taken even if the event is then lost: a gap in the
 * numbers a listener sees says events were dropped.
 *
 * Return: 0 or -EMSGSIZE.
 */
int npo_history_stamp(struct npo_dev *ndev, struct sk_buff *msg, u64 *seq)
{
	u64 fabric;

	spin_lock(&ndev->history.lock);
	*seq = ++ndev->history.last_seq;
	spin_unlock(&ndev->history.lock);
	if (nla_put_u64_64bit(msg, NPO_ATTR_EVENT_SEQ, *seq, NPO_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, NPO_ATTR_EVENT_TIME, ktime_get_real_ns(),
			      NPO_ATTR_PAD))
		return -EMSGSIZE;
	if (!npo_clock_fabric_now(ndev, &fabric) &&
	    nla_put_u64_64bit(msg, NPO_ATTR_EVENT_FABRIC_TIME, fabric,
			      NPO_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

/**
 * npo_history_add() - keep an event
 * @ndev: the device it is about.
 * @seq: its number, from npo_history_stamp().
 * @attrs: its attributes, stamped by npo_history_stamp().
 * @len: their length.
 *
 * The oldest event goes once NPO_EVENT_HISTORY are kept.
 *
 * Context: process context.
 */
void npo_history_add(struct npo_dev *ndev, u64 seq, const void *attrs,
		     size_t len)
{
	struct npo_history *h = &ndev->history;
	struct npo_history_entry *e, *old = NULL;
	unsigned int i;

	/* Lost for want of memory: the gap in the numbers says so. */
	e = kmalloc(struct_size(e, attrs, len), GFP_KERNEL);
	if (!e)
		return;
	e->seq = seq;
	e->len = len;
	memcpy(e->attrs, attrs, len);
	spin_lock(&h->lock);
	if (h->count == NPO_EVENT_HISTORY) {
		old = h->ring[h->head];
		h->head = (h->head + 1) % NPO_EVENT_HISTORY;
		h->count--;
	}
	/*
	 * Kept in number order: two events stamped at once on different
	 * CPUs may come here the other way round, and a listener resuming
	 * a dump after a number must not miss the lower one.
	 */
	for (i = h->count; i > 0; i--) {
		unsigned int prev = (h->head + i - 1) % NPO_EVENT_HISTORY;

		if (h->ring[prev]->seq < seq)
			break;
		h->ring[(h->head + i) % NPO_EVENT_HISTORY] = h->ring[prev];
	}
	h->ring[(h->head + i) % NPO_EVENT_HISTORY] = e;
	h->count++;
	spin_unlock(&h->lock);
	kfree(old);
}

/**
 * npo_history_dump_dev() - put a device's kept events in a dump
 * @skb: the dump's buffer.
 * @cb: the dump; cb->args[1] holds the number of the last event put.
 * @ndev: the device.
 * @after: put only events numbered above it.
 * @admin: the requester has CAP_NET_ADMIN: the events whole; else
 *	without other users' processes (npo_genl_put_attrs()).
 *
 * Return: 0 once the device is done, -EMSGSIZE when @skb is full.
 */
int npo_history_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			 struct npo_dev *ndev, u64 after, bool admin)
{
	struct npo_history *h = &ndev->history;
	unsigned int i;
	int err = 0;

	after = max_t(u64, after, cb->args[1]);
	spin_lock(&h->lock);
	for (i = 0; i < h->count; i++) {
		struct npo_history_entry *e =
			h->ring[(h->head + i) % NPO_EVENT_HISTORY];
		void *hdr;

		if (e->seq <= after)
			continue;
		hdr = npo_genl_put(skb, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI,
				   NPO_CMD_EVENT_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		err = npo_genl_end(skb, hdr,
				   npo_genl_put_attrs(skb, e->attrs, e->len,
						      admin));
		if (err)
			break;
		cb->args[1] = e->seq;
	}
	spin_unlock(&h->lock);
	return err;
}

/**
 * npo_history_fini() - forget every event
 * @ndev: the device, being freed.
 */
void npo_history_fini(struct npo_dev *ndev)
{
	struct npo_history *h = &ndev->history;

	while (h->count) {
		kfree(h->ring[h->head]);
		h->head = (h->head + 1) % NPO_EVENT_HISTORY;
		h->count--;
	}
}
