// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fabric key: a host without it is not heard, and keys rotate without
 * an outage.
 *
 * Every device but one is given the fabric key: the one left out (a host
 * the operator did not provision, or one whose root loads a driver of its
 * own) is refused at its neighbours, and its node drops out of every
 * other device's routes (what it says goes no further than them), while the others go on reaching each other
 * around it, nor does its clock take part in fabric time; once keyed, it
 * is back within the convergence time.  A second
 * key is rolled in on every host, made the signing key device by device
 * and the first deleted while every route stays in place and not one
 * message is refused.  The key commands need CAP_NET_ADMIN, take no bad
 * argument, and never give the secret back.
 *
 * Needs npo-vm --topology ring: device i port 0 to device i+1 port 1,
 * device i is node i + 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "npo_nl_lib.h"
#include "npo_test_json.h"
#include "npo_test_lib.h"

#define MAX_DEVS	16
#define SECRET_LEN	32
/* Adverts are forgotten after 20 s unheard; a new one spreads in seconds. */
#define AGE_OUT_S	30
#define CONVERGE_S	15

FIXTURE(fkey) {
	int n;
	struct nl_sock *sk;
	int family;
	char key[3][64];	/* secret files, by key number */
	unsigned char secret[3][SECRET_LEN];
};

static void write_secret(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fkey) *self, int id)
{
	int fd, r;

	snprintf(self->key[id], sizeof(self->key[id]), "/tmp/npo-fkey-%d.bin", id);
	fd = open("/dev/urandom", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(SECRET_LEN, read(fd, self->secret[id], SECRET_LEN));
	close(fd);
	fd = open(self->key[id], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	r = write(fd, self->secret[id], SECRET_LEN);
	close(fd);
	ASSERT_EQ(SECRET_LEN, r);
}

/* FABRIC_KEY_DEL of key id on device dev: 0 or the kernel's errno. */
static int del_key(FIXTURE_DATA(fkey) *self, int dev, int id)
{
	struct nl_msg *msg = npo_nl_new_msg(self->family, NPO_CMD_FABRIC_KEY_DEL, 0);

	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
	nla_put_u8(msg, NPO_ATTR_FKEY_ID, id);
	return npo_nl_transact(self->sk, msg);
}

/* Every device back to no key: signing key last, as the driver wants. */
static void clear_keys(FIXTURE_DATA(fkey) *self)
{
	int pass, dev, id;

	for (pass = 0; pass < 3; pass++)
		for (dev = 0; dev < self->n; dev++)
			for (id = 1; id <= 4; id++)
				del_key(self, dev, id);
}

FIXTURE_SETUP(fkey)
{
	memset(self, 0, sizeof(*self));
	self->n = npo_test_count_devices();
	NPO_TEST_NEED_RING(4);
	if (!npo_test_is_root())
		SKIP(return, "needs root");
	ASSERT_GE(MAX_DEVS, self->n);
	self->sk = npo_nl_connect();
	ASSERT_NE(NULL, self->sk);
	self->family = npo_nl_family(self->sk);
	ASSERT_GT(self->family, 0);
	write_secret(_metadata, self, 1);
	write_secret(_metadata, self, 2);
	clear_keys(self);
}

FIXTURE_TEARDOWN(fkey)
{
	if (self->sk) {
		clear_keys(self);
		nl_socket_free(self->sk);
	}
	unlink(self->key[1]);
	unlink(self->key[2]);
}

/* Every device's key state, from npoctl. */
static struct json_object *key_state(void)
{
	static char out[1 << 16];

	if (npo_test_run(out, sizeof(out), "npoctl -j fabric key show"))
		return NULL;
	return json_tokener_parse(out);
}

/* The grandmaster npoctl -j clock says device dev follows; -1 unknown. */
static long long clock_gm(int dev)
{
	static char out[1 << 14];
	struct json_object *doc, *list;
	long long gm = -1;

	if (npo_test_run(out, sizeof(out), "npoctl -j clock show npo%d", dev))
		return -1;
	doc = json_tokener_parse(out);
	list = jget(doc, "clocks");
	if (list && json_object_array_length(list) == 1)
		gm = jint(json_object_array_get_idx(list, 0), "grandmaster");
	json_object_put(doc);
	return gm;
}

static long long dev_counter(struct json_object *doc, int dev, const char *what)
{
	struct json_object *list, *d;
	char name[16];
	size_t i;

	snprintf(name, sizeof(name), "npo%d", dev);
	if (!json_object_object_get_ex(doc, "devices", &list))
		return -1;
	for (i = 0; i < json_object_array_length(list); i++) {
		d = json_object_array_get_idx(list, i);
		if (!strcmp(jstr(d, "device"), name))
			return jint(d, what);
	}
	return -1;
}

/*
 * Routes from npoctl: how many each device has, and whether any device
 * but skip has one to node.  Returns the total, -1 on failure.
 */
static int count_routes(int *per_dev, int n, int node, bool *to_node)
{
	static char out[1 << 17];
	struct json_object *doc, *list, *r;
	int total;
	size_t i;

	if (npo_test_run(out, sizeof(out), "npoctl -j route"))
		return -1;
	doc = json_tokener_parse(out);
	if (!doc || !json_object_object_get_ex(doc, "routes", &list)) {
		json_object_put(doc);
		return -1;
	}
	memset(per_dev, 0, n * sizeof(*per_dev));
	*to_node = false;
	total = json_object_array_length(list);
	for (i = 0; i < (size_t)total; i++) {
		long long from;

		r = json_object_array_get_idx(list, i);
		from = jint(r, "node_id") - 1;
		if (from >= 0 && from < n)
			per_dev[from]++;
		if (jint(r, "dest_node") == node)
			*to_node = true;
	}
	json_object_put(doc);
	return total;
}

static bool all_routes_within(int n, double limit_s)
{
	double start = npo_test_now_s();
	int per[MAX_DEVS];
	bool any;

	do {
		if (count_routes(per, n, 0, &any) == n * (n - 1))
			return true;
		usleep(200000);
	} while (npo_test_now_s() - start < limit_s);
	return false;
}

/* npoctl -j health's "fabric" item of device dev: its verdict, or "". */
static const char *fabric_health(int dev, char *reason, size_t len)
{
	static char out[1 << 16], verdict[16];
	struct json_object *doc, *items, *it;
	size_t i;

	verdict[0] = '\0';
	npo_test_run(out, sizeof(out), "npoctl -j health npo%d", dev);
	doc = json_tokener_parse(out);
	items = jget(json_object_array_get_idx(jget(doc, "devices"), 0), "items");
	for (i = 0; items && i < json_object_array_length(items); i++) {
		it = json_object_array_get_idx(items, i);
		if (strcmp(jstr(it, "what"), "fabric"))
			continue;
		snprintf(verdict, sizeof(verdict), "%s", jstr(it, "health"));
		snprintf(reason, len, "%s", jstr(it, "reason"));
	}
	json_object_put(doc);
	return verdict;
}

/* devlink dev info's fabric.auth for device dev, or "". */
static const char *devlink_auth(int dev)
{
	static char out[4096];
	char *at;

	if (npo_test_run(out, sizeof(out),
			 "devlink dev info pci/$(basename $(readlink /sys/class/npo/npo%d/device)) | grep -o 'fabric.auth [a-z0-9-]*'",
			 dev))
		return "";
	at = strchr(out, ' ');
	if (!at)
		return "";
	at[strcspn(at, "\n")] = '\0';
	return at + 1;
}

static int npoctl_key(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int npoctl_key(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return npo_test_run(NULL, 0, "npoctl fabric key %s", cmd);
}

/*
 * A host left without the key: its neighbours refuse what it says, its
 * node leaves every route table (nothing it says got further) while the
 * others still reach each other the long way round, and it comes back
 * once keyed.
 */
TEST_F_TIMEOUT(fkey, unkeyed_host_is_not_heard, 180)
{
	int outsider = self->n / 2 + 1, node = outsider + 1;
	int left = (outsider + self->n - 1) % self->n, right = (outsider + 1) % self->n;
	struct json_object *before, *after;
	int per[MAX_DEVS], dev, total;
	bool reached = true;
	char reason[256];
	double start;

	ASSERT_TRUE(all_routes_within(self->n, CONVERGE_S));
	NPO_TEST_SETUP_DONE();
	/* Without a key, a device says so: health and devlink. */
	EXPECT_STREQ("degraded", fabric_health(0, reason, sizeof(reason)));
	EXPECT_NE(NULL, strstr(reason, "unauthenticated")) TH_LOG("%s", reason);
	EXPECT_STREQ("none", devlink_auth(0));
	for (dev = 0; dev < self->n; dev++)
		if (dev != outsider)
			ASSERT_EQ(0, npoctl_key("add 1 %s send npo%d", self->key[1], dev));
	before = key_state();
	ASSERT_NE(NULL, before);

	/* Its last adverts age out; nothing it says replaces them. */
	start = npo_test_now_s();
	do {
		sleep(1);
		total = count_routes(per, self->n, node, &reached);
	} while ((reached || per[outsider]) && npo_test_now_s() - start < AGE_OUT_S);
	EXPECT_FALSE(reached) TH_LOG("node %d still in a route table", node);
	EXPECT_EQ(0, per[outsider]);
	/* A ring less one node is a line: the rest still reach each other. */
	EXPECT_EQ((self->n - 1) * (self->n - 2), total);

	after = key_state();
	ASSERT_NE(NULL, after);
	EXPECT_LT(dev_counter(before, left, "rejected"), dev_counter(after, left, "rejected"));
	EXPECT_LT(dev_counter(before, right, "rejected"), dev_counter(after, right, "rejected"));
	/* The outsider refuses what is signed with a key it lacks. */
	EXPECT_LT(0, dev_counter(after, outsider, "rejected"));
	/* Its neighbour says someone speaks without the key. */
	EXPECT_STREQ("degraded", fabric_health(left, reason, sizeof(reason)));
	EXPECT_NE(NULL, strstr(reason, "refused")) TH_LOG("%s", reason);
	EXPECT_STREQ("hmac-sha256", devlink_auth(0));
	json_object_put(before);
	json_object_put(after);
	/* Nor is its time heard: it leads itself, the others keep node 1. */
	EXPECT_EQ(node, clock_gm(outsider));
	EXPECT_EQ(1, clock_gm(left));
	EXPECT_EQ(1, clock_gm(right));

	/* Keyed, it is back. */
	ASSERT_EQ(0, npoctl_key("add 1 %s send npo%d", self->key[1], outsider));
	EXPECT_TRUE(all_routes_within(self->n, CONVERGE_S));
}

/*
 * Key 2 rolled in on every host, then made the signing key one device at
 * a time, then key 1 deleted everywhere: at every moment every device
 * reaches every other, and no device refuses a single message.
 */
TEST_F_TIMEOUT(fkey, rotation_loses_no_route_and_no_message, 180)
{
	struct json_object *before, *after, *list, *k;
	int per[MAX_DEVS], dev, total, samples = 0, short_samples = 0;
	double until;
	bool any;

	ASSERT_EQ(0, npoctl_key("add 1 %s send", self->key[1]));
	ASSERT_TRUE(all_routes_within(self->n, CONVERGE_S));
	NPO_TEST_SETUP_DONE();
	before = key_state();
	ASSERT_NE(NULL, before);

	ASSERT_EQ(0, npoctl_key("add 2 %s", self->key[2]));
	for (dev = 0; dev < self->n; dev++) {
		ASSERT_EQ(0, npoctl_key("send 2 npo%d", dev));
		total = count_routes(per, self->n, 0, &any);
		samples++;
		short_samples += total != self->n * (self->n - 1);
		usleep(300000);
	}
	ASSERT_EQ(0, npoctl_key("del 1"));
	/* Past a refresh of every advert, all signed with key 2 only. */
	until = npo_test_now_s() + 8;
	while (npo_test_now_s() < until) {
		total = count_routes(per, self->n, 0, &any);
		samples++;
		short_samples += total != self->n * (self->n - 1);
		usleep(200000);
	}
	EXPECT_EQ(0, short_samples) TH_LOG("%d of %d samples lacked routes",
					   short_samples, samples);

	after = key_state();
	ASSERT_NE(NULL, after);
	for (dev = 0; dev < self->n; dev++) {
		EXPECT_EQ(dev_counter(before, dev, "rejected"),
			  dev_counter(after, dev, "rejected"))
			TH_LOG("npo%d refused messages during the rotation", dev);
		EXPECT_EQ(dev_counter(before, dev, "unsigned_sent"),
			  dev_counter(after, dev, "unsigned_sent"));
	}
	/* npo0 holds key 2 alone, signs with it, and it verified messages. */
	list = json_object_array_get_idx(jget(after, "devices"), 0);
	list = jget(list, "keys");
	ASSERT_EQ(1, json_object_array_length(list));
	k = json_object_array_get_idx(list, 0);
	EXPECT_EQ(2, jint(k, "id"));
	EXPECT_TRUE(json_object_get_boolean(jget(k, "send")));
	EXPECT_LT(0, jint(k, "verified"));
	json_object_put(before);
	json_object_put(after);
}

/* Key commands from a process without CAP_NET_ADMIN: refused, each. */
static int key_commands_as_nobody(void *arg)
{
	FIXTURE_DATA(fkey) *self = arg;
	struct nl_sock *sk = npo_nl_connect();
	int family = sk ? npo_nl_family(sk) : -1;
	unsigned char secret[SECRET_LEN] = { 1 };
	struct nl_msg *msg;

	if (family < 0)
		return 10;
	msg = npo_nl_new_msg(family, NPO_CMD_FABRIC_KEY_SET, 0);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	nla_put_u8(msg, NPO_ATTR_FKEY_ID, 3);
	nla_put(msg, NPO_ATTR_FKEY_SECRET, sizeof(secret), secret);
	nla_put_flag(msg, NPO_ATTR_FKEY_SEND);
	if (npo_nl_transact(sk, msg) != -EPERM)
		return 11;
	msg = npo_nl_new_msg(family, NPO_CMD_FABRIC_KEY_DEL, 0);
	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	nla_put_u8(msg, NPO_ATTR_FKEY_ID, 1);
	if (npo_nl_transact(sk, msg) != -EPERM)
		return 12;
	msg = npo_nl_new_msg(family, NPO_CMD_FABRIC_KEY_GET, NLM_F_DUMP);
	if (npo_nl_transact(sk, msg) != -EPERM)
		return 13;
	nl_socket_free(sk);
	(void)self;
	return 0;
}

static int set_key(FIXTURE_DATA(fkey) *self, int id, const void *secret,
		   int len, bool send)
{
	struct nl_msg *msg = npo_nl_new_msg(self->family, NPO_CMD_FABRIC_KEY_SET, 0);

	nla_put_u32(msg, NPO_ATTR_DEV_INDEX, 0);
	nla_put_u8(msg, NPO_ATTR_FKEY_ID, id);
	if (secret)
		nla_put(msg, NPO_ATTR_FKEY_SECRET, len, secret);
	if (send)
		nla_put_flag(msg, NPO_ATTR_FKEY_SEND);
	return npo_nl_transact(self->sk, msg);
}

/*
 * A tenant cannot touch the keys; bad requests change nothing; what
 * comes back never holds the secret.
 */
TEST_F(fkey, spoofed_key_requests_are_refused)
{
	struct json_object *doc, *keys, *k1, *k2;
	unsigned char big[80] = { 0 };
	static char out[1 << 16];
	char hex[2 * SECRET_LEN + 1];
	int i;

	NPO_TEST_SETUP_DONE();
	ASSERT_EQ(0, set_key(self, 1, self->secret[1], SECRET_LEN, true));
	EXPECT_EQ(0, npo_test_as_nobody(key_commands_as_nobody, self));

	/* Out of the policy's range: the netlink core's ERANGE. */
	EXPECT_EQ(-ERANGE, set_key(self, 0, self->secret[2], SECRET_LEN, false));
	EXPECT_EQ(-ERANGE, set_key(self, 2, self->secret[2], 8, false));
	EXPECT_EQ(-ERANGE, set_key(self, 2, big, sizeof(big), false));
	EXPECT_EQ(-EINVAL, set_key(self, 2, NULL, 0, false));
	EXPECT_EQ(-EEXIST, set_key(self, 1, self->secret[2], SECRET_LEN, false));
	EXPECT_EQ(-ENOENT, set_key(self, 2, NULL, 0, true));
	EXPECT_EQ(-ENOENT, del_key(self, 0, 2));
	ASSERT_EQ(0, set_key(self, 2, self->secret[2], SECRET_LEN, false));
	EXPECT_EQ(-EBUSY, del_key(self, 0, 1));
	/* Five keys do not fit in four slots. */
	for (i = 3; i <= 4; i++)
		EXPECT_EQ(0, set_key(self, i, self->secret[2], SECRET_LEN, false));
	EXPECT_EQ(-ENOSPC, set_key(self, 5, self->secret[2], SECRET_LEN, false));
	for (i = 3; i <= 4; i++)
		EXPECT_EQ(0, del_key(self, 0, i));

	/* The show holds fingerprints, not secrets; key 1 still signs. */
	ASSERT_EQ(0, npo_test_run(out, sizeof(out), "npoctl -j fabric key show npo0"));
	for (i = 0; i < SECRET_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", self->secret[1][i]);
	hex[16] = '\0';
	EXPECT_EQ(NULL, strstr(out, hex)) TH_LOG("%s", out);
	doc = json_tokener_parse(out);
	ASSERT_NE(NULL, doc);
	keys = jget(json_object_array_get_idx(jget(doc, "devices"), 0), "keys");
	ASSERT_EQ(2, json_object_array_length(keys));
	k1 = json_object_array_get_idx(keys, 0);
	k2 = json_object_array_get_idx(keys, 1);
	EXPECT_EQ(1, jint(k1, "id"));
	EXPECT_TRUE(json_object_get_boolean(jget(k1, "send")));
	EXPECT_FALSE(json_object_get_boolean(jget(k2, "send")));
	/* Fingerprints tell the keys apart. */
	EXPECT_STRNE(jstr(k1, "fingerprint"), jstr(k2, "fingerprint"));
	EXPECT_EQ(16, strlen(jstr(k1, "fingerprint")));
	json_object_put(doc);
	EXPECT_EQ(0, del_key(self, 0, 2));
	EXPECT_EQ(0, del_key(self, 0, 1));
}

TEST_HARNESS_MAIN
