#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of clock-path-test.sh: two devices lock to node 1 (with
# LATE_US set, each answers every SYNC up to that late, a debugfs test
# hook, as a loaded host does), say LOCKED, and 25 s later whether they
# are still locked.  Right after modprobe each device leads alone and
# calls itself locked, until it hears the other: locked means both
# locked to node 1.
locked() { [ "$(npoctl -j clock | grep -o "\"state\":\"locked\",\"grandmaster\":1," | wc -l)" -ge 2 ]; }
show() { npoctl clock; cat /sys/kernel/debug/npo/npo*/timesync; }
/sbin/modprobe npo
mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ "${LATE_US:-0}" != 0 ]; then
	for f in /sys/kernel/debug/npo/npo*/timesync_answer_delay_us; do
		echo "$LATE_US" >"$f" || exit 1
	done
fi
ok=
for _ in $(seq 1 1200); do locked && { ok=1; break; }; sleep 0.1; done
[ -n "$ok" ] || { echo NEVER-LOCKED; show; exit 1; }
echo LOCKED
sleep 25
if locked; then echo STILL-LOCKED; else echo LOST-LOCK; show; fi
