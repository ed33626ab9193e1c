#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of qmp-fault-test.sh: watch npo0/0 with npoctl monitor,
# say READY once it is up, DOWN-SEEN when the host's QMP cut takes it
# down, UP-AGAIN when it is back, then print the events seen.
/sbin/modprobe npo
state() { npoctl -j link show npo0/0 | sed -n "s/.*\"state\":\"\([a-z]*\)\".*/\1/p"; }
wait_for() { for _ in $(seq 1 400); do [ "$(state)" = "$1" ] && return 0; sleep 0.05; done; return 1; }
npoctl monitor > /tmp/events &
wait_for active || { echo NEVER-UP; exit 1; }
echo READY
wait_for detect || { echo NEVER-DOWN; exit 1; }
echo DOWN-SEEN
wait_for active || { echo NEVER-BACK; exit 1; }
echo UP-AGAIN
sleep 0.3
cat /tmp/events
