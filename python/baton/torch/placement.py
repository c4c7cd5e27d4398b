"""Which torch.device each baton device computes on."""

import re

import torch

from .. import UsageError


def torch_device(info):
    """The torch.device of a baton device (a dict of baton.devices()).

    cpu devices compute on the host; a CUDA GPU, or an SM partition of one,
    on that GPU's torch device (partitions share its memory). Other backends
    have no PyTorch device.
    """
    backend, name = info["backend"], info["name"]
    if backend == "cpu":
        return torch.device("cpu")
    if backend == "cuda":
        match = re.match(r"cuda(\d+)", name)
        if not match:
            raise UsageError(f"invalid argument ({name}): cannot tell which GPU this device is")
        ordinal = int(match.group(1))
        if not torch.cuda.is_available() or ordinal >= torch.cuda.device_count():
            raise UsageError(
                f"invalid argument ({name}): this PyTorch does not see GPU {ordinal} "
                f"(torch.cuda.device_count() is {torch.cuda.device_count()})"
            )
        return torch.device("cuda", ordinal)
    raise UsageError(
        f"invalid argument ({name}): PyTorch has no device for the {backend} backend; "
        "use cpu and cuda devices"
    )


def master_index(devices):
    """The replica whose weights the optimizer updates: the first GPU's, else the first."""
    for i, d in enumerate(devices):
        if d.type == "cuda":
            return i
    return 0
