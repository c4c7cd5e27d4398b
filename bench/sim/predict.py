#!/usr/bin/env python3
"""Issue 11's validation, the prediction half: replay on the simulator the runs
that bench/sim/record_h200.sh measured on the H200, each sim device measured as
the partition it stands for, and print the error per case and policy.

  python3 bench/sim/predict.py FOLDER [--baton build/release/baton] [--json OUT]

FOLDER holds pm_<split>_i<fma>_b<bytes>.json (the models),
run_<split>_i<fma>_b<bytes>_n<items>.json (the measured runs) and, where they
were kept, record_<split>_*.json (the runs that recorded the models): how long
a run's devices took to start there, the median of each run's makespan beyond
its longest busy device, is the sim machine's wake_us."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def start_us(folder, split):
    """How long the recording runs of a split took to start their devices: the
    median of each run's makespan beyond its longest busy device, in us (None
    where no recording run was kept as JSON)."""
    gaps = []
    for f in os.listdir(folder):
        if f.startswith(f"record_{split}_i") and f.endswith(".json"):
            for r in json.load(open(os.path.join(folder, f)))["runs"]:
                gaps.append(r["makespan_s"] - max(d["busy_s"] for d in r["devices"]))
    return statistics.median(gaps) * 1e6 if gaps else None


def sim_machine(models_file, wake_us):
    """A sim machine of the devices the models name, in name order: speeds in
    proportion to their SMs (the capability baton's CUDA backend reports), as
    many items at once as their SMs hold threads, the kernel times measured,
    one PCIe Gen5 link to host that they share, as the H200's partitions do
    (each joins the GPU at its memory's 3000 GB/s), parked threads waking after
    wake_us."""
    names = sorted({m["device"] for m in json.load(open(models_file))["models"]})
    devices = []
    for name in names:
        sms = re.search(r"(\d+) of \d+ SMs", name)
        device = {"id": name.split(" | ")[0], "measured_as": name,
                  "speed": int(sms.group(1)) if sms else 1}
        if sms:  # what it runs at once, as the CUDA backend counts: 2048 threads an SM (sm_90)
            device["parallel_items"] = int(sms.group(1)) * 2048
        devices.append(device)
    return {"about": "H200 partitions, kernel times from " + os.path.basename(models_file),
            "perf_models": os.path.abspath(models_file), "execute": False,
            "launch_us": 0, "wake_us": wake_us, "pipeline_depth": 3, "devices": devices,
            "switches": ["gpu"],
            "links": [{"a": d["id"], "b": "gpu", "kind": "virtual", "gbps": 3000, "latency_us": 0}
                      for d in devices] +
                     [{"a": "gpu", "b": "host", "kind": "pcie", "gbps": 55, "latency_us": 5}]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--baton", default="build/release/baton")
    ap.add_argument("--json", help="write the cases as JSON to this file")
    args = ap.parse_args()
    runs = sorted(f for f in os.listdir(args.folder) if f.startswith("run_") and f.endswith(".json"))
    if not runs:
        sys.exit(f"predict.py: no run_*.json in {args.folder}")
    cases, worst, wakes = [], 0.0, {}
    print("| split | fma/item | bytes/item | items | policy | measured | predicted | error |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for f in runs:
            m = re.fullmatch(r"run_(.+)_i(\d+)_b(\d+)_n(\d+)\.json", f)
            split, fma, nbytes, items = m.group(1), m.group(2), m.group(3), m.group(4)
            models = os.path.join(args.folder, f"pm_{split}_i{fma}_b{nbytes}.json")
            machine = os.path.join(tmp, f"{split}_i{fma}_b{nbytes}.json")
            if split not in wakes:
                wakes[split] = start_us(args.folder, split)
            json.dump(sim_machine(models, wakes[split] or 0), open(machine, "w"))
            measured = json.load(open(os.path.join(args.folder, f)))
            policies = [r["policy"] for r in measured["runs"]]
            out = subprocess.run([args.baton, "bench", "balance", "-d", "sim:" + machine,
                                  "-p", ",".join(policies), "-n", items, "-i", fma, "-b", nbytes,
                                  "--json"], capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"predict.py: {f}: {out.stderr.strip()}")
            predicted = {r["policy"]: r["makespan_s"] for r in json.loads(out.stdout)["runs"]}
            for r in measured["runs"]:
                p, got = r["policy"], r["makespan_s"]
                err = predicted[p] / got - 1
                worst = max(worst, abs(err))
                cases.append({"split": split.replace("_", "+"), "fma_per_item": int(fma),
                              "bytes_per_item": int(nbytes), "items": int(items), "policy": p,
                              "measured_s": got, "predicted_s": predicted[p], "error": err})
                print(f"| {split.replace('_', '+')} | {fma} | {nbytes} | {items} | {p} | "
                      f"{got * 1e3:.3f} ms | {predicted[p] * 1e3:.3f} ms | {err * 100:+.1f} % |")
    print(f"\nworst error: {worst * 100:.1f} % over {len(cases)} cases")
    for split, us in sorted(wakes.items()):
        print(f"{split.replace('_', '+')}: wake_us " +
              (f"{us:.1f} (the recording runs' start)" if us is not None else
               "0 (no recording run kept as JSON)"))
    if args.json:
        json.dump({"cases": cases, "worst_error": worst, "wake_us": wakes}, open(args.json, "w"),
                  indent=1)


if __name__ == "__main__":
    main()
