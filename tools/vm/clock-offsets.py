#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Measure true fabric sync error from the host, trusting no driver.

Usage: clock-offsets.py SOCKET[,SOCKET...] SAMPLES INTERVAL_S [EXCLUDE_NODE...]

Reads the NPO model's clock_offsets property (every device's clock less
the common time base, all read at one instant) SAMPLES times, INTERVAL_S
apart, through QEMU's QMP socket, and prints one JSON object: the largest
and the RMS pairwise offset over all samples, the worst sample's offsets
and each node's mean offset from the fabric mean, both relative to the
fabric mean, and the last sample likewise; and the 95th percentile of
the samples' widest pair.  Excluded nodes (one cut off
from the fabric, say) count in none of the pairs but are shown in the
last sample.  With several QMP sockets (several QEMU processes, emulated
hosts sharing a fabric), each sample reads them one after the other: the
offsets are from the host's monotonic clock, which every process shares,
so they compare directly, up to the clocks' drift in the microseconds
between two reads.
"""
import itertools
import json
import math
import socket
import sys
import time


def qmp_session(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    stream = sock.makefile("rw")

    def call(cmd, **args):
        stream.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
        stream.flush()
        while True:
            msg = json.loads(stream.readline())
            if "event" in msg:
                continue
            if "error" in msg:
                sys.exit("qmp: %s: %s" % (cmd, msg["error"]["desc"]))
            return msg.get("return")

    json.loads(stream.readline())  # the greeting
    call("qmp_capabilities")
    return call


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    calls = [qmp_session(path) for path in sys.argv[1].split(",")]
    samples, interval = int(sys.argv[2]), float(sys.argv[3])
    exclude = {int(n) for n in sys.argv[4:]}
    last = {}
    worst, worst_sample, sq, pairs = 0.0, None, 0.0, 0
    per_sample = []
    sums = {}
    for i in range(samples):
        every = {}
        for call in calls:
            text = call("qom-get", path="/machine/peripheral/npo0",
                        property="clock_offsets")
            every.update({int(n): float(v) for n, v in
                          (item.split(":") for item in text.split())})
        offs = {n: v for n, v in every.items() if n not in exclude}
        per_sample.append(max(offs.values()) - min(offs.values()))
        for a, b in itertools.combinations(sorted(offs), 2):
            d = offs[a] - offs[b]
            sq += d * d
            pairs += 1
            if abs(d) > worst:
                worst, worst_sample = abs(d), offs
        mean = sum(offs.values()) / len(offs)
        last = {n: v - mean for n, v in every.items()}
        if worst_sample is offs:
            worst_sample = {n: v - mean for n, v in offs.items()}
        for n, v in offs.items():
            sums[n] = sums.get(n, 0.0) + v - mean
        if i + 1 < samples:
            time.sleep(interval)
    print(json.dumps({
        "samples": samples,
        "max_pairwise_ns": round(worst, 3),
        # The sample whose widest pair 95 % of samples do not exceed.
        "p95_pairwise_ns": round(sorted(per_sample)[
            min(len(per_sample) - 1, math.ceil(0.95 * len(per_sample)) - 1)], 3),
        "rms_pairwise_ns": round(math.sqrt(sq / pairs), 3) if pairs else 0,
        "worst_sample": {str(n): round(v, 3) for n, v in
                         sorted((worst_sample or {}).items())},
        "mean_from_fabric_ns": {str(n): round(v / samples, 3)
                                for n, v in sorted(sums.items())},
        "last_sample": {str(n): round(v, 3) for n, v in sorted(last.items())},
    }, sort_keys=True))


if __name__ == "__main__":
    main()
