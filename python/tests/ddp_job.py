"""One rank of a DDP job under Gloo, for test_distributed.py.

  RANK=0 WORLD_SIZE=2 MASTER_PORT=... python3 ddp_job.py --mode balanced --out r0.json
--mode balanced: BalancedSampler + weighted hook; equal: equal halves and DDP's own hook;
devices: each rank trains its share over two cpu devices (baton.torch.Balanced).
Rank 1 sleeps --slow-ms per sample in forward. Writes each step's indices, share,
global loss and time, and (rank 0) the final weights.
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

import baton.torch.distributed as bd


def make_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))


def make_data(n):
    g = torch.Generator().manual_seed(1)
    return torch.randn(n, 16, generator=g), torch.randint(0, 4, (n,), generator=g)


class Slowed(torch.nn.Module):
    def __init__(self, inner, ms_per_sample):
        super().__init__()
        self.inner, self.ms = inner, ms_per_sample

    def forward(self, x):
        time.sleep(self.ms * 1e-3 * x.shape[0])
        return self.inner(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["balanced", "equal", "devices"], default="balanced")
    ap.add_argument("--hook", choices=["fp32", "bf16"], default="fp32")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--slow-ms", type=float, default=3.0)
    ap.add_argument("--die-at", type=int, default=0, help="rank 1 raises at this step")
    ap.add_argument("--stop-at", type=int, default=0, help="checkpoint after this step and stop")
    ap.add_argument("--checkpoint", help="file written at --stop-at, read with --resume")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.set_num_threads(1)
    launch = bd.init_process_group("gloo", timeout_s=60)
    x, y = make_data(a.batch * a.steps)
    model = Slowed(make_model(), a.slow_ms if launch.rank == 1 else 0.0)
    if a.mode == "devices":
        return train_over_devices(a, launch, model, x, y)
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    record = []
    if a.mode == "balanced":
        shares = bd.Shares(a.batch)
        hook = bd.weighted_bf16_allreduce_hook if a.hook == "bf16" else bd.weighted_allreduce_hook
        ddp.register_comm_hook(shares, hook)
        sampler = bd.BalancedSampler(len(x), shares, shuffle=False)
        if a.resume:
            state = torch.load(f"{a.checkpoint}.{launch.rank}")
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            shares.load_state_dict(state["shares"])
            sampler.load_state_dict(state["sampler"])
        batches = iter(sampler)
    else:
        half = a.batch // 2
        batches = (list(range(s * a.batch + launch.rank * half, s * a.batch + (launch.rank + 1) * half))
                   for s in range(a.steps))
    for step, idx in enumerate(batches, 1):
        if launch.rank == 1 and step == a.die_at:
            raise RuntimeError(f"planted failure at step {step}")
        t = time.perf_counter()
        if a.mode == "balanced":
            with shares.step():
                loss = F.cross_entropy(ddp(x[idx]), y[idx])
                loss.backward()
            weight = shares.weight()
        else:
            loss = F.cross_entropy(ddp(x[idx]), y[idx])
            loss.backward()
            weight = 0.5
        opt.step()
        opt.zero_grad(set_to_none=True)
        seconds = time.perf_counter() - t
        total = torch.tensor([float(loss) * weight])
        dist.all_reduce(total)
        record.append({"indices": idx, "loss": total.item(), "seconds": seconds})
        if a.mode == "balanced" and shares.steps_begun == a.stop_at:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                        "shares": shares.state_dict(), "sampler": sampler.state_dict()},
                       f"{a.checkpoint}.{launch.rank}")
            break
    finish(a, launch, record, model.inner)


def train_over_devices(a, launch, model, x, y):
    import baton.torch

    shares = bd.Shares(a.batch)
    record = []
    sgd = lambda p: torch.optim.SGD(p, lr=0.1)  # noqa: E731
    with baton.torch.Balanced(model, sgd, devices="cpu:2", policy="ws", micro_batch=4,
                              shares=shares) as bal:
        for idx in bd.BalancedSampler(len(x), shares, shuffle=False):
            t = time.perf_counter()
            loss = bal.step(x[idx], y[idx], F.cross_entropy)
            record.append({"indices": idx, "loss": loss, "seconds": time.perf_counter() - t})
        finish(a, launch, record, bal.module.inner)


def finish(a, launch, record, model):
    out = {"rank": launch.rank, "launcher": launch.launcher, "steps": record}
    if launch.rank == 0:
        out["weights"] = [p.detach().flatten().tolist() for p in model.parameters()]
    with open(a.out, "w") as f:
        json.dump(out, f)
    # Both ranks leave together, and at once: in a CI run under load, a rank
    # whose peer had already gone hung on its way out (torch 1.13's Gloo).
    dist.barrier()
    dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
