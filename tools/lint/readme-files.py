#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every driver and device model source file is named in the README's
"One file per concern" table, and every file the table names exists."""
import glob
import os
import re
import sys

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(top)
readme = open('README.md', encoding='utf-8').read()
start = readme.find('### One file per concern')
end = readme.find('\n## ', start)
if start < 0 or end < 0:
    sys.exit('README.md: no "One file per concern" section')
table = readme[start:end]
named = set(re.findall(r'`([\w.-]+\.[ch])`', table))
status = 0
for path in sorted(glob.glob('driver/*.[ch]') + glob.glob('tools/qemu/*.[ch]')):
    if os.path.basename(path) not in named:
        print(f'README.md: {path} is not in the "One file per concern" table')
        status = 1
here = {os.path.basename(p) for p in glob.glob('driver/*.[ch]') +
        glob.glob('tools/qemu/*.[ch]') + glob.glob('firmware/*.[ch]')}
for name in sorted(named - here):
    print(f'README.md: the table names {name}, which does not exist')
    status = 1
sys.exit(status)
