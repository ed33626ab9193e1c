#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A full Debian 12 host for the package lane (host-test.sh): debootstrap
# with systemd, udev, apt, DKMS and a compiler, both test kernels with
# their headers (initramfs-tools makes each an initrd), and a unit that
# mounts the second disk (the lane disk) at boot and runs its boot.sh
# (host-lane-boot), so the lane's scripts change without a new image.  Written to
# OUT_DIR/root.img (raw ext4, made by mkfs.ext4 -d: no loop mounts) and
# OUT_DIR/boot/ (the kernels and initrds, for QEMU's -kernel), and kept
# until this script or the kernels change.  Only Debian's archive is used,
# as the host's own apt sources name it.
#
# Usage: debian-image.sh OUT_DIR KVER...
set -euo pipefail

out=$(realpath -m "${1:?usage: debian-image.sh OUT_DIR KVER...}")
shift
[ $# -gt 0 ] || { echo "debian-image: no kernel versions" >&2; exit 2; }
key="$(sha256sum "$0" | cut -c1-16) $*"
if [ -f "$out/root.img" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$key" ]; then
	exit 0
fi

# debootstrap and mkfs.ext4 -d from Debian's archive, as every other
# tool the project needs: a fresh machine has neither of the first.
here=$(dirname "$(realpath "$0")")
. "$here/../setup/apt.sh"
apt_install debootstrap e2fsprogs

root=$out/root
. "$here/../setup/chroot.sh"
mirror=$(debian_mirror)
trap 'chroot_umount "$root"' EXIT
chroot_umount "$root"
chroot_unmounted "$root" || { echo "debian-image: $root still has mounts" >&2; exit 1; }
# Downloaded packages outlive a rebuild of the image.
cache=$out.cache
rm -rf --one-file-system "$out"
mkdir -p "$out/boot" "$cache"

echo "debian-image: debootstrap bookworm from $mirror" >&2
debootstrap --variant=minbase --cache-dir="$cache" \
	--include=systemd,systemd-sysv,udev,dbus,apt,kmod,adduser,iproute2,procps,util-linux,e2fsprogs,ca-certificates \
	bookworm "$root" "$mirror" >"$out/debootstrap.log" 2>&1 || {
	tail -n 30 "$out/debootstrap.log" >&2
	exit 1
}
chroot_copy_apt "$root"
chroot_mount "$root"

kernel_pkgs=()
for kver in "$@"; do
	# Debian ships 6.12 for bookworm unsigned only.
	if chroot "$root" apt-cache show "linux-image-$kver" >/dev/null 2>&1 ||
		{ chroot "$root" apt-get update -qq && chroot "$root" apt-cache show "linux-image-$kver" >/dev/null 2>&1; }; then
		kernel_pkgs+=("linux-image-$kver")
	else
		kernel_pkgs+=("linux-image-$kver-unsigned")
	fi
	kernel_pkgs+=("linux-headers-$kver")
done
# What the NPO packages depend on: the guest has no network, and apt
# installs the built .debs from what is already here.
runtime_deps=(libjson-c5 libnl-3-200 libnl-genl-3-200 libfabric1 zlib1g)
echo "debian-image: installing ${kernel_pkgs[*]}, dkms and a compiler" >&2
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends initramfs-tools dkms gcc make libc6-dev \
	iproute2 "${kernel_pkgs[@]}" "${runtime_deps[@]}" >"$out/apt.log" 2>&1 || {
	tail -n 30 "$out/apt.log" >&2
	exit 1
}
chroot "$root" apt-get clean

# A host of its own: name, root file system, console, and the lane's unit.
echo npo-host >"$root/etc/hostname"
echo '/dev/vda / ext4 defaults 0 1' >"$root/etc/fstab"
chroot "$root" passwd -d root >/dev/null
cat >"$root/etc/systemd/system/npo-lane.service" <<'UNIT'
[Unit]
Description=NPO package lane: run boot.sh from the lane disk (/dev/vdb)
After=multi-user.target systemd-udev-settle.service
Wants=systemd-udev-settle.service

[Service]
Type=oneshot
# A lane that hangs (apt, DKMS, a tool) ends here, reported, not at
# the host's timeout.
TimeoutStartSec=2400
ExecStart=/bin/sh -c 'mkdir -p /mnt/lane && mount /dev/vdb /mnt/lane && exec sh /mnt/lane/boot.sh'
ExecStopPost=/bin/sh -c 'if [ "$$SERVICE_RESULT" != success ]; then echo "NPO-VM-EXIT: 125"; systemctl poweroff --no-block; fi'
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0

[Install]
WantedBy=multi-user.target
UNIT
chroot "$root" systemctl enable npo-lane.service >/dev/null 2>&1
# No login prompt on the console the lane prints to.
chroot "$root" systemctl mask serial-getty@ttyS0.service >/dev/null 2>&1

for kver in "$@"; do
	cp "$root/boot/vmlinuz-$kver" "$root/boot/initrd.img-$kver" "$out/boot/"
done
chroot_umount "$root"
chroot_unmounted "$root" || { echo "debian-image: could not unmount below $root" >&2; exit 1; }
echo "debian-image: making $out/root.img" >&2
mkfs.ext4 -q -F -L npo-root -d "$root" "$out/root.img" 6G
rm -rf --one-file-system "$root"
echo "$key" >"$out/stamp"
