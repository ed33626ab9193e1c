# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# A debootstrapped tree used as a root: what it needs mounted and how to
# leave nothing mounted below it.  Sourced by tools/vm/debian-image.sh and
# tools/setup/fresh-root-test.sh.

# debian_mirror: the host's Debian mirror, from deb822 sources or a
# classic sources.list; Debian's own if the host names none.
debian_mirror() {
	local m
	m=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
		sed -n 's|^URIs: *\(http[^ ]*/debian\)/*$|\1|p; s|^deb \(\[[^]]*\] \)*\(http[^ ]*/debian\)/* bookworm .*|\2|p' |
		head -n1 || true)
	echo "${m:-http://deb.debian.org/debian}"
}

# chroot_copy_apt ROOT: the host's apt sources (updates and security too:
# the kernels may live there) in place of debootstrap's one line; not the
# deb-src entries deps.sh adds, which the root's own set-up must add.
chroot_copy_apt() {
	local root=$1 f
	rm -f "$root/etc/apt/sources.list"
	for f in /etc/apt/sources.list.d/*.sources; do
		case ${f##*/} in npo-*) continue ;; esac
		[ -f "$f" ] && cp "$f" "$root/etc/apt/sources.list.d/"
	done
	if [ -f /etc/apt/sources.list ]; then
		cp /etc/apt/sources.list "$root/etc/apt/"
	fi
}

# chroot_mount ROOT: proc, sys, and a slave of the host's /dev (what is
# mounted below it here does not spread back to the host's) with a
# devpts and a /dev/shm of its own.
chroot_mount() {
	local root=$1
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mount --bind /dev "$root/dev"
	mount --make-rslave "$root/dev"
	mount -t devpts -o newinstance devpts "$root/dev/pts"
	mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
}

# chroot_umount ROOT: everything mounted below ROOT, deepest first.
chroot_umount() {
	local root=$1 m
	# Nothing mounted is no failure, under set -e and pipefail too.
	findmnt -rn -o TARGET | { grep "^$root/" || true; } | sort -r |
		while read -r m; do
			umount -l "$m"
		done
}

# chroot_unmounted ROOT: true when nothing is mounted below ROOT, as it
# must be before the tree is removed.
chroot_unmounted() {
	! findmnt -rn -o TARGET | grep -q "^$1/"
}
