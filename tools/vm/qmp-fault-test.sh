#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault injection from the host, as an operator's tooling would do it: cut
# a link through QMP (qom-set ... fault "cut 0 1") while the guest watches,
# then restore it.  The guest must see the link go down naming the peer and
# the reason, and come back.  Prints "ok"/"not ok" and exits 0/1.
#
# Usage: qmp-fault-test.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.1}
vm_scratch

vm_start "$work/vm.log" --kernel "$kernel" --devices 2 --topology ring --timeout 300 \
	--add "$here/guest/qmp-fault.sh" -- sh "$here/guest/qmp-fault.sh"

set_fault() { vm_qom_set npo0 fault "$1"; }
get_fault() { vm_qom_get npo0 fault; }

# wait_line PATTERN: until the guest prints it, or the VM ends.
wait_line() {
	vm_wait_line "$work/vm.log" "$vm" "$1" 120
}

ok=1
if wait_line '^READY'; then
	set_fault "cut 0 1" || ok=0
	wait_line '^DOWN-SEEN' || ok=0
	set_fault "cut 0 0" || ok=0
	# Malformed faults are refused by QEMU with a clear error.
	if set_fault "frobnicate" 2>"$work/qmp.err"; then ok=0; fi
	grep -q "is not one of ber|dead" "$work/qmp.err" || ok=0
	if set_fault "rxdrop 0 1" 2>"$work/qmp.err"; then ok=0; fi
	grep -q "rxdrop takes PORT LANE VALUE, VALUE in dB" "$work/qmp.err" || ok=0
	# The old unit is refused, not read as another value.
	if set_fault "ber 0 1 1e-6" 2>"$work/qmp.err"; then ok=0; fi
	grep -q "ber takes PORT LANE VALUE" "$work/qmp.err" || ok=0
	# Faults read back in the words that set them; clear takes them all.
	set_fault "fwbootfail" || ok=0
	set_fault "rxdrop 1 2 2.5" || ok=0
	get_fault >"$work/faults" || ok=0
	grep -q 'fwbootfail;.*rxdrop 1 2 2.5;' "$work/faults" || ok=0
	set_fault "clear" || ok=0
	get_fault >"$work/faults" || ok=0
	grep -qx '""' "$work/faults" || ok=0
else
	ok=0
fi
wait "$vm"
rc=$?
vm=
if [ $ok = 1 ] && [ $rc = 0 ] && grep -q '^UP-AGAIN' "$work/vm.log" &&
   grep -q 'npo0/0: link-down .*peer node 2/1 (loss of signal)' "$work/vm.log"; then
	echo "ok - a link cut and restored through QMP goes down and comes back"
	exit 0
fi
echo "not ok - a link cut and restored through QMP goes down and comes back"
grep -v '^\[' "$work/vm.log" | tail -n 20 | sed 's/^/  /'
exit 1
