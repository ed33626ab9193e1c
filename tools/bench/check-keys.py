#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that results.json holds exactly the figures make bench promises.

Each line of the list names a key, or a family of keys with a {a,b}
alternation ("vm_boot_s_{6_1,6_12}"); "#" starts a comment.  Every key
named must be in the results and be a number (or, for *_spread, a pair
of numbers [min, max] with min <= max; or a list, for scheduler_bound; or
a string, for run_*), and the results must hold no other key: a figure
renamed leaves no old name behind.  Exits 1 naming what is wrong.

Usage: check-keys.py RESULTS EXPECTED
"""
import itertools
import json
import re
import sys


def expand(pattern):
    parts = re.split(r"\{([^}]*)\}", pattern)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def well_formed(key, value):
    if key.startswith("run_"):
        return isinstance(value, str) and value
    if key == "scheduler_bound":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if key.startswith("scaling_"):
        return isinstance(value, (dict, list))
    if key.endswith("_spread"):
        return (isinstance(value, list) and len(value) == 2 and
                all(isinstance(v, (int, float)) for v in value) and
                value[0] <= value[1])
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def main():
    results = json.load(open(sys.argv[1]))
    want = set()
    for line in open(sys.argv[2]):
        line = line.split("#", 1)[0].strip()
        if line:
            want.update(expand(line))
    bad = [f"missing: {k}" for k in sorted(want - set(results))]
    bad += [f"not expected: {k}" for k in sorted(set(results) - want)]
    bad += [f"malformed: {k} = {results[k]!r}" for k in sorted(want & set(results))
            if not well_formed(k, results[k])]
    # A label may only name a figure of the run.
    bad += [f"scheduler_bound names no figure: {k}"
            for k in results.get("scheduler_bound", []) if k not in results]
    for line in bad:
        print(f"bench: results.json: {line}", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
