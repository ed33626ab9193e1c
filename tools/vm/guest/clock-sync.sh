#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of clock-sync-test.sh: lock the ring's eight clocks,
# cut node 1 off (debugfs), let node 2 lead, restore node 1; each phase
# announced (LOCKED, RELOCKED, RESTORED, BACK) and held while the host
# measures over QMP, with npoctl's error bounds printed every 0.2 s and
# the devlink clock reporters at each phase.
uptime_s() { cut -d" " -f1 /proc/uptime; }
locked_to() {	# locked_to GM N: N devices locked to grandmaster GM
	[ "$(npoctl -j clock | grep -o "\"state\":\"locked\",\"grandmaster\":$1," | wc -l)" -ge "$2" ]
}
wait_locked() { for _ in $(seq 1 600); do locked_to "$1" "$2" && return 0; sleep 0.1; done; return 1; }
reporter() {	# reporter PHASE DEV: its devlink "clock" reporter, one line
	a=$(basename "$(readlink "/sys/class/npo/$2/device")")
	echo "REPORTER $1 $2 $(devlink -j health show "pci/$a" reporter clock)"
}
start=$(uptime_s)
/sbin/modprobe npo
while :; do echo "BOUNDS $(npoctl -j clock)"; sleep 0.2; done &
wait_locked 1 8 || { echo NEVER-LOCKED; npoctl clock; exit 1; }
echo "LOCKED $start $(uptime_s)"
sleep 28
reporter locked npo0; reporter locked npo1
f=/sys/kernel/debug/npo/npo0/fault
echo "cut 0 1" > $f; echo "cut 1 1" > $f
wait_locked 2 7 || { echo NEVER-RELOCKED; npoctl clock; exit 1; }
echo RELOCKED
sleep 14
reporter cut npo0; reporter cut npo1
echo "HEALTH cut npo1 $(npoctl -j health npo1)"
echo clear > $f
echo RESTORED
wait_locked 1 8 || { echo NEVER-BACK; npoctl clock; exit 1; }
echo BACK
sleep 12
reporter back npo0; reporter back npo1
npoctl clock
