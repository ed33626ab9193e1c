#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Send QMP commands to a QEMU monitor socket, as a host operator would.

Usage: qmp.py SOCKET COMMAND_JSON...
Exits non-zero, printing QEMU's message, if any command fails.
"""
import json
import socket
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sys.argv[1])
    stream = sock.makefile("rw")

    def reply():
        while True:
            msg = json.loads(stream.readline())
            if "event" not in msg:
                return msg

    reply()  # the greeting
    for cmd in [{"execute": "qmp_capabilities"}] + \
            [json.loads(a) for a in sys.argv[2:]]:
        stream.write(json.dumps(cmd) + "\n")
        stream.flush()
        ans = reply()
        if "error" in ans:
            print("qmp: %s: %s" % (cmd.get("execute"), ans["error"]["desc"]),
                  file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
