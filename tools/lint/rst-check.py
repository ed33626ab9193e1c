#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Parse each reStructuredText file with docutils and fail on any warning
# or error (malformed tables, broken references), ignoring the Sphinx-only
# roles and directives that plain docutils does not know.
import io
import sys

import docutils.core

SPHINX_ONLY = ('Unknown interpreted text role "doc"', 'No role entry for "doc"',
               'Unknown directive type "toctree"', 'Trying "doc" as canonical role name')

failed = False
for path in sys.argv[1:]:
    report = io.StringIO()
    with open(path) as f:
        docutils.core.publish_doctree(
            f.read(), source_path=path,
            settings_overrides={"warning_stream": report, "report_level": 2,
                                "halt_level": 5})
    problems = [p for p in report.getvalue().split(path) if p.strip()
                and not any(s in p for s in SPHINX_ONLY)]
    for p in problems:
        print(f"{path}{p.rstrip()}")
        failed = True
sys.exit(1 if failed else 0)
