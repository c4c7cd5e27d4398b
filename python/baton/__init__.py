"""baton: spreads work over every GPU, CPU and OpenCL device of a machine.

    import baton
    baton.devices("cuda:0/64+32+16+8")      # what a spec opens, with telemetry
    rt = baton.Runtime("cpu:2", policy="ws")  # a worker per device, the scheduler
    rt.run(1000, fn)                          # fn(device, begin, end, stream) per chunk
    baton.bench(devices="sim:8,4,2,1")        # `baton bench balance`, as a dict
    baton.train(devices="cpu", steps=5)       # `baton train`, as a dict

baton.torch balances a PyTorch model's training over the devices of a spec.
Errors are baton.Error's subclasses: UsageError (a ValueError) for what the
caller passed, DeviceError, OutOfMemoryError, BackendUnavailableError.
"""

from ._baton import (
    BackendUnavailableError,
    DeviceError,
    Error,
    OutOfMemoryError,
    RateWindow,
    Runtime,
    UsageError,
    device_spec_help,
    devices,
    split_by_rates,
)
from ._commands import bench, sweep, train

POLICIES = ("static", "weighted", "ws", "ws-topo", "model")

__all__ = [
    "BackendUnavailableError",
    "DeviceError",
    "Error",
    "OutOfMemoryError",
    "POLICIES",
    "RateWindow",
    "Runtime",
    "UsageError",
    "bench",
    "device_spec_help",
    "devices",
    "split_by_rates",
    "sweep",
    "train",
]
