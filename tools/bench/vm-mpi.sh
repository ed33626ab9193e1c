#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside a bench VM with a ring of 8 NPO devices and Open MPI: the
# nccl-tests-style MPI_Allreduce table for 8 ranks, 8 B ping-pong latency
# and 4 MiB windowed bandwidth for 2, over NPO (pml cm, mtl ofi, provider npo)
# and then without NPO: Open MPI's default within a host, shared memory
# (btl vader) between ranks of one host and TCP between hosts, and TCP
# alone.  Same VM(s), same ranks, same program, one run.  Each JSON line
# of npo-mpi-test is preceded by "TRANSPORT npo|sm|tcp".
#
# With --two-vms it runs on host A of tools/vm/two-vm-mpi.sh: 4 ranks on
# each host, TCP over the Ethernet link between the two guests, and the
# two ranks of latency and bandwidth on either side of a link between the
# hosts (A's npo3, node 4, and B's npo0, node 5).
#
# Usage: vm-mpi.sh MAX_BYTES [--two-vms]
set -e
# An mpirun that fails fails the run, not only the sed after it.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -o pipefail
max=${1:-67108864}
common="--allow-run-as-root --oversubscribe --bind-to none"
prog=/usr/lib/npo/mpi/npo-mpi-test
if [ "${2:-}" = --two-vms ]; then
	# shellcheck disable=SC2153
	common="$common $MPI_HOSTS"
	tcp_if=eth0
	# Open MPI takes -x per application context: each names the job.
	job="-x FI_NPO_JOB=0x4d5049"
	pair="-np 1 -H npo-a $job -x FI_NPO_DEVICE=npo3 $prog bench 8 :
		-np 1 -H npo-b $job -x FI_NPO_DEVICE=npo0 $prog bench 8"
else
	modprobe npo
	i=0
	while [ "$(npoctl -j route | grep -o '"dest_node"' | wc -l)" -lt 56 ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	ip link set lo up
	common="$common --mca plm isolated"
	tcp_if=lo
	# npo0 and npo1, neighbours, which 2 vCPUs run without oversubscription.
	pair="-np 2 $prog bench 8"
fi
npo="--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include npo --mca btl self,vader -x FI_NPO_JOB=0x4d5049"
sm="--mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include $tcp_if"
tcp="--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include $tcp_if"
for transport in npo sm tcp; do
	case $transport in
	npo) args=$npo ;;
	sm) args=$sm ;;
	*) args=$tcp ;;
	esac
	# shellcheck disable=SC2086
	mpirun $common $args -np 8 $prog bench "$max" |
		grep '"allreduce"' | sed "s/^{/TRANSPORT $transport {/"
	# shellcheck disable=SC2086
	mpirun $common $args $pair |
		grep -v '"allreduce"' | sed "s/^{/TRANSPORT $transport {/"
done
