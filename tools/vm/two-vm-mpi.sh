#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One MPI job across two emulated hosts: A (npo-a, nodes 1-4) and B
# (npo-b, nodes 5-8), each with four NPO devices in a line, their free
# ends linked through UNIX sockets into one ring of 8 across the two QEMU
# processes.  The job's launcher needs a network between the hosts (Open
# MPI's daemons and PMIx speak TCP): an Ethernet link between the two
# guests over a third UNIX socket, 10.88.0.1 (A) and 10.88.0.2 (B), which
# exist only inside the guests; no frame leaves the two QEMU processes.
# B has no ssh: mpi-rexec serves Open MPI's remote shell, mpi-rsh-agent.
#
# COMMAND runs on A by sh once both hosts' routes reach all 8 nodes and B
# answers, with MPI_HOSTS holding the mpirun options that place ranks on
# both hosts (4 slots each).  The guests' output goes to LOGDIR/a.log and
# LOGDIR/b.log.  Exit status: COMMAND's, or npo-vm's for A (99 on a guest
# splat), or 98 if B failed (its log says why).  B ending before A is done
# stops A at once.
#
# Usage: two-vm-mpi.sh KERNEL LOGDIR [--add PATH]... [--] COMMAND
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
build=${BUILD:-$here/../../build}
kernel=${1:?usage: two-vm-mpi.sh KERNEL LOGDIR [--add PATH]... [--] COMMAND}
logs=${2:?usage: two-vm-mpi.sh KERNEL LOGDIR [--add PATH]... [--] COMMAND}
shift 2
adds=()
while [ $# -gt 0 ]; do
	case $1 in
	--add) adds+=(--add "${2:?}"); shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
command=${1:?no command for host A}
mkdir -p "$logs"
# A killed make check must not leave the QEMUs running either.
vm_scratch_named a b

# The ring closed (both ports of each of the 4 devices up: a line of 8
# would reach every node too, the long way) and each host's routes to
# the 7 other nodes from each device.
fabric_up='/sbin/modprobe npo || exit 1
i=0
until [ "$(npoctl -j link 2>/dev/null | grep -o "\"state\":\"active\"" | wc -l)" -ge 8 ] &&
	[ "$(npoctl -j route 2>/dev/null | grep -o "\"dest_node\"" | wc -l)" -ge 28 ]; do
	i=$((i + 1)); [ $i -le 1200 ] || { echo "NPO-2VM: the ring of 8 never closed"; npoctl link; npoctl route; exit 1; }
	sleep 0.1
done'
net_up() {	# net_up NAME ADDRESS
	# shellcheck disable=SC2028 # the guest's printf expands the escapes
	echo "hostname $1
printf '127.0.0.1 localhost\n10.88.0.1 npo-a\n10.88.0.2 npo-b\n' >/etc/hosts
/sbin/modprobe virtio_pci && /sbin/modprobe virtio_net || exit 1
ip addr add $2/24 dev eth0 && ip link set eth0 up || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
}

# B serves remote shells until A says it is done on port 2223.
guest_b="$(net_up npo-b 10.88.0.2)
$fabric_up
nc -ll -p 2222 -e /usr/lib/npo/mpi/mpi-rexec &
echo NPO-2VM-B-SERVING
nc -l -p 2223 >/dev/null
kill \$!
echo NPO-2VM-B-DONE"

guest_a="$(net_up npo-a 10.88.0.1)
$fabric_up
i=0
until echo true | nc -w 2 npo-b 2222; do
	i=\$((i + 1)); [ \$i -le 60 ] || { echo 'NPO-2VM: B never answered'; exit 1; }
	sleep 1
done
printf 'npo-a slots=4\nnpo-b slots=4\n' >/tmp/hosts
export MPI_HOSTS='--hostfile /tmp/hosts --mca plm rsh --mca plm_rsh_agent /usr/lib/npo/mpi/mpi-rsh-agent --mca plm_rsh_no_tree_spawn 1 --mca oob_tcp_if_include eth0'
sh -c '${command//\'/\'\\\'\'}'
rc=\$?
echo done | nc npo-b 2223
exit \$rc"

vm() {	# vm NAME NODE_BASE ARGS...
	local name=$1 base=$2
	shift 2
	BUILD=$build "$here/npo-vm" --kernel "$kernel" --devices 4 --node-base "$base" \
		--topology line --mem 3072 --timeout 1500 \
		--initrd-extra "$build/vm/openmpi.cpio.gz" "${adds[@]}" \
		--qemu-arg -qmp --qemu-arg "unix:$work/$name.qmp,server=on,wait=off" "$@"
}
# A's last device's port 0 reaches B's first device's port 1, and B's
# last A's first: the ring of 8.  A listens for the Ethernet link, which
# cannot wait for its listener, so B starts once A's socket exists.
vm a 1 --link 3.0=listen:"$work/ab.sock" --link 0.1=connect:"$work/ba.sock" \
	--net listen:"$work/net.sock" -- sh -c "$guest_a" >"$logs/a.log" 2>&1 &
a=$!
for _ in $(seq 300); do
	[ -S "$work/net.sock" ] && break
	kill -0 $a 2>/dev/null || break
	sleep 0.1
done
if [ ! -S "$work/net.sock" ]; then
	echo "two-vm-mpi: A's QEMU never listened for the Ethernet link" >>"$logs/a.log"
	vm_kill a
	wait $a
	exit 125
fi
vm b 5 --link 3.0=listen:"$work/ba.sock" --link 0.1=connect:"$work/ab.sock" \
	--net connect:"$work/net.sock" -- sh -c "$guest_b" >"$logs/b.log" 2>&1 &
b=$!
# B serves until A is done: B ending before A told it so is a failure,
# and A, which would wait on it, is stopped at once.
while kill -0 $a 2>/dev/null && kill -0 $b 2>/dev/null; do
	sleep 0.5
done
if ! kill -0 $a 2>/dev/null || grep -q '^NPO-2VM-B-DONE' "$logs/b.log"; then
	wait $a
	ra=$?
	# A told B it is done (B powers off in seconds), or failed.
	if [ $ra = 0 ]; then
		for _ in $(seq 300); do
			kill -0 $b 2>/dev/null || break
			sleep 0.1
		done
	fi
	vm_kill b
	wait $b
	rb=$?
	[ $ra = 0 ] || exit $ra
	[ $rb = 0 ] && grep -q '^NPO-2VM-B-DONE' "$logs/b.log" && exit 0
	exit 98
fi
wait $b
echo "two-vm-mpi: B ended (status $?) before A was done" >>"$logs/b.log"
vm_kill a
wait $a
exit 98
