#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of rogue-peer-test.sh: a ring of devices with the fabric
# key, and answers to the host, which plays a hostile peer through QMP and
# asks over the second serial line (/dev/ttyS1, raw: the console carries
# kernel messages and QEMU's traces, which could split a line) what the
# fabric now believes.  Each request is one line; each answer one line on
# the same serial line, starting with the request's first word in
# capitals:
#
#   routes             ROUTES TOTAL NODE:COUNT...  (routes to each node)
#   wait-routes N S    WAIT-ROUTES ok|timeout SECONDS  (until TOTAL is N)
#   counters           COUNTERS DEV KEY=VALUE... per device, then COUNTERS-END
#   clocks             CLOCKS DEV KEY=VALUE... per device (debugfs
#                      timesync), then CLOCKS-END
#   loglines PATTERN   LOGLINES N  (kernel log lines with PATTERN)
#   miswire D P        MISWIRE ok|fail  (port P of npoD planned elsewhere)
#   unplan D P         UNPLAN ok|fail
#   end                END, and the guest powers off
#
# Usage: rogue.sh KEYFILE DEVICES
key=$1
n=$2
# The kernel's lines stay in its log (the harness reads it for splats).
dmesg -n 1
/sbin/modprobe npo || { echo "GUEST-FAIL modprobe"; exit 1; }

total_routes() { npoctl -j route | grep -o '"dest_node":' | wc -l; }

# wait_routes N SECONDS: until every device's routes number N in all.
wait_routes() {
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		[ "$(total_routes)" -eq "$1" ] && { echo "ok $((i / 10))"; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	echo "timeout $2"
	return 1
}

all=$((n * (n - 1)))
r=$(wait_routes $all 120) || { echo "GUEST-FAIL routes before the key: $r"; exit 1; }
npoctl fabric key add 1 "$key" send || { echo "GUEST-FAIL key"; exit 1; }
# Every advert signed: past one refresh, and the routes still whole.
sleep 6
r=$(wait_routes $all 60) || { echo "GUEST-FAIL routes with the key: $r"; exit 1; }
# Only node 1 may lead fabric time, as the operator would say.
d=0
while [ $d -lt "$n" ]; do
	npoctl clock set npo$d gm-allow 1 || { echo "GUEST-FAIL gm-allow"; exit 1; }
	d=$((d + 1))
done
i=0
until [ "$(npoctl -j clock | grep -o '"state":"locked"' | wc -l)" -eq "$n" ]; do
	i=$((i + 1))
	[ $i -lt 600 ] || { echo "GUEST-FAIL clocks not locked"; exit 1; }
	sleep 0.2
done
stty -F /dev/ttyS1 raw -echo || { echo "GUEST-FAIL stty"; exit 1; }
exec 3<>/dev/ttyS1
echo "READY"

while read -r cmd a b <&3; do
	case $cmd in
	routes)
		npoctl -j route | grep -o '"dest_node":[0-9]*' | cut -d: -f2 |
			sort -n | uniq -c | awk -v t="$(total_routes)" \
			'BEGIN { printf "ROUTES %s", t } { printf " %s:%s", $2, $1 } END { print "" }'
		;;
	wait-routes)
		echo "WAIT-ROUTES $(wait_routes "$a" "$b")"
		;;
	counters)
		d=0
		while [ $d -lt "$n" ]; do
			rej=$(npoctl -j fabric key show npo$d | grep -o '"rejected":[0-9]*' | cut -d: -f2)
			echo "COUNTERS $d rejected=$rej $(head -n1 /sys/kernel/debug/npo/npo$d/routing |
				awk '{ for (i = 1; i < NF; i += 2) printf "%s=%s ", $i, $(i + 1) }')"
			d=$((d + 1))
		done
		echo "COUNTERS-END"
		;;
	clocks)
		d=0
		while [ $d -lt "$n" ]; do
			echo "CLOCKS $d $(head -n1 /sys/kernel/debug/npo/npo$d/timesync |
				awk '{ for (i = 1; i < NF; i += 2) printf "%s=%s ", $i, $(i + 1) }')"
			d=$((d + 1))
		done
		echo "CLOCKS-END"
		;;
	loglines)
		echo "LOGLINES $(dmesg | grep -c "$a${b:+ $b}")"
		;;
	miswire)
		if npoctl link set "npo$a/$b" plan 999/9 && sleep 1 &&
		   npoctl -j link show "npo$a/$b" | grep -q '"MISWIRED"\|miswired'; then
			echo "MISWIRE ok"
		else
			echo "MISWIRE fail"
		fi
		;;
	unplan)
		if npoctl link set "npo$a/$b" plan none; then
			echo "UNPLAN ok"
		else
			echo "UNPLAN fail"
		fi
		;;
	end)
		echo "END"
		exit 0
		;;
	*)
		echo "UNKNOWN $cmd"
		;;
	esac >&3
done
echo "GUEST-FAIL the host's line closed"
exit 1
