#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every fixture test of selftests/ starts with NPO_TEST_SETUP_DONE().

The kselftest harness runs a test's body even when its FIXTURE_SETUP
called SKIP(): without the macro such a test runs against a device it
never set up, and fails or, worse, passes.  Prints each test without it
and exits 1.
"""
import glob
import re
import sys

TEST = re.compile(r'^TEST_F(?:_TIMEOUT)?\((\w+),\s*(\w+)[^\n]*\n\{\n(.*?)^\}',
                  re.S | re.M)

missing = []
for path in sorted(glob.glob('selftests/*_test.c')):
    with open(path) as f:
        for m in TEST.finditer(f.read()):
            if 'NPO_TEST_SETUP_DONE();' not in m.group(3):
                missing.append(f'{path}: {m.group(1)}.{m.group(2)}')
for line in missing:
    print(f'{line}: no NPO_TEST_SETUP_DONE()', file=sys.stderr)
sys.exit(1 if missing else 0)
