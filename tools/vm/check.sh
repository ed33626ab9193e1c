#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check, after the build: lint, host unit tests, and the selftests in
# a VM with 8 NPO devices on each kernel.  Logs go to build/check/.  Ends
# with "N passed, M failed" (skips are reported on the same line) and
# fails if anything failed.
#
# With --vm-only (make check-debug), only the main selftest VM runs, with
# more memory and time for a kernel that checks every access.
#
# Usage: check.sh [--vm-only] KERNEL...
set -uo pipefail

vm_only=
if [ "${1:-}" = --vm-only ]; then
	vm_only=1
	shift
fi

build=${BUILD:?}
here=$(dirname "$(realpath "$0")")
top=$(realpath "$here/../..")
logs=$build/check${vm_only:+-debug}
rm -rf "$logs" && mkdir -p "$logs"
passed=0 failed=0 skipped=0
failures=()

record() {	# record NAME STATUS
	if [ "$2" = 0 ]; then
		passed=$((passed + 1))
		echo "ok - $1"
	else
		failed=$((failed + 1))
		failures+=("$1")
		echo "not ok - $1"
	fi
}

# Record each "ok - X" / "not ok - X" line of a host-side test script, and
# its exit status when no line explains it.
record_script() {	# record_script PREFIX LOG STATUS
	local line
	while read -r line; do
		case $line in
		"ok - "*) record "$1: ${line#ok - }" 0 ;;
		"not ok - "*) record "$1: ${line#not ok - }" 1 ;;
		esac
	done < <(grep -E '^(not )?ok - ' "$2")
	grep -qE '^not ok - ' "$2" || [ "$3" = 0 ] ||
		record "$1: the test failed (status $3)" 1
}

# Count the kselftest result lines of a log; prefix is "" or "# ".
count_tap() {	# count_tap NAME LOG PREFIX
	local name=$1 log=$2 pre=$3 p f s
	p=$(grep -cE "^${pre}ok [0-9]+ " "$log" | head -n1)
	s=$(grep -cE "^${pre}ok [0-9]+ .*# SKIP" "$log" | head -n1)
	f=$(grep -cE "^${pre}not ok [0-9]+ " "$log" | head -n1)
	passed=$((passed + p - s))
	skipped=$((skipped + s))
	failed=$((failed + f))
	if [ "$f" -gt 0 ]; then
		while read -r line; do
			failures+=("$name: ${line#"$pre"}")
		done < <(grep -E "^${pre}not ok [0-9]+ " "$log")
	fi
}

cd "$top" || exit 1
if [ -z "$vm_only" ]; then
echo "== lint"
for target in checkpatch kernel-doc rst files sparse-6.1 sparse-6.12; do
	make --no-print-directory -s "$target" >"$logs/$target.log" 2>&1
	rc=$?
	[ $rc = 0 ] || sed 's/^/  /' "$logs/$target.log"
	record "lint: $target" $rc
done

echo "== host unit tests (ASan/UBSan)"
make --no-print-directory -s host-tests-build >"$logs/host-build.log" 2>&1 ||
	{ cat "$logs/host-build.log"; record "host tests: build" 1; }
for t in "$build"/host-tests/*_test; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	# IPATH_NO_BACKTRACE: libfabric's PSM dependency writes a backtrace
	# file into the working folder when a process aborts, as a failed
	# ASSERT does; not into the tree.
	BUILD=$build FWIMAGE=$build/firmware/npo/npo-fw.bin IPATH_NO_BACKTRACE=1 \
		"$t" >"$logs/host-$name.log" 2>&1
	rc=$?
	grep -E '^(not )?ok |ERROR|runtime error' "$logs/host-$name.log" |
		sed 's/^/  /'
	count_tap "host $name" "$logs/host-$name.log" ""
	# A crash or sanitizer report with no "not ok" line still fails.
	if [ $rc != 0 ] && ! grep -qE '^not ok' "$logs/host-$name.log"; then
		record "host $name: exit status $rc" 1
	fi
done
fi

# wire_stats_poll SOCK PID OUT: while npo-vm PID runs, read every
# device's transport counters (QOM wire_stats, "sock N shm N wraps N":
# frames read from sockets and from peers' rings, ring wraps) over QMP
# every few seconds, and keep their sums from the last full reading in
# OUT.  They only grow, so the last reading before the VM ends holds.
wire_stats_poll() {
	local sock=$1 pid=$2 out=$3 i all got
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		all='' got=0
		for i in 0 1 2 3 4 5 6 7; do
			all+=" "$(python3 "$here/qmp.py" --print "$sock" \
				"{\"execute\": \"qom-get\", \"arguments\": {\"path\": \"/machine/peripheral/npo$i\", \"property\": \"wire_stats\"}}" \
				2>/dev/null) && got=$((got + 1))
		done
		[ $got = 8 ] || continue
		# ' "sock 1 shm 2 wraps 0" "sock ..."' -> the three sums.
		echo "$all" | tr -d '"' | awk '{ for (i = 1; i < NF; i += 2) t[$i] += $(i + 1) }
			END { print "sock", t["sock"] + 0, "shm", t["shm"] + 0, "wraps", t["wraps"] + 0 }' >"$out"
	done
}

# Selftests in a VM of 8 devices in a ring; sets rc to npo-vm's status.
# With WIRE_STATS set to a file, its transport counters go there
# (wire_stats_poll).
vm_selftests() {	# vm_selftests LABEL LOG DEVICE_PROPS [TEST...]
	local label=$1 log=$2 props=$3 sock pid poll=
	shift 3
	sock=$logs/qmp-$k.sock
	rm -f "$sock"
	"$here/npo-vm" --kernel "$k" --devices 8 --topology ring \
		--timeout "$vm_timeout" --mem "$vm_mem" \
		${WIRE_STATS:+--qemu-arg -qmp --qemu-arg "unix:$sock,server=on,wait=off"} \
		${props:+--device-props "$props"} -- \
		env NPO_EXPECT_DEVICES=8 NPO_EXPECT_TOPOLOGY=ring NPO_EXPECT_NODE_BASE=1 \
		NPO_EXPECT_CROSS_TIMESTAMPS="$([ "$k" = 6.1 ] && echo 0 || echo 1)" \
		NPO_TEST_TIMEOUT="$test_timeout" NPO_TEST_TIME_SCALE="$time_scale" \
		/usr/lib/npo/selftests/run_tests.sh "$@" \
		>"$log" 2>&1 &
	pid=$!
	if [ -n "${WIRE_STATS:-}" ]; then
		wire_stats_poll "$sock" $pid "$WIRE_STATS" &
		poll=$!
	fi
	wait $pid
	rc=$?
	# Only the poller: a bare wait would also wait for phc-test.sh, and
	# forget its status.
	[ -z "$poll" ] || wait "$poll"
	rm -f "$sock"
	if [ $rc = 0 ]; then
		grep -E '^(# )?(not )?ok |splat|^npo-vm' "$log" | sed 's/^/  /'
	else
		sed 's/^/  /' "$log"
	fi
	count_tap "$label" "$log" "# "
	# Failures the harness could not report itself: a binary killed by a
	# signal or the timeout, a kernel splat, a TAP plan it did not keep,
	# skips where devices are, or exit status 1 with no "not ok" of its
	# own to explain it.  Each binary is judged on its own lines.
	while read -r line; do
		record "$label: ${line#*selftests: npo: }" 1
	done < <(awk '
		/^# not ok [0-9]+ / { explained++ }
		/^(not )?ok [0-9]+ selftests: npo: / {
			if ($0 ~ /^not ok/ &&
			    !($0 ~ /# exit status 1$/ && explained > 0))
				print
			explained = 0
		}' "$log")
	# The runner itself must have got as far as its plan.
	if grep -q '^Bail out!' "$log"; then
		record "$label: $(grep -m1 '^Bail out!' "$log")" 1
	fi
}

# The host-side lanes, run on each kernel after its selftests: a script of
# this folder that prints "ok - " and "not ok - " lines (lib.sh's check)
# and exits non-zero on a failure.  KERNEL|NAME|TITLE|SCRIPT [ARGUMENT...]:
# KERNEL is * for every kernel; in the arguments (split at spaces), $k is
# the kernel.
lanes=(
	'*|MPI|Open MPI over the npo libfabric provider, 8 ranks on 8 devices|mpi-test.sh $k'
	"*|metrics|npoctl export read by Prometheus' client library|export-test.sh \$k"
	'*|counters|a device that cannot count symbol errors|counter-support-test.sh $k'
	'*|geometry|devices that lie about their geometry are refused|hostile-geometry-test.sh $k'
	'*|QMP faults|fault injection from the host through QMP|qmp-fault-test.sh $k'
	'*|hot-unplug|hot-unplug under load through QMP|hotplug-test.sh $k'
	'*|surprise removal|a card falls off the bus under load|surprise-remove-test.sh $k'
	"6.12|hostile rings|a hostile peer's shared-memory rings|hostile-ring-test.sh \$k"
	"*|rogue peer|a hostile peer's routing adverts on a keyed fabric|rogue-peer-test.sh \$k"
	'*|clock|fabric time measured from the host|clock-sync-test.sh $k'
	'*|clock paths|link asymmetry, oscillator wander, late answers|clock-path-test.sh $k'
	'*|two VMs|two VMs sharing a fabric|two-vm-test.sh $k'
	'*|fabric across two VMs|the fabric tools across two VMs: diagnose, fabric merge, miswired sockets|two-vm-fabric.sh $k'
	'*|MPI across two VMs|Open MPI across two VMs, 2x4 ranks on one ring of 8|mpi-test.sh $k --two-vms'
)

# run_lane KERNEL LANE: one line of the table above.  What the script
# prints besides its verdicts (figures, the guest's output on a failure)
# is shown indented; each verdict is a check.
run_lane() {
	local k=$1 when name title cmd log rc
	local -a argv
	IFS='|' read -r when name title cmd <<<"$2"
	case $when in
	'*'|6.1|6.12) ;;
	*) record "lane \"$name\": no such kernel \"$when\"" 1; return ;;
	esac
	[ "$when" = '*' ] || [ "$when" = "$k" ] || return 0
	echo "== $title, kernel $k"
	read -r -a argv <<<"${cmd//\$k/"$k"}"
	if [ ${#argv[@]} = 0 ]; then
		record "lane \"$name\": no script" 1
		return
	fi
	log=$logs/${name// /-}-$k.log
	BUILD=$build "$here/${argv[0]}" "${argv[@]:1}" >"$log" 2>&1
	rc=$?
	grep -vE '^(not )?ok - ' "$log" | sed 's/^/  /'
	record_script "kernel $k: $name" "$log" $rc
}

# The binaries the VM must run, by name from the sources: an image that
# lost one (or all: "1..0" is a passing plan) fails rather than passes.
selftests=()
for src in "$top"/selftests/*_test.c; do
	src=${src##*/}
	selftests+=("${src%.c}")
done
[ ${#selftests[@]} -gt 20 ] || record "selftests: only ${#selftests[@]} found in $top/selftests" 1
vm_timeout=1800 vm_mem=512 test_timeout=300 time_scale=1
# KASAN's shadow and kmemleak's pool need room; every access is checked,
# so a binary may take several times as long, and each test's own limit
# in the harness is scaled likewise (a flash activation took over 30 s).
[ -n "$vm_only" ] && vm_timeout=5400 vm_mem=1024 test_timeout=1200 time_scale=4
for k in "$@"; do
	# The kernel's phc.sh sleeps 221 s of its 4 minutes: it runs beside
	# the selftest VM, in a VM of its own.
	phc_pid=
	if [ -z "$vm_only" ]; then
		"$here/phc-test.sh" "$k" >"$logs/phc-$k.log" 2>&1 &
		phc_pid=$!
	fi
	echo "== selftests in a VM, kernel $k, 8 devices in a ring"
	vm_selftests "kernel $k" "$logs/vm-$k.log" "" "${selftests[@]}"
	case $rc in
	0|1) ;;
	99) record "kernel $k: guest kernel splat" 1 ;;
	124) record "kernel $k: VM timed out" 1 ;;
	*) record "kernel $k: VM failed (status $rc)" 1 ;;
	esac
	[ -n "$vm_only" ] && continue

	echo "== the kernel's PHC selftest (phc.sh) on every clock handed to user space, kernel $k"
	wait "$phc_pid"
	rc2=$?
	sed 's/^/  /' "$logs/phc-$k.log"
	record_script "kernel $k: phc.sh" "$logs/phc-$k.log" $rc2

	# The fabric transport that carries data between QEMU processes,
	# exercised by the whole remote and route suites between devices of
	# one VM (every hop a hop between processes, routed frames passed on
	# by each device on the way): on
	# one kernel over the smallest shared-memory rings (full all the
	# time), on the other over the sockets alone (hosts sharing no
	# memory).  Every other lane runs on the default 4 MiB rings.
	case $k in
	6.1) wire=wire_data=on,wire_ring_kib=128 how="128 KiB shared-memory rings" ;;
	*) wire=wire_data=on,wire_shm=off how="the link sockets alone" ;;
	esac
	echo "== remote, route and fabric acceptance selftests with every byte over $how, kernel $k"
	rm -f "$logs/wire-stats-$k"
	WIRE_STATS=$logs/wire-stats-$k vm_selftests "kernel $k, over the wire" \
		"$logs/vm-wire-$k.log" "$wire" \
		npo_remote_test npo_route_test npo_acceptance_test
	[ $rc = 0 ] || [ $rc = 1 ] ||
		record "kernel $k, over the wire: VM failed (status $rc)" 1
	# The lane ran over the transport, not in memory: frames were read
	# from where this lane sends them, and not from the other path.
	read -r _ sock _ shm _ wraps 2>/dev/null <"$logs/wire-stats-$k" || sock=
	echo "  transport frames received: ${sock:-?} from sockets, ${shm:-?} from rings (${wraps:-?} ring wraps)"
	case $k in
	6.1) [ "${shm:-0}" -gt 0 ] && [ "${wraps:-0}" -gt 0 ] ;;
	*) [ "${sock:-0}" -gt 0 ] && [ "${shm:-1}" = 0 ] ;;
	esac
	record "kernel $k, over the wire: the frames crossed $how" $?
	for lane in "${lanes[@]}"; do
		run_lane "$k" "$lane"
	done
done

echo
if [ ${#failures[@]} -gt 0 ]; then
	echo "Failures:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
