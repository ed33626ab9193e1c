#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The package lane's checks, inside a full Debian 12 guest (host-test.sh
# puts this on the lane disk as run.sh, with the built .debs).  Boot 1
# installs the packages with apt, as an operator would, and DKMS builds
# the module for every kernel whose headers are installed; later boots,
# into the other kernel, install nothing.  Every boot then checks what a
# host gets with no hand work: the module loaded by udev from the PCI
# modalias (nobody runs modprobe), device files root:npo 0660, a member
# of group npo running npoctl and npo-perf, a non-member refused.  Boot 1
# also updates npo0's firmware with iproute2's devlink (flash, activate,
# a corrupt file refused, an image that does not come up rolled back);
# boot 2, a new QEMU process, finds npo0 running the flashed 1.1.0 from
# its flash and npo1 the host's 1.0.0.
#
# Prints "ok - ..." / "not ok - ..." lines; exits 1 if any failed.
#
# Usage: run.sh BOOT
set -u
boot=${1:?usage: run.sh BOOT}
lane=/mnt/lane
kver=$(uname -r)
fail=0
# check DESCRIPTION COMMAND..., from the host tests' own helpers.
. "$lane/lib.sh"

if [ "$boot" = 1 ]; then
	# The guest has no network: everything the packages need is in the
	# image, and apt takes the .debs from the lane disk.
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		"$lane"/debs/*.deb >"$lane/apt-install.log" 2>&1
	rc=$?
	[ $rc = 0 ] || tail -n 30 "$lane/apt-install.log"
	debs=$(find "$lane/debs" -maxdepth 1 -name '*.deb' | wc -l)
	check "apt installs the packages ($debs .debs)" [ $rc = 0 ]
	dkms status npo >"$lane/dkms-status" 2>&1
	cat "$lane/dkms-status"
	# The kernels host-test.sh will boot, each of which must have it.
	# host-test.sh writes the kernels on one line, split here.
	read -r kernels <"$lane/kernels"
	for k in $kernels; do
		check "DKMS built and installed npo for $k" \
			grep -q "^npo/[^,]*, $k, [^:]*: installed" "$lane/dkms-status"
	done
	adduser --quiet --disabled-password --gecos '' alice
	adduser --quiet --disabled-password --gecos '' bob
	adduser --quiet alice npo
	# The devices were probed at this boot before the module existed: tell
	# udev about them again, as a hot-plug would.
	udevadm trigger --action=add --subsystem-match=pci
	udevadm settle
fi

# udev loaded it: nothing in this lane runs modprobe.
for _ in $(seq 100); do
	[ -e /dev/npo1 ] && break
	sleep 0.1
done
check "npo.ko loaded by udev from the PCI modalias on $kver" \
	grep -q '^npo ' /proc/modules
check "it is DKMS's build for $kver" \
	sh -c "modinfo -n npo | grep -q '^/lib/modules/$kver/updates/dkms/npo.ko'"
for dev in /dev/npo0 /dev/npo1; do
	check "$dev is root:npo 0660 ($(stat -c '%U:%G %a' $dev 2>&1))" \
		[ "$(stat -c '%U:%G %a' $dev 2>/dev/null)" = "root:npo 660" ]
done
# The links take a moment to train after the module loads.
for _ in $(seq 100); do
	npoctl link show npo0/0 2>/dev/null | grep -q active && break
	sleep 0.1
done
# Each tool gets two minutes: a hang is a failure, not the lane's end.
timeout 120 runuser -u alice -- npoctl link >"$lane/alice-link.log" 2>&1
rc=$?
cat "$lane/alice-link.log"
check "alice (group npo) runs npoctl link (status $rc)" \
	sh -c "[ $rc = 0 ] && grep -q 'npo0/0.*active' '$lane/alice-link.log'"
timeout 120 runuser -u alice -- npo-perf -d npo0 -r npo1 -s 64K -n 100 write bw \
	>"$lane/alice-perf.log" 2>&1
rc=$?
tail -n 5 "$lane/alice-perf.log"
check "alice runs npo-perf between npo0 and npo1 (status $rc)" [ $rc = 0 ]
timeout 120 runuser -u bob -- npo-perf -d npo0 -r npo1 -s 64K -n 100 write bw \
	>"$lane/bob-perf.log" 2>&1
rc=$?
tail -n 3 "$lane/bob-perf.log"
check "bob (not in group npo) is refused (status $rc, EACCES)" \
	sh -c "[ $rc != 0 ] && grep -qi 'permission denied' '$lane/bob-perf.log'"

# Firmware, through iproute2's devlink as an operator updates a host.
sysfs=/sys/class/npo/npo0
dl="pci/$(basename "$(readlink $sysfs/device)")"
stored() {	# stored NAME: the stored version devlink dev info shows
	devlink dev info "$dl" | awk -v name="$1" \
		'/^ *stored:/ { s = 1; next } /:$/ { s = 0 } s && $1 == name { print $2 }'
}
if [ "$boot" = 1 ]; then
	cp "$lane"/fw/*.bin /lib/firmware/npo/
	check "npo0 starts on the host's firmware ($(cat $sysfs/fw_version), $(cat $sysfs/flash/running))" \
		[ "$(cat $sysfs/fw_version) $(cat $sysfs/flash/running)" = "1.0.0 host" ]
	devlink dev flash "$dl" file npo/lane-corrupt.bin >"$lane/flash-corrupt.log" 2>&1
	rc=$?
	cat "$lane/flash-corrupt.log"
	check "a corrupt image is refused (status $rc), nothing written" \
		sh -c "[ $rc != 0 ] && grep -q 'CRC mismatch' '$lane/flash-corrupt.log' &&
		       [ \"\$(cat $sysfs/flash/slot_a $sysfs/flash/slot_b $sysfs/flash/pending)\" = 'none
none
none' ]"
	devlink dev flash "$dl" file npo/lane-1.1.0.bin >"$lane/flash.log" 2>&1
	rc=$?
	cat "$lane/flash.log"
	check "devlink dev flash writes 1.1.0 to slot a (status $rc), 1.0.0 runs on" \
		sh -c "[ $rc = 0 ] && [ \"\$(cat $sysfs/flash/slot_a $sysfs/fw_version)\" = '1.1.0
1.0.0' ]"
	check "devlink dev info: stored fw $(stored fw)" [ "$(stored fw)" = 1.1.0 ]
	devlink dev reload "$dl" action fw_activate >"$lane/activate.log" 2>&1
	rc=$?
	cat "$lane/activate.log"
	check "fw_activate boots it: $(cat $sysfs/fw_version) from slot $(cat $sysfs/flash/running) (status $rc)" \
		[ "$rc $(cat $sysfs/fw_version) $(cat $sysfs/flash/running)" = "0 1.1.0 a" ]
	devlink dev flash "$dl" file npo/lane-1.2.0.bin >/dev/null 2>&1
	echo fwbootfail >/sys/kernel/debug/npo/npo0/fault
	devlink dev reload "$dl" action fw_activate >"$lane/rollback.log" 2>&1
	rc=$?
	cat "$lane/rollback.log"
	check "1.2.0 does not come up: rolled back to $(cat $sysfs/fw_version) in slot $(cat $sysfs/flash/running) (status $rc)" \
		sh -c "[ $rc != 0 ] && grep -q 'did not come up' '$lane/rollback.log' &&
		       [ \"\$(cat $sysfs/fw_version $sysfs/flash/running $sysfs/state)\" = '1.1.0
a
ready' ]"
	check "last_boot: $(cat $sysfs/flash/last_boot)" \
		grep -q '^slot b did not boot' $sysfs/flash/last_boot
else
	check "npo0 runs the flashed firmware after a power cycle ($(cat $sysfs/fw_version) from $(cat $sysfs/flash/running))" \
		[ "$(cat $sysfs/fw_version) $(cat $sysfs/flash/running)" = "1.1.0 a" ]
	check "npo1, never flashed, runs the host's ($(cat /sys/class/npo/npo1/fw_version) from $(cat /sys/class/npo/npo1/flash/running))" \
		[ "$(cat /sys/class/npo/npo1/fw_version) $(cat /sys/class/npo/npo1/flash/running)" = "1.0.0 host" ]
	check "devlink dev info on $kver: stored fw $(stored fw), fw.slot_b $(stored fw.slot_b)" \
		[ "$(stored fw) $(stored fw.slot_b)" = "1.1.0 1.2.0" ]
fi
# host-test.sh checks that the lane got this far on this boot.
echo "NPO-LANE-DONE $boot"
exit $fail
