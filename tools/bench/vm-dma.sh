#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the bench VM (two linked NPO devices): npo-perf in one
# process (within 16 MiB, and over a 1 GiB span no cache holds) and in two
# (as perftest runs), the guest's memcpy, then soft-RoCE (rdma_rxe on a
# veth) with perftest, both ends on one rxe device as the 6.1 kernel
# requires.  Each measurement runs RUNS times; the host takes the median.
# npo-perf prints JSON lines, each after a "SPAN" line naming its span;
# perftest's result lines are tagged "RXE_BW" and "RXE_LAT".
set -e
runs=${1:-5}
modprobe npo
sleep 1
# The kernel turns transparent huge pages off below 512 MiB of RAM; a
# machine running collectives has them.
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled

# Two processes: a server on npo1, a client on npo0, over loopback TCP.
pair() {
	npo-perf -d npo1 -S -B 127.0.0.1 >/dev/null &
	npo-perf -j -d npo0 -C 127.0.0.1 "$@"
	wait
}
i=0
while [ $i -lt "$runs" ]; do
	echo SPAN 16MiB
	for s in 1M 8M; do npo-perf -j -r npo1 write -s $s -n 256; done
	echo SPAN 1GiB
	npo-perf -j -r npo1 -w 1G write -s 8M -n 256
	echo SPAN 16MiB
	npo-perf -j -r npo1 write lat -s 8
	npo-perf -j -r npo1 write rate -s 8 -b 32
	# perftest's shapes, the same as the rxe runs below.
	pair write lat -s 8 -n 1000
	pair write bw -s 1M -n 200
	for s in 1M 8M; do npo-perf -j memcpy -s $s; done
	i=$((i + 1))
done

# rxe's CRC with the CPU's carry-less multiply where the guest CPU model
# has it (TCG emulates it: still guest code), the generic one otherwise.
modprobe crc32_pclmul 2>/dev/null || modprobe crc32_generic
modprobe rdma_rxe
modprobe veth
ip=/usr/bin/ip		# iproute2's, not busybox's: veth needs it
$ip link set lo up
$ip link add veth0 type veth peer name veth1
$ip addr add 10.0.0.1/24 dev veth0
$ip addr add 10.0.0.2/24 dev veth1
$ip link set veth0 up
$ip link set veth1 up
rdma link add rxe0 type rxe netdev veth0

i=0
while [ $i -lt "$runs" ]; do
	ib_write_bw -d rxe0 -s 1048576 -n 200 --report_gbits >/tmp/rxe-srv.log 2>&1 &
	sleep 1
	ib_write_bw -d rxe0 -s 1048576 -n 200 --report_gbits 10.0.0.1 |
		awk '$1 == 1048576 { print "RXE_BW", $4 }'
	wait
	ib_write_lat -d rxe0 -s 8 -n 1000 >/tmp/rxe-srv.log 2>&1 &
	sleep 1
	ib_write_lat -d rxe0 -s 8 -n 1000 10.0.0.1 | awk '$1 == 8 { print "RXE_LAT", $5 }'
	wait
	i=$((i + 1))
done
