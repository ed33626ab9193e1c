#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Devices that lie about their geometry (the model's hostile=N: too many
# ports, lanes per port out of range, DMA queues but none usable, a
# doorbell stride or clock adjustment range out of range) beside one
# honest device: the driver refuses each, saying why, and binds the
# honest one.  Prints "ok"/"not ok" lines and exits 0/1.
#
# Usage: hostile-geometry-test.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.1}
vm_scratch

fail=0
"$here/npo-vm" --kernel "$kernel" --devices 6 --device-prop 1=hostile=1 \
	--device-prop 2=hostile=2 --device-prop 3=hostile=3 \
	--device-prop 4=hostile=4 --device-prop 5=hostile=5 -- \
	sh -c '/sbin/modprobe npo; ls /dev | sed -n "s/^\(npo[0-9]*\)$/DEVICE \1/p"' \
	>"$work/vm.log" 2>&1
rc=$?
check "the VM ended cleanly (status $rc)" [ $rc = 0 ]
only_npo0() {
	[ "$(grep -c '^DEVICE ' "$work/vm.log")" = 1 ] &&
		grep -q '^DEVICE npo0$' "$work/vm.log"
}
check "one device bound, the honest one" only_npo0
for why in 'more ports than the driver handles' 'lanes per port out of range' \
	'DMA queues, but none of them' 'doorbell stride out of range' \
	'clock adjustment range out of range'; do
	check "refused: $why" grep -q "refusing the device: $why" "$work/vm.log"
done
[ $fail = 0 ] || grep -v '^\[  ' "$work/vm.log" | sed 's/^/  /'
exit $fail
