#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the NPO selftests, kselftest style: each test binary under a timeout,
# its TAP output indented, one TAP line per binary.  A binary fails if
#  - it exits non-zero (4, kselftest's "skipped", only where no device is
#    expected),
#  - its TAP plan does not match the results it printed (a test that died
#    or never ran is a failure, not a missing line),
#  - it skipped a test although NPO_EXPECT_DEVICES says devices are there,
#  - the kernel logged a splat (BUG/WARNING/Oops/lockdep/KASAN...) while
#    it ran: the kernel log is cleared before each binary, so a wrapped
#    ring buffer cannot hide one,
#  - on a kernel with kmemleak (make check-debug), a scan after it finds
#    an unreferenced object: each binary is judged on a cleared list.
# The driver must load, and is loaded again before a binary if the last
# one left it unloaded; the splat patterns must be there.
#
# Usage: run_tests.sh [TEST...]    (default: every *_test beside this script)
dir=$(dirname "$0")
timeout=${NPO_TEST_TIMEOUT:-300}
patterns=${NPO_SPLAT_PATTERNS:-/npo/splat-patterns}
expect=${NPO_EXPECT_DEVICES:-}

if [ $# -eq 0 ]; then
	for t in "$dir"/*_test; do
		[ -e "$t" ] && set -- "$@" "${t##*/}"
	done
fi

echo "TAP version 13"
if [ ! -s "$patterns" ]; then
	echo "Bail out! no kernel splat patterns at $patterns"
	exit 1
fi
# The tests expect the driver loaded with default parameters.
if ! /sbin/modprobe npo; then
	echo "Bail out! modprobe npo failed"
	exit 1
fi
kmemleak=/sys/kernel/debug/kmemleak
[ -w "$kmemleak" ] || kmemleak=
# kmemleak reports an object only once it is this old, and only from its
# second scan: the first sees its contents change and gives it the
# benefit of the doubt.
kmemleak_age=${NPO_KMEMLEAK_AGE:-6}
kmemleak_scan() {
	echo scan >"$kmemleak"
	echo scan >"$kmemleak"
}
# What booting left behind is not the tests': forget it.
if [ -n "$kmemleak" ]; then
	kmemleak_scan
	echo clear >"$kmemleak"
fi
echo "1..$#"
n=0
failed=0
for t in "$@"; do
	n=$((n + 1))
	# Each binary starts from a loaded driver: one killed while it had
	# it unloaded (the module test) must not make every later one skip.
	if [ ! -d /sys/module/npo ]; then
		echo "# the driver was not loaded after the last binary: loading it"
		/sbin/modprobe npo || { echo "Bail out! modprobe npo failed"; exit 1; }
	fi
	dmesg -c >/dev/null
	# busybox sh has no PIPESTATUS: the status travels through a file.
	{
		timeout -s KILL "$timeout" "$dir/$t" 2>&1
		echo $? >/tmp/.npo_rc
	} | tee /tmp/.npo_out | sed 's/^/# /'
	rc=$(cat /tmp/.npo_rc)
	why=
	if dmesg | grep -E -f "$patterns" >/tmp/.npo_splat; then
		sed 's/^/# splat: /' /tmp/.npo_splat
		why="kernel splat"
	fi
	if [ -n "$kmemleak" ]; then
		sleep "$kmemleak_age"
		kmemleak_scan
		if grep -q 'unreferenced object' "$kmemleak"; then
			sed 's/^/# kmemleak: /' "$kmemleak"
			why=${why:-kmemleak: $(grep -c 'unreferenced object' "$kmemleak") leaked}
		fi
		echo clear >"$kmemleak"
	fi
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' /tmp/.npo_out | head -n 1)
	ran=$(grep -cE '^(not )?ok [0-9]+ ' /tmp/.npo_out)
	skipped=$(grep -cE '^ok [0-9]+ .*# SKIP' /tmp/.npo_out)
	if [ -z "$why" ] && [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
		why="exit status $rc"
	fi
	if [ -z "$why" ] && { [ -z "$plan" ] || [ "$plan" != "$ran" ]; }; then
		why="TAP plan ${plan:-missing}, $ran results"
	fi
	if [ -z "$why" ] && [ -n "$expect" ] &&
	   { [ "$skipped" -gt 0 ] || [ "$rc" = 4 ]; }; then
		why="$skipped skipped with $expect devices present"
	fi
	if [ -n "$why" ]; then
		echo "not ok $n selftests: npo: $t # $why"
		failed=$((failed + 1))
	else
		echo "ok $n selftests: npo: $t"
	fi
done
exit $((failed > 0))
