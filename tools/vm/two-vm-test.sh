#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two emulated hosts, each with one NPO device, linked port 0 to port 0
# through a UNIX socket.  Both links must come up naming the other host's
# device as their peer, and data must flow between the two QEMU processes:
# npo_fabric_peer runs in each VM, A serving and B joining with the blob A
# printed (the out-of-band exchange a job's bootstrap would do).  Prints
# TAP-like "ok"/"not ok" lines and exits 0/1.  B's clock must also lock to
# A's through the link, time-sync messages crossing between the processes,
# and the host, reading both processes' true clocks through QMP, must find
# them within CLOCK_P95_NS of each other (the 95th percentile of 20
# samples, read once the servo has settled) while the data flows.
#
# Then B floods A's inbox with WRITEs and the host kills A's QEMU under
# it, as a host dies: B's WRITEs must each complete once, the first that
# fails with LINK_DOWN, and both kernels must stay quiet (B's judged by
# its npo-vm, A's, whose QEMU is killed, from its console here).  With --bench, B
# measures the transport first (one "NPO-XPROC {json}" line on stdout)
# and A's host is stopped only once B is done.
#
# Usage: two-vm-test.sh KERNEL [--bench]
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.1}
measure=
[ "${2:-}" = --bench ] && measure=bench
a=
vm_scratch_named a b
# A's npo-vm too: it may be waiting for its QEMU still.
trap '[ -n "$a" ] && kill "$a" 2>/dev/null; vm_scratch_named_end' EXIT
sock=$work/fabric.sock
peer=/usr/lib/npo/selftests/npo_fabric_peer
# Inside one VM the servo holds 5 ns; across two QEMU processes sharing
# two host cores with data flowing, each guest's servo runs late when the
# other process has the CPU, and the oscillators wander meanwhile (seen:
# 9-13 ns quiet, 26-29 ns on a loaded CI host, once 62 ns with the host's
# two cores busy with four QEMU processes).  An unlocked or broken servo
# is microseconds off: 100 ns still tells the two apart.
CLOCK_P95_NS=100
qmp_a=(--qemu-arg -qmp --qemu-arg "unix:$work/a.qmp,server=on,wait=off")
qmp_b=(--qemu-arg -qmp --qemu-arg "unix:$work/b.qmp,server=on,wait=off")

# Wait for the link, then report its peer.
show_peer='for i in $(seq 1 300); do
	if npoctl -j link show npo0/0 | grep -q "\"state\":\"active\""; then
		npoctl -j link show npo0/0 | sed -n "s/.*\"peer\":{\"node_id\":\([0-9]*\),\"port\":\([0-9]*\)}.*/PEER \1\/\2/p"
		break
	fi
	sleep 0.1
done'

# B's clock follows A's (node 1) across the processes: report its state.
clock_of_b='for i in $(seq 1 200); do
	npoctl -j clock | grep -q "\"state\":\"locked\",\"grandmaster\":1," && break
	sleep 0.1
done
npoctl -j clock | sed -n "s/.*\"role\":\"\([a-z]*\)\",\"state\":\"\([a-z]*\)\",\"grandmaster\":\([0-9]*\),.*/CLOCK \1 \2 \3/p"'

# A serves at once (its blob needs no link) and reports its peer meanwhile.
"$here/npo-vm" --kernel "$kernel" --devices 1 --node-base 1 "${qmp_a[@]}" \
	--link 0.0=listen:"$sock" --timeout 400 -- sh -c "/sbin/modprobe npo
	$peer serve linger & $show_peer
	wait \$!	# until the host stops it" >"$work/a.log" 2>&1 &
a=$!

# The whole blob, up to its END mark, not a line half written.
blob=
vm_wait_line "$work/a.log" "$a" '^NPO-PEER-BLOB [0-9a-f]* END' 300 &&
	blob=$(sed -n 's/^NPO-PEER-BLOB \([0-9a-f]*\) END.*/\1/p' "$work/a.log")

rb=1
pair=
if [ -n "$blob" ]; then
	"$here/npo-vm" --kernel "$kernel" --devices 1 --node-base 2 "${qmp_b[@]}" \
		--link 0.0=connect:"$sock" --timeout 400 -- sh -c "/sbin/modprobe npo
		$show_peer
		$clock_of_b
		sleep 9	# while the host reads both clocks
		$peer join $blob $measure
		echo NPO-JOINED \$?
		[ -n '$measure' ] || $peer flood $blob" >"$work/b.log" 2>&1 &
	b=$!
	# Once B says it is locked and the servo has settled (its first
	# seconds still carry the frequency it learnt while locking), the
	# host reads both true clocks.
	if vm_wait_line "$work/b.log" "$b" '^CLOCK follower locked 1' 300; then
		sleep 3
		pair=$(/usr/bin/python3 "$here/clock-offsets.py" \
			"$work/a.qmp,$work/b.qmp" 20 0.2)
		echo "# A and B from the host: $pair"
	fi
	# Once B's WRITEs flow, A's host dies under them.
	if [ -z "$measure" ] &&
		vm_wait_line "$work/b.log" "$b" '^NPO-PEER-FLOODING' 300; then
		sleep 1
		vm_kill a
		echo "# A's QEMU killed while B's WRITEs were in flight"
	fi
	wait "$b"
	rb=$?
	vm_kill a
else
	echo "# A printed no blob" >"$work/b.log"
fi
wait $a
[ -n "$measure" ] && grep '^NPO-XPROC ' "$work/b.log"

fail=0
check "B sees A as its peer" grep -q '^PEER 1/0$' "$work/b.log"
check "A sees B as its peer" grep -q '^PEER 2/0$' "$work/a.log"
check "B's clock locks to A's across the processes" \
	grep -q '^CLOCK follower locked 1$' "$work/b.log"
pair_p95=$(/usr/bin/python3 -c 'import json,sys; print(json.loads(sys.argv[1])["p95_pairwise_ns"])' "${pair:-{\}}" 2>/dev/null)
check "the host finds A and B ${pair_p95:-?} ns apart at p95 (< $CLOCK_P95_NS)" \
	/usr/bin/python3 -c 'import sys; sys.exit(not (sys.argv[1] and float(sys.argv[1]) < float(sys.argv[2])))' \
	"$pair_p95" $CLOCK_P95_NS
for side in a b; do
	grep -E '^(# )?(not )?ok [0-9]+ |^# 8 MiB' "$work/$side.log" |
		sed "s/^/  ${side^^}: /"
done
check "data between the processes, as A" grep -q '^NPO-SERVED 0$' "$work/a.log"
check "data between the processes, as B" grep -q '^NPO-JOINED 0$' "$work/b.log"
if [ -z "$measure" ]; then
	check "B's WRITEs each completed once when A's host died (status $rb)" \
		[ $rb = 0 ]
	check "B's first failed WRITE names the link" \
		grep -q '^ok [0-9]* data flowed, then the first failure was the link' "$work/b.log"
else
	check "B measured the transport (status $rb)" [ $rb = 0 ]
fi
# Each side's plans, all of them passed: a step that never ran is a failure.
all_planned_passed() {	# all_planned_passed LOG
	local plan
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }')
	[ -n "$plan" ] && [ "$plan" -gt 0 ] && ! grep -qE '^not ok' "$1" &&
		[ "$(grep -cE '^ok [0-9]+ ' "$1")" = "$plan" ]
}
both_sides_passed() {
	all_planned_passed "$work/a.log" && all_planned_passed "$work/b.log"
}
check "every step passed on both sides" both_sides_passed
# B's npo-vm judged B's kernel (its status above); A's QEMU was stopped
# by the host, so A's console is read here, with npo-vm's patterns.
a_kernel_quiet() {
	! grep '^\[' "$work/a.log" | grep -E -f "$here/splat-patterns"
}
check "A's kernel logged no splat before its host was stopped" a_kernel_quiet
if [ $fail != 0 ]; then
	sed 's/^/  A: /' "$work/a.log" | grep -v '^  A: \[' | tail -n 30
	sed 's/^/  B: /' "$work/b.log" | grep -v '^  B: \[' | tail -n 30
fi
exit $fail
