#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A hostile peer at the far end of a cable: hostile-ring-peer.py connects
# to the socket an NPO port listens on and offers shared-memory rings the
# port must refuse (unsealed, short, of another version, with doorbells
# that are not datagram sockets, of a bad size), then rings the port
# accepted and that break (an index past the ring or running backwards, a
# bad frame, a frame longer than what was published), which must cost the
# connection and nothing else.  Meanwhile the guest drives the device; at
# the end QEMU must still run (QMP), the guest must reach its end, and its
# kernel must have stayed quiet.  Prints "ok"/"not ok" lines, exits 0/1.
#
# Usage: hostile-ring-test.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
kernel=${1:-6.1}
vm_scratch
sock=$work/link.sock

# The guest keeps asking about its port (which trains, fails to, retries)
# for longer than the peer's cases take.
guest='/sbin/modprobe npo && echo GUEST-UP
end=$(($(date +%s) + 45))
while [ "$(date +%s)" -lt "$end" ]; do npoctl link show npo0/0 >/dev/null || exit 1; sleep 0.2; done
echo GUEST-END'

vm_start "$work/vm.log" --kernel "$kernel" --devices 1 --node-base 1 --timeout 300 \
	--link 0.0=listen:"$sock" \
	-- sh -c "$guest"

fail=0
check "the guest loaded the driver" vm_wait_line "$work/vm.log" "$vm" '^GUEST-UP' 300
/usr/bin/python3 "$here/hostile-ring-peer.py" "$sock" >"$work/peer.log" 2>&1
rc=$?
sed 's/^/  /' "$work/peer.log"
check "every hostile ring was refused or cost only its connection" [ $rc = 0 ]
check "QEMU still runs its guest (QMP query-status)" \
	vm_qmp '{"execute": "query-status"}'
check "the guest reaches its end" vm_wait_line "$work/vm.log" "$vm" '^GUEST-END' 120
wait "$vm"
rc=$?
vm=
check "the VM ended cleanly, its kernel quiet (status $rc)" [ $rc = 0 ]
[ $fail = 0 ] || grep -v '^\[  ' "$work/vm.log" | tail -n 30 | sed 's/^/  /'
exit $fail
