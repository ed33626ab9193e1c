#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hot-unplug under load, as an operator's tooling does it: while npo-perf
# streams on a device, the host removes it with QMP device_del (the
# guest's pciehp takes it away), then plugs a new one into the same slot
# with device_add, ROUNDS times.  Each time npo-perf must end with an
# error, not be killed by a signal; the other device keeps moving data;
# the hot-added device probes and carries verified traffic before the
# next round's load (every round says VERIFIED); at the end the module
# unloads.  npo-vm fails on any kernel splat.  Prints "ok"/"not ok" and
# exits 0/1.
#
# Usage: hotplug-test.sh KERNEL [ROUNDS]
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.1}
rounds=${2:-3}
vm_scratch

vm_start "$work/vm.log" --kernel "$kernel" --devices 2 --topology ring --timeout 600 \
	--add "$here/guest/hotplug.sh" -- sh "$here/guest/hotplug.sh" "$rounds"

ok=1
for round in $(seq 1 "$rounds"); do
	vm_wait_line "$work/vm.log" "$vm" "^LOADED $round " 300 || { ok=0; break; }
	vm_qmp '{"execute": "device_del", "arguments": {"id": "npo1"}}' || { ok=0; break; }
	vm_wait_line "$work/vm.log" "$vm" "^REMOVED $round\$" 120 || { ok=0; break; }
	[ "$round" = "$rounds" ] && break
	# QEMU frees the id once the guest powered the slot off: retry until then.
	added=0
	for _ in $(seq 1 100); do
		if vm_qmp '{"execute": "device_add", "arguments": {"driver": "npo", "id": "npo1", "bus": "rp1", "node_id": '"$((20 + round))"', "test_mode": true}}' 2>"$work/qmp.err"; then
			added=1
			break
		fi
		sleep 0.2
	done
	[ $added = 1 ] || { cat "$work/qmp.err"; ok=0; break; }
done
wait "$vm"
rc=$?
vm=
what="a device removed under load $rounds times through QMP, others unaffected"
# Each round's device carried verified traffic before it was loaded, the
# hot-added ones included.
verified=$(grep -c '^VERIFIED ' "$work/vm.log")
[ "$verified" = "$rounds" ] || ok=0
if [ $ok = 1 ] && [ $rc = 0 ] && grep -q '^UNLOADED' "$work/vm.log"; then
	echo "ok - $what"
	grep -E '^(VERIFIED|PERF-EXIT|npo-perf)' "$work/vm.log" | sed 's/^/  /'
	exit 0
fi
echo "not ok - $what (npo-vm exit $rc)"
grep -v '^\[ ' "$work/vm.log" | tail -n 30 | sed 's/^/  /'
# The kernel's side of it: what the driver and pciehp said last, and any
# blocked tasks the guest dumped.
echo "  kernel log, last lines:"
grep '^\[ ' "$work/vm.log" | tail -n 150 | sed 's/^/  /'
exit 1
