#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The fabric tools across two emulated hosts: A (nodes 1-2) and B (nodes
# 3-4), two NPO devices each in a line, their free ends linked through two
# UNIX sockets into a ring of four, so that every link report, LIGHT frame
# and training frame between the hosts crosses from one QEMU process to
# the other.
#
# 1. Which end is at fault.  The host injects through QMP, as an
#    operator's tooling would: 2.4 dB more loss into lanes 0-4, 6 and 7 of
#    A's npo1 port 0 and lane 5 of it dark (link X, to B's npo0 port 1),
#    and B's npo1 port 0 launching 2.5 dB weaker (link Y, to A's npo0 port
#    1).  From the reports B sends over the links, A's npoctl link diagnose
#    must say "path loss into this port, far-end transmit normal" and
#    "lane 5" on npo1/0 and "far-end transmitter" on npo0/1; B, from A's,
#    "path loss out of this port" on npo0/1 and "near-end transmitter" on
#    npo1/0.  Each host's `npoctl -j fabric test` report, merged by
#    `npoctl fabric merge` on the host, is one fabric of four links, each
#    link with both ends measured, failing exactly X and Y.
#
# 2. Two swapped sockets.  B starts with its two ports' sockets swapped
#    (A's npo1/0 now reaches B's npo1/0, A's npo0/1 B's npo0/1):
#    `npoctl topo check` on A against the ring's plan finds exactly two
#    miswired cables, on A's node 2 port 0 and node 1 port 1.  B's clocks
#    follow A's grandmaster through them; then B alone hands the plan to
#    its driver (--apply): its two ports to A are MISWIRED, its clocks
#    elect a grandmaster of their own although A still announces its own
#    over the cables, none through a quarantined port, and A's routes
#    lose B's nodes (B no longer advertises the cables).  Cut and pulled,
#    B's cables stay quarantined.
#
# Prints TAP-like "ok"/"not ok" lines, exits 0/1.
#
# Usage: two-vm-fabric.sh KERNEL
set -u
here=$(dirname "$(realpath "$0")")
. "$here/lib.sh"
build=${BUILD:-$here/../../build}
kernel=${1:-6.1}
npoctl=$build/bin/npoctl
vm_scratch_named a b
fail=0

# Quiet consoles (a kernel line inside a JSON line spoils it), the
# driver, and the host's four ports up: the two inside it, the two out.
up='dmesg -n 1
/sbin/modprobe npo || exit 1
i=0
until [ "$(npoctl -j link | grep -o "\"state\":\"active\"" | wc -l)" -ge 4 ]; do
	i=$((i + 1)); [ $i -le 1200 ] || { echo "NPO-2VM: the ring never came up"; npoctl link; exit 1; }
	sleep 0.1
done'
# expect PORT PATTERN: diagnose PORT until it says PATTERN (reports come
# every second), 60 s at most.
expect='expect() {
	for i in $(seq 300); do
		out=$(npoctl link diagnose $1 2>&1)
		if echo "$out" | grep -q "$2"; then echo "ok - $(hostname) $1: $2"; return 0; fi
		sleep 0.2
	done
	echo "not ok - $(hostname) $1: $2"; echo "$out"
}'
fabric='echo "NPO-FABRIC $(npoctl -j fabric test no-prbs bytes 8388608 2>/dev/null | tr -d "\n")"'
# until_down PORT: stay until the host cuts link X, its sign that both
# hosts are done, then end normally (npo-vm checks the kernel log).
until_down='until_down() {
	i=0
	while npoctl -j link show $1 | grep -q "\"state\":\"active\""; do
		i=$((i + 1)); [ $i -le 3000 ] || exit 1
		sleep 0.2
	done
}'

qmp_fault() {	# qmp_fault VM DEV FAULT
	vm_qom_set --vm "$1" "$2" fault "$3"
}

vm() {	# vm NAME NODE_BASE GUEST ARGS...
	local name=$1 base=$2 guest=$3
	shift 3
	BUILD=$build "$here/npo-vm" --kernel "$kernel" --devices 2 --node-base "$base" \
		--topology line --timeout 600 \
		--qemu-arg -qmp --qemu-arg "unix:$work/$name.qmp,server=on,wait=off" \
		"$@" -- sh -c "hostname host-$name
$guest" >"$work/$name.log" 2>&1
}

# --- 1: faults on both hosts, judged from the far end's reports ----------
guest_a="$up
$expect
$until_down
expect npo1/0 'path loss into this port, far-end transmit normal'
expect npo1/0 '^lane 5: no light arrives at node 2/0'
expect npo0/1 'far-end transmitter: node 4/0'
$fabric
echo NPO-2VM-A-DONE
until_down npo1/0"
guest_b="$up
$expect
$until_down
expect npo0/1 'path loss out of this port, near-end transmit normal'
expect npo1/0 'near-end transmitter: node 4/0'
$fabric
echo NPO-2VM-B-DONE
until_down npo0/1"

vm a 1 "$guest_a" --link 1.0=listen:"$work/x.sock" --link 0.1=connect:"$work/y.sock" &
a=$!
vm_wait_qmp a || { echo "not ok - A's QEMU started"; exit 1; }
for lane in 0 1 2 3 4 6 7; do
	qmp_fault a npo1 "rxdrop 0 $lane 2.4" || fail=1
done
qmp_fault a npo1 "dead 0 5 1" || fail=1
vm b 3 "$guest_b" --link 1.0=listen:"$work/y.sock" --link 0.1=connect:"$work/x.sock" &
b=$!
vm_wait_qmp b || { echo "not ok - B's QEMU started"; exit 1; }
for lane in 0 1 2 3 4 5 6 7; do
	qmp_fault b npo1 "txdrop 0 $lane 2.5" || fail=1
done
# Each host measures while the other's links are still there: both
# finish before either QEMU goes.
vm_wait_line "$work/a.log" "$a" '^NPO-2VM-A-DONE' 400
vm_wait_line "$work/b.log" "$b" '^NPO-2VM-B-DONE' 400
qmp_fault a npo1 "cut 0 1"
wait $a
ra=$?
wait $b
rb=$?
grep -E '^(ok|not ok) - ' "$work/a.log" "$work/b.log" | sed 's/^[^:]*://'
grep -q '^not ok' "$work/a.log" "$work/b.log" && fail=1
# npo-vm: 0 when the guest ended well, 99 on a kernel splat.
check "host A's guest ended cleanly (npo-vm $ra)" test "$ra" = 0
check "host B's guest ended cleanly (npo-vm $rb)" test "$rb" = 0
for h in a b; do
	sed -n 's/^NPO-FABRIC //p' "$work/$h.log" >"$work/$h.json"
done
"$npoctl" -j fabric merge "$work/a.json" "$work/b.json" >"$work/merged.json" 2>"$work/merge.err"
rm_merge=$?
check "the two hosts' reports merge (exit $rm_merge: 1, two links failed)" \
	test "$rm_merge" = 1
/usr/bin/python3 - "$work/merged.json" <<'EOF' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
def end(e): return (e["node_id"], e["port"])
links = {frozenset([end(l["a"]), end(l["b"])]): l for l in doc["links"]}
ok = True
def check(what, cond):
    global ok
    print(("ok - " if cond else "not ok - ") + what)
    ok &= bool(cond)
check(f"one fabric of 4 links from 2 hosts ({doc['links_tested']}, {doc['hosts']})",
      doc["links_tested"] == 4 and doc["hosts"] == 2)
check("every link has both ends measured",
      all(l["a"]["measured"] and l["b"]["measured"] for l in doc["links"]))
x = links.get(frozenset([(2, 0), (3, 1)]))
y = links.get(frozenset([(4, 0), (1, 1)]))
check("the failed links are exactly X and Y, ranked first",
      x and y and {r["result"] for r in doc["links"][:2]} == {"fail"} and
      {frozenset([end(l["a"]), end(l["b"])]) for l in doc["links"][:2]} ==
      {frozenset([(2, 0), (3, 1)]), frozenset([(4, 0), (1, 1)])} and
      all(l["result"] == "pass" for l in doc["links"][2:]))
kinds = lambda l: {r["kind"] for r in l["reasons"]} if l else set()
check(f"X: its dark lane and low Rx ({sorted(kinds(x))})",
      {"dead-lane", "low-rx-power"} <= kinds(x))
check(f"Y: low Rx at A's end, from B's weak transmitter ({sorted(kinds(y))})",
      "low-rx-power" in kinds(y))
sys.exit(0 if ok else 1)
EOF

# --- 2: B's two sockets swapped ---------------------------------------------
# The ring's plan: node k port 0 to node k+1 port 1.
plan='echo "{\"links\": [
 {\"a\":{\"node_id\":1,\"port\":0},\"b\":{\"node_id\":2,\"port\":1}},
 {\"a\":{\"node_id\":2,\"port\":0},\"b\":{\"node_id\":3,\"port\":1}},
 {\"a\":{\"node_id\":3,\"port\":0},\"b\":{\"node_id\":4,\"port\":1}},
 {\"a\":{\"node_id\":4,\"port\":0},\"b\":{\"node_id\":1,\"port\":1}}]}" >/tmp/plan.json'
# clocks_follow "NODES" TAG: wait (30 s at most) until every clock of
# this host follows (locking or locked), or is, a grandmaster among
# NODES; print them.
clocks_follow='clocks_follow() {
	for i in $(seq 150); do
		gms=$(npoctl -j clock | grep -o "\"grandmaster\":[0-9]*" | cut -d: -f2 | sort -u)
		ok=$([ -n "$gms" ] && echo 1 || echo 0)
		for g in $gms; do case " $1 " in *" $g "*) ;; *) ok=0 ;; esac; done
		[ $ok = 1 ] && ! npoctl -j clock | grep -q "\"state\":\"\(holdover\|free\|unlocked\)" && break
		sleep 0.2
	done
	echo "NPO-CLOCKS-$2 $(npoctl -j clock | tr -d "\n")"
}'
# Only B hands the plan to its driver, once its clocks follow A's
# grandmaster over the swapped cables: B's ends of them are quarantined,
# and B's clocks must elect a grandmaster of their own although A still
# announces its own over them.  A sees B's adverts drop the two cables:
# no way to B's nodes is left.  After the host cuts one cable and A's
# QEMU goes (the other cable pulled), B's ports stay quarantined.
guest_a2="$up
$plan
$until_down
npoctl topo check /tmp/plan.json
echo \"NPO-CHECK-EXIT \$?\"
echo \"NPO-CHECK \$(npoctl -j topo check /tmp/plan.json | tr -d '\\n')\"
for i in \$(seq 300); do
	npoctl -j route | grep -q '\"dest_node\":[34],' || break
	sleep 0.2
done
echo \"NPO-ROUTES \$(npoctl -j route | tr -d '\\n')\"
echo NPO-2VM-A-DONE
until_down npo1/0"
guest_b2="$up
$plan
$until_down
$clocks_follow
clocks_follow '1' BEFORE
npoctl topo check --apply /tmp/plan.json >/dev/null
echo \"NPO-APPLY-EXIT \$?\"
echo \"NPO-LINKS \$(npoctl -j link | tr -d '\\n')\"
clocks_follow '3 4' AFTER
echo NPO-2VM-B-DONE
until_down npo1/0
until_down npo0/1
sleep 1
echo \"NPO-LINKS-PULLED \$(npoctl -j link | tr -d '\\n')\""
rm -f "$work"/*.sock "$work"/*.qmp
vm a 1 "$guest_a2" --link 1.0=listen:"$work/x.sock" --link 0.1=connect:"$work/y.sock" &
a=$!
vm_wait_qmp a || { echo "not ok - A's QEMU started again"; exit 1; }
vm b 3 "$guest_b2" --link 0.1=listen:"$work/y.sock" --link 1.0=connect:"$work/x.sock" &
b=$!
vm_wait_line "$work/a.log" "$a" '^NPO-2VM-A-DONE' 400
vm_wait_line "$work/b.log" "$b" '^NPO-2VM-B-DONE' 400
qmp_fault a npo1 "cut 0 1"
wait $a
ra=$?
# A's QEMU gone pulls B's other cable: B ends.
wait $b
rb=$?
check "both guests ended cleanly (npo-vm $ra, $rb)" test "$ra$rb" = 00
check "topo check exits 3 on the swapped cables" \
	grep -q '^NPO-CHECK-EXIT 3' "$work/a.log"
check "topo check --apply exits 3 on B" grep -q '^NPO-APPLY-EXIT 3' "$work/b.log"
/usr/bin/python3 - "$work/a.log" "$work/b.log" <<'EOF' || fail=1
import json, sys

def line(path, tag):
    for l in open(path, errors="replace"):
        if l.startswith(tag + " "):
            return json.loads(l[len(tag) + 1:])
    raise ValueError(f"no {tag} line in {path}")

ok = True
def check(what, good):
    global ok
    print(("ok" if good else "not ok") + " - " + what)
    ok &= bool(good)

def miswired(links):
    return sorted(p["port"] for p in links if "MISWIRED" in p.get("flags", []))

try:
    f = line(sys.argv[1], "NPO-CHECK")
    routes = line(sys.argv[1], "NPO-ROUTES")["routes"]
    links = line(sys.argv[2], "NPO-LINKS")
    pulled = line(sys.argv[2], "NPO-LINKS-PULLED")
    before = line(sys.argv[2], "NPO-CLOCKS-BEFORE")["clocks"]
    after = line(sys.argv[2], "NPO-CLOCKS-AFTER")["clocks"]
except (ValueError, KeyError, OSError) as e:
    print(f"not ok - the guests' JSON lines ({e})")
    sys.exit(1)
ends = sorted((x["a"]["node_id"], x["a"]["port"]) for x in f)
check(f"exactly two miswired cables, at node 2/0 and node 1/1 ({[(x['kind'], x['a'], x['b']) for x in f]})",
      len(f) == 2 and all(x["kind"] == "miswired" for x in f) and ends == [(1, 1), (2, 0)])
check(f"B: MISWIRED on exactly its two ports to A ({miswired(links)})",
      miswired(links) == ["npo0/1", "npo1/0"])
check(f"B: every port has its planned peer",
      sum(1 for p in links if p.get("planned_peer")) == 4)
check(f"B followed A's grandmaster over the wrong cables before the plan "
      f"({[(c['node_id'], c['grandmaster'], c['state']) for c in before]})",
      len(before) == 2 and all(c["grandmaster"] == 1 for c in before))
# The cables out of B: port 1 of node 3, port 0 of node 4.
through = [c["node_id"] for c in after
           if c.get("parent_port") == (1 if c["node_id"] == 3 else 0)]
check(f"B: its clocks follow a grandmaster of its own, though A announces node 1 "
      f"({[(c['node_id'], c['grandmaster'], c['state'], c.get('parent_port')) for c in after]})",
      len(after) == 2 and all(c["grandmaster"] in (3, 4) for c in after) and
      all(c["state"] in ("locked", "locking") or c["grandmaster"] == c["node_id"]
          for c in after))
check(f"B: no clock's parent is through a miswired port ({through})", not through)
far = sorted({(r["node_id"], r["dest_node"]) for r in routes if r["dest_node"] in (3, 4)})
check(f"A: B's adverts left out the two cables, no way to nodes 3-4 ({far})",
      not far and len(routes) > 0)
check(f"B: still quarantined with its cables cut and pulled ({miswired(pulled)})",
      miswired(pulled) == ["npo0/1", "npo1/0"])
sys.exit(0 if ok else 1)
EOF
if [ $fail != 0 ]; then
	sed 's/^/  A: /' "$work/a.log" | grep -v '^  A: \[' | tail -40
fi
exit $fail
