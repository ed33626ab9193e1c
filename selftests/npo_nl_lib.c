// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic netlink helpers for the NPO selftests, on tools/lib/npo_nl.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/msg.h>

#include "npo_nl_lib.h"

#define MAX_QUEUED	512

#define MAX_KINDS	64

struct npo_nl_events {
	struct npo_nl nl;
	struct npo_nl_port queue[MAX_QUEUED];
	unsigned int len;
	/* Events of each kind received, and how many described a process. */
	unsigned int got[MAX_KINDS], owned[MAX_KINDS];
	char text[4096];
};

struct nl_sock *npo_nl_connect(void)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (sk && genl_connect(sk)) {
		nl_socket_free(sk);
		return NULL;
	}
	return sk;
}

int npo_nl_family(struct nl_sock *sk)
{
	return genl_ctrl_resolve(sk, NPO_GENL_NAME);
}

struct nl_msg *npo_nl_new_msg(int family, uint8_t cmd, int flags)
{
	struct npo_nl nl = { .family = family };

	return npo_nl_msg(&nl, cmd, flags);
}

struct nl_msg *npo_nl_port_request(int family, uint8_t cmd, int dev, int port)
{
	struct nl_msg *msg = npo_nl_new_msg(family, cmd, 0);

	if (msg) {
		nla_put_u32(msg, NPO_ATTR_DEV_INDEX, dev);
		nla_put_u32(msg, NPO_ATTR_PORT_INDEX, port);
	}
	return msg;
}

int npo_nl_transact(struct nl_sock *sk, struct nl_msg *msg)
{
	struct npo_nl nl = { .sk = sk };

	return npo_nl_request(&nl, msg, NULL, NULL);
}

static int on_port(struct nlattr **tb, struct nlattr *attrs, int len,
		   uint8_t cmd, void *arg)
{
	(void)attrs;
	(void)len;
	if (cmd == NPO_CMD_PORT_GET)
		npo_nl_port_decode(tb, arg);
	return 0;
}

int npo_nl_get_port(struct nl_sock *sk, int family, int dev, int port,
		    struct npo_nl_port *out)
{
	struct npo_nl nl = { .sk = sk, .family = family };

	return npo_nl_request(&nl, npo_nl_port_request(family, NPO_CMD_PORT_GET,
						       dev, port), on_port, out);
}

static int on_event(struct nlattr **tb, struct nlattr *attrs, int len,
		    uint8_t cmd, void *arg)
{
	struct npo_nl_events *ev = arg;

	(void)attrs;
	(void)len;
	if (cmd == NPO_CMD_EVENT && tb[NPO_ATTR_EVENT] &&
	    nla_get_u32(tb[NPO_ATTR_EVENT]) < MAX_KINDS) {
		uint32_t k = nla_get_u32(tb[NPO_ATTR_EVENT]);

		ev->got[k]++;
		if (tb[NPO_ATTR_OWNER_PID] || tb[NPO_ATTR_OWNER_COMM] ||
		    tb[NPO_ATTR_OWNER_UID] || tb[NPO_ATTR_PD] ||
		    tb[NPO_ATTR_JOB] || tb[NPO_ATTR_THROTTLE_MS] ||
		    tb[NPO_ATTR_QUEUE_ERR_WR_ID])
			ev->owned[k]++;
	}
	/* A full queue keeps the oldest: tests wait for early events. */
	if (cmd == NPO_CMD_EVENT && ev->len < MAX_QUEUED)
		npo_nl_port_decode(tb, &ev->queue[ev->len++]);
	return 0;
}

struct npo_nl_events *npo_nl_events_open(void)
{
	struct npo_nl_events *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	if (npo_nl_open(&ev->nl) || npo_nl_join_events(&ev->nl)) {
		npo_nl_events_close(ev);
		return NULL;
	}
	nl_socket_set_buffer_size(ev->nl.sk, 1 << 20, 0);
	nl_socket_set_nonblocking(ev->nl.sk);
	return ev;
}

void npo_nl_events_close(struct npo_nl_events *ev)
{
	if (!ev)
		return;
	if (ev->nl.sk)
		npo_nl_close(&ev->nl);
	free(ev);
}

static bool take(struct npo_nl_events *ev, uint32_t kind, int dev, int port,
		 struct npo_nl_port *out)
{
	unsigned int i;

	for (i = 0; i < ev->len; i++) {
		struct npo_nl_port *p = &ev->queue[i];

		if (p->event != kind || p->dev != (uint32_t)dev ||
		    p->port != (uint32_t)port)
			continue;
		if (out)
			*out = *p;
		memmove(p, p + 1, (ev->len - i - 1) * sizeof(*p));
		ev->len--;
		return true;
	}
	return false;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

bool npo_nl_wait_event(struct npo_nl_events *ev, uint32_t kind, int dev,
		       int port, int timeout_ms, struct npo_nl_port *out)
{
	int64_t end = now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = nl_socket_get_fd(ev->nl.sk), .events = POLLIN };

	for (;;) {
		int64_t left;

		if (take(ev, kind, dev, port, out))
			return true;
		left = end - now_ms();
		if (left <= 0)
			return false;
		if (poll(&pfd, 1, left) > 0)
			npo_nl_receive_now(&ev->nl, on_event, ev);
	}
}

int npo_nl_wait_kind(struct npo_nl_events *ev, uint32_t kind, int timeout_ms,
		     unsigned int *owned)
{
	int64_t end = now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = nl_socket_get_fd(ev->nl.sk), .events = POLLIN };

	if (kind >= MAX_KINDS)
		return 0;
	for (;;) {
		int64_t left = end - now_ms();

		if (ev->got[kind] || left <= 0)
			break;
		if (poll(&pfd, 1, left) > 0)
			npo_nl_receive_now(&ev->nl, on_event, ev);
	}
	if (owned)
		*owned = ev->owned[kind];
	return ev->got[kind];
}

const char *npo_nl_events_dump(struct npo_nl_events *ev)
{
	size_t len = 0;
	unsigned int i;

	ev->text[0] = '\0';
	for (i = 0; i < ev->len && len < sizeof(ev->text); i++)
		len += snprintf(ev->text + len, sizeof(ev->text) - len,
				"npo%u/%u:%u ", ev->queue[i].dev,
				ev->queue[i].port, ev->queue[i].event);
	return ev->text;
}
