#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn an MPI bench VM's log (vm-mpi.sh's "TRANSPORT npo|sm|tcp {json}"
lines) into the nccl-tests-style MPI_Allreduce table, OUT_DIR/mpi_allreduce
SUFFIX.txt, and print "KEY JSON" lines for results.json: busbw at 64 MiB,
8 B latency and 4 MiB bandwidth over each transport, each with its spread,
and NPO against each baseline as ratios (same VMs, ranks, program and
run): Open MPI's default without NPO (shared memory within a host, TCP
between hosts: "sm") and TCP alone.

Usage: mpi-table.py LOG OUT_DIR SUFFIX TITLE
"""
import json
import sys

RANKS = 8
BIG = 64 << 20


def main():
    log, out_dir, suffix, title = sys.argv[1:5]
    rows = {"npo": {}, "sm": {}, "tcp": {}}
    with open(log) as f:
        for line in f:
            if not line.startswith("TRANSPORT "):
                continue
            _, transport, doc = line.split(" ", 2)
            doc = json.loads(doc)
            key = doc["bytes"] if doc["op"] == "allreduce" else doc["op"]
            rows[transport][key] = doc
    for t, r in rows.items():
        if BIG not in r or "latency" not in r or "bandwidth" not in r:
            sys.exit(f"bench: the MPI run over {t} ({title}) gave no full table")

    with open(f"{out_dir}/mpi_allreduce{suffix}.txt", "w") as f:
        f.write(f"# MPI_Allreduce, int64 sum, {RANKS} ranks, {title}"
                " (nccl-tests columns)\n")
        f.write(f"# {'size':>10}" + "".join(
            f" {t + '_us':>12} {t + '_algbw':>10} {t + '_busbw':>10}"
            for t in ("npo", "tcp", "sm")) + "\n")
        for size in sorted(k for k in rows["npo"] if isinstance(k, int)):
            f.write(f"  {size:>10}" + "".join(
                f" {rows[t][size]['time_us']:>12.1f}"
                f" {rows[t][size]['algbw_GBps']:>10.4f}"
                f" {rows[t][size]['busbw_GBps']:>10.4f}"
                for t in ("npo", "tcp", "sm")) + "\n")

    out = {}
    # busbw = algbw * 2(n-1)/n, from a time in microseconds.
    busbw_per_us = 2 * (RANKS - 1) / RANKS * BIG / 1e9 * 1e6
    for t, prefix in (("npo", "mpi"), ("sm", "mpi_sm"), ("tcp", "mpi_tcp")):
        r = rows[t][BIG]
        key = f"{prefix}_allreduce_busbw_64MiB_GBps{suffix}"
        out[key] = round(r["busbw_GBps"], 4)
        out[key + "_spread"] = [round(busbw_per_us / r["time_us_max"], 4),
                                round(busbw_per_us / r["time_us_min"], 4)]
        lat = rows[t]["latency"]
        key = f"{prefix}_latency_8B_us{suffix}"
        out[key] = round(lat["time_us"], 2)
        out[key + "_spread"] = [round(lat["time_us_min"], 2),
                                round(lat["time_us_max"], 2)]
        bw = rows[t]["bandwidth"]
        key = f"{prefix}_bw_4MiB_GBps{suffix}"
        out[key] = round(bw["GBps"], 4)
        out[key + "_spread"] = [round(bw["GBps_min"], 4), round(bw["GBps_max"], 4)]
    for base in ("sm", "tcp"):
        for name in ("allreduce_busbw_64MiB_GBps", "latency_8B_us",
                     "bw_4MiB_GBps"):
            ratio = (name.replace("_GBps", "").replace("_us", "") +
                     f"_vs_{base}{suffix}")
            out[f"mpi_{ratio}"] = round(out[f"mpi_{name}{suffix}"] /
                                        out[f"mpi_{base}_{name}{suffix}"], 2)
    for k, v in out.items():
        print(k, json.dumps(v, separators=(",", ":")))


if __name__ == "__main__":
    main()
