#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check-mutations: show that tests fail when what they check is
# broken.  Each tools/mutations/NAME.patch breaks one thing on purpose; its
# header says what ("# what:"), what to build ("# build:", make targets,
# may be empty) and the test that must then fail ("# test:", a command run
# from the top of the tree, which passes on the tree as it is), and,
# for a fact the compiler checks, "# caught: build".  For each
# patch: apply it, build, run the test, take the patch back out.  A test
# that still passes is a mutation that survived: the run fails.  The tree
# is rebuilt as it is at the end.
#
# The tree must have no uncommitted change (the patches are applied to it
# and taken out again).  Not part of make check: each mutation rebuilds
# and boots VMs; the whole list takes about an hour on 2 cores.
#
# Usage: run.sh [NAME...]    (default: every patch)
set -uo pipefail

here=$(dirname "$(realpath "$0")")
top=$(realpath "$here/../..")
build=${BUILD:?}
vm=$top/tools/vm/npo-vm
cd "$top" || exit 1

if ! git diff --quiet HEAD; then
	echo "check-mutations: the tree has uncommitted changes: commit or stash them first" >&2
	exit 1
fi

# --- what the tests' lines may call ------------------------------------------

# vm_tests KERNEL TEST...: selftests as make check runs them.
vm_tests() {
	local k=$1
	shift
	"$vm" --kernel "$k" --devices 8 --topology ring --timeout 1800 --mem 512 -- \
		env NPO_EXPECT_DEVICES=8 NPO_EXPECT_TOPOLOGY=ring NPO_EXPECT_NODE_BASE=1 \
		NPO_EXPECT_CROSS_TIMESTAMPS="$([ "$k" = 6.1 ] && echo 0 || echo 1)" \
		/usr/lib/npo/selftests/run_tests.sh "$@"
}

# vm_run KERNEL COMMAND...: a command in a VM of 8, the driver loaded.
vm_run() {
	local k=$1
	shift
	"$vm" --kernel "$k" --devices 8 --topology ring --timeout 900 -- \
		sh -c "/sbin/modprobe npo && sleep 2 && $*"
}

# host_test NAME: one host test binary.
host_test() {
	BUILD=$build FWIMAGE=$build/firmware/npo/npo-fw.bin IPATH_NO_BACKTRACE=1 \
		"$build/host-tests/$1"
}

# runner_reloads KERNEL: a binary that unloads the driver, then the sysfs
# test, which passes only if the runner loaded the driver again between.
runner_reloads() {
	"$vm" --kernel "$1" --devices 8 --topology ring --timeout 900 -- sh -c '
		d=/tmp/runner && mkdir -p $d &&
		ln -s /usr/lib/npo/selftests/run_tests.sh /usr/lib/npo/selftests/npo_sysfs_test $d/ &&
		printf "#!/bin/sh\n/sbin/modprobe -r npo\necho 1..0\n" >$d/npo_a_unload_test &&
		chmod +x $d/npo_a_unload_test &&
		NPO_EXPECT_DEVICES=8 $d/run_tests.sh npo_a_unload_test npo_sysfs_test |
			grep -q "^ok 2 selftests: npo: npo_sysfs_test"'
}

# bench_keys_refuse KEY: results holding every expected key, well formed,
# and KEY besides, must be refused by make bench's key check.
bench_keys_refuse() {
	local f
	f=$(mktemp)
	python3 - "$top/tools/bench/expected-keys.txt" "$1" >"$f" <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("ck", "tools/bench/check-keys.py")
ck = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ck)
keys = set()
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if line:
        keys.update(ck.expand(line))
doc = {}
for k in keys:
    doc[k] = ("x" if k.startswith("run_") else [] if k == "scheduler_bound"
              else {} if k.startswith("scaling_") else [1, 2]
              if k.endswith("_spread") else 1.0)
doc[sys.argv[2]] = 1.0
json.dump(doc, sys.stdout)
PY
	! python3 "$top/tools/bench/check-keys.py" "$f" "$top/tools/bench/expected-keys.txt"
	local rc=$?
	rm -f "$f"
	return $rc
}

# --- the run ------------------------------------------------------------------------

field() {	# field PATCH NAME: the header line "# NAME: ..."
	sed -n "s/^# $2: \{0,1\}//p" "$1" | head -n1
}

patches=()
if [ $# -gt 0 ]; then
	for name in "$@"; do
		patches+=("$here/$name.patch")
	done
else
	patches=("$here"/*.patch)
fi

caught=0 survived=0 broken=0
log=$build/check-mutations
rm -rf "$log" && mkdir -p "$log"
for p in "${patches[@]}"; do
	name=$(basename "$p" .patch)
	what=$(field "$p" what)
	targets=$(field "$p" build)
	test=$(field "$p" test)
	if [ ! -f "$p" ] || [ -z "$test" ] || ! git apply --check "$p" 2>"$log/$name.log"; then
		echo "not ok - $name: the patch does not apply or names no test"
		broken=$((broken + 1))
		continue
	fi
	echo "== $name: $what"
	git apply "$p"
	rc=0
	if [ -n "$targets" ]; then
		# shellcheck disable=SC2086 # make targets, split on purpose
		make --no-print-directory -s $targets >>"$log/$name.log" 2>&1 || rc=build
	fi
	if [ "$rc" = 0 ]; then
		(eval "$test") >>"$log/$name.log" 2>&1
		rc=$?
	fi
	git apply -R "$p"
	if [ "$rc" = build ] && [ "$(field "$p" caught)" = build ]; then
		# A fact checked when it is compiled: the build is the test.
		echo "ok - $name: caught at build time"
		caught=$((caught + 1))
	elif [ "$rc" = build ]; then
		echo "not ok - $name: the mutation does not build (see $log/$name.log)"
		broken=$((broken + 1))
	elif [ "$rc" != 0 ]; then
		echo "ok - $name: caught by $test (status $rc)"
		caught=$((caught + 1))
	else
		echo "not ok - $name: survived $test"
		survived=$((survived + 1))
	fi
done

echo "== rebuilding the tree as it is"
make --no-print-directory -s all initramfs qemu host-tests-build >"$log/rebuild.log" 2>&1 ||
	{ cat "$log/rebuild.log"; echo "check-mutations: the rebuild failed" >&2; exit 1; }
echo "$caught caught, $survived survived, $broken broken (logs in $log)"
[ $survived = 0 ] && [ $broken = 0 ]
