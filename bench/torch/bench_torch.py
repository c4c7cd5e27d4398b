#!/usr/bin/env python3
"""baton.torch against plain PyTorch on one GPU: ResNet-50 or a GPT decoder.

Runs, one after another on the same random batch kept in pinned memory (copied
in every step), bf16 autocast, channels_last for the CNN, AdamW:
  plain     plain PyTorch eager on the whole GPU, the batch in one pass
  whole     baton.torch on the whole GPU, the batch as one micro-batch
  POLICY    baton.torch on SM partitions (--partitions) under each policy of
            --policies; static is the equal split
  ws+graphs ws on the partitions, each replica's pass replayed as a CUDA graph
  cpu       baton.torch on the host's CPU beside the whole GPU (ws), against
            `whole` at the same micro-batch
Prints a table per model (samples/s, MFU, the step split, the ratios to plain
PyTorch, to the equal split and to the ideal: each device's rate side by side,
summed) and writes JSON with every step's time.
  python3 bench/torch/bench_torch.py --model resnet50 --json-out r.json
"""

import argparse
import json
import statistics
import sys
import time

import torch

import baton.torch

PEAK_BF16 = {"H100": 989e12, "H200": 989e12, "A100": 312e12}  # dense, SXM


def build(name):
    if name == "resnet50":
        import torchvision

        model = torchvision.models.resnet50().to(memory_format=torch.channels_last)
        loss = torch.nn.functional.cross_entropy
        return model, loss, "images"
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from gpt import GPT, lm_loss

    return GPT(), lm_loss, "tokens"


def make_batch(name, n):
    g = torch.Generator().manual_seed(0)
    if name == "resnet50":
        x = torch.randn(n, 3, 224, 224, generator=g).contiguous(memory_format=torch.channels_last)
        return x.pin_memory(), torch.randint(0, 1000, (n,), generator=g).pin_memory()
    idx = torch.randint(0, 50304, (n, 1025), generator=g)
    return idx[:, :-1].contiguous().pin_memory(), idx[:, 1:].contiguous().pin_memory()


def samples_per_item(name, x):
    return x.shape[1] if name == "gpt" else 1


def flops_per_sample(model, loss_fn, x, y):
    """One training pass's FLOPs, counted by PyTorch on a micro-batch."""
    from torch.utils.flop_counter import FlopCounterMode

    m = model.cuda()
    with FlopCounterMode(display=False) as fc:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(m(x.cuda()), y.cuda())
        loss.backward()
    m.zero_grad(set_to_none=True)
    return fc.get_total_flops() / x.shape[0]


def adamw(params):
    return torch.optim.AdamW(params, lr=1e-4)


def plain(model, loss_fn, x, y, steps, warmup):
    m = model.cuda()
    opt = adamw(m.parameters())
    times = []
    for s in range(warmup + steps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(m(x.cuda(non_blocking=True)), y.cuda(non_blocking=True))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        if s >= warmup:
            times.append(time.perf_counter() - t)
    m.cpu()
    return {"step_s": times}


def balanced(model, loss_fn, x, y, steps, warmup, spec, policy, micro_batch, graphs=False):
    times, split, ideal, per_device = [], [], [], []
    with baton.torch.Balanced(model, adamw, devices=spec, policy=policy, micro_batch=micro_batch,
                              autocast=torch.bfloat16, perf_model_file="", cuda_graphs=graphs) as bal:
        for s in range(warmup + steps):
            t = time.perf_counter()
            bal.step(x, y, loss_fn)
            if s < warmup:
                continue
            times.append(time.perf_counter() - t)
            st = bal.stats()
            split.append(st["seconds"])
            # Each device's micro-batches per second while busy, side by side.
            ideal.append(sum(d["rate"] for d in st["devices"]) * micro_batch)
            per_device.append({d["name"]: d["micro_batches"] for d in st["devices"]})
    return {"step_s": times, "split": split, "ideal_samples_per_s": ideal,
            "micro_batches": per_device, "spec": spec, "policy": policy,
            "micro_batch": micro_batch}


def median(v):
    return statistics.median(v) if v else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=["resnet50", "gpt"], default="resnet50")
    ap.add_argument("--batch", type=int, default=256, help="global batch (images or sequences)")
    ap.add_argument("--micro-batch", type=int, default=16, help="micro-batch on partitions")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--gpu", type=int, default=0)
    ap.add_argument("--partitions", default="64+32+16+8")
    ap.add_argument("--policies", default="static,weighted,ws,model")
    ap.add_argument("--runs", default="plain,whole,partitions,graphs,cpu")
    ap.add_argument("--json-out")
    a = ap.parse_args()

    model, loss_fn, unit = build(a.model)
    x, y = make_batch(a.model, a.batch)
    per_item = samples_per_item(a.model, x)
    fps = flops_per_sample(model, loss_fn, x[: a.micro_batch], y[: a.micro_batch])
    model.cpu()
    name = torch.cuda.get_device_name(a.gpu)
    peak = next((v for k, v in PEAK_BF16.items() if k in name), 0)
    runs = {}
    wanted = a.runs.split(",")

    def record(key, result):  # each run's line as it ends, so a run cut short still tells
        runs[key] = result
        step = median(result["step_s"])
        print(f"  {key}: {a.batch * per_item / step:.0f} {unit}/s, step {1e3 * step:.1f} ms", flush=True)

    if "plain" in wanted:
        record("plain", plain(model, loss_fn, x, y, a.steps, a.warmup))
    if "whole" in wanted:
        record("whole", balanced(model, loss_fn, x, y, a.steps, a.warmup, f"cuda:{a.gpu}", "static", a.batch))
    if "partitions" in wanted:
        for p in a.policies.split(","):
            record(p, balanced(model, loss_fn, x, y, a.steps, a.warmup,
                               f"cuda:{a.gpu}/{a.partitions}", p, a.micro_batch))
    if "graphs" in wanted:
        record("ws+graphs", balanced(model, loss_fn, x, y, a.steps, a.warmup,
                                     f"cuda:{a.gpu}/{a.partitions}", "ws", a.micro_batch, graphs=True))
    if "cpu" in wanted:
        record("gpu alone", balanced(model, loss_fn, x, y, a.steps, a.warmup, f"cuda:{a.gpu}", "ws", a.micro_batch))
        record("cpu+gpu", balanced(model, loss_fn, x, y, a.steps, a.warmup, f"cpu,cuda:{a.gpu}", "ws",
                                   a.micro_batch))

    on_partitions = set(a.policies.split(",")) | {"ws+graphs"}
    rate = {k: a.batch * per_item / median(r["step_s"]) for k, r in runs.items()}
    print(f"{a.model} on {name}, batch {a.batch}, micro-batch {a.micro_batch} on partitions "
          f"{a.partitions}, {fps / per_item / 1e9:.2f} GFLOP per {unit[:-1]} (counted), "
          f"medians of {a.steps} steps")
    head = f"{'run':<10} {unit + '/s':>12} {'MFU':>6} {'fwd+bwd':>8} {'reduce':>7} {'update':>7} " \
           f"{'vs plain':>8} {'vs equal':>8} {'vs ideal':>8}  micro-batches per device"
    print(head)
    for k, r in runs.items():
        sp = r.get("split") or []
        ms = lambda key: f"{1e3 * median([s[key] for s in sp]):.1f}" if sp else "-"  # noqa: E731
        vs = lambda base: f"{rate[k] / rate[base]:.3f}" if base in rate else "-"  # noqa: E731
        ideal = median(r.get("ideal_samples_per_s", [])) * per_item
        mfu = rate[k] / per_item * fps / peak if peak else float("nan")
        mbs = r.get("micro_batches", [{}])[-1]
        print(f"{k:<10} {rate[k]:>12.0f} {100 * mfu:>5.1f}% {ms('fwd_bwd'):>8} {ms('reduce'):>7} "
              f"{ms('update'):>7} {vs('plain'):>8} {vs('static') if k in on_partitions else '-':>8} "
              f"{rate[k] / ideal if k in on_partitions else float('nan'):>8.3f}  "
              f"{' '.join(f'{n}:{c}' for n, c in mbs.items())}")
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump({"model": a.model, "device": name, "batch": a.batch, "micro_batch": a.micro_batch,
                       "partitions": a.partitions, "flops_per_sample": fps, "peak_flops": peak,
                       "samples_per_s": rate, "runs": runs}, f, indent=1)


if __name__ == "__main__":
    main()
