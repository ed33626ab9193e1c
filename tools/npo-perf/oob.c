// SPDX-License-Identifier: GPL-2.0-only
/*
 * npo-perf's out-of-band channel: a TCP connection between the server and
 * the client, set up once, then used for a few small messages per size.
 * Nothing timed goes over it.
 */
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include "oob.h"

static int addr_of(const char *host, uint16_t port, bool passive,
		   struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = passive ? AI_PASSIVE : 0,
	};
	char service[8];
	int err;

	snprintf(service, sizeof(service), "%u", port);
	err = getaddrinfo(host, service, &hints, res);
	if (err) {
		fprintf(stderr, "npo-perf: %s port %u: %s\n", host ? host : "*",
			port, gai_strerror(err));
		return -EINVAL;
	}
	return 0;
}

static void no_delay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/**
 * oob_accept() - wait for the client
 * @bind_addr: the address to listen on, NULL for every one.
 * @port: TCP port.
 *
 * Return: the connected socket, or a negative errno.
 */
int oob_accept(const char *bind_addr, uint16_t port)
{
	struct addrinfo *res;
	int fd, conn, one = 1, err;

	err = addr_of(bind_addr, port, true, &res);
	if (err)
		return err;
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		freeaddrinfo(res);
		return err;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1)) {
		err = -errno;
		fprintf(stderr, "npo-perf: listen on port %u: %s\n", port,
			strerror(errno));
		freeaddrinfo(res);
		close(fd);
		return err;
	}
	freeaddrinfo(res);
	conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	err = conn < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	no_delay(conn);
	return conn;
}

/**
 * oob_connect() - reach the server, retrying while it starts
 * @host: its name or address.
 * @port: TCP port.
 * @timeout_s: how long to keep trying.
 *
 * Return: the connected socket, or a negative errno.
 */
int oob_connect(const char *host, uint16_t port, int timeout_s)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	struct addrinfo *res;
	int fd = -1, err, tries;

	err = addr_of(host, port, false, &res);
	if (err)
		return err;
	for (tries = 0; tries < timeout_s * 10; tries++) {
		fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			break;
		if (!connect(fd, res->ai_addr, res->ai_addrlen))
			break;
		err = -errno;
		close(fd);
		fd = -1;
		if (err != -ECONNREFUSED)
			break;
		nanosleep(&pause, NULL);
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "npo-perf: connect to %s port %u: %s\n", host,
			port, strerror(err ? -err : errno));
		return err ? err : -errno;
	}
	no_delay(fd);
	return fd;
}

/**
 * oob_send() - send all of a buffer
 * @fd: the connection.
 * @buf: what to send.
 * @len: its length.
 *
 * Return: 0, or a negative errno.
 */
int oob_send(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * oob_recv() - receive exactly a buffer's worth
 * @fd: the connection.
 * @buf: where to.
 * @len: how much.
 *
 * Return: 0, -ECONNRESET if the peer closed, or a negative errno.
 */
int oob_recv(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		p += n;
		len -= n;
	}
	return 0;
}

static void hello_swap(struct oob_hello *h, uint32_t (*conv)(uint32_t))
{
	h->mode = conv(h->mode);
	h->opcode = conv(h->opcode);
	h->size = conv(h->size);
	h->iters = conv(h->iters);
	h->depth = conv(h->depth);
	h->reserved = conv(h->reserved);
}

static uint32_t to_le(uint32_t v)
{
	return htole32(v);
}

static uint32_t from_le(uint32_t v)
{
	return le32toh(v);
}

/**
 * oob_send_hello() - send a hello, in wire byte order
 * @fd: the connection.
 * @h: the hello, in host byte order.
 *
 * Return: 0, or a negative errno.
 */
int oob_send_hello(int fd, const struct oob_hello *h)
{
	struct oob_hello w = *h;

	memcpy(w.magic, OOB_MAGIC, sizeof(w.magic));
	hello_swap(&w, to_le);
	return oob_send(fd, &w, sizeof(w));
}

/**
 * oob_recv_hello() - receive a hello and check it is npo-perf's
 * @fd: the connection.
 * @h: the hello, in host byte order.
 *
 * Return: 0, -EPROTO for something else, or a negative errno.
 */
int oob_recv_hello(int fd, struct oob_hello *h)
{
	int err = oob_recv(fd, h, sizeof(*h));

	if (err)
		return err;
	if (memcmp(h->magic, OOB_MAGIC, sizeof(h->magic))) {
		fprintf(stderr, "npo-perf: the peer is not npo-perf of this version\n");
		return -EPROTO;
	}
	hello_swap(h, from_le);
	return 0;
}

/**
 * oob_step() - send one step of the size-by-size exchange
 * @fd: the connection.
 * @cmd: &enum oob_cmd.
 * @size: message size.
 * @iters: messages.
 * @arg: a detail (OOB_BAD: the first wrong offset).
 *
 * Return: 0, or a negative errno.
 */
int oob_step(int fd, uint32_t cmd, uint32_t size, uint32_t iters, uint32_t arg)
{
	struct oob_step s = {
		.cmd = htole32(cmd), .size = htole32(size),
		.iters = htole32(iters), .arg = htole32(arg),
	};

	return oob_send(fd, &s, sizeof(s));
}

/**
 * oob_expect() - receive the next step, which must be @cmd
 * @fd: the connection.
 * @cmd: the step expected, 0 for any (OOB_OK also accepts OOB_BAD, which
 *	it reports).
 * @step: the step received, in host byte order.
 *
 * Return: 0, -EBADMSG for a wrong data report, -EPROTO for another step,
 * or a negative errno.
 */
int oob_expect(int fd, uint32_t cmd, struct oob_step *step)
{
	int err = oob_recv(fd, step, sizeof(*step));

	if (err)
		return err;
	step->cmd = le32toh(step->cmd);
	step->size = le32toh(step->size);
	step->iters = le32toh(step->iters);
	step->arg = le32toh(step->arg);
	if (cmd == OOB_OK && step->cmd == OOB_BAD) {
		fprintf(stderr, "npo-perf: %u B: the peer found wrong data at offset %u\n",
			step->size, step->arg);
		return -EBADMSG;
	}
	if (cmd && step->cmd != cmd) {
		fprintf(stderr, "npo-perf: the peer said %u, expected %u\n",
			step->cmd, cmd);
		return -EPROTO;
	}
	return 0;
}
