#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench, the cost curves rather than one point: how the figures grow
# with the devices in a ring (2, 4, 8, 16: probe, links up, clocks
# locked, an 8 B write to a neighbour posted to its completion, which
# the model runs in the doorbell store, and 1 MiB bandwidth to it), the
# queues one
# process spreads its writes over (1 to 64), the message size (8 B to
# 8 MiB), and the QEMU processes sharing the host (1, 2, 4, each with its
# own pair of devices, all writing at once).  Each curve is one run of
# each point, on 6.12.  Writes scaling.json and one SVG per curve
# (gnuplot) into OUT; make bench merges the curves into results.json.
#
# Usage: scaling.sh OUT
set -euo pipefail
out=${1:?}
here=$(dirname "$(realpath "$0")")
vm=$here/../vm/npo-vm
mkdir -p "$out/scaling"
work=$out/scaling

# --- devices in a ring -----------------------------------------------------
ring_guest='up() { cut -d" " -f1 /proc/uptime; }
count() { npoctl -j "$1" | grep -o "$2" | wc -l; }
t0=$(up)
/sbin/modprobe npo
t1=$(up)
while [ "$(count link "\"state\":\"active\"")" -lt $((2 * @N@)) ]; do sleep 0.05; done
t2=$(up)
while [ "$(count clock "\"state\":\"locked\",\"grandmaster\":1,")" -lt @N@ ]; do sleep 0.1; done
t3=$(up)
echo "SCALE-RING @N@ $(awk "BEGIN { print $t1 - $t0, $t2 - $t0, $t3 - $t0 }")"
npo-perf -j -r npo1 write lat -s 8
npo-perf -j -r npo1 write -s 1M -n 64'
for n in 2 4 8 16; do
	"$vm" --kernel 6.12 --devices "$n" --topology ring --mem 768 --timeout 900 -- \
		sh -c "${ring_guest//@N@/$n}" >"$work/ring-$n.log" 2>&1 ||
		{ cat "$work/ring-$n.log"; echo "scaling: the ring of $n failed" >&2; exit 1; }
done

# --- queues and message sizes, one VM ---------------------------------------
qs_guest='/sbin/modprobe npo && sleep 1
for q in 1 2 4 8 16 32 64; do
	echo "SCALE-QUEUES $q"
	npo-perf -j -r npo1 -q $q write -s 64K -n 2048
	npo-perf -j -r npo1 -q $q write rate -s 8 -n 65536
done
echo SCALE-SIZES
npo-perf -j -r npo1 write'
"$vm" --kernel 6.12 --devices 2 --topology ring --device-props queues=64 \
	--timeout 1800 -- sh -c "$qs_guest" >"$work/queues.log" 2>&1 ||
	{ cat "$work/queues.log"; echo "scaling: the queue and size sweep failed" >&2; exit 1; }

# --- QEMU processes at once ------------------------------------------------
for p in 1 2 4; do
	pids=()
	for i in $(seq "$p"); do
		"$vm" --kernel 6.12 --devices 2 --topology ring --timeout 900 -- \
			sh -c '/sbin/modprobe npo && sleep 1 && npo-perf -j -r npo1 write -s 1M -n 512' \
			>"$work/procs-$p-$i.log" 2>&1 &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || { echo "scaling: a VM of $p at once failed" >&2; exit 1; }
	done
done

python3 - "$work" "$out/scaling.json" <<'PY'
import glob, json, sys
work, dest = sys.argv[1], sys.argv[2]

def docs(path):
    """(marker line, npo-perf JSON document) in order of the log."""
    mark = None
    for line in open(path):
        if line.startswith("SCALE-"):
            mark = line.split(" ", 1)
        elif line.startswith("{"):
            yield mark, json.loads(line)

ring = []
for n in (2, 4, 8, 16):
    row = None
    for line in open(f"{work}/ring-{n}.log"):
        if line.startswith("SCALE-RING "):
            f = line.split()
            row = {"devices": int(f[1]), "probe_s": round(float(f[2]), 2),
                   "links_up_s": round(float(f[3]), 2),
                   "clocks_locked_s": round(float(f[4]), 2)}
    for _, d in docs(f"{work}/ring-{n}.log"):
        r = d["results"][0]
        if d["test"] == "write_lat":
            row["post_to_cqe_8B_us"] = round(r["lat_median_us"], 2)
        elif d["test"] == "write_bw":
            row["write_bw_1MiB_GBps"] = round(r["bw_gbps"], 3)
    ring.append(row)

queues, sizes = [], []
for mark, d in docs(f"{work}/queues.log"):
    if mark[0] == "SCALE-QUEUES":
        q = int(mark[1])
        if not queues or queues[-1]["queues"] != q:
            queues.append({"queues": q})
        r = d["results"][0]
        if d["test"] == "write_bw":
            queues[-1]["write_bw_64KiB_GBps"] = round(r["bw_gbps"], 3)
        elif d["test"] == "write_rate":
            queues[-1]["msg_rate_8B_Mops"] = round(r["msg_rate_mpps"], 3)
    elif mark[0].strip() == "SCALE-SIZES":
        for r in d["results"]:
            sizes.append({"bytes": r["bytes"], "write_bw_GBps": round(r["bw_gbps"], 3)})

procs = []
for p in (1, 2, 4):
    each = []
    for path in sorted(glob.glob(f"{work}/procs-{p}-*.log")):
        each += [d["results"][0]["bw_gbps"] for _, d in docs(path)
                 if d["test"] == "write_bw"]
    if len(each) != p:
        sys.exit(f"scaling: {len(each)} figures from {p} processes")
    procs.append({"processes": p, "write_bw_1MiB_GBps_total": round(sum(each), 3),
                  "write_bw_1MiB_GBps_each": [round(x, 3) for x in each]})

if len(ring) != 4 or None in ring or len(queues) != 7 or not sizes:
    sys.exit("scaling: a curve is incomplete")
json.dump({"ring": ring, "queues": queues, "sizes": sizes, "processes": procs},
          open(dest, "w"), indent=2)

# Data files for gnuplot, one per curve.
def table(name, rows, cols):
    with open(f"{work}/{name}.dat", "w") as f:
        for r in rows:
            f.write(" ".join(str(r[c]) for c in cols) + "\n")
table("ring", ring, ["devices", "links_up_s", "clocks_locked_s", "post_to_cqe_8B_us",
                     "write_bw_1MiB_GBps"])
table("queues", queues, ["queues", "write_bw_64KiB_GBps", "msg_rate_8B_Mops"])
table("sizes", sizes, ["bytes", "write_bw_GBps"])
table("procs", procs, ["processes", "write_bw_1MiB_GBps_total"])
PY

gnuplot <<GP
set terminal svg size 640,400 dynamic
set grid
set key left top
set output "$out/scaling-ring.svg"
set title "Ring of N devices (one VM, 6.12)"
set xlabel "devices in the ring"
set ylabel "seconds from modprobe"
set y2label "8 B write latency, us"
set y2tics
set logscale x 2
plot "$work/ring.dat" using 1:2 with linespoints title "links up", \
     "" using 1:3 with linespoints title "clocks locked", \
     "" using 1:4 axes x1y2 with linespoints title "8 B latency (right)"
unset y2label
unset y2tics
set output "$out/scaling-queues.svg"
set title "Queues one process spreads its writes over"
set xlabel "queues"
set ylabel "64 KiB write GB/s; 8 B Mmsg/s"
plot "$work/queues.dat" using 1:2 with linespoints title "64 KiB write bandwidth", \
     "" using 1:3 with linespoints title "8 B message rate"
set output "$out/scaling-sizes.svg"
set title "Write bandwidth by message size"
set xlabel "bytes"
set ylabel "GB/s"
plot "$work/sizes.dat" using 1:2 with linespoints title "write, 64 outstanding"
unset logscale x
set output "$out/scaling-processes.svg"
set title "QEMU processes writing at once, 2 host cores"
set xlabel "processes"
set ylabel "1 MiB write GB/s, all together"
plot "$work/procs.dat" using 1:2 with linespoints title "total"
GP
echo "scaling: $out/scaling.json, $out/scaling-*.svg"
