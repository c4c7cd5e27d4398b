#!/usr/bin/env python3
"""Ranks of one GPU, each in green contexts of its own SMs, training ResNet-50.

    python3 -m torch.distributed.run --nproc_per_node 2 bench/torch/ddp_gpu.py --sms 96,32

Rank r trains through baton.torch.Balanced on its partition (disjoint SMs:
rank 1's spec sets rank 0's aside, "cuda:0/~96+32"), the ranks' gradients
summed by sum_weighted over Gloo (NCCL takes one rank per GPU). Two runs:
equal shares, then shares by rate; in the second, rank 1 sleeps --slow-ms
per sample in steps [--slow-from, --slow-to). Rank 0 prints each run's step
time, the ideal (the ranks' side-by-side rates summed, over the batch) and,
for the slowed steps, how many it took to be within 90 % of the ideal.
"""

import argparse
import json
import statistics
import time

import torch
import torch.nn.functional as F
import torchvision

import baton.torch
import baton.torch.distributed as bd


class Slowable(torch.nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner, self.ms = inner, 0.0

    def forward(self, x):
        if self.ms:
            torch.cuda.synchronize()
            time.sleep(self.ms * 1e-3 * x.shape[0])
        return self.inner(x)


def spec_of(rank, sms):
    return "cuda:0/" + "+".join(("" if i == rank else "~") + str(s) for i, s in enumerate(sms[:rank + 1]))


def run(a, launch, sms, learn, slow):
    shares = bd.Shares(a.batch, learn=learn)
    model = Slowable(torchvision.models.resnet50().to(memory_format=torch.channels_last))
    g = torch.Generator().manual_seed(launch.rank)
    x = torch.randn(a.batch, 3, 224, 224, generator=g).contiguous(memory_format=torch.channels_last)
    x, y = x.pin_memory(), torch.randint(0, 1000, (a.batch,), generator=g).pin_memory()
    rows = []
    with baton.torch.Balanced(model, lambda p: torch.optim.AdamW(p, lr=1e-4), devices=spec_of(launch.rank, sms),
                              micro_batch=a.micro_batch, autocast=torch.bfloat16, shares=shares,
                              perf_model_file="") as bal:
        for step in range(1, a.steps + 1):
            slowed = slow and a.slow_from <= step < a.slow_to
            for r in bal.replicas:
                r.ms = a.slow_ms if slowed and launch.rank == 1 else 0.0
            _, n = shares.share(step)
            t = time.perf_counter()
            bal.step(x[:n], y[:n], F.cross_entropy)
            seconds = time.perf_counter() - t
            rows.append({"step": step, "seconds": seconds, "shares": shares.split(step),
                         "measured": list(shares.measured), "slowed": slowed})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sms", default="96,32")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--micro-batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--slow-from", type=int, default=20)
    ap.add_argument("--slow-to", type=int, default=32)
    ap.add_argument("--slow-ms", type=float, default=2.0)
    ap.add_argument("--json-out")
    a = ap.parse_args()
    sms = [int(s) for s in a.sms.split(",")]
    launch = bd.init_process_group("gloo", timeout_s=300)
    equal = run(a, launch, sms, learn=False, slow=False)
    rated = run(a, launch, sms, learn=True, slow=True)
    if launch.rank != 0:
        return

    def ideal(row):  # samples/s the ranks' side-by-side rates allow
        return sum(row["measured"]) if all(m > 0 for m in row["measured"]) else float("nan")

    steady = range(5, a.slow_from - 1)
    med = lambda rows, key: statistics.median(key(rows[i]) for i in steady)  # noqa: E731
    eq_rate = a.batch / med(equal, lambda r: r["seconds"])
    ws_rate = a.batch / med(rated, lambda r: r["seconds"])
    ideal_rate = med(rated, ideal)
    back = next((r["step"] - a.slow_from for r in rated[a.slow_from - 1:a.slow_to - 1]
                 if a.batch / r["seconds"] >= 0.9 * ideal(r)), None)
    print(f"ResNet-50, ranks on {sms} SMs of {torch.cuda.get_device_name()}, batch {a.batch}, Gloo")
    print(f"equal shares {eq_rate:.0f} img/s, shares by rate {ws_rate:.0f} img/s ({ws_rate / eq_rate:.2f}x), "
          f"ideal {ideal_rate:.0f} img/s ({ws_rate / ideal_rate:.3f}); shares {rated[a.slow_from - 2]['shares']}")
    print(f"rank 1 slowed from step {a.slow_from}: within 90 % of the ideal after {back} steps; "
          f"shares then {rated[a.slow_to - 2]['shares']}")
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump({"equal": equal, "rated": rated, "sms": sms}, f, indent=1)


if __name__ == "__main__":
    main()
