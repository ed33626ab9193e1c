#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench: measure, print a table, and write the figures into
# build/bench/results.json (one JSON object; each section adds its keys).
# Each run starts from an empty file, written only by this run; a section
# that cannot give all its figures stops the run, and at the end the keys
# must be exactly those expected-keys.txt names.
set -euo pipefail

build=${BUILD:?}
here=$(dirname "$(realpath "$0")")
vm=$here/../vm/npo-vm
out=$build/bench
mkdir -p "$out"
results=$out/results.json
echo '{}' >"$results"

# merge: "KEY JSON" lines from standard input into results.json, with
# Python's json module, each figure said as it comes.  Fed by a pipe, so
# under pipefail a producer that fails stops the run rather than leaving
# old or missing figures.
merge() {
	python3 -c '
import json, sys
path = sys.argv[1]
with open(path) as f:
    data = json.load(f)
for line in sys.stdin:
    key, value = line.rstrip("\n").split(" ", 1)
    data[key] = json.loads(value)
    print(f"bench: {key} = {value}", flush=True)
with open(path, "w") as f:
    json.dump(data, f, indent=2, sort_keys=True)
    f.write("\n")
' "$results"
}

# Where the machine and the run are said: the figures mean nothing without.
python3 - "$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)" <<'PY' | merge
import json, os, platform, sys, time
print("run_date", json.dumps(time.strftime("%Y-%m-%d")))
print("run_commit", json.dumps(sys.argv[1]))
print("run_machine", json.dumps(f"{platform.node()}: {os.cpu_count()} CPUs, "
      f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') >> 30} GiB, QEMU TCG"))
PY

for k in 6.1 6.12; do
	t0=$(date +%s.%N)
	"$vm" --kernel "$k" --devices 0 -- true >/dev/null
	t1=$(date +%s.%N)
	boot=$(python3 -c "print(round($t1 - $t0, 2))")
	key=${k/./_}
	echo "vm_boot_s_$key $boot" | merge

	# A ring of 8 has 16 links, i.e. 16 ports with a peer to bring up.
	# npo-bench exits non-zero when a figure could not be measured.
	"$vm" --kernel "$k" --devices 8 --topology ring -- \
		env NPO_BENCH_LINKS=16 /usr/lib/npo/bench/npo-bench \
		>"$out/npo-bench-$k.log" 2>&1 ||
		{ cat "$out/npo-bench-$k.log"; echo "bench: npo-bench failed on $k" >&2; exit 1; }
	json=$(grep '^{' "$out/npo-bench-$k.log" | tail -n1)
	[ -n "$json" ] || { echo "bench: npo-bench printed no figures on $k" >&2; exit 1; }
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
for size in 1M 8M 1G; do
	for _ in $(seq "$runs"); do
		"$perf" -j memcpy -s $size
	done >"$out/host-memcpy-$size.log"
done
# Two linked devices in one VM; 3 GiB of guest RAM holds the two 1 GiB
# spans and keeps transparent huge pages available (the kernel turns them
# off below 512 MiB), as on any machine a collective library would run on.
"$vm" --kernel 6.12 --devices 2 --topology ring --mem 3072 --timeout 2400 \
	--add "$here/vm-dma.sh" -- sh "$here/vm-dma.sh" $runs >"$out/dma-vm.log" 2>&1 ||
	{ cat "$out/dma-vm.log"; echo "bench: the DMA benchmark VM failed" >&2; exit 1; }
python3 - "$out" <<'PY' | merge
import json, statistics, sys
out_dir = sys.argv[1]
runs = {}
def add(key, value):
    runs.setdefault(key, []).append(value)
TAGS = {1 << 20: "1MiB", 8 << 20: "8MiB", 1 << 30: "1GiB"}
for size in ("1M", "8M", "1G"):
    for line in open(f"{out_dir}/host-memcpy-{size}.log"):
        r = json.loads(line)["results"][0]
        add(f"host_memcpy_bw_{TAGS[r['bytes']]}_GBps", r["bw_gbps"])
span = "16MiB"
for line in open(f"{out_dir}/dma-vm.log"):
    # perftest reports Gb/s and microseconds.
    if line.startswith("RXE_BW "):
        add("rxe_write_bw_1MiB_GBps", float(line.split()[1]) / 8)
    elif line.startswith("RXE_LAT "):
        add("rxe_write_lat_8B_us", float(line.split()[1]))
    elif line.startswith("SPAN "):
        span = line.split()[1]
    if not line.startswith("{"):
        continue
    doc = json.loads(line)
    r = doc["results"][0]
    tag = TAGS.get(r["bytes"], f'{r["bytes"]}B')
    # Two processes in perftest's shapes: "pp_" (ping-pong and window).
    pp = doc.get("processes") == 2
    if doc["test"] == "write_bw" and pp:
        add(f"pp_write_bw_{tag}_GBps", r["bw_gbps"])
    elif doc["test"] == "write_bw" and span == "1GiB":
        add(f"dma_write_bw_{tag}_span_1GiB_GBps", r["bw_gbps"])
    elif doc["test"] == "write_bw":
        add(f"dma_write_bw_{tag}_GBps", r["bw_gbps"])
    elif doc["test"] == "write_lat" and pp:
        # Half of a ping-pong's round trip, as ib_write_lat reports.
        add("pp_write_lat_8B_us", r["lat_median_us"])
    elif doc["test"] == "write_lat":
        # One process, its own device: posted, run inside the doorbell
        # store, its completion polled; no link, engine or peer time.
        add("inproc_post_to_cqe_8B_us", r["lat_median_us"])
        add("inproc_post_to_cqe_8B_p99_us", r["lat_p99_us"])
    elif doc["test"] == "write_rate":
        add("msg_rate_8B_Mops", r["msg_rate_mpps"])
    elif doc["test"] == "memcpy":
        add(f"vm_memcpy_bw_{tag}_GBps", r["bw_gbps"])
out = {}
# Each figure: the median of its runs, and [min, max] as its spread.
for key, values in runs.items():
    if len(values) != 5:
        sys.exit(f"bench: {key}: {len(values)} runs of 5")
    out[key] = round(statistics.median(values), 3)
    out[key + "_spread"] = [round(min(values), 3), round(max(values), 3)]
# Ratios compare like with like only (Documentation/testing.rst): bytes
# the host copies for the device against the host's own copy of as many,
# in memory of the same kind, cache-resident or not.
for tag in ("1MiB", "8MiB"):
    out[f"dma_write_bw_{tag}_vs_host_memcpy"] = round(
        out[f"dma_write_bw_{tag}_GBps"] / out[f"host_memcpy_bw_{tag}_GBps"], 2)
out["dma_write_bw_8MiB_span_1GiB_vs_host_memcpy_1GiB"] = round(
    out["dma_write_bw_8MiB_span_1GiB_GBps"] / out["host_memcpy_bw_1GiB_GBps"], 2)
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
# One WRITE to the other process, posted to its completion: the request
# and its acknowledgement, a full round trip; half of it beside.
out["xproc_write_lat_8B_us"] = x["write_lat_8B_us"]
out["xproc_write_lat_8B_p99_us"] = x["write_lat_8B_p99_us"]
out["xproc_write_half_rtt_8B_us"] = round(x["write_lat_8B_us"] / 2, 2)
# perf prints the total seconds of 20000 round trips per run.
pipe = sorted(float(l) * 1e6 / 20000 for l in open(f"{d}/host-pipe.log")
              if l.strip().replace(".", "", 1).isdigit())
if len(pipe) < 5:
    sys.exit("bench: no pipe round trips in " + d)
out["host_pipe_rtt_us"] = round(pipe[len(pipe) // 2], 2)
out["host_pipe_rtt_us_spread"] = [round(pipe[0], 2), round(pipe[-1], 2)]
out["xproc_write_lat_8B_vs_host_pipe_rtt"] = round(
    x["write_lat_8B_us"] / out["host_pipe_rtt_us"], 2)
for k, v in out.items():
    print(k, json.dumps(v, separators=(",", ":")))
PY

# --- surprise removal: a card falls off the bus under load -----------------
# From the last good completion the guest saw to the release of the later
# of its two waiting processes (tools/vm/surprise-remove-test.sh), five
# times on 6.12.
for i in $(seq "$runs"); do
	"$here/../vm/surprise-remove-test.sh" 6.12 --json "$out/surprise-$i.json" \
		>"$out/surprise-$i.log" 2>&1 ||
		{ cat "$out/surprise-$i.log"; echo "bench: the surprise removal failed" >&2; exit 1; }
done
python3 - "$out" "$runs" <<'PY' | merge
import json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
v = [json.load(open(f"{d}/surprise-{i}.json"))["surprise_remove_s"] for i in range(1, n + 1)]
print("surprise_remove_s", round(statistics.median(v), 3))
print("surprise_remove_s_spread", json.dumps([round(min(v), 3), round(max(v), 3)]))
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
     "$out/mpi_allreduce.txt" using 1:10 with linespoints title "shared memory, one VM (Open MPI's default)", \
     "$out/mpi_allreduce.txt" using 1:7 with linespoints title "TCP, one VM (loopback)", \
     "$out/mpi_allreduce_2vm.txt" using 1:4 with linespoints title "NPO, 2x4 across two VMs", \
     "$out/mpi_allreduce_2vm.txt" using 1:10 with linespoints title "shared memory and TCP, 2x4 across two VMs", \
     "$out/mpi_allreduce_2vm.txt" using 1:7 with linespoints title "TCP, 2x4 across two VMs (Ethernet)"
GP

# --- the cost curves: ring size, queues, message size, QEMU processes ------
"$here/scaling.sh" "$out" >"$out/scaling.log" 2>&1 ||
	{ cat "$out/scaling.log"; echo "bench: the scaling curves failed" >&2; exit 1; }
python3 -c 'import json, sys
for k, v in json.load(open(sys.argv[1])).items():
    print("scaling_" + k, json.dumps(v, separators=(",", ":")))' "$out/scaling.json" | merge

# Figures that time two busy pollers taking turns on single-threaded
# TCG's one vCPU thread: the host's scheduling more than the transport.
python3 - <<'PY' | merge
import json
print("scheduler_bound", json.dumps([
    "pp_write_lat_8B_us", "rxe_write_lat_8B_us",
    "mpi_latency_8B_us", "mpi_sm_latency_8B_us", "mpi_tcp_latency_8B_us"]))
PY

# Exactly the keys expected: none missing, none left over from a rename.
"$here/check-keys.py" "$results" "$here/expected-keys.txt"

python3 - "$results" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
width = max(len(k) for k in data)
print(f"{'figure':<{width}}  value")
for k in sorted(data):
    print(f"{k:<{width}}  {data[k]}")
PY
echo "written: $results"
