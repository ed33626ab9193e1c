#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check export-test.sh's scrapes of `npoctl export` with Debian's
Prometheus client library: they parse, follow Prometheus' conventions
(checked on the raw text too, which the parser forgives), agree with
`npoctl -j link` and `npoctl -j lane` taken at the same moment, show the
faults the test injected (npo0 port 0 cut; npo2 port 1 lane 2 5 dB down),
and go on exporting the healthy devices while npo3's firmware is down.
Prints "ok"/"not ok" lines; exits 1 if any check failed.

Usage: prom-check.py VM_LOG
"""
import json
import math
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

DEVICES, PORTS, LANES = 4, 4, 8
failed = False


def check(what, cond):
    global failed
    print(("ok - " if cond else "not ok - ") + what)
    failed |= not cond


def read_log(path):
    scrapes, links, lanes, cur = {}, {}, {}, None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("NPO-SCRAPE-BEGIN "):
            cur = line.split()[1]
            scrapes[cur] = []
        elif line.startswith("NPO-SCRAPE-END"):
            cur = None
        elif line.startswith("NPO-LINK-JSON "):
            _, name, doc = line.split(" ", 2)
            links[name] = json.loads(doc)
        elif line.startswith("NPO-LANE-JSON "):
            _, name, doc = line.split(" ", 2)
            lanes[name] = json.loads(doc)
        elif cur is not None and not line.startswith("["):
            scrapes[cur].append(line)
    return {k: "\n".join(v) + "\n" for k, v in scrapes.items()}, links, lanes


def raw_conventions(text):
    """What the parser forgives: a counter's TYPE without _total (0.16
    adds it to the samples), a family's HELP or TYPE twice, a series twice,
    a family's samples not together."""
    bad, typed, series, current = [], {}, set(), None
    for line in text.splitlines():
        m = re.match(r"# (HELP|TYPE) (\S+) ?(.*)", line)
        if m:
            kind, name, rest = m.groups()
            if (kind, name) in typed:
                bad.append(f"{kind} {name} twice")
            typed[(kind, name)] = rest
            if kind == "TYPE" and rest == "counter" and not name.endswith("_total"):
                bad.append(f"counter {name} without _total")
            current = name
            continue
        if not line:
            continue
        name = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0)
        if name != current:
            bad.append(f"{name} outside its family")
        key = line.rsplit(" ", 1)[0]
        if key in series:
            bad.append(f"{key} twice")
        series.add(key)
    return bad


def parse(text):
    """{family: (type, help, {(sample name, frozenset(labels)): value})}"""
    out = {}
    for fam in text_string_to_metric_families(text):
        samples = {}
        for s in fam.samples:
            samples[(s.name, frozenset(s.labels.items()))] = s.value
        out[fam.name] = (fam.type, fam.documentation, samples)
    return out


def value(fams, family, sample=None, **labels):
    _, _, samples = fams[family]
    key = (sample or family, frozenset(labels.items()))
    return samples.get(key)


def main():
    scrapes, links, lanes = read_log(sys.argv[1])
    check("the three scrapes were taken", set(scrapes) == {"before", "after", "sick"}
          and "NPO-SCRAPE-FAILED" not in "".join(scrapes.values()))
    if failed:
        return 1
    fams = {}
    for name, text in scrapes.items():
        try:
            fams[name] = parse(text)
            check(f"the {name} scrape parses ({len(fams[name])} families)", True)
        except Exception as e:  # the client's parser says why
            check(f"the {name} scrape parses: {e}", False)
            return 1
    before, after, sick = fams["before"], fams["after"], fams["sick"]
    for name, text in scrapes.items():
        bad = raw_conventions(text)
        check(f"the {name} scrape's text: one HELP and TYPE per family, counters "
              f"named _total, each series once, families whole ({bad[:3]})", not bad)

    # Prometheus' conventions: names, types, help, units, _total.
    bad = []
    for fname, (ftype, doc, samples) in before.items():
        if not re.fullmatch(r"npo_[a-z0-9_]+", fname) or not doc:
            bad.append(f"{fname}: name or help")
        if ftype not in ("gauge", "counter"):
            bad.append(f"{fname}: type {ftype}")
        for (sname, labels), _ in samples.items():
            if ftype == "counter" and not sname.endswith("_total"):
                bad.append(f"{sname}: a counter without _total")
            if ftype == "gauge" and sname.endswith("_total"):
                bad.append(f"{sname}: a gauge named _total")
            if not all(re.fullmatch(r"[a-z_]+", k) for k, _ in labels):
                bad.append(f"{sname}: label names")
    check(f"names, types and help follow the conventions ({bad[:3]})", not bad)
    want = ["npo_device_info", "npo_device_state", "npo_port_up", "npo_port_state",
            "npo_port_lane_rate_bits_per_second", "npo_port_width_lanes",
            "npo_port_flaps", "npo_port_link_downs", "npo_port_fec_corrected",
            "npo_port_fec_uncorrectable", "npo_lane_rx_power_dbm",
            "npo_lane_tx_power_dbm", "npo_lane_temperature_celsius",
            "npo_lane_pre_fec_bit_error_ratio", "npo_clock_state",
            "npo_clock_offset_seconds", "npo_health_reporter_healthy",
            "npo_device_firmware_slot_info", "npo_device_firmware_fallback",
            "npo_port_transmit_bytes", "npo_port_transmit_frames",
            "npo_port_receive_bytes", "npo_port_receive_frames"]
    missing = [f for f in want if f not in before]
    check(f"every expected family is there (missing: {missing})", not missing)
    if missing:
        return 1

    # One series per device, port and lane; enumerations one-hot.
    check("one npo_device_info per device",
          len(before["npo_device_info"][2]) == DEVICES)
    check(f"npo_port_up for all {DEVICES * PORTS} ports",
          len(before["npo_port_up"][2]) == DEVICES * PORTS)
    check(f"npo_lane_rx_power_dbm for all {DEVICES * PORTS * LANES} lanes",
          len(before["npo_lane_rx_power_dbm"][2]) == DEVICES * PORTS * LANES)
    states = {}
    for (_, labels), v in before["npo_port_state"][2].items():
        key = dict(labels)
        states.setdefault((key["device"], key["port"]), []).append(v)
    check("each port is in exactly one npo_port_state",
          all(sum(v) == 1 for v in states.values()) and len(states) == DEVICES * PORTS)

    # The same moment through npoctl's JSON: state, flaps, link downs.
    disagree = []
    for p in links["before"]:
        dev, port = p["port"].split("/")
        up = value(before, "npo_port_up", device=dev, port=port)
        if up != (1.0 if p["state"] == "active" else 0.0):
            disagree.append(f"{p['port']} up {up} state {p['state']}")
        if value(before, "npo_port_flaps", "npo_port_flaps_total",
                 device=dev, port=port) != p["flaps"]:
            disagree.append(f"{p['port']} flaps")
        if value(before, "npo_port_link_downs", "npo_port_link_downs_total",
                 device=dev, port=port) != p["counters"]["link_downs"]:
            disagree.append(f"{p['port']} link downs")
    check(f"ports agree with npoctl -j link ({disagree[:3]})",
          not disagree and len(links["before"]) == DEVICES * PORTS)
    peers = {(dict(l)["device"], dict(l)["port"]): (dict(l)["peer_node"], dict(l)["peer_port"])
             for (_, l), _ in before["npo_port_peer_info"][2].items()}
    ring = {(f"npo{i}", "0"): (str((i + 1) % DEVICES + 1), "1") for i in range(DEVICES)}
    ring.update({(f"npo{i}", "1"): (str((i - 1) % DEVICES + 1), "0") for i in range(DEVICES)})
    check("the peers are the ring's", peers == ring)

    # The faults, seen in the second scrape.
    check("npo0/0 up before the cut", value(before, "npo_port_up", device="npo0", port="0") == 1)
    check("npo0/0 down after it", value(after, "npo_port_up", device="npo0", port="0") == 0)
    d0 = value(before, "npo_port_link_downs", "npo_port_link_downs_total", device="npo0", port="0")
    d1 = value(after, "npo_port_link_downs", "npo_port_link_downs_total", device="npo0", port="0")
    check(f"npo0/0's link downs counted the cut ({d0} -> {d1})", d1 is not None and d0 is not None and d1 > d0)
    drops = []
    for lane in range(LANES):
        r0 = value(before, "npo_lane_rx_power_dbm", device="npo2", port="1", lane=str(lane))
        r1 = value(after, "npo_lane_rx_power_dbm", device="npo2", port="1", lane=str(lane))
        drops.append(round(r0 - r1, 2))
    check(f"npo2/1 lane 2 lost 5 dB, its other lanes nothing ({drops})",
          abs(drops[2] - 5) < 0.5 and all(abs(d) < 0.5 for i, d in enumerate(drops) if i != 2))
    healthy = before["npo_health_reporter_healthy"][2]
    reporters = {dict(l)["reporter"] for (_, l), _ in healthy.items()}
    check(f"devlink health reporters of every device ({sorted(reporters)})",
          "fw" in reporters and len({dict(l)["device"] for (_, l), _ in healthy.items()}) == DEVICES)
    check("every value is finite",
          all(math.isfinite(v) for f in before.values() for v in f[2].values()))

    # Units: the same lanes through npoctl's JSON, taken at the same moment.
    off = []
    for ln in lanes["after"]:
        lane = str(ln["lane"])
        pairs = [("npo_lane_laser_bias_amperes", ln["bias_ma"] / 1e3),
                 ("npo_lane_temperature_celsius", ln["temp_c"]),
                 ("npo_lane_rx_power_dbm", ln["rx_power_dbm"]),
                 ("npo_lane_eye_height_volts", ln["eye_height_mv"] / 1e3)]
        for fam, want in pairs:
            got = value(after, fam, device="npo2", port="1", lane=lane)
            if got is None or abs(got - want) > 1e-6 + 1e-3 * abs(want):
                off.append(f"{fam}[{lane}] {got} != {want}")
        ber = value(after, "npo_lane_pre_fec_bit_error_ratio", device="npo2",
                    port="1", lane=lane)
        if ber is None or abs(math.log10(ber) - math.log10(ln["ber"])) > 0.05:
            off.append(f"ber[{lane}] {ber} != {ln['ber']}")
    check(f"lane figures in base units agree with npoctl -j lane ({off[:3]})",
          not off and len(lanes["after"]) == LANES)

    # The flash: npo1 was flashed (slot a pending) before the scrapes,
    # the others hold nothing; no device fell back.
    slots = {tuple(sorted(dict(l).items())): v
             for (_, l), v in before["npo_device_firmware_slot_info"][2].items()}
    want_slot = (("active", "0"), ("device", "npo1"), ("pending", "1"),
                 ("running", "0"), ("slot", "a"), ("version", "1.0.0"))
    check(f"npo1's flashed slot a, pending, and no other slot ({list(slots)[:3]})",
          slots == {want_slot: 1})
    fb = {dict(l)["device"]: v for (_, l), v in
          before["npo_device_firmware_fallback"][2].items()}
    check(f"no device fell back ({fb})", fb == {f"npo{i}": 0 for i in range(DEVICES)})

    # A device whose firmware is down: left out, said so, the rest exported.
    ok = {dict(l)["device"]: v for (_, l), v in sick["npo_scrape_device_success"][2].items()}
    check(f"the scrape goes on with npo3's firmware down ({ok})",
          ok == {"npo0": 1, "npo1": 1, "npo2": 1, "npo3": 0})
    check("npo3 is not ready in npo_device_state",
          value(sick, "npo_device_state", device="npo3", state="ready") == 0)
    ports = {dict(l)["device"] for (_, l), _ in sick["npo_port_up"][2].items()}
    check(f"the other devices' ports are all there, none of npo3's ({sorted(ports)})",
          ports == {"npo0", "npo1", "npo2"}
          and len(sick["npo_port_up"][2]) == (DEVICES - 1) * PORTS)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a scrape that breaks the checks is a failure
        print(f"not ok - the scrapes could be checked: {type(e).__name__}: {e}")
        sys.exit(1)
