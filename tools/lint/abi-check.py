#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every sysfs attribute the driver defines (DEVICE_ATTR_* in
driver/npo_sysfs.c, under its group's directory when the group has a
.name) has its entry in Documentation/ABI/testing/sysfs-class-npo, and
every entry there names an attribute that exists.  Prints what is missing
or stale; exits 1 if anything is."""
import re
import sys

src = open("driver/npo_sysfs.c").read()
arrays = {name: re.findall(r"&dev_attr_(\w+)\.attr", body) for name, body in
          re.findall(r"struct attribute \*(\w+)\[\] = \{(.*?)\};", src, re.S)}
subdir = {}
for body in re.findall(r"struct attribute_group \w+ = \{(.*?)\};", src, re.S):
    name = re.search(r'\.name = "(\w+)"', body)
    attrs = re.search(r"\.attrs = (\w+)", body)
    if name and attrs:
        for attr in arrays.get(attrs.group(1), []):
            subdir[attr] = name.group(1) + "/"
defined = {subdir.get(a, "") + a for a in re.findall(r"DEVICE_ATTR_R[OW]+\((\w+)\)", src)}
documented = set(re.findall(r"^What:\s+/sys/class/npo/npoN/([\w/]+)$",
                            open("Documentation/ABI/testing/sysfs-class-npo").read(), re.M))
for name in sorted(defined - documented):
    print(f"abi-check: /sys/class/npo/npoN/{name} is not in Documentation/ABI")
for name in sorted(documented - defined):
    print(f"abi-check: Documentation/ABI names {name}, which the driver does not define")
sys.exit(1 if defined != documented else 0)
