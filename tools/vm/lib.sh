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
# the script ends, however it ends, that VM is killed and $work removed.
vm_scratch() {
	work=$(mktemp -d)
	qmp=$work/qmp.sock
	vm=
	trap vm_scratch_end EXIT
}

vm_scratch_end() {
	[ -n "$vm" ] && kill "$vm" 2>/dev/null
	rm -rf "$work"
}

# vm_start LOG NPO-VM-ARGUMENT...: npo-vm in the background, its QMP socket
# at $qmp and its console in LOG; sets $vm.
vm_start() {
	local log="$1"
	shift
	# shellcheck disable=SC2154 # $here: the sourcing script's
	"$here/npo-vm" --qemu-arg -qmp --qemu-arg "unix:$qmp,server=on,wait=off" \
		"$@" >"$log" 2>&1 &
	vm=$!
}

# vm_qmp [--print] COMMAND: one QMP command (JSON) to the VM at $qmp; with
# --print, its answer on stdout.  Fails with QEMU's error on stderr.
vm_qmp() {
	# shellcheck disable=SC2154 # $here: the sourcing script's
	if [ "$1" = --print ]; then
		/usr/bin/python3 "$here/qmp.py" --print "$qmp" "$2"
	else
		/usr/bin/python3 "$here/qmp.py" "$qmp" "$1"
	fi
}

# vm_qom_set DEVICE PROPERTY VALUE and vm_qom_get DEVICE PROPERTY: a
# property of a device given -device ...,id=DEVICE, as an operator's
# tooling sets and reads it.
vm_qom_set() {
	vm_qmp "{\"execute\": \"qom-set\", \"arguments\": {\"path\": \"/machine/peripheral/$1\", \"property\": \"$2\", \"value\": \"$3\"}}"
}

vm_qom_get() {
	vm_qmp --print "{\"execute\": \"qom-get\", \"arguments\": {\"path\": \"/machine/peripheral/$1\", \"property\": \"$2\"}}"
}
