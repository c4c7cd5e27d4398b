#!/usr/bin/env python3
"""Issue 11's validation, the prediction half: replay on the simulator the runs
that bench/sim/record_h200.sh measured on the H200, each sim device measured as
the partition it stands for, and print the error per case and policy.

  python3 bench/sim/predict.py FOLDER [--baton build/release/baton] [--json OUT]

FOLDER (or a .tar.xz of one, as docs/results/data/simulator.tar.xz) holds pm_<split>_i<fma>_b<bytes>.json (the models),
run_<split>_i<fma>_b<bytes>_n<items>.json (the measured runs) and, where they
were kept, record_<split>_i<fma>_b<bytes>_n*.json (the runs that recorded
the models): how long a run's devices took to start there, the median of each
run's makespan beyond its longest busy device, is the sim machine's wake_us
for that split and shape (for the split, where the shape has none kept). The
start grows with the bytes a run holds: 30 to 160 us on H100 partitions, the
same within 30 us from one call to the next (calls S and V). It may hold, or hold
instead, from_host_<split>.json: runs from host memory (bench/sweep/run_gpu.sh),
replayed on partitions as fast as each ran alone behind the link as measured."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile


def start_us(folder, prefix):
    """How long the recording runs whose files begin with `prefix` took to
    start their devices: the median of each run's makespan beyond its longest
    busy device, in us (None where no such run was kept as JSON)."""
    gaps = []
    for f in os.listdir(folder):
        if f.startswith(prefix) and f.endswith(".json"):
            for r in json.load(open(os.path.join(folder, f)))["runs"]:
                gaps.append(r["makespan_s"] - max(d["busy_s"] for d in r["devices"]))
    return statistics.median(gaps) * 1e6 if gaps else None


def partitions(devices, host_gbps, wake_us):
    """A sim machine of H100/H200 partitions: as many items at once as their SMs
    hold threads (2048 an SM, as the CUDA backend counts), one PCIe link to
    host that they share (each joins the GPU at its memory's 3000 GB/s),
    parked threads waking after wake_us. `devices`: dicts with id and speed,
    and the device's description."""
    for d in devices:
        sms = re.search(r"(\d+) of \d+ SMs|(\d+) SMs", d.pop("about"))
        if sms:
            d["parallel_items"] = int(sms.group(1) or sms.group(2)) * 2048
    return {"execute": False, "launch_us": 0, "wake_us": wake_us, "pipeline_depth": 3,
            "devices": devices, "switches": ["gpu"],
            "links": [{"a": d["id"], "b": "gpu", "kind": "virtual", "gbps": 3000, "latency_us": 0}
                      for d in devices] +
                     [{"a": "gpu", "b": "host", "kind": "pcie", "gbps": host_gbps,
                       "latency_us": 5}]}


def recorded_case(folder, f, wakes):
    """A run of record_h200.sh: its devices take the kernel times the models
    hold; speeds in proportion to their SMs (the capability the CUDA backend
    reports); a PCIe Gen5 link to host."""
    m = re.fullmatch(r"run_(.+)_i(\d+)_b(\d+)_n(\d+)\.json", f)
    split, fma, nbytes, items = m.groups()
    models = os.path.join(folder, f"pm_{split}_i{fma}_b{nbytes}.json")
    shape = f"{split.replace('_', '+')}, {fma} fma, {nbytes} B"
    if shape not in wakes:
        wakes[shape] = start_us(folder, f"record_{split}_i{fma}_b{nbytes}_n")
        if wakes[shape] is None:
            wakes[shape] = start_us(folder, f"record_{split}_i")
    names = sorted({x["device"] for x in json.load(open(models))["models"]})
    devices = []
    for name in names:
        sms = re.search(r"(\d+) of \d+ SMs", name)
        devices.append({"id": name.split(" | ")[0], "measured_as": name, "about": name,
                        "speed": int(sms.group(1)) if sms else 1})
    machine = partitions(devices, 55, wakes[shape] or 0)
    machine["perf_models"] = os.path.abspath(models)
    return split, fma, nbytes, items, machine, []


def from_host_case(folder, f):
    """A run from host memory of run_gpu.sh (`bench balance --from-host`): each
    device as fast as it ran alone, the link to host as it measured both ways
    at once (these runs are bound by it)."""
    measured = json.load(open(os.path.join(folder, f)))
    iters, nbytes = measured["iters"], measured["bytes_per_item"]
    cost = iters * max(1, nbytes // 8 if nbytes >= 8 else 0)  # the kernel's work units an item
    devices = [{"id": d["name"], "about": d["description"],
                "speed": d["standalone_items_per_s"] * cost / 1e9} for d in measured["devices"]]
    machine = partitions(devices, measured["host_link_both_ways_gbps"], 0)
    tag = re.fullmatch(r"from_host_cuda_\d+_?(.*)\.json", f).group(1)  # cuda_0_80_40: 80+40
    split = (tag or "whole GPU") + ", from host"
    return split, str(iters), str(nbytes), str(measured["items"]), machine, ["--from-host"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--baton", default="build/release/baton")
    ap.add_argument("--json", help="write the cases as JSON to this file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as unpacked:
        if tarfile.is_tarfile(args.folder):
            with tarfile.open(args.folder) as archive:
                archive.extractall(unpacked)
            args.folder = os.path.join(unpacked, os.listdir(unpacked)[0])
        predict(args)


def predict(args):
    files = sorted(os.listdir(args.folder))
    runs = [f for f in files if f.startswith("run_") and f.endswith(".json")]
    from_host = [f for f in files if f.startswith("from_host_") and f.endswith(".json")]
    if not runs and not from_host:
        sys.exit(f"predict.py: no run_*.json or from_host_*.json in {args.folder}")
    cases, worst, wakes = [], 0.0, {}
    print("| split | fma/item | bytes/item | items | policy | measured | predicted | error |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        jobs = [(f, recorded_case(args.folder, f, wakes)) for f in runs]
        jobs += [(f, from_host_case(args.folder, f)) for f in from_host]
        for f, (split, fma, nbytes, items, machine, extra) in jobs:
            path = os.path.join(tmp, f)
            json.dump(machine, open(path, "w"))
            measured = json.load(open(os.path.join(args.folder, f)))
            policies = [r["policy"] for r in measured["runs"]]
            out = subprocess.run([args.baton, "bench", "balance", "-d", "sim:" + path,
                                  "-p", ",".join(policies), "-n", items, "-i", fma, "-b", nbytes,
                                  "--json"] + extra, capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"predict.py: {f}: {out.stderr.strip()}")
            predicted = {r["policy"]: r["makespan_s"] for r in json.loads(out.stdout)["runs"]}
            label = split.replace("_", "+")
            for r in measured["runs"]:
                p, got = r["policy"], r["makespan_s"]
                err = predicted[p] / got - 1
                worst = max(worst, abs(err))
                cases.append({"split": label, "fma_per_item": int(fma),
                              "bytes_per_item": int(nbytes), "items": int(items), "policy": p,
                              "measured_s": got, "predicted_s": predicted[p], "error": err})
                print(f"| {label} | {fma} | {nbytes} | {items} | {p} | "
                      f"{got * 1e3:.3f} ms | {predicted[p] * 1e3:.3f} ms | {err * 100:+.1f} % |")
    print(f"\nworst error: {worst * 100:.1f} % over {len(cases)} cases")
    for shape, us in sorted(wakes.items()):
        print(f"{shape}: wake_us " +
              (f"{us:.1f} (the recording runs' start)" if us is not None else
               "0 (no recording run kept as JSON)"))
    if args.json:
        json.dump({"cases": cases, "worst_error": worst, "wake_us": wakes}, open(args.json, "w"),
                  indent=1)


if __name__ == "__main__":
    main()
