#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make deb: build Debian's packages of NPO with dpkg-buildpackage from a
# copy of the tree (the files git tracks, and new ones it does not
# ignore, so build/ never ends up in a package), into OUT_DIR, and check
# them with lintian: any error fails the build; warnings are printed.
#
# Usage: make-deb.sh OUT_DIR
set -euo pipefail

out=$(realpath -m "${1:?usage: make-deb.sh OUT_DIR}")
top=$(realpath "$(dirname "$0")/../..")
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/src/npo-$version

rm -rf "$out"
mkdir -p "$src"
(cd "$top" && git ls-files -co --exclude-standard -z) |
	(cd "$top" && xargs -0 cp --parents -a -t "$src")
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "make deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
rm -rf "$out/src"
changes=$(ls "$out"/*.changes)
# --fail-on error: what lintian calls an error stops the build; every
# override in debian/*.lintian-overrides says why it is there.
lintian --fail-on error --info --display-info "$changes" | tee "$out/lintian.log"
debs=("$out"/*.deb)
echo "make deb: ${#debs[@]} packages in $out"
