#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check-fresh-root: the README's promise that every target it names
# installs what it needs, shown on a Debian 12 that has never seen the
# project rather than on the machine it is developed on.  debootstrap
# makes a minimal bookworm (minbase: no compiler, no make, no git), with
# the host's apt sources; in it, as the README says, apt installs make
# and git, git clones the commit under test, and each target runs as a
# user would run it, in a chroot with its own /proc, /sys, /dev/pts and
# /dev/shm.  Targets run in the order below, each on what the earlier
# ones left (as on a machine where they are run in turn); each either
# runs to its end or until a line that shows its set-up worked, after
# which everything running in the root is stopped:
#
#   deb              whole: packages built and checked by lintian
#   demo             whole: QEMU built, a VM of 8 devices, npoctl's views
#   check            whole, or with --quick until its VM lanes start
#   bench            until its first figure
#   check-mutations  until its first mutation's verdict
#   check-host       until the Debian guest's first boot
#   check-debug      until the debug kernel's compiler starts, or whole
#                    with --whole-debug
#
# A target stopped early that printed "not ok" before its line fails.
# A stopped target may leave the tree mid-change (check-mutations applies
# patches): the clone is reset to its commit before the next one.
#
# The root and the debootstrap cache live in OUT_DIR (default
# build/fresh-root) and are made anew each run; logs are OUT_DIR/*.log,
# verdicts OUT_DIR/results.txt.  Needs root and about 60 GiB with
# --whole-debug.
#
# With --again TARGET (repeatable), the root an earlier run left is used
# as it is: the clone moves to the commit and only those targets run,
# whole (after a fix, say, without three hours of set-up again).
#
# Usage: fresh-root-test.sh [--quick] [--whole-debug] [--commit REV]
#                           [--again TARGET]... [OUT_DIR]
set -uo pipefail

here=$(dirname "$(realpath "$0")")
top=$(realpath "$here/../..")
. "$here/apt.sh"
. "$here/chroot.sh"

quick='' whole_debug='' rev=HEAD again=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--whole-debug) whole_debug=1 ;;
	--commit) rev=$2; shift ;;
	--again) again+=("$2"); shift ;;
	-*) echo "usage: fresh-root-test.sh [--quick] [--whole-debug] [--commit REV] [--again TARGET]... [OUT_DIR]" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
out=$(realpath -m "${1:-$top/build/fresh-root}")
root=$out/root
commit=$(git -C "$top" rev-parse --verify "$rev^{commit}") ||
	{ echo "fresh-root: no commit $rev" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "fresh-root: needs root (debootstrap, chroot)" >&2; exit 2; }

apt_install debootstrap

# Every process whose root is the tree: what a stopped target leaves
# running (make, QEMU, a compiler) is found by where it lives, not by
# process group, since the harness starts sessions of its own.
in_root_pids() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		# The root's own chroots (check-host's debootstrap) too.
		case $r in "$root" | "$root"/*) echo "${p#/proc/}" ;; esac
	done
}
stop_root() {
	local pids i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		mapfile -t pids < <(in_root_pids)
		[ ${#pids[@]} -eq 0 ] && return 0
		kill -s "$([ "$i" -le 3 ] && echo TERM || echo KILL)" "${pids[@]}" 2>/dev/null
		sleep 2
	done
	mapfile -t pids < <(in_root_pids)
	[ ${#pids[@]} -eq 0 ] || { echo "fresh-root: cannot stop ${pids[*]}" >&2; return 1; }
}
cleanup() {
	stop_root
	chroot_umount "$root"
}
trap cleanup EXIT

cleanup
chroot_unmounted "$root" || { echo "fresh-root: $root still has mounts" >&2; exit 1; }

in_root() {	# in_root COMMAND: a login-like shell in the root
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "$1"
}

results=$out/results.txt
verdict() {	# verdict TARGET ok|"not ok" SECONDS REASON
	printf '%s - %s (%ss): %s\n' "$2" "$1" "$3" "$4" | tee -a "$results"
}

# The clone, moved to the commit: from the origin, bound read-only.
fetch_commit() {
	mkdir -p "$root/mnt/origin"
	mount --bind -o ro "$top" "$root/mnt/origin"
	in_root "cd /root/npo && git fetch -q /mnt/origin && git checkout -q $commit" \
		>>"$out/setup.log" 2>&1
	local rc=$?
	umount "$root/mnt/origin"
	return $rc
}

if [ ${#again[@]} -gt 0 ]; then
	[ -d "$root/root/npo/.git" ] ||
		{ echo "fresh-root: --again needs the root of an earlier run in $root" >&2; exit 2; }
	chroot_mount "$root"
	echo "fresh-root: again in $root, at ${commit:0:12}: ${again[*]}"
	fetch_commit || { cat "$out/setup.log" >&2; exit 1; }
else
	rm -rf --one-file-system "$root"
	mkdir -p "$out" "$out.cache"
	rm -f "$out"/*.log "$results"

	mirror=$(debian_mirror)
	echo "fresh-root: debootstrap bookworm (minbase) from $mirror into $root"
	debootstrap --variant=minbase --cache-dir="$out.cache" bookworm "$root" "$mirror" \
		>"$out/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$out/debootstrap.log" >&2; exit 1; }
	chroot_copy_apt "$root"
	chroot_mount "$root"
	# The commit under test, read-only, for git clone to fetch from.
	mkdir -p "$root/mnt/origin"
	mount --bind -o ro "$top" "$root/mnt/origin"

	# The README's first step on a fresh machine, then the clone.
	echo "fresh-root: apt-get install make git; git clone; checkout ${commit:0:12}"
	in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make git >/dev/null &&
		git config --global --add safe.directory '*' &&
		git clone -q /mnt/origin /root/npo && cd /root/npo && git checkout -q $commit" \
		>"$out/setup.log" 2>&1 ||
		{ cat "$out/setup.log" >&2; exit 1; }
	umount "$root/mnt/origin"
fi

# run_target TARGET [UNTIL]: make TARGET in the root, whole or until a
# line matching the extended regex UNTIL.
failed=0
run_target() {
	local target=$1 until=${2:-} log=$out/$1.log t0 pid rc seen='' reason=''
	t0=$(date +%s)
	echo "fresh-root: make $target${until:+ (until /$until/)}"
	in_root "cd /root/npo && exec make $target" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ -n "$until" ] && grep -qE -- "$until" "$log"; then
			seen=1
			stop_root
			break
		fi
		sleep 5
	done
	wait "$pid"
	rc=$?
	[ -n "$until" ] && [ -z "$seen" ] && grep -qE -- "$until" "$log" && seen=1
	local took=$(($(date +%s) - t0))
	if [ -n "$seen" ]; then
		# What the target said before the line that stopped it.
		if sed -En "0,/$(printf '%s' "$until" | sed 's|/|\\/|g')/p" "$log" |
			grep -qE '^not ok '; then
			reason="a test failed before /$until/"
		fi
		in_root "cd /root/npo && git reset -q --hard $commit" >>"$log" 2>&1 ||
			reason="the clone could not be reset"
		if [ -n "${reason:-}" ]; then
			verdict "$target" "not ok" "$took" "$reason"
			failed=1
		else
			verdict "$target" ok "$took" "reached /$until/"
		fi
	elif [ -z "$until" ] && [ "$rc" = 0 ]; then
		verdict "$target" ok "$took" "ran to its end: $(grep -v '^$' "$log" | tail -n1)"
	else
		verdict "$target" "not ok" "$took" \
			"make exited with status $rc${until:+ before /$until/}: see $log"
		tail -n 20 "$log" | sed 's/^/#   /'
		failed=1
	fi
}

if [ ${#again[@]} -gt 0 ]; then
	for t in "${again[@]}"; do
		run_target "$t"
	done
	cleanup
	echo "fresh-root: commit ${commit:0:12}, verdicts in $results"
	exit $failed
fi

run_target deb
run_target demo
if [ -n "$quick" ]; then
	run_target check '^== selftests in a VM'
else
	run_target check
fi
run_target bench '^bench: vm_boot_s_[0-9_]+ = '
run_target check-mutations '^(not )?ok - '
run_target check-host '^# kernel [^:]*: boot '
if [ -n "$whole_debug" ]; then
	run_target check-debug
else
	run_target check-debug 'building the debug kernel with'
fi

cleanup
chroot_unmounted "$root" || { echo "fresh-root: $root still has mounts" >&2; exit 1; }
echo "fresh-root: commit ${commit:0:12}, verdicts in $results"
cat "$results"
exit $failed
