# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash
#
# Helpers for the host-side tests that drive a VM: sourced, not run.

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
