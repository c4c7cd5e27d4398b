"""Summing the replicas' gradients into the master's.

Each replica's gradients already carry its samples' weight (each micro-batch's
loss was scaled by its share of the global batch), so the sum is the global
batch's gradient. Per memory first, in place (the partitions of one GPU, cpu
devices on the host's memory); then across memories: through NCCL between
GPUs (torch.cuda.comm.reduce_add), copied from the host to the master's GPU.
"""

import torch
from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors


def _grads(replica):
    return [p.grad for p in replica.parameters() if p.requires_grad]


def _sum_in_place(lead, others):
    """Adds the others' gradients to lead's (lists per replica, None: no gradient)."""
    for grads in others:
        for j, g in enumerate(grads):
            if g is None:
                continue
            if lead[j] is None:
                lead[j] = g.clone()
            else:
                lead[j].add_(g)
    return lead


def sum_gradients(replicas, devices, master):
    """Leaves the sum of every replica's gradients in the master's .grad; returns its parameters."""
    params = [p for p in replicas[master].parameters() if p.requires_grad]
    per_memory = {}
    for i, dev in enumerate(devices):
        grads = _grads(replicas[i])
        if all(g is None for g in grads):
            continue  # it ran no micro-batch
        per_memory.setdefault(dev, []).append((i, grads))
    # Per memory, into the master where it is there, else the first replica.
    leads = {}
    for dev, members in per_memory.items():
        members.sort(key=lambda m: m[0] != master)
        lead = list(members[0][1])
        leads[dev] = _sum_in_place(lead, [g for _, g in members[1:]])
    home = devices[master]
    if set(leads) - {home}:
        # Across memories, as one flat buffer per memory.
        flats = {}
        for dev, grads in leads.items():
            full = [g if g is not None else torch.zeros_like(p, device=dev)
                    for g, p in zip(grads, params)]
            flats[dev] = _flatten_dense_tensors(full)
        gpus = [f for dev, f in flats.items() if dev.type == "cuda"]
        if len(gpus) > 1:
            total = torch.cuda.comm.reduce_add(gpus, destination=home.index)
        elif gpus:
            total = gpus[0].to(home)
        else:
            total = None
        for dev, f in flats.items():
            if dev.type != "cuda":
                total = f.to(home) if total is None else total.add_(f.to(home, non_blocking=True))
        summed = _unflatten_dense_tensors(total, params)
    else:
        summed = leads.get(home, [None] * len(params))
    for p, g in zip(params, summed):
        if g is None or p.grad is None:
            p.grad = g
        elif g is not p.grad:
            p.grad.copy_(g)  # the same tensor: a CUDA graph adds into it
    return params
