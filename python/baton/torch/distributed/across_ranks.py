"""Summing a rank's tensors over the ranks, each weighted by its share."""

import torch.distributed as dist
from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors


def sum_weighted(tensors, shares):
    """Replaces each tensor by the sum over ranks of (n_i / N) x it: one all-reduce.

    For baton.torch.Balanced inside a rank: its devices' gradients summed
    first, then the ranks'.
    """
    if not tensors:
        return
    flat = _flatten_dense_tensors(tensors)
    wire = flat.to(shares.device)  # NCCL sums GPU memory, Gloo host memory
    wire.mul_(shares.weight())
    dist.all_reduce(wire, group=shares.group)
    for t, v in zip(tensors, _unflatten_dense_tensors(wire.to(flat.device), tensors)):
        t.copy_(v)
