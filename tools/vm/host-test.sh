#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check-host: the packages on a full Debian 12 host.  A debootstrapped
# image (debian-image.sh, built once and cached in build/debian) is copied
# for this run and booted, with two NPO devices in a ring, once on each
# kernel, the first boot installing build/deb's packages with apt and DKMS
# building the module for both kernels (host-lane.sh has the checks; a
# lane disk carries it, the .debs, firmware images to flash and what the
# guest writes back).  The devices keep their flash in files across the
# boots, as flash outlasts a power cycle.
#
# Prints "ok"/"not ok" lines and exits 0/1.
#
# Usage: host-test.sh [KERNEL...]   (default: 6.1 6.12)
set -u
here=$(dirname "$(realpath "$0")")
build=${BUILD:-$here/../../build}
. "$here/lib.sh"
[ $# -gt 0 ] || set -- 6.1 6.12
fail=0

kvers=()
for k in "$@"; do
	kvers+=("$(sed -n "s|^KVER_$k := ||p" "$build/kernels.mk")")
done
debs=()
for deb in "$build"/deb/*.deb; do
	case $deb in *-dbgsym_*) ;; *) [ -f "$deb" ] && debs+=("$deb") ;; esac
done
if [ ${#debs[@]} = 0 ]; then
	echo "not ok - no packages in $build/deb: run make deb"
	exit 1
fi
echo "# the Debian image (built once, then cached in $build/debian)"
if ! bash "$here/debian-image.sh" "$build/debian" "${kvers[@]}"; then
	echo "not ok - the Debian image could not be made"
	exit 1
fi

work=$build/host-lane
rm -rf "$work"
mkdir -p "$work/lane/debs"
cp "${debs[@]}" "$work/lane/debs/"
install -m 0755 "$here/host-lane.sh" "$work/lane/run.sh"
install -m 0755 "$here/host-lane-boot" "$work/lane/boot.sh"
cp "$here/splat-patterns" "$here/lib.sh" "$work/lane/"
echo "${kvers[*]}" >"$work/lane/kernels"
# Images to flash: the reference firmware as 1.1.0 and 1.2.0, and 1.1.0
# with a flipped bit.
mkdir -p "$work/lane/fw"
for v in 1.1.0 1.2.0; do
	sed "s/^version .*/version  $v/" "$here/../../firmware/npo-fw.src" \
		>"$work/fw-$v.src"
	"$build/bin/npo-fwtool" build "$work/fw-$v.src" -o "$work/lane/fw/lane-$v.bin" ||
		{ echo "not ok - npo-fwtool could not build $v"; exit 1; }
done
cp "$work/lane/fw/lane-1.1.0.bin" "$work/lane/fw/lane-corrupt.bin"
size=$(stat -c %s "$work/lane/fw/lane-corrupt.bin")
printf '\377' | dd of="$work/lane/fw/lane-corrupt.bin" bs=1 seek=$((size - 1)) \
	conv=notrunc status=none
mkfs.ext4 -q -F -L npo-lane -d "$work/lane" "$work/lane.img" 256M
cp --sparse=always "$build/debian/root.img" "$work/root.img"

boot=0
for k in "$@"; do
	boot=$((boot + 1))
	kver=${kvers[$((boot - 1))]}
	echo "# kernel $k: boot $boot, $(date +%T)"
	start=$(date +%s)
	BUILD=$build "$here/npo-vm" --kernel "$k" --root-disk "$work/root.img" \
		--boot-dir "$build/debian/boot" --disk "$work/lane.img" \
		--devices 2 --topology ring --mem 2048 --timeout 3000 \
		--device-prop "0=flash=$work/npo0.flash" \
		--device-prop "1=flash=$work/npo1.flash" \
		>"$work/boot-$k.log" 2>&1
	rc=$?
	grep -E '^(not )?ok - ' "$work/boot-$k.log" | sed "s/^/  /"
	check "kernel $k: the host booted, ran the lane and powered off cleanly, no splat (status $rc, $(($(date +%s) - start)) s)" \
		[ $rc = 0 ]
	# The lane ran on this boot and kernel, and checked something.
	check "kernel $k: boot $boot ran $kver" grep -q "^NPO-LANE-BOOT $boot $kver\$" "$work/boot-$k.log"
	oks=$(grep -c '^ok - ' "$work/boot-$k.log")
	check "kernel $k: the lane ran to its end ($oks checks passed)" \
		grep -q "^NPO-LANE-DONE $boot\$" "$work/boot-$k.log"
	if [ $rc != 0 ] || grep -q '^not ok' "$work/boot-$k.log"; then
		fail=1
		grep -v '^\[' "$work/boot-$k.log" | tail -n 40 | sed 's/^/  # /'
	fi
done
exit $fail
