#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hot-unplug under load, as an operator's tooling does it: while npo-perf
# streams on a device, the host removes it with QMP device_del (the
# guest's pciehp takes it away), then plugs a new one into the same slot
# with device_add, ROUNDS times.  Each time npo-perf must end with an
# error, not be killed by a signal; the other device keeps moving data;
# the hot-added device probes and carries traffic; at the end the module
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

# A stage that does not move for two minutes gets the guest's blocked tasks
# and CPUs dumped (sysrq w and l), so that a hang says where it is.
guest='echo 30 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
stage() { echo "$*" >/tmp/stage; }
(last=; same=0; while sleep 10; do
	s=$(cat /tmp/stage 2>/dev/null)
	[ "$s" = "$last" ] && same=$((same + 1)) || same=0
	last=$s
	[ $same = 12 ] && { echo "STUCK at $s"; echo w >/proc/sysrq-trigger; echo l >/proc/sysrq-trigger; }
done) &
/sbin/modprobe npo
addr=$(basename "$(readlink /sys/class/npo/npo1/device)")
dev_of_slot() { ls "/sys/bus/pci/devices/$addr/npo" 2>/dev/null | head -n 1; }
for round in $(seq 1 '"$rounds"'); do
	stage "probe $round"
	d=
	for i in $(seq 1 600); do
		d=$(dev_of_slot)
		[ -n "$d" ] && [ "$(cat /sys/class/npo/$d/state 2>/dev/null)" = ready ] && break
		sleep 0.1
	done
	[ -n "$d" ] || { echo "NO-DEVICE $round"; exit 1; }
	stage "load $round"
	npo-perf -d "$d" write bw -s 64K -n 100000000 >/tmp/perf.out 2>&1 &
	perf=$!
	sleep 1
	kill -0 $perf 2>/dev/null || { echo "PERF-DID-NOT-RUN"; cat /tmp/perf.out; exit 1; }
	echo "LOADED $round $d"
	stage "remove $round"
	for i in $(seq 1 600); do
		[ -e "/sys/class/npo/$d" ] || break
		sleep 0.1
	done
	[ -e "/sys/class/npo/$d" ] && { echo "NOT-REMOVED $round"; exit 1; }
	stage "perf-exit $round"
	wait $perf
	rc=$?
	echo "PERF-EXIT $round $rc"
	tail -n 2 /tmp/perf.out
	[ $rc -ge 128 ] && { echo "KILLED-BY-SIGNAL $round"; exit 1; }
	[ $rc -eq 0 ] && { echo "NO-ERROR-SEEN $round"; exit 1; }
	stage "npo0 $round"
	npo-perf -d npo0 write lat -s 8 -n 50 >/dev/null || { echo "NPO0-BROKEN $round"; exit 1; }
	echo "REMOVED $round"
done
stage unload
/sbin/rmmod npo || { echo "NO-UNLOAD"; exit 1; }
echo UNLOADED'

vm_start "$work/vm.log" --kernel "$kernel" --devices 2 --topology ring --timeout 600 \
	-- sh -c "$guest"

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
if [ $ok = 1 ] && [ $rc = 0 ] && grep -q '^UNLOADED' "$work/vm.log"; then
	echo "ok - $what"
	grep -E '^(PERF-EXIT|npo-perf)' "$work/vm.log" | sed 's/^/  /'
	exit 0
fi
echo "not ok - $what (npo-vm exit $rc)"
grep -v '^\[ ' "$work/vm.log" | tail -n 30 | sed 's/^/  /'
# The kernel's side of it: what the driver and pciehp said last, and any
# blocked tasks the guest dumped.
echo "  kernel log, last lines:"
grep '^\[ ' "$work/vm.log" | tail -n 150 | sed 's/^/  /'
exit 1
