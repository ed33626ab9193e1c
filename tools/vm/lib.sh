# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash
#
# Helpers for the host-side tests that drive a VM: sourced, not run, by a
# script that has set $here to this folder.

# vm_wait_line LOG PID PATTERN [SECONDS]: wait until the guest has printed a
# line matching PATTERN into LOG.  Fails if the VM (process PID) ends first
# or SECONDS (default 300) pass.
vm_wait_line() {
	local log="$1" pid="$2" pattern="$3" secs="${4:-300}"

	for _ in $(seq 1 $((secs * 10))); do
		grep -q "$pattern" "$log" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# check DESCRIPTION CONDITION...: run CONDITION and print "ok - DESCRIPTION"
# or "not ok - DESCRIPTION", setting fail=1 on the latter.
check() {
	local what="$1"
	shift
	if "$@"; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		# shellcheck disable=SC2034 # the sourcing script's verdict
		fail=1
	fi
}

# vm_scratch: a scratch folder $work and the path $qmp of the QMP socket of
# the one VM the script runs at a time ($vm, the pid of its npo-vm).  When
# the script ends, however it ends (INT, TERM and HUP end it too), that
# VM's npo-vm and its QEMU are killed and $work removed.
vm_scratch() {
	work=$(mktemp -d)
	qmp=$work/qmp.sock
	vm=
	trap vm_scratch_end EXIT
	trap 'exit 1' INT TERM HUP
}

vm_scratch_end() {
	[ -n "$vm" ] && kill "$vm" 2>/dev/null
	# npo-vm is only QEMU's parent: QEMU by its QMP socket.
	pkill -9 -f "qemu-system.*unix:$qmp," 2>/dev/null
	rm -rf "$work"
}

# vm_start LOG NPO-VM-ARGUMENT...: npo-vm in the background, its QMP socket
# at $qmp and its console in LOG; sets $vm.  After vm_scratch only.
vm_start() {
	local log="$1"
	shift
	# shellcheck disable=SC2154 # $here: the sourcing script's
	"$here/npo-vm" --qemu-arg -qmp --qemu-arg "unix:$qmp,server=on,wait=off" \
		"$@" >"$log" 2>&1 &
	vm=$!
}

# Tests of several VMs name each one: VM NAME's QMP socket is
# $work/NAME.qmp.  vm_scratch_named NAME... makes $work; at exit it kills
# each named VM's QEMU (npo-vm is only its parent) and removes $work, and
# INT, TERM and HUP end the script the same way.
vm_scratch_named() {
	work=$(mktemp -d)
	vm_names="$*"
	trap vm_scratch_named_end EXIT
	trap 'exit 1' INT TERM HUP
}

vm_scratch_named_end() {
	local name
	for name in $vm_names; do
		vm_kill "$name"
	done
	rm -rf "$work"
}

# vm_kill NAME: that VM's QEMU, at once.
vm_kill() {
	pkill -9 -f "qemu-system.*unix:$work/$1.qmp" 2>/dev/null
}

# vm_wait_qmp NAME: until that VM's QEMU listens for QMP (30 s at most).
vm_wait_qmp() {
	for _ in $(seq 300); do
		[ -S "$work/$1.qmp" ] && return 0
		sleep 0.1
	done
	return 1
}

# vm_qmp [--vm NAME] [--print] COMMAND: one QMP command (JSON) to the VM
# at $qmp, or to VM NAME; with --print, its answer on stdout.  Fails with
# QEMU's error on stderr.
vm_qmp() {
	local sock="${qmp:-}" print=
	if [ "$1" = --vm ]; then
		sock=$work/$2.qmp
		shift 2
	fi
	if [ "$1" = --print ]; then
		print=--print
		shift
	fi
	# shellcheck disable=SC2154 # $here: the sourcing script's
	/usr/bin/python3 "$here/qmp.py" $print "$sock" "$1"
}

# vm_qom_set [--vm NAME] DEVICE PROPERTY VALUE and vm_qom_get [--vm NAME]
# DEVICE PROPERTY: a property of a device given -device ...,id=DEVICE, as
# an operator's tooling sets and reads it.
vm_qom_set() {
	if [ "$1" = --vm ]; then
		vm_qmp --vm "$2" "$(qom_set_json "$3" "$4" "$5")"
	else
		vm_qmp "$(qom_set_json "$1" "$2" "$3")"
	fi
}

vm_qom_get() {
	if [ "$1" = --vm ]; then
		vm_qmp --vm "$2" --print "$(qom_get_json "$3" "$4")"
	else
		vm_qmp --print "$(qom_get_json "$1" "$2")"
	fi
}

qom_set_json() {
	echo "{\"execute\": \"qom-set\", \"arguments\": {\"path\": \"/machine/peripheral/$1\", \"property\": \"$2\", \"value\": \"$3\"}}"
}

qom_get_json() {
	echo "{\"execute\": \"qom-get\", \"arguments\": {\"path\": \"/machine/peripheral/$1\", \"property\": \"$2\"}}"
}
