// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPO fabric key: only hosts the operator provisioned speak for the fabric.
 *
 * Every device's link messages to its neighbours (routing adverts and link
 * reports) and its time-sync messages end with a trailer: the
 * number of the key they were signed with and the first 16 bytes of an
 * HMAC-SHA-256 over the kind of message, the message and the trailer's key
 * number (as OSPF's cryptographic authentication, RFC 5709, and
 * InfiniBand's M_Key do).  A device holding keys refuses anything unsigned,
 * signed with a key it does not hold, or whose MAC does not match; it
 * counts what it refused.  It holds up to four keys and signs with one of
 * them, so that a key is rotated without an outage: the new one is added
 * on every host, then made the one to sign with on every host, then the
 * old one deleted (Documentation/admin.rst, "The fabric key").
 *
 * A device without keys signs nothing and accepts unsigned messages: a
 * single host or a lab keeps working, and says so in its log, in devlink
 * info and in `npoctl health`.  Secrets go in through netlink with
 * CAP_NET_ADMIN and never come back out: only a fingerprint does.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <uapi/linux/npo_netlink.h>

#include "npo.h"
#include "npo_fabric_key.h"
#include "npo_genl.h"

/**
 * npo_fkey_init() - a device with no key yet
 * @ndev: the device, being allocated.
 */
void npo_fkey_init(struct npo_dev *ndev)
{
	mutex_init(&ndev->fkeys.lock);
}

static void npo_fkey_clear(struct npo_fkey *k)
{
	crypto_free_shash(k->tfm);
	memset(k, 0, sizeof(*k));
}

/**
 * npo_fkey_fini() - forget every key
 * @ndev: the device, being freed.
 */
void npo_fkey_fini(struct npo_dev *ndev)
{
	unsigned int i;

	for (i = 0; i < NPO_FKEY_MAX; i++)
		if (ndev->fkeys.keys[i].id)
			npo_fkey_clear(&ndev->fkeys.keys[i]);
	mutex_destroy(&ndev->fkeys.lock);
}

static struct npo_fkey *npo_fkey_find(struct npo_fabric_auth *fa, u8 id)
{
	unsigned int i;

	lockdep_assert_held(&fa->lock);
	for (i = 0; id && i < NPO_FKEY_MAX; i++)
		if (fa->keys[i].id == id)
			return &fa->keys[i];
	return NULL;
}

static struct npo_fkey *npo_fkey_free_slot(struct npo_fabric_auth *fa)
{
	unsigned int i;

	lockdep_assert_held(&fa->lock);
	for (i = 0; i < NPO_FKEY_MAX; i++)
		if (!fa->keys[i].id)
			return &fa->keys[i];
	return NULL;
}

static bool npo_fkey_any(struct npo_fabric_auth *fa)
{
	unsigned int i;

	lockdep_assert_held(&fa->lock);
	for (i = 0; i < NPO_FKEY_MAX; i++)
		if (fa->keys[i].id)
			return true;
	return false;
}

/**
 * npo_fkey_enabled() - whether the device holds a fabric key
 * @ndev: the device.
 *
 * Return: true if it signs and checks its control messages.
 */
bool npo_fkey_enabled(struct npo_dev *ndev)
{
	bool any;

	mutex_lock(&ndev->fkeys.lock);
	any = npo_fkey_any(&ndev->fkeys);
	mutex_unlock(&ndev->fkeys.lock);
	return any;
}

/*
 * The MAC of a message: the kind of message, then the message with
 * skip_len bytes from skip_off read as zeros (what the device writes in
 * as it sends: the departure stamp of a one-step time message), then the
 * trailer's key number and reserved bytes.
 */
static int npo_fkey_mac(struct npo_fkey *k, enum npo_fkey_ctx ctx,
			const u8 *msg, size_t len, size_t skip_off,
			size_t skip_len, const struct npo_fkey_trailer *t,
			u8 mac[SHA256_DIGEST_SIZE])
{
	static const u8 zeros[16];
	SHASH_DESC_ON_STACK(desc, k->tfm);
	u8 kind = ctx;
	int err;

	if (skip_len > sizeof(zeros) || skip_off + skip_len > len)
		return -EINVAL;
	desc->tfm = k->tfm;
	err = crypto_shash_init(desc) ?:
	      crypto_shash_update(desc, &kind, 1) ?:
	      crypto_shash_update(desc, msg, skip_len ? skip_off : len);
	if (!err && skip_len)
		err = crypto_shash_update(desc, zeros, skip_len) ?:
		      crypto_shash_update(desc, msg + skip_off + skip_len,
					  len - skip_off - skip_len);
	if (!err)
		err = crypto_shash_update(desc, &t->key_id,
					  offsetof(struct npo_fkey_trailer, mac)) ?:
		      crypto_shash_final(desc, mac);
	shash_desc_zero(desc);
	return err;
}

/**
 * npo_fkey_sign() - sign a message about to be sent, if there is a key
 * @ndev: the device sending it.
 * @ctx: what kind of message it is.
 * @msg: the message; its first byte, its type, gets %NPO_FKEY_SIGNED and
 *	a &struct npo_fkey_trailer is put after its @len bytes.
 * @len: its length.
 * @room: bytes @msg may take.
 * @skip_off: where bytes the device fills in as it sends start.
 * @skip_len: how many (0: none), at most 16.
 *
 * Context: process context; takes &npo_fabric_auth.lock.
 * Return: the length to send: @len if the device holds no key to sign
 * with; -EMSGSIZE if the trailer does not fit, or another negative errno.
 */
int npo_fkey_sign(struct npo_dev *ndev, enum npo_fkey_ctx ctx, u8 *msg,
		  size_t len, size_t room, size_t skip_off, size_t skip_len)
{
	struct npo_fabric_auth *fa = &ndev->fkeys;
	u8 mac[SHA256_DIGEST_SIZE];
	struct npo_fkey_trailer *t;
	struct npo_fkey *k;
	int err;

	mutex_lock(&fa->lock);
	k = npo_fkey_find(fa, fa->send_id);
	if (!k) {
		fa->unsigned_sent++;
		mutex_unlock(&fa->lock);
		return len;
	}
	if (!len || len + sizeof(*t) > room) {
		mutex_unlock(&fa->lock);
		return -EMSGSIZE;
	}
	msg[0] |= NPO_FKEY_SIGNED;
	t = (struct npo_fkey_trailer *)(msg + len);
	*t = (struct npo_fkey_trailer) { .key_id = k->id };
	err = npo_fkey_mac(k, ctx, msg, len, skip_off, skip_len, t, mac);
	if (!err)
		memcpy(t->mac, mac, sizeof(t->mac));
	mutex_unlock(&fa->lock);
	memzero_explicit(mac, sizeof(mac));
	return err ?: len + sizeof(*t);
}

/**
 * npo_fkey_verify() - check a message that came in
 * @ndev: the device it came to.
 * @ctx: what kind of message it claims to be.
 * @msg: the message; a signed one loses %NPO_FKEY_SIGNED from its type.
 * @len: its length; a signed one's is cut before its trailer.
 * @skip_off: as for npo_fkey_sign().
 * @skip_len: as for npo_fkey_sign().
 *
 * Context: process context; takes &npo_fabric_auth.lock.
 * Return: 0 if the message may be believed: signed with a key the device
 * holds, or unsigned on a device that holds none.  -EPERM if unsigned on
 * a device with keys, -ENOKEY if signed with a key it does not hold,
 * -EBADMSG if the MAC does not match or the trailer is malformed
 * (reserved bytes not zero, too short).
 */
int npo_fkey_verify(struct npo_dev *ndev, enum npo_fkey_ctx ctx, u8 *msg,
		    size_t *len, size_t skip_off, size_t skip_len)
{
	struct npo_fabric_auth *fa = &ndev->fkeys;
	u8 mac[SHA256_DIGEST_SIZE];
	const struct npo_fkey_trailer *t;
	size_t body = *len - sizeof(*t);
	struct npo_fkey *k;
	int err;

	mutex_lock(&fa->lock);
	if (!*len || !(msg[0] & NPO_FKEY_SIGNED)) {
		err = npo_fkey_any(fa) ? -EPERM : 0;
		goto out;
	}
	if (*len < sizeof(*t) + 1) {
		err = -EBADMSG;
		goto out;
	}
	t = (const struct npo_fkey_trailer *)(msg + body);
	if (memchr_inv(t->rsvd, 0, sizeof(t->rsvd))) {
		err = -EBADMSG;
		goto out;
	}
	k = npo_fkey_find(fa, t->key_id);
	if (!k) {
		err = -ENOKEY;
		goto out;
	}
	err = npo_fkey_mac(k, ctx, msg, body, skip_off, skip_len, t, mac);
	if (!err && crypto_memneq(mac, t->mac, sizeof(t->mac)))
		err = -EBADMSG;
	if (!err) {
		k->verified++;
		msg[0] &= ~NPO_FKEY_SIGNED;
		*len = body;
	}
out:
	if (err) {
		fa->rejected++;
		fa->rejected_at = jiffies ?: 1;
	}
	mutex_unlock(&fa->lock);
	memzero_explicit(mac, sizeof(mac));
	return err;
}

/* --- netlink ----------------------------------------------------------------- */

/*
 * The device a request names, held present (routing, told of the change,
 * stops only under its remove_lock) until npo_fkey_untarget().
 */
static struct npo_dev *npo_fkey_target(struct genl_info *info)
{
	struct npo_dev *ndev;

	if (GENL_REQ_ATTR_CHECK(info, NPO_ATTR_DEV_INDEX) ||
	    GENL_REQ_ATTR_CHECK(info, NPO_ATTR_FKEY_ID))
		return ERR_PTR(-EINVAL);
	ndev = npo_dev_get(nla_get_u32(info->attrs[NPO_ATTR_DEV_INDEX]));
	if (ndev) {
		down_read(&ndev->remove_lock);
		if (ndev->pdev)
			return ndev;
		up_read(&ndev->remove_lock);
		put_device(&ndev->dev);
	}
	NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NPO_ATTR_DEV_INDEX],
			    "no such NPO device");
	return ERR_PTR(-ENODEV);
}

static void npo_fkey_untarget(struct npo_dev *ndev)
{
	up_read(&ndev->remove_lock);
	put_device(&ndev->dev);
}

/* A new key from its secret; its tfm set, or an errno. */
static int npo_fkey_make(struct npo_fkey *k, u8 id, const u8 *secret,
			 size_t len)
{
	u8 digest[SHA256_DIGEST_SIZE];
	int err;

	k->tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(k->tfm)) {
		err = PTR_ERR(k->tfm);
		k->tfm = NULL;
		return err;
	}
	err = crypto_shash_setkey(k->tfm, secret, len);
	if (err) {
		crypto_free_shash(k->tfm);
		k->tfm = NULL;
		return err;
	}
	sha256(secret, len, digest);
	memcpy(k->fingerprint, digest, sizeof(k->fingerprint));
	k->id = id;
	k->verified = 0;
	return 0;
}

/**
 * npo_fkey_nl_set_doit() - NPO_CMD_FABRIC_KEY_SET: add a key, or sign with one
 * @skb: the request.
 * @info: NPO_ATTR_DEV_INDEX, NPO_ATTR_FKEY_ID, and NPO_ATTR_FKEY_SECRET to
 *	add the key, NPO_ATTR_FKEY_SEND to sign with it from now on, or both.
 *
 * Return: 0 or a negative errno (-EEXIST: the number is taken; -ENOSPC:
 * the device holds %NPO_FKEY_MAX keys; -ENOENT: no such key to sign with).
 */
int npo_fkey_nl_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *secret = info->attrs[NPO_ATTR_FKEY_SECRET];
	bool send = nla_get_flag(info->attrs[NPO_ATTR_FKEY_SEND]);
	struct npo_dev *ndev = npo_fkey_target(info);
	struct npo_fkey *k, made = { };
	struct npo_fabric_auth *fa;
	bool was_on;
	int err = 0;
	u8 id;

	if (IS_ERR(ndev))
		return PTR_ERR(ndev);
	if (!secret && !send) {
		NL_SET_ERR_MSG(info->extack, "nothing to set: give a secret, send, or both");
		npo_fkey_untarget(ndev);
		return -EINVAL;
	}
	fa = &ndev->fkeys;
	id = nla_get_u8(info->attrs[NPO_ATTR_FKEY_ID]);
	/*
	 * The key made before the lock is taken: the crypto API may load a
	 * module, and every link message waits on the lock meanwhile.
	 */
	if (secret) {
		err = npo_fkey_make(&made, id, nla_data(secret), nla_len(secret));
		if (err) {
			npo_fkey_untarget(ndev);
			return err;
		}
	}
	mutex_lock(&fa->lock);
	was_on = npo_fkey_any(fa);
	k = npo_fkey_find(fa, id);
	if (secret && k) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NPO_ATTR_FKEY_ID],
				    "key number in use: delete it first, or rotate to another number");
		err = -EEXIST;
	} else if (secret) {
		k = npo_fkey_free_slot(fa);
		if (!k) {
			NL_SET_ERR_MSG(info->extack,
				       "the device holds as many keys as it can: delete one");
			err = -ENOSPC;
		} else {
			*k = made;
			made.tfm = NULL;
		}
	} else if (!k) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NPO_ATTR_FKEY_ID],
				    "no such key to sign with");
		err = -ENOENT;
	}
	if (!err && send)
		fa->send_id = id;
	mutex_unlock(&fa->lock);
	/* Not taken (a number in use, no room): gone again. */
	crypto_free_shash(made.tfm);
	memzero_explicit(&made, sizeof(made));
	if (!err)
		npo_route_keys_changed(ndev);
	if (!err && !was_on)
		npo_info(ndev, "fabric key %u: control messages from neighbours are checked from now on\n",
			 id);
	else if (!err && send)
		npo_info(ndev, "fabric key %u signs control messages from now on\n",
			 id);
	npo_fkey_untarget(ndev);
	return err;
}

/**
 * npo_fkey_nl_del_doit() - NPO_CMD_FABRIC_KEY_DEL: forget a key
 * @skb: the request.
 * @info: NPO_ATTR_DEV_INDEX and NPO_ATTR_FKEY_ID.
 *
 * The key messages are signed with goes only when it is the last one: the
 * device then neither signs nor checks.
 *
 * Return: 0, -ENOENT or -EBUSY.
 */
int npo_fkey_nl_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npo_dev *ndev = npo_fkey_target(info);
	struct npo_fabric_auth *fa;
	bool now_off = false, others = false;
	struct npo_fkey *k;
	unsigned int i;
	int err = 0;
	u8 id;

	if (IS_ERR(ndev))
		return PTR_ERR(ndev);
	fa = &ndev->fkeys;
	id = nla_get_u8(info->attrs[NPO_ATTR_FKEY_ID]);
	mutex_lock(&fa->lock);
	k = npo_fkey_find(fa, id);
	if (!k) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NPO_ATTR_FKEY_ID],
				    "no such key");
		err = -ENOENT;
	} else if (fa->send_id == id) {
		/* Signing with no key while others are checked: nobody hears us. */
		for (i = 0; i < NPO_FKEY_MAX; i++)
			if (fa->keys[i].id && fa->keys[i].id != id)
				others = true;
		if (others) {
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NPO_ATTR_FKEY_ID],
					    "messages are signed with this key: sign with another first");
			err = -EBUSY;
		}
	}
	if (!err) {
		npo_fkey_clear(k);
		if (fa->send_id == id)
			fa->send_id = 0;
		now_off = !npo_fkey_any(fa);
	}
	mutex_unlock(&fa->lock);
	if (!err)
		npo_route_keys_changed(ndev);
	if (now_off)
		npo_warn(ndev, "fabric key %u deleted, the last: control messages are neither signed nor checked\n",
			 id);
	npo_fkey_untarget(ndev);
	return err;
}

static int npo_fkey_put_key(struct sk_buff *skb, const struct npo_fkey *k,
			    bool send)
{
	struct nlattr *nest = nla_nest_start(skb, NPO_ATTR_FKEY);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, NPO_ATTR_FKEY_ID, k->id) ||
	    (send && nla_put_flag(skb, NPO_ATTR_FKEY_SEND)) ||
	    nla_put(skb, NPO_ATTR_FKEY_FINGERPRINT, sizeof(k->fingerprint),
		    k->fingerprint) ||
	    nla_put_u64_64bit(skb, NPO_ATTR_FKEY_VERIFIED, k->verified,
			      NPO_ATTR_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * npo_fkey_dump_dev() - one device's keys for NPO_CMD_FABRIC_KEY_GET
 * @skb: the dump's buffer.
 * @cb: the dump.
 * @ndev: the device.
 *
 * One message per device: NPO_ATTR_FKEY_REJECTED (and how long ago the
 * last, NPO_ATTR_FKEY_REJECTED_AGE_MS), NPO_ATTR_FKEY_UNSIGNED and an
 * NPO_ATTR_FKEY nest per key (never the secret).
 *
 * Return: 0 once done, -EMSGSIZE when @skb is full.
 */
int npo_fkey_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
		      struct npo_dev *ndev)
{
	struct npo_fabric_auth *fa = &ndev->fkeys;
	unsigned int i;
	void *hdr;
	int err;

	if (cb->args[1])
		return 0;
	hdr = npo_genl_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   NLM_F_MULTI, NPO_CMD_FABRIC_KEY_GET);
	if (!hdr)
		return -EMSGSIZE;
	mutex_lock(&fa->lock);
	err = nla_put_u32(skb, NPO_ATTR_DEV_INDEX, ndev->minor) ||
	      nla_put_string(skb, NPO_ATTR_DEV_NAME, dev_name(&ndev->dev)) ||
	      nla_put_u32(skb, NPO_ATTR_DEV_NODE_ID, ndev->node_id) ||
	      nla_put_u64_64bit(skb, NPO_ATTR_FKEY_REJECTED, fa->rejected,
				NPO_ATTR_PAD) ||
	      nla_put_u64_64bit(skb, NPO_ATTR_FKEY_UNSIGNED, fa->unsigned_sent,
				NPO_ATTR_PAD) ||
	      (fa->rejected_at &&
	       nla_put_u64_64bit(skb, NPO_ATTR_FKEY_REJECTED_AGE_MS,
				 jiffies_to_msecs(jiffies - fa->rejected_at),
				 NPO_ATTR_PAD)) ? -EMSGSIZE : 0;
	for (i = 0; !err && i < NPO_FKEY_MAX; i++)
		if (fa->keys[i].id)
			err = npo_fkey_put_key(skb, &fa->keys[i],
					       fa->keys[i].id == fa->send_id);
	mutex_unlock(&fa->lock);
	err = npo_genl_end(skb, hdr, err);
	if (!err)
		cb->args[1] = 1;
	return err;
}
