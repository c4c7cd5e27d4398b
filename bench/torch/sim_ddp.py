#!/usr/bin/env python3
"""A DDP job of mixed GPUs, simulated: baton's shares against equal shares.

Each rank has a true rate (samples/s) by its GPU's generation; a step takes
as long as the slowest rank's share at its rate, plus the all-reduce. The
shares come from the Ledger of baton.torch.distributed (the split and rate
window every rank of a real job runs), learning each step's measured rates
(with noise), the split of a step fixed --lag steps ahead as a sampler with
a prefetching loader fixes it. One rank is throttled to half speed between
two steps, and recovers. Prints throughput against equal shares and the
ideal (the rates summed), and the steps the shares take to recover.
  python3 bench/torch/sim_ddp.py --ranks 64
"""

import argparse
import json
import random

from baton.torch.distributed.ledger import Ledger

# Samples/s of ResNet-50 training per GPU (bf16), relative figures by generation.
GENERATIONS = {"H100": 4000.0, "A100": 2300.0, "V100": 1000.0}


def simulate(rates, batch, steps, lag, throttle, balanced, allreduce_s, seed):
    rng = random.Random(seed)
    ledger = Ledger(len(rates), batch)
    times = []
    for step in range(1, steps + 1):
        true = list(rates)
        if throttle[0] <= step < throttle[1]:
            true[0] *= 0.5
        if balanced:
            ledger.split(step + lag)  # fixed ahead, from what is known now
            split = ledger.split(step)
        else:
            split = [batch // len(rates) + (r < batch % len(rates)) for r in range(len(rates))]
        compute = [n / r for n, r in zip(split, true)]
        times.append(max(compute) + allreduce_s)
        if step > 1:
            ledger.learn([n / (c * rng.uniform(0.97, 1.03)) for n, c in zip(split, compute)])
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--per-rank", type=int, default=256, help="samples per rank in the global batch")
    ap.add_argument("--steps", type=int, default=90)
    ap.add_argument("--lag", type=int, default=2)
    ap.add_argument("--allreduce-ms", type=float, default=10.0)
    ap.add_argument("--throttle", default="30,60", help="steps between which rank 0 runs at half speed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json-out")
    a = ap.parse_args()
    kinds = list(GENERATIONS)
    # A node of each generation in turn: 8 ranks are 3+3+2 of H100, A100, V100.
    mix = [kinds[r * len(kinds) // a.ranks] for r in range(a.ranks)]
    rates = [GENERATIONS[k] for k in mix]
    batch = a.per_rank * a.ranks
    throttle = tuple(int(s) for s in a.throttle.split(","))
    args = (rates, batch, a.steps, a.lag, throttle)
    eq = simulate(*args, balanced=False, allreduce_s=a.allreduce_ms / 1e3, seed=a.seed)
    bal = simulate(*args, balanced=True, allreduce_s=a.allreduce_ms / 1e3, seed=a.seed)

    def ideal(step):
        r = sum(rates) - (rates[0] / 2 if throttle[0] <= step < throttle[1] else 0)
        return batch / r + a.allreduce_ms / 1e3

    def window(times, lo, hi):  # samples/s over steps [lo, hi)
        return batch * (hi - lo) / sum(times[lo - 1:hi - 1])

    phases = {"steady": (10, throttle[0]), "throttled": (throttle[0] + 10, throttle[1]),
              "recovered": (throttle[1] + 10, a.steps + 1)}
    ideal_t = [ideal(s) for s in range(1, a.steps + 1)]
    # Steps after the throttle until a step is within 90 % of the ideal again.
    back = next((s - throttle[0] for s in range(throttle[0], throttle[1])
                 if ideal_t[s - 1] / bal[s - 1] >= 0.9), None)
    counts = {k: mix.count(k) for k in kinds}
    print(f"{a.ranks} ranks ({', '.join(f'{n} {k}' for k, n in counts.items())}), batch {batch}, "
          f"all-reduce {a.allreduce_ms} ms, rank 0 at half speed in steps {throttle[0]}-{throttle[1] - 1}")
    print(f"{'phase':<10} {'equal':>10} {'baton':>10} {'ideal':>10} {'baton/eq':>9} {'baton/ideal':>11}")
    out = {"ranks": a.ranks, "mix": counts, "batch": batch, "phases": {}, "steps_to_90pct": back}
    for name, (lo, hi) in phases.items():
        e, b, i = window(eq, lo, hi), window(bal, lo, hi), window(ideal_t, lo, hi)
        out["phases"][name] = {"equal": e, "baton": b, "ideal": i}
        print(f"{name:<10} {e:>10.0f} {b:>10.0f} {i:>10.0f} {b / e:>9.2f} {b / i:>11.3f}")
    print(f"after the throttle, steps until within 90 % of the ideal: {back}")
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
