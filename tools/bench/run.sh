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

python3 - "$results" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
width = max(len(k) for k in data)
print(f"{'figure':<{width}}  value")
for k in sorted(data):
    print(f"{k:<{width}}  {data[k]}")
PY
echo "written: $results"
