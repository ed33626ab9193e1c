#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of surprise-remove-test.sh.  npo_surprise_load streams on
# npo1 and prints LOADED; the host then makes npo1 fall off the bus.
# Once the load's processes are released (its verdict is TAP), the
# driver's own account is checked, npo0 must still move data, and the
# host is told (RELEASED) to remove the device; then the module must
# unload.  Lines the host reads: LOADED, RELEASED, REMOVED, UNLOADED, and
# "ok - " / "not ok - " verdicts.
#
# Usage: surprise.sh
check() {	# check WHAT COMMAND...: one verdict
	what=$1
	shift
	if "$@"; then echo "ok - $what"; else echo "not ok - $what"; fi
}

/sbin/modprobe npo || { echo "not ok - the driver loads"; exit 1; }
for _ in $(seq 1 300); do
	[ "$(cat /sys/class/npo/npo1/state 2>/dev/null)" = ready ] && break
	sleep 0.1
done
/usr/lib/npo/selftests/npo_surprise_load npo1 >/tmp/load.out 2>&1 &
load=$!
# LOADED goes to the console as soon as the load says it.
for _ in $(seq 1 1200); do
	grep -q '^LOADED' /tmp/load.out && break
	kill -0 $load 2>/dev/null || break
	sleep 0.05
done
grep -q '^LOADED' /tmp/load.out && echo LOADED
wait $load
rc=$?
sed -n 's/^\(not \)\{0,1\}ok [0-9]* - /load: &/p; s/^# /load: # /p' /tmp/load.out
grep '^SURPRISE-RELEASE-S ' /tmp/load.out
check "the load's processes were released as they should (status $rc)" [ $rc = 0 ]

# The driver's account: dead, why, and that nothing recovers it.
pci=$(basename "$(readlink /sys/class/npo/npo1/device)")
check "npo1 is held dead" [ "$(cat /sys/class/npo/npo1/state)" = dead ]
dmesg >/tmp/dmesg.out
check "the kernel log says npo1 left the bus" \
	grep -q "npo $pci: device left the bus" /tmp/dmesg.out
# The report follows the revocation that released the load: give it time.
for _ in $(seq 1 50); do
	devlink health show "pci/$pci" reporter fw -j >/tmp/health.json 2>&1
	grep -q '"state":"error"' /tmp/health.json && break
	sleep 0.1
done
check "devlink's fw reporter is in error" grep -q '"state":"error"' /tmp/health.json
devlink health diagnose "pci/$pci" reporter fw >/tmp/diag.out 2>&1
check "devlink's diagnosis names the fault" grep -q "left the bus" /tmp/diag.out
! devlink health recover "pci/$pci" reporter fw >/tmp/recover.out 2>&1
check "devlink cannot recover it, and says why" grep -q "left the bus" /tmp/recover.out
check "npo0 still moves data" npo-perf -d npo0 write lat -s 8 -n 50
echo RELEASED

for _ in $(seq 1 1200); do
	[ -e /sys/class/npo/npo1 ] || break
	sleep 0.1
done
check "the hot-plug driver removed npo1" [ ! -e /sys/class/npo/npo1 ]
echo REMOVED
check "npo0 still moves data after the removal" npo-perf -d npo0 write lat -s 8 -n 50
/sbin/rmmod npo && echo UNLOADED
