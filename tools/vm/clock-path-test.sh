#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What fabric time sync can and cannot see, measured from the host through
# QMP (clock_offsets), never from a driver.  Two devices, node 1 the
# grandmaster:
#
#   1. link asymmetry: every link's direction from node 1 is 20 ns longer
#      than the way back.  No two-way exchange can see that; the follower
#      must settle half of it, 10 ns, behind the grandmaster (uncalibrated
#      asymmetry is a constant offset, not noise);
#   2. oscillator wander: both clocks' rate errors take a random walk of
#      5 ppb RMS per square root of a second (a plain crystal through
#      temperature swings); the servo must track it: the clocks stay
#      locked, RMS_NS apart on average and never more than MAX_NS;
#   3. late answers: each SYNC answered up to LATE_US late (below).
#
# Prints "ok"/"not ok" lines and exits 0/1.
#
# Usage: clock-path-test.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.12}
vm_scratch
ASYM_PS=20000
WANDER_PPB=5
MAX_NS=40
RMS_NS=15
TOLERANCE_NS=3
LATE_US=40000

fail=0
py() { /usr/bin/python3 -c "$@"; }

# run PROPS LABEL [LATE_US]: one VM; sets $result to the host's view once
# locked.
run() {
	result=
	vm_start "$work/vm-$2.log" --kernel "$kernel" --devices 2 --topology ring \
		--timeout 300 --device-props "$1" \
		--add "$here/guest/clock-path.sh" -- \
		env LATE_US="${3:-0}" sh "$here/guest/clock-path.sh"
	if vm_wait_line "$work/vm-$2.log" "$vm" '^LOCKED' 300; then
		# Let the servo settle, then watch for 15 s.
		sleep 6
		result=$(/usr/bin/python3 "$here/clock-offsets.py" "$qmp" 60 0.25)
		echo "# $2: $result"
	fi
	wait "$vm"
	vm_rc=$?
	vm=
	check "$2: the VM ended cleanly, its kernel quiet (status $vm_rc)" [ $vm_rc = 0 ]
	grep -q '^STILL-LOCKED' "$work/vm-$2.log" || result=
	rm -f "$qmp"
	[ -n "$result" ] || grep -v '^\[' "$work/vm-$2.log" | tail -n 20 | sed 's/^/  /'
}

run "link_asym_ps=$ASYM_PS,link_delay_ns=200" asymmetry
check "asymmetry: the clocks lock and stay locked" [ -n "$result" ]
if [ -n "$result" ]; then
	# Node 2 less node 1, averaged: -ASYM/2, within the stamping noise.
	behind=$(py 'import json,sys; m=json.loads(sys.argv[1])["mean_from_fabric_ns"]
print(round(m["2"] - m["1"], 3))' "$result")
	check "asymmetry: the follower sits ${behind} ns from the grandmaster (expected -$((ASYM_PS / 2000)) +- $TOLERANCE_NS)" \
		py 'import sys; sys.exit(not abs(float(sys.argv[1]) + float(sys.argv[2]) / 2000) < float(sys.argv[3]))' \
		"$behind" "$ASYM_PS" "$TOLERANCE_NS"
fi

run "clock_wander_ppb=$WANDER_PPB" wander
check "wander: the clocks lock and stay locked" [ -n "$result" ]
if [ -n "$result" ]; then
	worst=$(py 'import json,sys; print(json.loads(sys.argv[1])["max_pairwise_ns"])' "$result")
	rms=$(py 'import json,sys; print(json.loads(sys.argv[1])["rms_pairwise_ns"])' "$result")
	check "wander: ${WANDER_PPB} ppb/sqrt(s) tracked, RMS offset ${rms} ns < $RMS_NS ns" \
		py 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$rms" $RMS_NS
	check "wander: max offset ${worst} ns < $MAX_NS ns" \
		py 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$worst" $MAX_NS
fi
# 3. late answers: each SYNC is answered 0..LATE_US late, as on a busy
#    host; the clocks must still lock and sit within MAX_NS.
run "link_delay_ns=200" late $LATE_US
check "late answers: the clocks lock and stay locked" [ -n "$result" ]
if [ -n "$result" ]; then
	worst=$(py 'import json,sys; print(json.loads(sys.argv[1])["max_pairwise_ns"])' "$result")
	check "late answers (up to $LATE_US us): max offset ${worst} ns < $MAX_NS ns" \
		py 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$worst" $MAX_NS
fi
exit $fail
