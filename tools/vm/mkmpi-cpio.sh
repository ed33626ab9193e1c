#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's Open MPI as a second initramfs archive for the MPI lanes: the
# launcher, its components and help texts, the shared libraries they need
# beyond what BASE_ROOT (the VM's root tree) has, and the given programs.
# npo-vm --initrd-extra unpacks it over the base one, so the other lanes'
# VMs stay as small as they were.
#
# Usage: mkmpi-cpio.sh BASE_ROOT OUT.cpio.gz PROGRAM...
set -euo pipefail

base=$(realpath "$1") out=$2
shift 2
multiarch=$(gcc -print-multiarch)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

copy() {	# copy PATH...: at the same path, links kept
	local p
	for p in "$@"; do
		mkdir -p "$root$(dirname "$p")"
		cp -a "$p" "$root$p"
	done
}

copy /usr/bin/orterun /usr/bin/orted /usr/bin/ompi_info /etc/openmpi \
	"/usr/lib/$multiarch/openmpi" "/usr/lib/$multiarch/pmix2" \
	/usr/share/openmpi /usr/share/pmix 2>/dev/null || true
[ -x "$root/usr/bin/orterun" ] || { echo "mkmpi-cpio: no Open MPI (openmpi-bin)" >&2; exit 1; }
ln -sf orterun "$root/usr/bin/mpirun"
ln -sf orterun "$root/usr/bin/mpiexec"
mkdir -p "$root/usr/lib/npo/mpi"
install -m 0755 "$@" "$root/usr/lib/npo/mpi/"

# Shared libraries, until nothing new is needed: components pull in more.
for _ in 1 2 3; do
	find "$root" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
		{ xargs -0 ldd 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
		sort -u |
		while read -r lib; do
			[ -e "$base$lib" ] || [ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
done
(cd "$root" && find . | cpio -o -H newc --quiet --owner=0:0) | gzip -6 >"$out"
