#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of hotplug-test.sh: ROUNDS times, wait for the device in
# npo1's slot to be ready, check that it moves data (every message
# checked where it landed), stream to it with npo-perf, and let the host
# remove it (LOADED tells it to): npo-perf must end with an error, not a
# signal, and npo0 must still move data.  Then the module must unload.
# A stage that does not move for two minutes gets the blocked tasks and
# CPUs dumped (sysrq w and l), so that a hang says where it is.
#
# Usage: hotplug.sh ROUNDS
echo 30 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
stage() { echo "$*" >/tmp/stage; }
(last=; same=0; while sleep 10; do
	s=$(cat /tmp/stage 2>/dev/null)
	[ "$s" = "$last" ] && same=$((same + 1)) || same=0
	last=$s
	[ $same = 12 ] && { echo "STUCK at $s"; echo w >/proc/sysrq-trigger; echo l >/proc/sysrq-trigger; }
done) &
/sbin/modprobe npo
addr=$(basename "$(readlink /sys/class/npo/npo1/device)")
dev_of_slot() {
	for p in "/sys/bus/pci/devices/$addr/npo"/*; do
		[ -e "$p" ] && basename "$p"
		return
	done
}
for round in $(seq 1 "$1"); do
	stage "probe $round"
	d=
	for _ in $(seq 1 600); do
		d=$(dev_of_slot)
		[ -n "$d" ] && [ "$(cat "/sys/class/npo/$d/state" 2>/dev/null)" = ready ] && break
		sleep 0.1
	done
	[ -n "$d" ] || { echo "NO-DEVICE $round"; exit 1; }
	# The device in the slot (the hot-added one from round 2) carries
	# traffic: npo-perf checks every message where it landed.
	stage "verify $round"
	npo-perf -d "$d" write bw -s 64K -n 256 >/tmp/verify.out 2>&1 ||
		{ echo "NO-TRAFFIC $round $d"; cat /tmp/verify.out; exit 1; }
	echo "VERIFIED $round $d"
	stage "load $round"
	npo-perf -d "$d" write bw -s 64K -n 100000000 >/tmp/perf.out 2>&1 &
	perf=$!
	sleep 1
	kill -0 $perf 2>/dev/null || { echo "PERF-DID-NOT-RUN"; cat /tmp/perf.out; exit 1; }
	echo "LOADED $round $d"
	stage "remove $round"
	for _ in $(seq 1 600); do
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
echo UNLOADED
