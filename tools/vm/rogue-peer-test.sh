#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A hostile peer on a keyed fabric: rogue-peer.py hands npo3's port 0
# forged routing adverts and time-sync messages through the model's test
# equipment (QOM "inject"), as a host whose root loads its own driver
# could send them, with and without the fabric key, while guest/rogue.sh
# keeps a ring of 8 keyed devices that allow only node 1 as grandmaster
# and reports what each believes (routes, clocks, the routing, clock and
# key counters).  QEMU traces every link message a device sends, an
# independent view of what went out of a quarantined port, and the
# model's clock_offsets the clocks' true spread.  Each attack
# is an "ok"/"not ok" line; the guest's kernel must stay quiet (npo-vm
# fails on a splat).  Exits 0/1.
#
# Usage: rogue-peer-test.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.1}
devices=8
vm_scratch
head -c 32 /dev/urandom >"$work/fabric.key"
ctl=$work/ctl.sock

vm_start "$work/vm.log" --kernel "$kernel" --devices $devices --topology ring \
	--node-base 1 --timeout 1200 --mem 512 \
	--qemu-arg -serial --qemu-arg "unix:$ctl,server=on,wait=off" \
	--qemu-arg -trace --qemu-arg npo_lmsg_send \
	--add "$here/guest/rogue.sh" --add "$work/fabric.key" \
	-- sh "$here/guest/rogue.sh" "$work/fabric.key" $devices

fail=0
if vm_wait_line "$work/vm.log" "$vm" '^READY' 600; then
	/usr/bin/python3 "$here/rogue-peer.py" "$qmp" "$ctl" "$work/vm.log" \
		"$work/fabric.key" $devices
	rc=$?
	check "the hostile peer's attacks were each repelled" [ $rc = 0 ]
else
	check "the keyed ring came up" false
	grep '^GUEST-FAIL' "$work/vm.log" | sed 's/^/  /'
fi
wait "$vm"
rc=$?
vm=
check "the guest ended cleanly, its kernel quiet (status $rc)" [ $rc = 0 ]
[ $fail = 0 ] || grep -v 'npo_lmsg_send\|^\[' "$work/vm.log" | tail -n 30 | sed 's/^/  /'
exit $fail
