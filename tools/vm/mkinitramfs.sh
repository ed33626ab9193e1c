#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Turn an installed NPO tree into the test VM's initramfs: add busybox, kmod,
# pciutils, the shared libraries every program needs, kernel module
# metadata, and /init.
#
# Usage: mkinitramfs.sh KVER KERNEL_MODULES_DIR ROOT OUT.cpio.gz
set -euo pipefail

kver=$1 kmods=$2 root=$(realpath "$3") out=$4
here=$(dirname "$(realpath "$0")")

# Kernel modules the tests use, beyond what the kernel has built in.
extra_modules=(aer_inject)
# Soft-RoCE, the comparison in make bench: rxe on a veth pair.
extra_modules+=(rdma_rxe veth crc32_generic)
# A dma-buf exporter with no hardware, for registering GPU-style buffers.
extra_modules+=(vgem)
# The PTP clock core, which npo.ko registers its clocks with.
extra_modules+=(ptp)
# An Ethernet link between two VMs, for a job launcher that spans them.
extra_modules+=(virtio_pci virtio_net)

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,root,etc,npo}
install -m 0755 /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	case $applet in
	modprobe|insmod|rmmod|lsmod|depmod|modinfo|lspci|busybox) continue ;;
	esac
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
install -m 0755 "$(command -v kmod)" "$root/usr/bin/kmod"
for tool in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -sf ../usr/bin/kmod "$root/sbin/$tool"
done
if command -v lspci >/dev/null; then
	install -m 0755 "$(command -v lspci)" "$root/usr/bin/lspci"
	install -D -m 0644 /usr/share/misc/pci.ids "$root/usr/share/misc/pci.ids"
fi

# Shared libraries of every ELF file, at their host paths.
# perftest, iproute2's ip, rdma and devlink, linuxptp, and the rxe verbs provider,
# when the host has them (tools/setup/deps.sh installs them).
# linuxptp's phc_ctl and phc2sys, the PHC clients tests run unchanged, and
# bash for the kernel's phc.sh.
# libfabric's fi_info lists providers, ours among them.
for tool in ib_write_bw ib_write_lat ip rdma devlink phc_ctl phc2sys bash fi_info; do
	path=$(command -v $tool || true)
	[ -n "$path" ] && install -m 0755 "$path" "$root/usr/bin/$tool"
done
for f in /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so \
	 /etc/libibverbs.d/rxe.driver; do
	[ -e "$f" ] && install -D -m 0644 "$f" "$root$f"
done

copy_libs() {
	local f lib
	for f in "$@"; do
		{ ldd "$f" 2>/dev/null || true; } | { grep -o "/[^ ]*" || true; } | while read -r lib; do
			case $lib in "$root"/*) continue ;; esac
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
}
mapfile -t elves < <(find "$root" -type f -perm -u+x -o -type f -name '*.so*' |
	while read -r f; do
		head -c4 "$f" | grep -q 'ELF' && echo "$f"
	done)
copy_libs "${elves[@]}"
# Libraries pull in libraries.
mapfile -t libs < <(find "$root/lib" "$root/usr/lib" "$root/lib64" -name '*.so*' -type f 2>/dev/null)
copy_libs "${libs[@]}"

# Kernel module metadata, the extra modules and their dependencies.
mdir=$root/lib/modules/$kver
mkdir -p "$mdir"
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -f "$kmods/$f" ] && cp "$kmods/$f" "$mdir/"
done
kroot=$(dirname "$(dirname "$(dirname "$kmods")")")
# Debian's image packages leave modules.dep to their postinst: make it once.
[ -f "$kmods/modules.dep" ] || depmod -b "$kroot" "$kver"
for m in "${extra_modules[@]}"; do
	for dep in $(modprobe -d "$kroot" \
			-S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'); do
		rel=${dep#*/lib/modules/"$kver"/}
		install -D -m 0644 "$kmods/$rel" "$mdir/$rel"
	done
done
depmod -b "$root" "$kver"

echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/nonexistent:/bin/sh" >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
install -m 0755 "$here/init" "$root/init"
install -m 0644 "$here/splat-patterns" "$root/npo/splat-patterns"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet --owner=0:0) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
