#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Surprise removal under load: while two processes stream on npo1 (one
# polling, one asleep on its interrupt), the host makes the card fall off
# the bus (QMP: fault "vanish": BARs and configuration space read all
# ones, no DMA, no interrupt, its links dark), and only later removes it
# (device_del), as a card that loses power does.  The guest
# (guest/surprise.sh) checks that every request completed exactly once,
# those after the fault with an error, that both processes were released,
# that the driver says why and refuses to recover it, and that npo0 keeps
# moving data; the host checks from its side that the device stayed gone
# and that the guest's kernel logged no splat (npo-vm).  Prints "ok" /
# "not ok" lines and exits 0/1; with --json FILE, writes the time from the
# fault to the release of the last waiter, as the guest saw it.
#
# Usage: surprise-remove-test.sh KERNEL [--json FILE]
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.1}
json=
[ "${2:-}" = --json ] && json=${3:?}
vm_scratch
fail=0

vm_start "$work/vm.log" --kernel "$kernel" --devices 2 --topology ring --timeout 600 \
	--add "$here/guest/surprise.sh" -- sh "$here/guest/surprise.sh"

wait_line() { vm_wait_line "$work/vm.log" "$vm" "$1" "${2:-300}"; }

if check "the guest loaded npo1" wait_line '^LOADED'; then
	check "QMP pulls npo1 off the bus" vm_qom_set npo1 fault vanish
	check "the guest was released and checked it" wait_line '^RELEASED' 180
	# The host's view: the card stays gone, and nothing brings it back.
	check "QEMU says npo1 has left the bus" \
		grep -qx '"vanish;"' <(vm_qom_get npo1 fault)
	! vm_qom_set npo1 fault clear 2>"$work/qmp.err"
	check "a fault on a card off the bus is refused" \
		grep -q "the device has left the bus" "$work/qmp.err"
	check "QMP removes the card" \
		vm_qmp '{"execute": "device_del", "arguments": {"id": "npo1"}}'
	check "the guest saw it removed" wait_line '^REMOVED' 120
fi
wait "$vm"
rc=$?
vm=
check "the module unloads" grep -q '^UNLOADED' "$work/vm.log"
check "the VM ended well: no kernel splat (npo-vm exit $rc)" [ $rc = 0 ]
# The guest's verdicts, the load's included.
grep -E '^(load: )?(not )?ok ' "$work/vm.log" |
	sed -E 's/^load: (not )?ok [0-9]+ - /\1ok - load: /' >"$work/guest"
cat "$work/guest"
grep -q '^not ok' "$work/guest" && fail=1
grep -E '^(load: # |SURPRISE-RELEASE-S )' "$work/vm.log" | sed 's/^/  /'
secs=$(sed -n 's/^SURPRISE-RELEASE-S \([0-9.]*\)$/\1/p' "$work/vm.log")
check "the guest measured the release" [ -n "$secs" ]
if [ $fail = 0 ] && [ -n "$json" ]; then
	python3 -c 'import json, sys
json.dump({"surprise_remove_s": float(sys.argv[2])}, open(sys.argv[1], "w"))' \
		"$json" "$secs"
fi
if [ $fail != 0 ]; then
	echo "  the guest's console, last lines:"
	tail -n 80 "$work/vm.log" | sed 's/^/  /'
fi
exit $fail
