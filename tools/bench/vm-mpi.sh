#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside a bench VM with a ring of 8 NPO devices and Open MPI: the
# nccl-tests-style MPI_Allreduce table for 8 ranks, 8 B ping-pong latency
# and 4 MiB windowed bandwidth for 2, over NPO (pml cm, mtl ofi, provider npo)
# and then over TCP on the guest's loopback (pml ob1, btl tcp), what a user
# gets without NPO.  Same VM, same ranks, same program, one run.  Each
# JSON line of npo-mpi-test is preceded by "TRANSPORT npo|tcp".
set -e
max=${1:-67108864}
modprobe npo
i=0
while [ "$(npoctl -j route | grep -o '"dest_node"' | wc -l)" -lt 56 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
ip link set lo up
# The allreduce table on 8 ranks; latency and bandwidth between 2 ranks
# (npo0 and npo1, neighbours), which 2 vCPUs run without oversubscription.
common="--allow-run-as-root --oversubscribe --bind-to none --mca plm isolated"
npo="--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include npo --mca btl self,vader -x FI_NPO_JOB=0x4d5049"
tcp="--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo"
for transport in npo tcp; do
	[ $transport = npo ] && args=$npo || args=$tcp
	# shellcheck disable=SC2086
	mpirun $common -np 8 $args /usr/lib/npo/mpi/npo-mpi-test bench "$max" |
		grep '"allreduce"' | sed "s/^{/TRANSPORT $transport {/"
	# shellcheck disable=SC2086
	mpirun $common -np 2 $args /usr/lib/npo/mpi/npo-mpi-test bench 8 |
		grep -v '"allreduce"' | sed "s/^{/TRANSPORT $transport {/"
done
