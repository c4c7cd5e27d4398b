#!/usr/bin/env python3
"""The model of `baton train` in PyTorch, for a side-by-side figure.

Same MLP (Linear + bias + tanh-GELU per hidden layer, a linear output layer),
same loss (0.5 * |model(x) - target|^2 summed over outputs, averaged over the
batch), AdamW with the same hyper-parameters on fp32 master weights (fused=True),
bf16 autocast. Each step's batch starts in pinned host memory and is copied in
with non_blocking=True, as a DataLoader's would be; the batches are made once
(a fixed teacher network's outputs), so the loader costs PyTorch nothing.
Prints one JSON line per mode (eager, and compiled with --compile).
"""
import argparse
import json
import time

import torch
from torch import nn


def model_of(a):
    layers, width_in = [], a.inputs
    for _ in range(a.depth):
        layers += [nn.Linear(width_in, a.width), nn.GELU(approximate="tanh")]
        width_in = a.width
    layers.append(nn.Linear(width_in, a.outputs))
    return nn.Sequential(*layers)


def run(a, compiled):
    torch.manual_seed(a.seed)
    dev = torch.device("cuda")
    model = model_of(a).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=0.01, fused=True)
    teacher = nn.Sequential(nn.Linear(a.inputs, 32), nn.GELU(approximate="tanh"),
                            nn.Linear(32, a.outputs)).to(dev)
    batches = []
    with torch.no_grad():
        for _ in range(2):
            x = torch.rand(a.batch, a.inputs, device=dev) * 2 - 1
            batches.append((x.cpu().pin_memory(), teacher(x).cpu().pin_memory()))

    def step(x, y):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            pred = model(x)
        loss = 0.5 * (pred.float() - y).pow(2).sum(dim=1).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    fn = torch.compile(step) if compiled else step
    losses = []
    for i in range(a.warmup + a.steps):
        if i == a.warmup:
            torch.cuda.synchronize()
            start = time.perf_counter()
        hx, hy = batches[i % 2]
        x, y = hx.to(dev, non_blocking=True), hy.to(dev, non_blocking=True)
        losses.append(fn(x, y))
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    params = sum(p.numel() for p in model.parameters())
    macs = sum(m.in_features * m.out_features for m in model if isinstance(m, nn.Linear))
    rate = a.steps * a.batch / elapsed
    return {"framework": "pytorch " + torch.__version__, "mode": "compile" if compiled else "eager",
            "device": torch.cuda.get_device_name(), "parameters": params, "batch": a.batch,
            "steps": a.steps, "samples_per_s": rate, "tflops": rate * 6 * macs * 1e-12,
            "loss_first": float(losses[0]), "loss_last": float(losses[-1])}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--inputs", type=int, default=1024)
    p.add_argument("--width", type=int, default=8192)
    p.add_argument("--depth", type=int, default=4, help="hidden layers")
    p.add_argument("--outputs", type=int, default=1024)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--modes", default="eager", help="eager, compile or both (comma-separated)")
    a = p.parse_args()
    for mode in a.modes.split(","):
        print(json.dumps(run(a, mode == "compile")), flush=True)


if __name__ == "__main__":
    main()
