#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside a bench VM with a ring of 8 NPO devices: what a path through
# the devices in between costs.  npo0 writes to npo1 (its neighbour, one
# link) and to npo4 (the far side, four links: three devices forward),
# 8 B latency and 1 MiB bandwidth, RUNS times each, in one process; the
# host takes the medians.  Each JSON line is preceded by "HOPS n".
set -e
runs=${1:-5}
modprobe npo
# The adverts go round and every device has its routes.
i=0
while [ "$(npoctl -j route | grep -o '"dest_node"' | wc -l)" -lt 56 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
i=0
while [ $i -lt "$runs" ]; do
	for r in 1 4; do
		echo "HOPS $r"
		npo-perf -j -r npo$r write lat -s 8 -n 2000
		echo "HOPS $r"
		npo-perf -j -r npo$r write -s 1M -n 128
	done
	i=$((i + 1))
done
