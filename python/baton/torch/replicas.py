"""A model's replicas, one per device, and keeping them equal.

Replicas on the master's memory (the SM partitions of its GPU, or cpu
devices beside a cpu master) share the master's weights: the optimizer
updates them once, in place. Each replica keeps gradients and buffers
(BatchNorm's running statistics) of its own; after a step the master's
buffers, and its weights where a replica is elsewhere, are copied to it, so
every replica holds the same bits.
"""

import copy

import torch
from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors


def check_on_host(model):
    """Raises ValueError naming the first parameter or buffer not in host memory."""
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"model: a torch.nn.Module is needed, not {type(model).__name__}")
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        if t.device.type != "cpu":
            raise ValueError(
                f"model: '{name}' is on {t.device}; build the model on the CPU and baton "
                "places a replica on each device"
            )
    if not any(p.requires_grad for p in model.parameters()):
        raise ValueError("model: no parameter requires a gradient")


def make_replicas(model, devices, master):
    """One replica per device (a list of torch.device), the master's first made."""
    replicas = [None] * len(devices)
    replicas[master] = copy.deepcopy(model).to(devices[master])
    master_params = list(replicas[master].parameters())
    for i, dev in enumerate(devices):
        if i == master:
            continue
        r = copy.deepcopy(model).to(dev)
        if dev == devices[master]:
            for p, mp in zip(r.parameters(), master_params):
                p.data = mp.data
        replicas[i] = r
    return replicas


def broadcast(replicas, devices, master):
    """Copies the master's buffers, and its weights where not shared, to every replica."""
    src = replicas[master]
    src_params = [p.data for p in src.parameters()]
    src_buffers = [b for b in src.buffers()]
    flat_params = None
    for i, r in enumerate(replicas):
        if i == master:
            continue
        with torch.no_grad():
            if devices[i] != devices[master]:
                if flat_params is None:
                    flat_params = _flatten_dense_tensors(src_params)
                moved = flat_params.to(devices[i])
                params = [p.data for p in r.parameters()]
                for p, v in zip(params, _unflatten_dense_tensors(moved, params)):
                    p.copy_(v)
            for b, v in zip(r.buffers(), src_buffers):
                b.copy_(v)
