#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel's own PHC selftest (tools/testing/selftests/ptp/phc.sh, run
# unchanged with bash and linuxptp's phc_ctl) on every NPO clock, as a
# new user would, once the clocks are handed to user space:
#
#   1. 8 devices in a ring lock to node 1;
#   2. node 1's clock is handed to user space (npoctl clock set npo0 sync
#      off): it says role "user", and the other seven elect node 2 and lock;
#   3. the other seven are handed over too, and phc.sh runs on all eight
#      PHCs at once: settime (set 0, wait 120.5 s, read 120), adjtime and
#      adjfreq (1 % fast for 100.5 s, read 101) must all pass: nothing but
#      user space touches a clock it owns, and the range allows 1 %;
#   4. all eight are handed back and lock to node 1 again.
#
# Prints "ok"/"not ok" lines and exits 0/1.
#
# Usage: phc-test.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.12}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

guest='count() { npoctl -j clock | grep -o "$1" | wc -l; }
wait_for() {	# wait_for PATTERN N SECONDS
	for i in $(seq 1 $(($3 * 10))); do
		[ "$(count "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
/sbin/modprobe npo
wait_for "\"state\":\"locked\",\"grandmaster\":1," 8 120 && echo PHASE1-LOCKED
npoctl clock set npo0 sync off
wait_for "\"role\":\"user\"" 1 10 &&
	wait_for "\"state\":\"locked\",\"grandmaster\":2," 7 120 && echo PHASE2-ELECTED
echo "CLOCKS2 $(npoctl -j clock)"
for d in 1 2 3 4 5 6 7; do npoctl clock set npo$d sync off; done
wait_for "\"role\":\"user\"" 8 10 && echo PHASE3-ALL-USER
phcs=$(npoctl -j clock | grep -o "\"phc_index\":[0-9]*" | cut -d: -f2)
for n in $phcs; do
	bash /usr/lib/npo/selftests/phc.sh /dev/ptp$n 2>&1 | sed "s/^/PHC$n /" &
done
wait
for d in 0 1 2 3 4 5 6 7; do npoctl clock set npo$d sync on; done
wait_for "\"state\":\"locked\",\"grandmaster\":1," 8 120 && echo PHASE4-LOCKED
echo "CLOCKS4 $(npoctl -j clock)"'

"$here/npo-vm" --kernel "$kernel" --devices 8 --topology ring --timeout 900 \
	-- sh -c "$guest" >"$log" 2>&1
rc=$?

fail=0
phc_passed() {	# every PHC ran settime, adjtime and adjfreq, all OK
	local n=0 i
	while read -r i; do
		[ "$(grep -c "^$i TEST: .*\[ OK \]" "$log")" = 3 ] || return 1
		n=$((n + 1))
	done < <(grep -o '^PHC[0-9]* ' "$log" | sort -u | sed 's/ $//')
	[ "$n" = 8 ] && ! grep -q '^PHC[0-9]* .*\(FAIL\|SKIP\)' "$log"
}
check "8 clocks lock to node 1" grep -q '^PHASE1-LOCKED' "$log"
check "node 1 handed to user space, the other seven elect node 2" \
	grep -q '^PHASE2-ELECTED' "$log"
check "all eight clocks are user space's" grep -q '^PHASE3-ALL-USER' "$log"
check "phc.sh passes on all eight PHCs (settime, adjtime, adjfreq)" phc_passed
check "handed back, all eight lock to node 1 again" grep -q '^PHASE4-LOCKED' "$log"
check "the VM ended cleanly, no splat (status $rc)" [ $rc = 0 ]
grep '^PHC[0-9]* TEST:' "$log" | sed 's/^/  /'
[ $fail = 0 ] || grep -v '^\[' "$log" | tail -n 40 | sed 's/^/  /'
exit $fail
