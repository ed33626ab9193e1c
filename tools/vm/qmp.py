#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Send QMP commands to a QEMU monitor socket, as a host operator would.

Usage: qmp.py [--print] SOCKET COMMAND_JSON...
Exits non-zero, printing QEMU's message, if any command fails; with
--print, prints each command's answer as JSON, one a line.
"""
import json
import socket
import sys


def main():
    args = sys.argv[1:]
    show = args[:1] == ["--print"]
    if show:
        args = args[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(args[0])
    stream = sock.makefile("rw")

    def reply():
        while True:
            msg = json.loads(stream.readline())
            if "event" not in msg:
                return msg

    reply()  # the greeting
    for n, cmd in enumerate([{"execute": "qmp_capabilities"}] +
                            [json.loads(a) for a in args[1:]]):
        stream.write(json.dumps(cmd) + "\n")
        stream.flush()
        ans = reply()
        if "error" in ans:
            print("qmp: %s: %s" % (cmd.get("execute"), ans["error"]["desc"]),
                  file=sys.stderr)
            sys.exit(1)
        if show and n:
            print(json.dumps(ans.get("return")))


if __name__ == "__main__":
    main()
