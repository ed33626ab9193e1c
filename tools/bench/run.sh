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

# merge KEY VALUE...: numbers into results.json, with Python's json module.
merge() {
	python3 - "$results" "$@" <<'PY'
import json, sys
path, args = sys.argv[1], sys.argv[2:]
with open(path) as f:
    data = json.load(f)
for key, value in zip(args[::2], args[1::2]):
    data[key] = json.loads(value)
with open(path, "w") as f:
    json.dump(data, f, indent=2, sort_keys=True)
    f.write("\n")
PY
}

for k in 6.1 6.12; do
	t0=$(date +%s.%N)
	"$vm" --kernel "$k" --devices 0 -- true >/dev/null
	t1=$(date +%s.%N)
	boot=$(python3 -c "print(round($t1 - $t0, 2))")
	key=${k/./_}
	merge "vm_boot_s_$key" "$boot"

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
	# shellcheck disable=SC2046
	merge $(cat "$out/vm-$key.args")
done

# --- DMA: host memcpy as the ceiling, then npo-perf in one VM -------------
# Every emulated DMA byte is read and written by QEMU on this host, so a
# single-threaded host memcpy of the same size bounds what NPO can reach.
perf=$build/bin/npo-perf
for size in 1M 8M; do
	gbps=$("$perf" -j memcpy -s $size | python3 -c \
		'import json,sys; print(round(json.load(sys.stdin)["results"][0]["bw_gbps"], 2))')
	merge "host_memcpy_${size,,}_gbps" "$gbps"
done

# Two linked devices in one VM; 1 GiB of guest RAM keeps transparent huge
# pages available (the kernel turns them off below 512 MiB), as on any
# machine a collective library would run on.
"$vm" --kernel 6.12 --devices 2 --topology ring --mem 1024 --timeout 600 -- sh -c '
	modprobe npo && sleep 1
	echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
	for s in 1M 8M; do npo-perf -j -r npo1 write -s $s -n 256; done
	npo-perf -j -r npo1 write lat -s 8
	npo-perf -j -r npo1 write rate -s 8 -b 32
	for s in 1M 8M; do npo-perf -j memcpy -s $s; done
' >"$out/dma-vm.log" 2>&1 || { cat "$out/dma-vm.log"; echo "bench: npo-perf failed" >&2; exit 1; }
# shellcheck disable=SC2046
merge $(python3 - "$out/dma-vm.log" "$results" <<'PY'
import json, sys
host = json.load(open(sys.argv[2]))
out = {}
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    doc = json.loads(line)
    r = doc["results"][0]
    tag = {1 << 20: "1m", 8 << 20: "8m"}.get(r["bytes"], f'{r["bytes"]}b')
    if doc["test"] == "write_bw":
        out[f"npo_write_bw_{tag}_gbps"] = round(r["bw_gbps"], 2)
        out[f"npo_write_bw_{tag}_vs_host_memcpy"] = round(
            r["bw_gbps"] / host[f"host_memcpy_{tag}_gbps"], 2)
    elif doc["test"] == "write_lat":
        out["npo_write_lat_8b_us"] = round(r["lat_median_us"], 2)
        out["npo_write_lat_8b_p99_us"] = round(r["lat_p99_us"], 2)
    elif doc["test"] == "write_rate":
        out["npo_msg_rate_8b_mpps"] = round(r["msg_rate_mpps"], 3)
    elif doc["test"] == "memcpy":
        out[f"vm_memcpy_{tag}_gbps"] = round(r["bw_gbps"], 2)
for k, v in out.items():
    print(k, json.dumps(v))
PY
)

python3 - "$results" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
width = max(len(k) for k in data)
print(f"{'figure':<{width}}  value")
for k in sorted(data):
    print(f"{k:<{width}}  {data[k]}")
PY
echo "written: $results"
