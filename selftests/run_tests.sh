#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the NPO selftests, kselftest style: each test binary under a timeout,
# its TAP output indented, one TAP line per binary.  A binary fails if the
# kernel logged a splat (BUG/WARNING/Oops/lockdep/KASAN) while it ran.
#
# Usage: run_tests.sh [TEST...]    (default: every *_test beside this script)
dir=$(dirname "$0")
timeout=${NPO_TEST_TIMEOUT:-300}
patterns=${NPO_SPLAT_PATTERNS:-/npo/splat-patterns}

if [ $# -eq 0 ]; then
	set -- $(cd "$dir" && ls *_test 2>/dev/null)
fi

# The tests expect the driver loaded with default parameters.
/sbin/modprobe npo 2>/dev/null

echo "TAP version 13"
echo "1..$#"
n=0
failed=0
for t in "$@"; do
	n=$((n + 1))
	before=$(dmesg | wc -l)
	# busybox sh has no PIPESTATUS: the status travels through a file.
	{
		timeout -s KILL "$timeout" "$dir/$t" 2>&1
		echo $? >/tmp/.npo_rc
	} | sed 's/^/# /'
	rc=$(cat /tmp/.npo_rc)
	splat=
	if [ -f "$patterns" ] &&
	   dmesg | tail -n +$((before + 1)) | grep -E -f "$patterns" >/tmp/.npo_splat; then
		splat=1
		sed 's/^/# splat: /' /tmp/.npo_splat
	fi
	# 0: passed, 4: skipped (kselftest's KSFT_SKIP).
	if [ -n "$splat" ]; then
		echo "not ok $n selftests: npo: $t # kernel splat"
		failed=$((failed + 1))
	elif [ "$rc" = 0 ] || [ "$rc" = 4 ]; then
		echo "ok $n selftests: npo: $t"
	else
		echo "not ok $n selftests: npo: $t # exit status $rc"
		failed=$((failed + 1))
	fi
done
exit $((failed > 0))
