#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build a minimal qemu-system-x86_64 with the NPO device model.
#
# Usage: build-qemu.sh QEMU_SRC OUT_DIR
#
# The device model sources stay in this project: they are symlinked into the
# QEMU tree, so an edit here is a 10-second incremental rebuild.
set -euo pipefail

src=$(realpath "${1:?usage: build-qemu.sh QEMU_SRC OUT_DIR}")
out=$(realpath -m "${2:?usage: build-qemu.sh QEMU_SRC OUT_DIR}")
here=$(dirname "$(realpath "$0")")
top=$(realpath "$here/../..")

link() { ln -sfn "$1" "$2"; }

# Every model file: a file added here is built without editing this script.
sources=()
for f in "$here"/npo*.c "$here"/npo*.h; do
	link "$f" "$src/hw/misc/${f##*/}"
	[[ $f = *.c ]] && sources+=("${f##*/}")
done
# A model file renamed or removed leaves a dangling link behind.
find "$src/hw/misc" -maxdepth 1 -name 'npo*' -xtype l -delete
link "$top/firmware/npo_fw_validate.c" "$src/hw/misc/npo_fw_validate.c"
link "$top/firmware/npo_fw_validate.h" "$src/hw/misc/npo_fw_validate.h"
link "$top/uapi/linux/npo_fw.h" "$src/linux-headers/linux/npo_fw.h"
link "$top/uapi/linux/npo_queue.h" "$src/linux-headers/linux/npo_queue.h"
link "$top/uapi/linux/npo_netlink.h" "$src/linux-headers/linux/npo_netlink.h"
link "$top/uapi/linux/npo_names.h" "$src/linux-headers/linux/npo_names.h"

# Hook the model into QEMU's Kconfig, meson and trace-events: our block
# sits at the end of each file and is rewritten when it changes.
marker="# NPO device model"
hook() {	# hook FILE < TEXT
	local file=$1 text
	text=$(cat)
	if ! grep -q "$marker" "$file"; then
		printf '\n%s\n%s\n' "$marker" "$text" >>"$file"
	elif [ "$(sed -n "/^$marker\$/,\$p" "$file" | tail -n +2)" != "$text" ]; then
		sed -i "/^$marker\$/,\$d" "$file"
		printf '%s\n%s\n' "$marker" "$text" >>"$file"
	fi
}
hook "$src/hw/misc/Kconfig" <<KCONFIG
config NPO
    bool
    default y
    depends on PCI_EXPRESS && MSI_NONBROKEN
KCONFIG
meson_files=$(printf "'%s', " "${sources[@]}" npo_fw_validate.c)
hook "$src/hw/misc/meson.build" <<MESON
softmmu_ss.add(when: 'CONFIG_NPO',
               if_true: [files(${meson_files%, }), zlib])
MESON
grep -v '^#' "$here/trace-events" | hook "$src/hw/misc/trace-events"

# Debian's dfsg tarball has no edk2 blobs; BIOS images come from the
# seabios and qemu-system-data packages instead.
sed -i 's/^\(    unpack_edk2_blobs = \)bzip2.found()$/\1false/' "$src/meson.build"

mkdir -p "$out"
if [ ! -f "$out/build.ninja" ]; then
	(cd "$out" && PATH=/usr/bin:$PATH "$src/configure" \
		--target-list=x86_64-softmmu \
		--without-default-features \
		--disable-docs --disable-install-blobs --disable-werror \
		--meson=/usr/bin/meson \
		--enable-trace-backends=log) >"$out/configure.log" 2>&1 || {
		tail -n 30 "$out/configure.log" >&2
		exit 1
	}
fi
ninja -C "$out" qemu-system-x86_64 >"$out/ninja.log" 2>&1 || {
	grep -B2 -A10 -m5 'error' "$out/ninja.log" >&2 || tail -n 40 "$out/ninja.log" >&2
	exit 1
}
