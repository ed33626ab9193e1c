#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A hostile link peer: attacks an NPO port's shared-memory ring handshake.

Usage: hostile-ring-peer.py SOCKET

Connects to the UNIX socket an NPO port listens on (npo-vm --link
DEV.PORT=listen:SOCKET), as the device at the far end of a cable would, and
breaks the rules of Documentation/hardware.rst, "Shared-memory rings", one
case per connection.  A ring the port must refuse gets no SHM_READY and
leaves the connection up; a ring the port accepted and that then breaks
(a corrupt index, a bad frame) makes the port drop the connection.  Every
case starts on a fresh connection, so each also shows that the port is
still serving.  Prints TAP lines; exits 1 if any case failed.
"""
import mmap
import os
import select
import socket
import struct
import sys
import time

WIRE_MAGIC = 0x4E
WIRE_IDLE, WIRE_OFFER, WIRE_READY, WIRE_SWITCH = 3, 14, 15, 16
SHM_MAGIC, SHM_VERSION = 0x4E504F52, 2
SEALS = 0x0002 | 0x0004 | 0x0001  # F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL
F_ADD_SEALS, F_GET_SEALS = 1033, 1034
PAGE = mmap.PAGESIZE
RING = 128 * 1024  # the smallest data area a port accepts
HEAD_AT, TAIL_AT = 64, 128  # each index on its own cache line


class Link:
    """One connection to the port: frames in, frames (and fds) out."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buf = b""
        self.fds = []
        self.eof = False

    def close(self):
        self.sock.close()
        for fd in self.fds:
            os.close(fd)

    def send(self, ftype, payload, fds=()):
        frame = struct.pack("<BBH", WIRE_MAGIC, ftype, len(payload)) + payload
        socket.send_fds(self.sock, [frame], list(fds))

    def _fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.sock], [], [], left)[0]:
            return False
        data, fds, _, _ = socket.recv_fds(self.sock, 65536, 8)
        self.fds += fds
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def frame(self, want, secs):
        """The next frame of type want within secs, with the fds it brought."""
        deadline = time.monotonic() + secs
        while True:
            while len(self.buf) >= 4:
                magic, ftype, length = struct.unpack_from("<BBH", self.buf)
                if magic != WIRE_MAGIC:
                    raise RuntimeError("the port sent a frame with a bad magic")
                if len(self.buf) < 4 + length:
                    break
                payload, self.buf = self.buf[4:4 + length], self.buf[4 + length:]
                if ftype == want:
                    fds, self.fds = self.fds, []
                    return payload, fds
            if not self._fill(deadline):
                return None, []

    def dropped(self, secs):
        """Whether the port closes the connection within secs."""
        deadline = time.monotonic() + secs
        while not self.eof:
            try:
                if not self._fill(deadline) and not self.eof:
                    return False
            except ConnectionResetError:
                return True
        return True


def seals_of(fd):
    import fcntl
    return fcntl.fcntl(fd, F_GET_SEALS)


def make_ring(size=RING, seal=True, version=SHM_VERSION, short=0,
              doorbell=socket.SOCK_DGRAM):
    """A ring as a sender builds it: memfd, mapping, and both doorbells."""
    import fcntl
    fd = os.memfd_create("hostile-ring", os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, PAGE + size - short)
    mem = mmap.mmap(fd, PAGE + size - short)
    struct.pack_into("<IIQ", mem, 0, SHM_MAGIC, version, size)
    if seal:
        fcntl.fcntl(fd, F_ADD_SEALS, SEALS)
    if doorbell == "eventfd":
        kick = (os.eventfd(0), os.eventfd(0))
        room = (os.eventfd(0), os.eventfd(0))
    else:
        kick = socket.socketpair(socket.AF_UNIX, doorbell)
        room = socket.socketpair(socket.AF_UNIX, doorbell)
    return {"fd": fd, "mem": mem, "size": size, "kick": kick, "room": room}


def fileno(end):
    return end if isinstance(end, int) else end.fileno()


def offer(link, ring, gen=1):
    payload = struct.pack("<QIB3x", ring["size"], gen, 0)
    link.send(WIRE_OFFER, payload,
              [ring["fd"], fileno(ring["kick"][1]), fileno(ring["room"][1])])


def publish(ring, data, head=None):
    """Write data at the start of the ring and publish it, then kick."""
    ring["mem"][PAGE:PAGE + len(data)] = data
    struct.pack_into("<Q", ring["mem"], HEAD_AT,
                     len(data) if head is None else head)
    kick = ring["kick"][0]
    if isinstance(kick, int):
        os.eventfd_write(kick, 1)
    else:
        kick.send(b"k")


results = []


def case(name, ok, why=""):
    results.append(ok)
    print("%sok %d - %s%s" % ("" if ok else "not ", len(results), name,
                              "" if ok or not why else " (%s)" % why))
    sys.stdout.flush()


def port_offer(link):
    """The port's own ring offer, which it makes at cable-up."""
    payload, fds = link.frame(WIRE_OFFER, 10)
    if payload is None:
        return None
    size, gen, _ = struct.unpack("<QIB3x", payload)
    return size, gen, fds


def refused(path, name, ring):
    link = Link(path)
    mine = port_offer(link)
    offer(link, ring)
    ready, _ = link.frame(WIRE_READY, 2)
    case("%s: refused, no SHM_READY" % name, mine is not None and ready is None)
    case("%s: the connection stays up" % name, not link.dropped(0.5))
    link.close()


def broken(path, name, data, head=None):
    """An accepted ring that then breaks: the port must drop the cable."""
    link = Link(path)
    ring = make_ring()
    mine = port_offer(link)
    offer(link, ring)
    ready, _ = link.frame(WIRE_READY, 5)
    if mine is None or ready is None:
        case("%s: a good ring was accepted first" % name, False)
        link.close()
        return
    link.send(WIRE_SWITCH, ready)
    publish(ring, data, head)
    case("%s: the port drops the connection" % name, link.dropped(5))
    link.close()


def frame(ftype, payload):
    return struct.pack("<BBH", WIRE_MAGIC, ftype, len(payload)) + payload


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]

    # The port's own ring: sealed, and doorbells that are datagram sockets.
    link = Link(path)
    mine = port_offer(link)
    ok = mine is not None and len(mine[2]) == 3
    if ok:
        fds = mine[2]
        st = os.fstat(fds[0])
        ok = (seals_of(fds[0]) & SEALS) == SEALS and \
            st.st_size == PAGE + mine[0] and all(
                socket.socket(fileno=os.dup(fd)).type == socket.SOCK_DGRAM
                for fd in fds[1:])
        for fd in fds:
            os.close(fd)
    case("the port offers a sealed ring with datagram doorbells", ok)
    link.close()

    refused(path, "unsealed memory", make_ring(seal=False))
    refused(path, "memory shorter than offered", make_ring(short=PAGE))
    refused(path, "a header of another version", make_ring(version=99))
    refused(path, "eventfd doorbells", make_ring(doorbell="eventfd"))
    refused(path, "stream-socket doorbells",
            make_ring(doorbell=socket.SOCK_STREAM))
    refused(path, "a ring of 1000 bytes", dict(make_ring(), size=1000))

    broken(path, "a head index past the ring", b"", head=RING + PAGE)
    broken(path, "a head index running backwards", b"", head=(1 << 64) - 8)
    broken(path, "a frame with a bad magic", b"\x00" * 16)
    broken(path, "a frame longer than any payload",
           struct.pack("<BBH", WIRE_MAGIC, WIRE_IDLE, 0xFFFF) + b"\x00" * 12)
    broken(path, "a frame longer than what was published",
           struct.pack("<BBH", WIRE_MAGIC, WIRE_IDLE, 200) + b"\x00" * 12)

    # Ring set-up belongs on the socket: on the ring it is dropped, and
    # the ring still works (a corrupt index after it is still caught).
    link = Link(path)
    ring = make_ring()
    port_offer(link)
    offer(link, ring)
    ready, _ = link.frame(WIRE_READY, 5)
    ok = ready is not None
    if ok:
        link.send(WIRE_SWITCH, ready)
        publish(ring, frame(WIRE_OFFER, struct.pack("<QIB3x", RING, 9, 0)))
        ok = not link.dropped(1)
    case("a set-up frame on the ring is dropped, the cable stays", ok)
    if ok:
        publish(ring, b"", head=RING * 4)
        ok = link.dropped(5)
    case("... and the ring is still read: a corrupt index then drops it", ok)
    link.close()

    # After all that, a well-behaved peer still gets a ring and READY.
    link = Link(path)
    mine = port_offer(link)
    offer(link, make_ring())
    ready, _ = link.frame(WIRE_READY, 5)
    case("a good peer afterwards gets the port's offer and READY",
         mine is not None and ready is not None)
    link.close()
    print("1..%d" % len(results))
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
