#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A device that cannot count symbol errors (symbol_errors=off): npoctl
# must say "unsupported", in its table and in its JSON, never a 0 that
# reads as a clean lane; the counters it has still show.  Prints
# "ok"/"not ok" lines and exits 0/1.
#
# Usage: counter-support-test.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.1}
vm_scratch

guest='/sbin/modprobe npo &&
for i in $(seq 100); do npoctl link show npo0/0 | grep -q active && break; sleep 0.1; done
npoctl link show npo0/0; npoctl -j lane npo0/0'

fail=0
"$here/npo-vm" --kernel "$kernel" --devices 2 --topology ring \
	--device-props symbol_errors=off -- sh -c "$guest" >"$work/vm.log" 2>&1
rc=$?
check "the VM ended cleanly (status $rc)" [ $rc = 0 ]
check "npoctl link show: symbol errors unsupported" \
	grep -q 'symbol errors *unsupported' "$work/vm.log"
check "npoctl -j lane: \"symbol_errors\":\"unsupported\"" \
	grep -q '"symbol_errors":"unsupported"' "$work/vm.log"
check "the counters the device has still count (FEC corrected)" \
	grep -q 'FEC corrected *[0-9]' "$work/vm.log"
[ $fail = 0 ] || grep -v '^\[' "$work/vm.log" | sed 's/^/  /'
exit $fail
