#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Open MPI from Debian over the npo libfabric provider, unchanged: 8 ranks
# on a ring of 8 devices, each rank on its own device, every collective
# checked against a CPU reference from 8 B to MAX bytes.  In one VM, or
# with --two-vms as 2x4 ranks across two VMs whose devices form one ring
# through the fabric transport (two-vm-mpi.sh).  The run is pinned to pml
# cm + mtl ofi + provider npo, so it cannot fall back to another transport
# silently; each rank must also report npo as the provider it chose
# (mtl_base_verbose), on its own host's own device.
#
# Prints "ok"/"not ok" lines and exits 0/1.
#
# Usage: mpi-test.sh KERNEL [--two-vms] [MAX_BYTES]
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
build=${BUILD:-$here/../../build}
kernel=${1:-6.12}
shift
two_vms=
if [ "${1:-}" = --two-vms ]; then
	two_vms=1
	shift
fi
max=${1:-67108864}
ranks=8
work=$(mktemp -d)
log=$work/a.log
trap 'rm -rf "$work"' EXIT

mpirun="mpirun --allow-run-as-root --oversubscribe --bind-to none -np $ranks \
	--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include npo \
	--mca btl self,vader --mca mtl_base_verbose 1 \
	-x FI_NPO_JOB=0x4d5049"
if [ -n "$two_vms" ]; then
	hosts=2
	BUILD=$build "$here/two-vm-mpi.sh" "$kernel" "$work" -- \
		"$mpirun \$MPI_HOSTS /usr/lib/npo/mpi/npo-mpi-test check $max
		echo MPI-EXIT \$?"
	rc=$?
else
	hosts=1
	guest="/sbin/modprobe npo || exit 1
for i in \$(seq 600); do
	[ \"\$(npoctl -j route 2>/dev/null | grep -o '\"dest_node\"' | wc -l)\" -ge $((ranks * (ranks - 1))) ] && break
	sleep 0.1
done
$mpirun --mca plm isolated /usr/lib/npo/mpi/npo-mpi-test check $max
echo MPI-EXIT \$?"
	BUILD=$build "$here/npo-vm" --kernel "$kernel" --devices $ranks \
		--topology ring --mem 4096 --timeout 1500 \
		--initrd-extra "$build/vm/openmpi.cpio.gz" -- sh -c "$guest" \
		>"$log" 2>&1
	rc=$?
fi
fail=0
# "[npo-a:00123] .../mtl_ofi_component.c:365: mtl:ofi:provider: npo2":
# one distinct host and device per rank.
chosen=$(sed -nE 's/^\[([^]:]*):[0-9]*\] .*mtl:ofi:provider: (npo[0-9]*)$/\1 \2/p' "$log" |
	sort -u | wc -l)
check "every rank chose the npo provider, each its own device on $hosts host(s) ($chosen of $ranks)" \
	[ "$chosen" = $ranks ]
# The sizes npo-mpi-test checks: 8 B and up by eights, and max; the
# gathers and scatters need 8 bytes per rank at least.
sizes=0 chunked=0
for ((b = 8; b <= max; b *= 8)); do
	sizes=$((sizes + 1))
	[ $b -ge $((8 * ranks)) ] && chunked=$((chunked + 1))
	last=$b
done
[ "$last" = "$max" ] || { sizes=$((sizes + 1)); chunked=$((chunked + 1)); }
for op in MPI_Allreduce MPI_Allgather MPI_Reduce_scatter MPI_Bcast MPI_Alltoall; do
	n=$(grep -c "^ok $op " "$log")
	bad=$(grep -c "^not ok $op " "$log")
	case $op in MPI_Allreduce|MPI_Bcast) want=$sizes ;; *) want=$chunked ;; esac
	check "$op on $ranks ranks right at $n of $want sizes up to $max bytes, $bad wrong" \
		[ "$n" = "$want" -a "$bad" = 0 ]
done
check "mpirun ended well" grep -q '^MPI-EXIT 0' "$log"
check "the VM(s) ended cleanly, no splat (status $rc)" [ $rc = 0 ]
if [ $fail != 0 ]; then
	sed 's/^/  # /' "$log" | tail -80
	[ -z "$two_vms" ] || sed 's/^/  # B: /' "$work/b.log" | tail -40
fi
exit $fail
