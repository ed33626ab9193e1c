#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench: measure, print a table, and merge the figures into
# build/bench/results.json (one JSON object; later benchmarks add keys).
set -euo pipefail

build=${BUILD:?}
here=$(dirname "$(realpath "$0")")
vm=$here/../vm/npo-vm
out=$build/bench
mkdir -p "$out"
results=$out/results.json
[ -f "$results" ] || echo '{}' >"$results"

# merge: "KEY JSON" lines from standard input into results.json, with
# Python's json module.  Fed by a pipe, so under pipefail a producer that
# fails stops the run rather than leaving old or missing figures.
merge() {
	python3 -c '
import json, sys
path = sys.argv[1]
with open(path) as f:
    data = json.load(f)
for line in sys.stdin:
    key, value = line.rstrip("\n").split(" ", 1)
    data[key] = json.loads(value)
with open(path, "w") as f:
    json.dump(data, f, indent=2, sort_keys=True)
    f.write("\n")
' "$results"
}

# Figures earlier versions recorded that compared unlike things.
python3 - "$results" <<'PY'
import json, sys
path = sys.argv[1]
data = json.load(open(path))
for key in ("write_lat_8B_vs_rxe", "dma_write_bw_1MiB_vs_rxe",
            "host_memcpy_bw_GBps", "vm_memcpy_bw_GBps"):
    data.pop(key, None)
with open(path, "w") as f:
    json.dump(data, f, indent=2, sort_keys=True)
    f.write("\n")
PY

for k in 6.1 6.12; do
	t0=$(date +%s.%N)
	"$vm" --kernel "$k" --devices 0 -- true >/dev/null
	t1=$(date +%s.%N)
	boot=$(python3 -c "print(round($t1 - $t0, 2))")
	key=${k/./_}
	echo "vm_boot_s_$key $boot" | merge

	# A ring of 8 has 16 links, i.e. 16 ports with a peer to bring up.
	json=$("$vm" --kernel "$k" --devices 8 --topology ring -- \
		env NPO_BENCH_LINKS=16 /usr/lib/npo/bench/npo-bench 2>&1 |
		grep '^{' | tail -n1)
	[ -n "$json" ] || { echo "bench: npo-bench failed on $k" >&2; exit 1; }
	# Per kernel with a suffix; the newest kernel's also without, as the
	# figure an issue or a reader asks for by its plain name.
	python3 - "$json" "$key" "$k" >"$out/vm-$key.args" <<'PY'
import json, sys
for k, v in json.loads(sys.argv[1]).items():
    v = json.dumps(round(v, 3) if isinstance(v, float) else v)
    print(f"{k}_{sys.argv[2]}", v)
    if sys.argv[3] == "6.12":
        print(k, v)
PY
	merge <"$out/vm-$key.args"
done

# --- DMA: host memcpy as the ceiling, then npo-perf in one VM -------------
# Every emulated DMA byte is read and written by QEMU on this host, so a
# single-threaded host memcpy of the same size bounds what NPO can reach.
# It runs as the guest's figures do: the same buffers (2 MiB aligned,
# huge pages where allowed, as guest RAM is), five runs, the median.
runs=5
perf=$build/bin/npo-perf
for size in 1 8; do
	for _ in $(seq "$runs"); do
		"$perf" -j memcpy -s ${size}M
	done >"$out/host-memcpy-${size}M.log"
done
# Two linked devices in one VM; 1 GiB of guest RAM keeps transparent huge
# pages available (the kernel turns them off below 512 MiB), as on any
# machine a collective library would run on.
"$vm" --kernel 6.12 --devices 2 --topology ring --mem 1024 --timeout 1800 \
	--add "$here/vm-dma.sh" -- sh "$here/vm-dma.sh" $runs >"$out/dma-vm.log" 2>&1 ||
	{ cat "$out/dma-vm.log"; echo "bench: the DMA benchmark VM failed" >&2; exit 1; }
python3 - "$out" <<'PY' | merge
import json, statistics, sys
out_dir = sys.argv[1]
runs = {}
def add(key, value):
    runs.setdefault(key, []).append(value)
for size in ("1MiB", "8MiB"):
    for line in open(f"{out_dir}/host-memcpy-{size[0]}M.log"):
        add(f"host_memcpy_bw_{size}_GBps", json.loads(line)["results"][0]["bw_gbps"])
for line in open(f"{out_dir}/dma-vm.log"):
    # perftest reports Gb/s and microseconds.
    if line.startswith("RXE_BW "):
        add("rxe_write_bw_1MiB_GBps", float(line.split()[1]) / 8)
    elif line.startswith("RXE_LAT "):
        add("rxe_write_lat_8B_us", float(line.split()[1]))
    if not line.startswith("{"):
        continue
    doc = json.loads(line)
    r = doc["results"][0]
    tag = {1 << 20: "1MiB", 8 << 20: "8MiB"}.get(r["bytes"], f'{r["bytes"]}B')
    # Two processes in perftest's shapes: "pp_" (ping-pong and window).
    pp = "pp_" if doc.get("processes") == 2 else ""
    if doc["test"] == "write_bw":
        add(f"{pp}{'dma_' if not pp else ''}write_bw_{tag}_GBps", r["bw_gbps"])
    elif doc["test"] == "write_lat":
        add(f"{pp}write_lat_8B_us", r["lat_median_us"])
        if not pp:
            add("write_lat_8B_p99_us", r["lat_p99_us"])
    elif doc["test"] == "write_rate":
        add("msg_rate_8B_Mops", r["msg_rate_mpps"])
    elif doc["test"] == "memcpy":
        add(f"vm_memcpy_bw_{tag}_GBps", r["bw_gbps"])
want = ["host_memcpy_bw_1MiB_GBps", "host_memcpy_bw_8MiB_GBps",
        "dma_write_bw_1MiB_GBps", "dma_write_bw_8MiB_GBps", "write_lat_8B_us",
        "msg_rate_8B_Mops", "pp_write_lat_8B_us", "pp_write_bw_1MiB_GBps",
        "rxe_write_lat_8B_us", "rxe_write_bw_1MiB_GBps"]
for key in want:
    if len(runs.get(key, [])) < 5:
        sys.exit(f"bench: {key}: {len(runs.get(key, []))} runs of 5")
out = {}
# Each figure: the median of its runs, and [min, max] as its spread.
for key, values in runs.items():
    out[key] = round(statistics.median(values), 3)
    out[key + "_spread"] = [round(min(values), 3), round(max(values), 3)]
# Ratios compare like with like only (Documentation/testing.rst).
for tag in ("1MiB", "8MiB"):
    out[f"dma_write_bw_{tag}_vs_host_memcpy"] = round(
        out[f"dma_write_bw_{tag}_GBps"] / out[f"host_memcpy_bw_{tag}_GBps"], 2)
out["pp_write_lat_8B_vs_rxe"] = round(
    out["pp_write_lat_8B_us"] / out["rxe_write_lat_8B_us"], 4)
out["pp_write_bw_1MiB_vs_rxe"] = round(
    out["pp_write_bw_1MiB_GBps"] / out["rxe_write_bw_1MiB_GBps"], 1)
for k, v in out.items():
    print(k, json.dumps(v, separators=(",", ":")))
PY

# --- the fabric transport: the same two devices, every byte over the link
# (property wire_data), on the shared-memory rings and on the sockets alone
for shm in on off; do
	"$vm" --kernel 6.12 --devices 2 --topology ring \
		--device-props wire_data=on,wire_shm=$shm --timeout 900 -- sh -c \
		'modprobe npo && sleep 1 &&
		npo-perf -j -r npo1 write -s 8M -n 32 && npo-perf -j -r npo1 write lat -s 8' \
		>"$out/wire-$shm-vm.log" 2>&1 ||
		{ cat "$out/wire-$shm-vm.log"; echo "bench: the transport benchmark VM failed" >&2; exit 1; }
done
# ... and between two QEMU processes, one device each.  Its floor on this
# host: a round trip between two processes that wake each other through
# the kernel (perf's pipe ping-pong), as a request and its answer do when
# neither process has a core to spin on.
for _ in $(seq "$runs"); do
	perf bench -f simple sched pipe -l 20000
done >"$out/host-pipe.log" 2>&1 ||
	{ cat "$out/host-pipe.log"; echo "bench: perf bench sched pipe failed" >&2; exit 1; }
"$here/../vm/two-vm-test.sh" 6.12 --bench >"$out/xproc.log" 2>&1 ||
	{ cat "$out/xproc.log"; echo "bench: the two-process transport benchmark failed" >&2; exit 1; }
python3 - "$out" "$results" <<'PY' | merge
import json, sys
d, results = sys.argv[1], json.load(open(sys.argv[2]))
out = {}
for shm, tag in (("on", "wire"), ("off", "sock")):
    for line in open(f"{d}/wire-{shm}-vm.log"):
        if not line.startswith("{"):
            continue
        doc = json.loads(line)
        r = doc["results"][0]
        if doc["test"] == "write_bw":
            out[f"{tag}_write_bw_8MiB_GBps"] = round(r["bw_gbps"], 3)
        elif doc["test"] == "write_lat":
            out[f"{tag}_write_lat_8B_us"] = round(r["lat_median_us"], 2)
x = [json.loads(l.split(" ", 1)[1]) for l in open(f"{d}/xproc.log")
     if l.startswith("NPO-XPROC ")]
if len(out) != 4 or len(x) != 1:
    sys.exit("bench: no transport figures in " + d)
x = x[0]
out["xproc_write_bw_8MiB_GBps"] = x["write_bw_8MiB_GBps"]
out["xproc_write_bw_8MiB_GBps_spread"] = [x["write_bw_8MiB_min"], x["write_bw_8MiB_max"]]
out["xproc_write_bw_8MiB_vs_host_memcpy"] = round(
    x["write_bw_8MiB_GBps"] / results["host_memcpy_bw_8MiB_GBps"], 3)
# The same with the requester asleep on its completion interrupt: its
# vCPU no longer spins on one of the two host cores (single-threaded TCG).
out["xproc_write_bw_8MiB_irq_GBps"] = x["write_bw_8MiB_irq_GBps"]
out["xproc_write_bw_8MiB_irq_GBps_spread"] = [x["write_bw_8MiB_irq_min"], x["write_bw_8MiB_irq_max"]]
out["xproc_write_bw_8MiB_irq_vs_host_memcpy"] = round(
    x["write_bw_8MiB_irq_GBps"] / results["host_memcpy_bw_8MiB_GBps"], 3)
out["xproc_write_lat_8B_us"] = x["write_lat_8B_us"]
out["xproc_write_lat_8B_p99_us"] = x["write_lat_8B_p99_us"]
# perf prints the total seconds of 20000 round trips per run.
pipe = sorted(float(l) * 1e6 / 20000 for l in open(f"{d}/host-pipe.log")
              if l.strip().replace(".", "", 1).isdigit())
if len(pipe) < 5:
    sys.exit("bench: no pipe round trips in " + d)
out["host_pipe_rtt_us"] = round(pipe[len(pipe) // 2], 2)
out["host_pipe_rtt_us_spread"] = [round(pipe[0], 2), round(pipe[-1], 2)]
out["xproc_write_lat_8B_vs_host_pipe_rtt"] = round(
    x["write_lat_8B_us"] / out["host_pipe_rtt_us"], 2)
out["xproc_write_lat_8B_vs_in_process"] = round(
    x["write_lat_8B_us"] / results["write_lat_8B_us"], 1)
for k, v in out.items():
    print(k, json.dumps(v, separators=(",", ":")))
PY

# --- fabric time: lock time and true offsets, read from the host ----------
"$here/../vm/clock-sync-test.sh" 6.12 --json "$out/clock.json" >"$out/clock.log" 2>&1 ||
	{ cat "$out/clock.log"; echo "bench: the clock benchmark failed" >&2; exit 1; }
python3 -c 'import json, sys
for k, v in json.load(open(sys.argv[1])).items():
    print(k, json.dumps(v))' "$out/clock.json" | merge

# --- fast path cost: instructions per message under callgrind ------------
fastpath=$build/bench-bin/fastpath
msgs=100000
for side in npo uring; do
	valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$side" \
		"$fastpath" $side $msgs 2>"$out/callgrind.$side.log"
	instr=$(callgrind_annotate --inclusive=yes "$out/callgrind.$side" |
		python3 -c '
import re, sys
side, msgs = sys.argv[1], int(sys.argv[2])
total, found = 0, set()
for line in sys.stdin:
    # "  2,700,000 (21.15%)  => file:fastpath_npo_post (100,000x)"
    m = re.match(r"\s*([\d,]+) .*=> \S*:fastpath_%s_(post|reap) \(([\d,]+)x\)" % side, line)
    if m:
        if int(m.group(3).replace(",", "")) != msgs:
            sys.exit(f"bench: fastpath_{side}_{m.group(2)} ran {m.group(3)} times, not {msgs}")
        found.add(m.group(2))
        total += int(m.group(1).replace(",", ""))
# Both halves of both sides, or no figure at all.
if found != {"post", "reap"}:
    sys.exit(f"bench: callgrind found {sorted(found)} of fastpath_{side}_post and _reap")
print(round(total / msgs, 1))' "$side" $msgs)
	[ -n "$instr" ] || exit 1
	[ "$side" = npo ] && key=libnpo_fastpath_instr || key=liburing_fastpath_instr
	echo "$key $instr" | merge
done

# --- routing: one link against four, in one process and over the wire -----
# The same ring of 8 and the same npo0, to its neighbour and to the far
# side; over the wire (wire_data) every hop is a transport hop, the three
# devices in between forwarding routed frames.
for how in local wire; do
	props=
	[ $how = wire ] && props="--device-props wire_data=on"
	# shellcheck disable=SC2086
	"$vm" --kernel 6.12 --devices 8 --topology ring --timeout 900 $props \
		--add "$here/vm-route.sh" -- sh "$here/vm-route.sh" $runs \
		>"$out/route-$how-vm.log" 2>&1 ||
		{ cat "$out/route-$how-vm.log"; echo "bench: the routing benchmark VM failed" >&2; exit 1; }
done
python3 - "$out" <<'PY' | merge
import json, statistics, sys
d = sys.argv[1]
out = {}
for how, prefix in (("local", "route"), ("wire", "wire_route")):
    runs, hops = {}, None
    for line in open(f"{d}/route-{how}-vm.log"):
        if line.startswith("HOPS "):
            hops = int(line.split()[1])
            continue
        if not line.startswith("{") or hops is None:
            continue
        doc = json.loads(line)
        r = doc["results"][0]
        name = "1hop" if hops == 1 else f"{hops}hops"
        if doc["test"] == "write_lat":
            runs.setdefault(f"{prefix}_write_lat_8B_{name}_us", []).append(r["lat_median_us"])
        elif doc["test"] == "write_bw":
            runs.setdefault(f"{prefix}_write_bw_1MiB_{name}_GBps", []).append(r["bw_gbps"])
        hops = None
    for key, values in runs.items():
        if len(values) < 5:
            sys.exit(f"bench: {key}: {len(values)} runs of 5")
        out[key] = round(statistics.median(values), 3)
        out[key + "_spread"] = [round(min(values), 3), round(max(values), 3)]
    # The same device, size and run: only the path differs.
    out[f"{prefix}_write_lat_8B_4hops_vs_1hop"] = round(
        out[f"{prefix}_write_lat_8B_4hops_us"] / out[f"{prefix}_write_lat_8B_1hop_us"], 2)
    out[f"{prefix}_write_bw_1MiB_4hops_vs_1hop"] = round(
        out[f"{prefix}_write_bw_1MiB_4hops_GBps"] / out[f"{prefix}_write_bw_1MiB_1hop_GBps"], 2)
for k, v in out.items():
    print(k, json.dumps(v, separators=(",", ":")))
PY

# --- Open MPI over NPO against Open MPI over TCP, one run each ---------------
# The nccl-tests table (size, time, algbw, busbw = algbw * 2(n-1)/n) for
# MPI_Allreduce on 8 ranks, 8 B latency and 4 MiB bandwidth between 2; the
# same program, ranks and VMs over TCP.  Each figure is npo-mpi-test's
# median of 5 timed runs, with the slowest and fastest.  First 8 ranks in
# one VM (TCP over the guest's loopback), then 2x4 across two VMs whose
# devices form one ring (TCP over the Ethernet link between the guests).
"$vm" --kernel 6.12 --devices 8 --topology ring --mem 4096 --timeout 1500 \
	--initrd-extra "$BUILD/vm/openmpi.cpio.gz" \
	--add "$here/vm-mpi.sh" -- sh "$here/vm-mpi.sh" 67108864 \
	>"$out/mpi-vm.log" 2>&1 ||
	{ cat "$out/mpi-vm.log"; echo "bench: the MPI benchmark VM failed" >&2; exit 1; }
"$here/mpi-table.py" "$out/mpi-vm.log" "$out" "" "one VM" | merge
"$here/../vm/two-vm-mpi.sh" 6.12 "$out/mpi-2vm" --add "$here/vm-mpi.sh" -- \
	"sh $here/vm-mpi.sh 67108864 --two-vms" ||
	{ tail -n 60 "$out/mpi-2vm/a.log" "$out/mpi-2vm/b.log"
	  echo "bench: the two-VM MPI benchmark failed" >&2; exit 1; }
"$here/mpi-table.py" "$out/mpi-2vm/a.log" "$out" _2vm "2x4 across two VMs" | merge
gnuplot <<GP || { echo "bench: gnuplot failed" >&2; exit 1; }
set terminal svg size 800,500
set output "$out/mpi_allreduce_busbw.svg"
set title "MPI_Allreduce, 8 ranks: bus bandwidth"
set xlabel "message size (bytes)"
set ylabel "busbw (GB/s)"
set logscale x 2
set key top left
set grid
plot "$out/mpi_allreduce.txt" using 1:4 with linespoints title "NPO, one VM", \
     "$out/mpi_allreduce.txt" using 1:7 with linespoints title "TCP, one VM (loopback)", \
     "$out/mpi_allreduce_2vm.txt" using 1:4 with linespoints title "NPO, 2x4 across two VMs", \
     "$out/mpi_allreduce_2vm.txt" using 1:7 with linespoints title "TCP, 2x4 across two VMs (Ethernet)"
GP

# --- the cost curves: ring size, queues, message size, QEMU processes ------
"$here/scaling.sh" "$out" >"$out/scaling.log" 2>&1 ||
	{ cat "$out/scaling.log"; echo "bench: the scaling curves failed" >&2; exit 1; }
python3 -c 'import json, sys
for k, v in json.load(open(sys.argv[1])).items():
    print("scaling_" + k, json.dumps(v, separators=(",", ":")))' "$out/scaling.json" | merge

python3 - "$results" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
width = max(len(k) for k in data)
print(f"{'figure':<{width}}  value")
for k in sorted(data):
    print(f"{k:<{width}}  {data[k]}")
PY
echo "written: $results"
