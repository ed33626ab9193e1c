#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two emulated hosts, each with one NPO device, linked port 0 to port 0
# through a UNIX socket: both links must come up and name the other host's
# device as their peer.  Prints TAP-like "ok"/"not ok" and exits 0/1.
#
# Usage: two-vm-test.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
kernel=${1:-6.1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sock=$work/fabric.sock

# Each side waits for its link, reports its peer, then stays up long
# enough for the other side to see the link too.
guest='/sbin/modprobe npo
for i in $(seq 1 200); do
	if npoctl -j link show npo0/0 | grep -q "\"state\":\"active\""; then
		npoctl -j link show npo0/0 | sed -n "s/.*\"peer\":{\"node_id\":\([0-9]*\),\"port\":\([0-9]*\)}.*/PEER \1\/\2/p"
		sleep 3
		exit 0
	fi
	sleep 0.1
done
echo "LINK NOT UP"; npoctl link; exit 1'

"$here/npo-vm" --kernel "$kernel" --devices 1 --node-base 1 \
	--link 0.0=listen:"$sock" --timeout 300 -- sh -c "$guest" \
	>"$work/a.log" 2>&1 &
a=$!
sleep 1
"$here/npo-vm" --kernel "$kernel" --devices 1 --node-base 2 \
	--link 0.0=connect:"$sock" --timeout 300 -- sh -c "$guest" \
	>"$work/b.log" 2>&1
rb=$?
wait $a
ra=$?
if [ $ra = 0 ] && [ $rb = 0 ] && grep -q '^PEER 2/0$' "$work/a.log" &&
   grep -q '^PEER 1/0$' "$work/b.log"; then
	echo "ok - two QEMU processes link up and see each other as peers"
	exit 0
fi
echo "not ok - two QEMU processes link up and see each other as peers"
sed 's/^/  A: /' "$work/a.log" | grep -v '^  A: \[' | tail -n 20
sed 's/^/  B: /' "$work/b.log" | grep -v '^  B: \[' | tail -n 20
exit 1
