#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Measure true fabric sync error from the host, trusting no driver.

Usage: clock-offsets.py [--bounds LOG REF_NODE] SOCKET[,SOCKET...] SAMPLES
                        INTERVAL_S [EXCLUDE_NODE...]

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

With --bounds, each sample also checks the drivers' error bounds: LOG is
the guest's console, in which the guest keeps printing "BOUNDS " and
`npoctl -j clock`; before each sample the last such line is taken, and
every node's true offset from REF_NODE (the fabric's timescale) must be
within the bound its driver published, which was read before the sample
and so is the smaller if it grows.  The result adds the samples checked,
the violations, the worst offset as a fraction of its bound and the
bounds the drivers did not have.
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


def last_bounds(log):
    """The drivers' error bounds by node as the guest last printed them."""
    last = None
    with open(log, errors="replace") as f:
        for text in f:
            if not text.startswith("BOUNDS "):
                continue
            try:
                # A kernel message printed into the line spoils it.
                last = json.loads(text[len("BOUNDS "):])["clocks"]
            except ValueError:
                continue
    if last is None:
        return None
    return {c["node_id"]: c.get("error_bound_ns") for c in last}


def main():
    args = sys.argv[1:]
    bounds_log = ref = None
    if args[:1] == ["--bounds"]:
        bounds_log, ref, args = args[1], int(args[2]), args[3:]
    if len(args) < 3:
        sys.exit(__doc__)
    calls = [qmp_session(path) for path in args[0].split(",")]
    samples, interval = int(args[1]), float(args[2])
    exclude = {int(n) for n in args[3:]}
    checked = violations = unknown = 0
    worst_ratio, worst_bound = 0.0, None
    last = {}
    worst, worst_sample, sq, pairs = 0.0, None, 0.0, 0
    per_sample = []
    sums = {}
    for i in range(samples):
        bounds = last_bounds(bounds_log) if bounds_log else None
        every = {}
        for call in calls:
            text = call("qom-get", path="/machine/peripheral/npo0",
                        property="clock_offsets")
            every.update({int(n): float(v) for n, v in
                          (item.split(":") for item in text.split())})
        if bounds is not None:
            for n, v in every.items():
                if n == ref:
                    continue
                bound = bounds.get(n)
                if bound is None:
                    unknown += 1
                    continue
                err = abs(v - every[ref])
                checked += 1
                if err > bound:
                    violations += 1
                ratio = err / bound if bound else math.inf if err else 0.0
                if ratio >= worst_ratio:
                    worst_ratio = ratio
                    worst_bound = {"node": n, "offset_ns": round(err, 3),
                                   "bound_ns": bound}
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
    extra = {}
    if bounds_log:
        final = last_bounds(bounds_log) or {}
        extra = {"bounds_checked": checked, "bound_violations": violations,
                 "bounds_last": {str(n): b for n, b in sorted(final.items())},
                 "bounds_unknown": unknown,
                 "worst_bound_ratio": round(worst_ratio, 4)
                 if worst_ratio != math.inf else "inf",
                 "worst_bound": worst_bound}
    print(json.dumps({
        **extra,
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
