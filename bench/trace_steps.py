#!/usr/bin/env python3
"""Per step of a `baton train --trace` file: when each device's first and last
span of a kernel began and ended (ms from the step's start), its busy time
and spans, and the mean of each counter track (clock, power, utilisation)
over the step.

  python3 bench/trace_steps.py TRACE [--run TEXT] [--kernel train.grad]
"""
import argparse
import collections
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--run", default="", help="only steps whose name holds this text")
    ap.add_argument("--kernel", default="train.grad", help="the kernel whose spans are shown")
    a = ap.parse_args()
    with open(a.trace) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    steps = [e for e in events if e.get("ph") == "X" and names.get(e["tid"]) == "host"
             and a.run in e["name"]]
    if not steps:
        sys.exit(f"trace_steps: no host step holds {a.run!r} in {a.trace}")
    spans = collections.defaultdict(list)  # track -> [(begin, end, name)]
    for e in events:
        if e.get("ph") == "X" and names.get(e["tid"]) != "host":
            spans[names.get(e["tid"], str(e["tid"]))].append((e["ts"], e["ts"] + e["dur"], e["name"]))
    counters = collections.defaultdict(list)  # "name.series" -> [(ts, value)]
    for e in events:
        if e.get("ph") == "C":
            for k, v in e.get("args", {}).items():
                counters[f"{e['name']}.{k}"].append((e["ts"], v))
    for s in steps:
        b, end = s["ts"], s["ts"] + s["dur"]
        print(f"{s['name']}: {s['dur'] / 1e3:.2f} ms")
        for track in sorted(spans):
            mine = [(x, y) for x, y, n in spans[track] if n == a.kernel and b <= x < end]
            other = [y for x, y, n in spans[track] if n != a.kernel and b <= x < end]
            if not mine and not other:
                continue
            line = f"  {track:16s}"
            if mine:
                first, last = min(x for x, _ in mine), max(y for _, y in mine)
                busy = sum(y - x for x, y in mine)
                line += (f" {a.kernel} {(first - b) / 1e3:6.2f} -> {(last - b) / 1e3:6.2f} ms,"
                         f" busy {busy / 1e3:6.2f} ms in {len(mine)}")
            if other:
                line += f"; others end {(max(other) - b) / 1e3:6.2f} ms"
            print(line)
        for name in sorted(counters):
            vals = [v for t, v in counters[name] if b <= t < end]
            if vals:
                print(f"  {name}: mean {sum(vals) / len(vals):.1f} over {len(vals)}")


if __name__ == "__main__":
    main()
