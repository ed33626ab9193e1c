#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A hostile peer on the fabric, played through the model's test equipment.

Usage: rogue-peer.py QMP_SOCKET CONTROL_SOCKET CONSOLE_LOG KEYFILE DEVICES

The guest (guest/rogue.sh) runs a ring of DEVICES devices, device i port 0
cabled to device i+1 port 1, node i+1, every device holding the fabric key
in KEYFILE.  This script hands device 3's port 0 frames as if its peer had
sent them (QOM "inject", Documentation/hardware.rst "Test equipment"),
the way a host whose root loads its own driver could, asks the guest over
its second serial line (CONTROL_SOCKET) what the fabric believes, and
cuts links through QMP; QEMU's trace of the link messages each device
sends is in the console's log (CONSOLE_LOG), and of its time messages
while a flood lasts.  Routing attacks first, then time sync: every device
was told that only node 1 may be grandmaster.
Each attack is a TAP line named after it; exits 1 if any failed.
"""
import hashlib
import hmac
import json
import os
import socket
import struct
import sys
import time

ADVERT, SIGNED = 1, 0x80
SYNC, LOCKED, NO_GM = 1, 2, 0x01  # npo_timesync.c's message, state, flag
TIME_MSG_MAX = 64  # hardware.rst: TIME_SEND, 1.18
VICTIM_DEV, VICTIM_PORT = 3, 0  # the rogue is the far end of npo3/0
CONVERGE_S = 15  # what the route test allows a fabric to settle


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.stream = self.sock.makefile("rw")
        self._reply()
        self.cmd("qmp_capabilities")

    def _reply(self):
        while True:
            msg = json.loads(self.stream.readline())
            if "event" not in msg:
                return msg

    def cmd(self, command, **args):
        self.stream.write(json.dumps({"execute": command, "arguments": args}) + "\n")
        self.stream.flush()
        ans = self._reply()
        if "error" in ans:
            raise RuntimeError("%s: %s" % (command, ans["error"]["desc"]))
        return ans.get("return")

    def qom_set(self, dev, prop, value):
        self.cmd("qom-set", path="/machine/peripheral/npo%d" % dev,
                 property=prop, value=value)

    def qom_get(self, dev, prop):
        return self.cmd("qom-get", path="/machine/peripheral/npo%d" % dev,
                        property=prop)


class Guest:
    """Requests and answers over the guest's second serial line."""

    def __init__(self, ctl_path):
        self.ctl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.ctl.connect(ctl_path)
        self.buf = b""

    def _line(self, end):
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.ctl.settimeout(left)
            try:
                data = self.ctl.recv(65536)
            except socket.timeout:
                return None
            if not data:
                raise RuntimeError("the guest closed its serial line")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode(errors="replace").strip()

    def ask(self, request, timeout=120):
        word = request.split()[0].upper()
        self.ctl.sendall((request + "\n").encode())
        end = time.monotonic() + timeout
        lines = []
        while True:
            line = self._line(end)
            if line is None:
                raise RuntimeError("no answer to %r within %d s" % (request, timeout))
            many = word in ("COUNTERS", "CLOCKS")
            if many and line == word + "-END":
                return lines
            if line.startswith(word + " ") or line == word:
                if not many:
                    return line
                lines.append(line)

    def routes(self):
        f = self.ask("routes").split()
        return int(f[1]), {int(k): int(v) for k, v in (x.split(":") for x in f[2:])}

    def counters(self, what="counters"):
        out = {}
        for line in self.ask(what):
            f = line.split()
            out[int(f[1])] = {k: int(v) if v.lstrip("-").isdigit() else v
                              for k, v in (x.split("=") for x in f[2:]
                                           if "=" in x and x.split("=")[1])}
        return out

    def clocks(self):
        return self.counters("clocks")

    def loglines(self, pattern):
        return int(self.ask("loglines " + pattern).split()[1])


def advert(origin, seq, links=(), key=None, key_id=1):
    """A routing advert (hardware.rst, "Routing"), signed if key is given."""
    body = struct.pack("<BBBBII", ADVERT | (SIGNED if key else 0), 1,
                       len(links), 0, origin, seq)
    for peer, port, peer_port in links:
        body += struct.pack("<IBBBB", peer, port, peer_port, 5, 8)
    if key is None:
        return body
    head = bytes([key_id, 0, 0, 0])
    mac = hmac.new(key, b"L" + body + head, hashlib.sha256).digest()[:16]
    return body + head + mac


def time_msg(gm_node, gm_prio, gm_seq, node, flags=0, key=None, key_id=1):
    """A time-sync SYNC as it comes off the wire: the model's WireTime
    frame (departure on the host's monotonic clock, link delay, length,
    the message), the message signed if key is given."""
    body = struct.pack("<BBBBIQQIIIBBBBI", SYNC | (SIGNED if key else 0),
                       LOCKED, gm_prio, 0, gm_seq, 0, 0, gm_node, gm_seq,
                       node, gm_prio, 0, 0, flags, 0)
    if key is not None:
        head = bytes([key_id, 0, 0, 0])
        # The departure stamp (bytes 8..15) enters the MAC as zeros.
        signed = body[:8] + bytes(8) + body[16:]
        body += head + hmac.new(key, b"T" + signed + head,
                                hashlib.sha256).digest()[:16]
    return struct.pack("<Qq B7x", time.monotonic_ns(), 100000, len(body)) + \
        body.ljust(TIME_MSG_MAX, b"\0")


def inject_time(qmp, frames):
    qmp.qom_set(VICTIM_DEV, "inject", ";".join(
        "time %d %s" % (VICTIM_PORT, f.hex()) for f in frames))


def clock_spread(qmp):
    """The largest difference between two devices' true clocks, ns: the
    host's view through the model, no driver involved."""
    offs = [float(x.split(":")[1]) for x in
            qmp.qom_get(0, "clock_offsets").replace(",", " ").split()]
    return max(offs) - min(offs)


def all_locked_to_1(clocks, n):
    return all(clocks[d]["state"] == "locked" and clocks[d]["gm"] == 1
               for d in range(n))


def queued(qmp):
    """Link messages npo3 holds for its driver (QOM "inject")."""
    f = qmp.qom_get(VICTIM_DEV, "inject").split()
    return int(f[f.index("queued") + 1])


def inject(qmp, msgs, batch=48, pause=0.06, patient=False):
    """Hand npo3/0 the messages: at line rate (what the device's queue
    cannot hold is dropped), or, patient, each batch once the device has
    room for it, whatever the host's load (so that all of them count)."""
    for i in range(0, len(msgs), batch):
        if patient:
            end = time.monotonic() + 30
            while queued(qmp) > 64 - batch and time.monotonic() < end:
                time.sleep(0.02)
        qmp.qom_set(VICTIM_DEV, "inject", ";".join(
            "lmsg %d %s" % (VICTIM_PORT, m.hex()) for m in msgs[i:i + batch]))
        time.sleep(pause)


failed = 0


def tap(ok, what, detail=""):
    global failed
    print("%s - %s%s" % ("ok" if ok else "not ok", what,
                         (" (%s)" % detail) if detail else ""), flush=True)
    failed |= not ok


def hold(qmp, guest, n, seconds, frame, each=0.05):
    """Inject frame(i) every `each` s for `seconds`; True if every device
    stayed locked to node 1 whenever asked, once a second."""
    steady, t0, i, asked = True, time.monotonic(), 0, time.monotonic()
    while time.monotonic() - t0 < seconds:
        inject_time(qmp, [frame(i)])
        i += 1
        if time.monotonic() - asked >= 1:
            steady &= all_locked_to_1(guest.clocks(), n)
            asked = time.monotonic()
        time.sleep(each)
    return steady


def time_attacks(qmp, guest, log_path, key, n):
    # A key holder announcing priority 0 with its clock in 2100, every
    # 50 ms for 5 s: only node 1 may lead, so npo3 refuses it at the
    # first hop, says so once, and nobody's clock moves.
    before = guest.clocks()
    said0 = guest.loglines("which is not allowed to be one")
    spread0 = clock_spread(qmp)
    steady = hold(qmp, guest, n, 5, lambda i: time_msg(
        60000, 0, 1000 + i, 60000, key=key))
    after = guest.clocks()
    spread = clock_spread(qmp)
    stepped = [after[d]["steps_taken"] - before[d]["steps_taken"] for d in range(n)]
    tap(steady and all_locked_to_1(after, n) and not any(stepped) and
        spread < 1000,
        "hijack_by_priority_0_in_2100_moves_no_clock",
        "steps %s, true spread %.1f ns (%.1f before)" % (stepped, spread, spread0))
    refused = after[VICTIM_DEV]["refused_gms"] - before[VICTIM_DEV]["refused_gms"]
    tap(refused > 0 and all(after[d]["refused_gms"] == before[d]["refused_gms"]
                            for d in range(n) if d != VICTIM_DEV),
        "hijack_is_refused_at_the_first_hop_and_counted",
        "%d refused at npo%d" % (refused, VICTIM_DEV))
    said = guest.loglines("which is not allowed to be one") - said0
    tap(said == 1, "hijack_is_logged_once", "%d lines" % said)

    # Alternating grandmasters for 10 s: every device stays locked, and
    # the log says nothing more.
    before = guest.clocks()
    steady = hold(qmp, guest, n, 10, lambda i: time_msg(
        60001 + i % 2, 0, 2000 + i, 60001 + i % 2, key=key))
    after = guest.clocks()
    stepped = [after[d]["steps_taken"] - before[d]["steps_taken"] for d in range(n)]
    said = guest.loglines("which is not allowed to be one") - said0
    tap(steady and all_locked_to_1(after, n) and not any(stepped) and said == 1,
        "alternating_grandmasters_keep_every_follower_locked",
        "steps %s, %d log lines in all" % (stepped, said))

    # Without the key, even claiming node 1 itself: not heard at all.
    before_key = guest.counters()
    before = guest.clocks()
    inject_time(qmp, [time_msg(1, 0, 3000 + i, 1) for i in range(20)])
    time.sleep(1)
    after_key = guest.counters()
    after = guest.clocks()
    tap(after_key[VICTIM_DEV]["rejected"] > before_key[VICTIM_DEV]["rejected"] and
        after[VICTIM_DEV]["refused_gms"] == before[VICTIM_DEV]["refused_gms"] and
        all_locked_to_1(after, n),
        "unsigned_time_messages_are_not_heard")

    # A SYNC flood at line rate: the device lets 4 an interval through
    # after a burst of 16, so the victim answers few; QEMU's trace of what
    # npo3 sends is the independent count.
    mark = len(open(log_path, errors="replace").read().splitlines())
    qmp.cmd("trace-event-set-state", name="npo_time_send", enable=True)
    before = guest.clocks()
    t0 = time.monotonic()
    for b in range(40):
        inject_time(qmp, [time_msg(1, 128, 0, 60003, flags=NO_GM, key=key)
                          for _ in range(50)])
    spent = time.monotonic() - t0
    time.sleep(0.5)
    qmp.cmd("trace-event-set-state", name="npo_time_send", enable=False)
    spent_all = time.monotonic() - t0
    after = guest.clocks()
    lines = open(log_path, errors="replace").read().splitlines()[mark:]
    sent = sum("npo%d: port %d: time message" % (VICTIM_DEV + 1, VICTIM_PORT) in l
               for l in lines)
    policed = after[VICTIM_DEV]["rx_policed"] - before[VICTIM_DEV]["rx_policed"]
    # Its own SYNC and the peer's REPLY an interval, plus what got through.
    allowed = 16 + (1 + 4) * spent_all * 10 + 10
    tap(policed >= 2000 - allowed and sent <= allowed and
        all_locked_to_1(after, n),
        "sync_flood_is_policed_before_the_mailbox",
        "2000 in %.1f s: %d policed by the device, %d messages sent by npo%d "
        "(at most %d)" % (spent, policed, sent, VICTIM_DEV, allowed))


def main():
    qmp_path, ctl_path, log_path, key_path, n = sys.argv[1:6]
    n = int(n)
    key = open(key_path, "rb").read()
    wrong = os.urandom(len(key))
    all_routes = n * (n - 1)
    qmp = Qmp(qmp_path)
    guest = Guest(ctl_path)
    real = set(range(1, n + 1))

    total, nodes = guest.routes()
    tap(total == all_routes and set(nodes) == real,
        "the ring of %d, keyed, reaches every node" % n, "%d routes" % total)

    # Made-up origins without the key, and with a wrong one.
    before = guest.counters()
    inject(qmp, [advert(10000 + i, 1) for i in range(2500)] +
           [advert(12500 + i, 1, key=wrong) for i in range(2500)])
    time.sleep(2)
    after = guest.counters()
    total, nodes = guest.routes()
    refused = after[VICTIM_DEV]["rejected"] - before[VICTIM_DEV]["rejected"]
    tap(refused > 0 and all(after[d]["nodes"] == n for d in range(n)) and
        total == all_routes and set(nodes) == real,
        "forged_origins_without_the_key_are_refused_at_the_first_hop",
        "%d refused at npo%d, nodes kept %s" % (
            refused, VICTIM_DEV, [after[d]["nodes"] for d in range(n)]))
    tap(all(after[d]["rejected"] == before[d]["rejected"]
            for d in range(n) if d != VICTIM_DEV),
        "forged_origins_without_the_key_go_no_further")

    # A host holding the key invents 5,000 nodes and keeps them alive while
    # a real node is cut off for 25 s; the node must come back as fast as
    # on a clean fabric.
    # Patient, so that the devices take them all in whatever the host's
    # load (a flood beyond what a port queues is dropped by the device,
    # counted, and proves nothing here): past a port's share of the table,
    # so that room must be made.
    cut_dev, cut_node = 6, 7
    forged = list(range(20000, 24000))
    inject(qmp, [advert(o, 1, key=key) for o in forged], batch=32, pause=0,
           patient=True)
    time.sleep(2)
    total, nodes = guest.routes()
    tap(total == all_routes and set(nodes) == real,
        "rogue_origins_with_the_key_move_no_real_route", "%d routes" % total)
    qmp.qom_set(cut_dev, "fault", "cut 0 1")
    qmp.qom_set(cut_dev, "fault", "cut 1 1")
    t0 = time.monotonic()
    seq = 2
    while time.monotonic() - t0 < 25:
        inject(qmp, [advert(o, seq, key=key) for o in forged], batch=32,
               pause=0, patient=True)
        seq += 1
    total, nodes = guest.routes()
    tap(cut_node not in nodes, "a node cut off for 25 s leaves every table",
        "routes to it: %d" % nodes.get(cut_node, 0))
    counters = guest.counters()
    # Full now, or full at some time: a device evicts only from a full
    # share or table (on a loaded host a round of refreshes can outlast
    # the 20 s an entry lives, and the count falls back).
    share = 4096 * 3 // 4  # NPO_ROUTE_MAX's share one port may fill
    tap(max(counters[d]["nodes"] for d in range(n)) >= share or
        any(counters[d]["evicted"] for d in range(n)),
        "the made-up nodes filled a port's share of a table",
        "nodes kept %s, evicted %s" % ([counters[d]["nodes"] for d in range(n)],
                                      [counters[d]["evicted"] for d in range(n)]))
    qmp.qom_set(cut_dev, "fault", "cut 0 0")
    qmp.qom_set(cut_dev, "fault", "cut 1 0")
    t1 = time.monotonic()
    ans = guest.ask("wait-routes %d %d" % (all_routes, CONVERGE_S + 30))
    took = time.monotonic() - t1
    tap(ans.startswith("WAIT-ROUTES ok") and took <= CONVERGE_S,
        "rogue_origins_with_the_key_do_not_keep_a_returning_node_out",
        "back in %.1f s; forged kept %s, evicted %s, refused %s" % (
            took, [counters[d]["nodes"] for d in range(n)],
            [counters[d]["evicted"] for d in range(n)],
            [counters[d]["share_refused"] + counters[d]["full_refused"]
             for d in range(n)]))

    # A neighbour's advert through another port: npo3's neighbour on port 1
    # is npo2 (node 3), not the rogue on port 0.
    # Believed, it would take npo3's link to node 3 away (no links in it)
    # and move routes: nothing may move anywhere.
    before = guest.counters()
    inject(qmp, [advert(VICTIM_DEV, 1 << 30, key=key)])
    time.sleep(1)
    after = guest.counters()
    total, nodes = guest.routes()
    moved = [after[d]["reroutes"] - before[d]["reroutes"] for d in range(n)]
    tap(after[VICTIM_DEV]["spoofed_refused"] > before[VICTIM_DEV]["spoofed_refused"] and
        total == all_routes and not any(moved),
        "spoofed_neighbour_advert_through_another_port_is_refused",
        "%d routes, reroutes per device %s" % (total, moved))

    # A key holder forging a far node's advert: believed (the key says who
    # may speak, not who is speaking), but the node sees it and outbids it
    # at once; the routes to it come back within a second or two.
    far = 7
    before = guest.counters()
    t1 = time.monotonic()
    inject(qmp, [advert(far, 1 << 30, key=key)])
    ans = guest.ask("wait-routes %d 10" % all_routes)
    after = guest.counters()
    tap(ans.startswith("WAIT-ROUTES ok") and
        after[far - 1]["self_claims"] > before[far - 1]["self_claims"],
        "forged_far_advert_is_outbid_by_its_node",
        "routes whole again after %.1f s" % (time.monotonic() - t1))

    # A flood of one origin's adverts: most dropped as too soon, and the
    # routes computed at most every 50 ms.
    before = guest.counters()
    t1 = time.monotonic()
    inject(qmp, [advert(31000, s, key=key) for s in range(1, 3001)],
           batch=64, pause=0.01)
    time.sleep(1)
    spent = time.monotonic() - t1
    after = guest.counters()
    computed = after[VICTIM_DEV]["computations"] - before[VICTIM_DEV]["computations"]
    tap(after[VICTIM_DEV]["too_soon"] > before[VICTIM_DEV]["too_soon"] and
        computed <= spent / 0.05 + 5,
        "advert_flood_costs_bounded_work",
        "%d computations in %.1f s, %d too soon" % (
            computed, spent,
            after[VICTIM_DEV]["too_soon"] - before[VICTIM_DEV]["too_soon"]))

    time_attacks(qmp, guest, log_path, key, n)

    # A miswired port: nothing learnt through it, no advert sent out of it.
    ans = guest.ask("miswire %d %d" % (VICTIM_DEV, VICTIM_PORT))
    tap(ans == "MISWIRE ok", "the rogue's port is quarantined as miswired")
    before = guest.counters()
    mark = len(open(log_path, errors="replace").read().splitlines())
    inject(qmp, [advert(40000 + i, 1, key=key) for i in range(200)])
    time.sleep(7)  # past a refresh of every advert
    after = guest.counters()
    lines = open(log_path, errors="replace").read().splitlines()[mark:]
    sent_out = sum("npo%d: port %d: link message" % (VICTIM_DEV + 1, VICTIM_PORT) in l and
                   "sent, type 0x81" in l for l in lines)
    sent_other = sum("npo%d: port %d: link message" % (VICTIM_DEV + 1, 1) in l and
                     "sent, type 0x81" in l for l in lines)
    # Older made-up entries may age out meanwhile: none may come in.
    tap(after[VICTIM_DEV]["miswired_refused"] > before[VICTIM_DEV]["miswired_refused"] and
        after[VICTIM_DEV]["nodes"] <= before[VICTIM_DEV]["nodes"],
        "adverts_on_a_miswired_port_are_not_accepted",
        "%d refused" % (after[VICTIM_DEV]["miswired_refused"] -
                        before[VICTIM_DEV]["miswired_refused"]))
    tap(sent_out == 0 and sent_other > 0,
        "no_advert_goes_out_of_a_miswired_port",
        "QEMU's trace: %d out of the miswired port, %d out of the other" % (
            sent_out, sent_other))
    guest.ask("unplan %d %d" % (VICTIM_DEV, VICTIM_PORT))
    ans = guest.ask("wait-routes %d %d" % (all_routes, CONVERGE_S))
    tap(ans.startswith("WAIT-ROUTES ok"), "the ring is whole again")
    print("# inject: %s" % qmp.qom_get(VICTIM_DEV, "inject"), flush=True)
    guest.ask("end")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
