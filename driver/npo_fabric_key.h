/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NPO driver: the fabric key (npo_fabric_key.c).  Link messages between
 * devices (routing adverts and link reports) and time-sync messages carry
 * an HMAC-SHA-256 keyed with a secret the operator provisions on every
 * host, so that a host, cable or program without it cannot speak for the
 * fabric.
 */
#ifndef _NPO_FABRIC_KEY_H
#define _NPO_FABRIC_KEY_H

#include <linux/mutex.h>
#include <linux/types.h>

struct genl_info;
struct netlink_callback;
struct npo_dev;
struct sk_buff;

/* Keys a device holds at once: the one in use and those rotating in or out. */
#define NPO_FKEY_MAX		4
#define NPO_FKEY_MIN_LEN	16
#define NPO_FKEY_MAX_LEN	64
#define NPO_FKEY_FINGERPRINT	8
/* Bytes of the HMAC a message carries (HMAC-SHA-256-128, RFC 4868). */
#define NPO_FKEY_MAC_LEN	16

/*
 * The first byte of an authenticated message (its type) has this bit set;
 * the message then ends with a &struct npo_fkey_trailer.
 */
#define NPO_FKEY_SIGNED		0x80

/**
 * struct npo_fkey_trailer - what ends an authenticated message
 * @key_id: the key it was signed with, 1-255.
 * @rsvd: zero.
 * @mac: the first %NPO_FKEY_MAC_LEN bytes of the HMAC.
 */
struct npo_fkey_trailer {
	u8 key_id;
	u8 rsvd[3];
	u8 mac[NPO_FKEY_MAC_LEN];
} __packed;

/* What a MAC covers besides the message: which kind of message it is. */
enum npo_fkey_ctx {
	NPO_FKEY_CTX_LMSG = 'L',
	NPO_FKEY_CTX_TIME = 'T',
};

struct crypto_shash;

/**
 * struct npo_fkey - one key
 * @id: its number, 1-255; 0 for a free slot.
 * @tfm: HMAC-SHA-256 with the secret set.
 * @fingerprint: the first bytes of the secret's SHA-256, to tell keys
 *	apart without showing them.
 * @verified: messages it authenticated.
 */
struct npo_fkey {
	u8 id;
	struct crypto_shash *tfm;
	u8 fingerprint[NPO_FKEY_FINGERPRINT];
	u64 verified;
};

/**
 * struct npo_fabric_auth - a device's fabric keys
 * @lock: protects everything below.
 * @keys: the keys held.
 * @send_id: the key messages are signed with; 0 for none.
 * @rejected: messages refused: unsigned while keys are held, signed with
 *	a key not held, or with a MAC that does not match.
 * @rejected_at: jiffies of the last refusal, 0 if none.
 * @unsigned_sent: messages sent unsigned, for want of a key.
 */
struct npo_fabric_auth {
	struct mutex lock; /* everything below */
	struct npo_fkey keys[NPO_FKEY_MAX];
	u8 send_id;
	u64 rejected;
	unsigned long rejected_at;
	u64 unsigned_sent;
};

void npo_fkey_init(struct npo_dev *ndev);
void npo_fkey_fini(struct npo_dev *ndev);
bool npo_fkey_enabled(struct npo_dev *ndev);
int npo_fkey_sign(struct npo_dev *ndev, enum npo_fkey_ctx ctx, u8 *msg,
		  size_t len, size_t room, size_t skip_off, size_t skip_len);
int npo_fkey_verify(struct npo_dev *ndev, enum npo_fkey_ctx ctx, u8 *msg,
		    size_t *len, size_t skip_off, size_t skip_len);
int npo_fkey_nl_set_doit(struct sk_buff *skb, struct genl_info *info);
int npo_fkey_nl_del_doit(struct sk_buff *skb, struct genl_info *info);
int npo_fkey_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
		      struct npo_dev *ndev);

#endif /* _NPO_FABRIC_KEY_H */
