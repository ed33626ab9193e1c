# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Installing from Debian's archive, idempotently: sourced by deps.sh and
# debug-kernel.sh.

log() { printf 'deps: %s\n' "$*" >&2; }

need_root() {
	if [ "$(id -u)" != 0 ]; then
		log "missing packages ($*) and not root: run 'make deps' as root"
		exit 1
	fi
}

apt_updated=
apt_update_once() {
	[ -n "$apt_updated" ] && return
	apt-get update -qq
	apt_updated=1
}

# Install the named packages that are not installed yet.
apt_install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return
	need_root "${missing[*]}"
	apt_update_once
	log "installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# apt-get source needs deb-src entries for the archive the host already uses.
ensure_deb_src() {
	local src=/etc/apt/sources.list.d/npo-deb-src.sources
	grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && return
	grep -qs '^deb-src' /etc/apt/sources.list && return
	need_root deb-src
	log "adding deb-src entries ($src)"
	sed -n '/^Types:/s/.*/Types: deb-src/p;/^Types:/!p' \
		/etc/apt/sources.list.d/debian.sources >"$src"
	apt_updated=
	apt_update_once
}
