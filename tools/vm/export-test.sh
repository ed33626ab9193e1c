#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# npoctl export read by a real Prometheus client: Debian's
# python3-prometheus-client parses three scrapes of a ring of 4, taken
# before the faults, after them (the fibre of npo0 port 0 cut, 5 dB taken
# off npo2 port 1 lane 2, a live link) and with npo3's firmware crashed
# and left so (its devlink reporter told not to recover), and
# prom-check.py holds them to the format, Prometheus' naming conventions,
# npoctl's own JSON, and the faults.  Prints "ok"/"not ok" lines and
# exits 0/1.
#
# Usage: export-test.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.12}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

guest='/sbin/modprobe npo || exit 1
# The ring trains in a second; a loaded host may take longer.
for i in $(seq 600); do
	[ "$(npoctl -j link | grep -o "\"state\":\"active\"" | wc -l)" -ge 8 ] && break
	sleep 0.1
done
echo "NPO-LINKS-ACTIVE $(npoctl -j link | grep -o "\"state\":\"active\"" | wc -l)"
# npo1 gets the reference image in flash slot a (pending, not booted).
devlink dev flash "pci/$(basename "$(readlink /sys/class/npo/npo1/device)")" \
	file npo/npo-fw.bin >/dev/null 2>&1 || echo "NPO-FLASH-FAILED"
# Each scrape goes to a file and all are printed at the end with the
# console quiet: a kernel message (a link going down is a warning) on the
# serial console can land in the middle of a line.  The guest init still
# checks dmesg for splats.
scrape() {
	{
		echo "NPO-SCRAPE-BEGIN $1"
		npoctl export || echo "NPO-SCRAPE-FAILED $?"
		echo "NPO-SCRAPE-END"
		echo "NPO-LINK-JSON $1 $(npoctl -j link)"
		echo "NPO-LANE-JSON $1 $(npoctl -j lane npo2/1)"
	} >"/tmp/scrape-$1"
}
scrape before
echo "cut 0 1" >/sys/kernel/debug/npo/npo0/fault
echo "rxdrop 1 2 5" >/sys/kernel/debug/npo/npo2/fault
for i in $(seq 100); do
	npoctl -j link show npo0/0 | grep -q "\"state\":\"active\"" || break
	sleep 0.1
done
sleep 1
scrape after
pci=$(basename "$(readlink /sys/class/npo/npo3/device)")
devlink health set "pci/$pci" reporter fw auto_recover false
echo "fwassert 7" >/sys/kernel/debug/npo/npo3/fault
for i in $(seq 100); do
	[ "$(cat /sys/class/npo/npo3/state)" != ready ] && break
	sleep 0.1
done
echo "NPO-SICK-STATE $(cat /sys/class/npo/npo3/state)"
scrape sick
npoctl export help >/dev/null && echo NPO-EXPORT-HELP-OK
npoctl export bogus 2>/dev/null; echo "NPO-EXPORT-BAD-ARG $?"
dmesg -n 1
cat /tmp/scrape-before /tmp/scrape-after /tmp/scrape-sick'

fail=0
"$here/npo-vm" --kernel "$kernel" --devices 4 --topology ring -- sh -c "$guest" \
	>"$work/vm.log" 2>&1
rc=$?
check "the VM ran the scrapes cleanly, no splat (status $rc)" [ $rc = 0 ]
check "npoctl export help exits 0" grep -q '^NPO-EXPORT-HELP-OK' "$work/vm.log"
check "npoctl export with an argument is a usage error (exit 2)" \
	grep -q '^NPO-EXPORT-BAD-ARG 2$' "$work/vm.log"
check "devlink dev flash put the reference image in npo1's flash" \
	sh -c "! grep -q '^NPO-FLASH-FAILED' '$work/vm.log'"
check "the ring's 8 links were up before the first scrape" \
	grep -q '^NPO-LINKS-ACTIVE 8$' "$work/vm.log"
/usr/bin/python3 "$here/prom-check.py" "$work/vm.log" || fail=1
[ $fail = 0 ] || grep -v '^\[' "$work/vm.log" | tail -n 30 | sed 's/^/  # /'
exit $fail
