"""Balanced: one model trained over the devices of a spec, in one process."""

import contextlib
import json
import math
import time

import torch

from .. import DeviceError, Runtime, UsageError
from .distributed.across_ranks import sum_weighted
from .gradients import sum_gradients
from .graphs import GraphedPass
from .placement import master_index, torch_device
from .replicas import broadcast, check_on_host, make_replicas


def _batch_size(inputs, targets):
    if not isinstance(inputs, torch.Tensor) or not isinstance(targets, torch.Tensor):
        raise ValueError("step: inputs and targets are tensors whose first dimension is the batch")
    if inputs.dim() == 0 or inputs.shape[0] == 0:
        raise ValueError("step: the batch is empty")
    if targets.dim() == 0 or targets.shape[0] != inputs.shape[0]:
        got = "a scalar" if targets.dim() == 0 else str(targets.shape[0])
        raise ValueError(f"step: {inputs.shape[0]} inputs but {got} targets (a ragged batch)")
    if inputs.device.type != "cpu" or targets.device.type != "cpu":
        raise ValueError("step: the batch is given in host memory; baton copies each "
                         "micro-batch to the device that runs it")
    return int(inputs.shape[0])


class Balanced:
    """Trains `model` data-parallel over the devices of a baton spec.

    Balanced(model, make_optimizer, devices="auto", policy="ws", micro_batch=None,
             autocast=None, trace=None, report=None, fault=None, perf_model_file=None,
             cuda_graphs=False, shares=None)

    model: a torch.nn.Module in host memory; each device gets a replica.
    make_optimizer(params): the optimizer over the master replica's parameters
    (the first GPU's, else the first device's), e.g. lambda p: torch.optim.SGD(p, 0.1).
    devices: a baton spec of cpu and cuda devices: "cpu:2", "cuda:0",
    "cuda:0/64+32+16+8" (SM partitions), "cpu,cuda:0".
    policy: static, weighted, ws, ws-topo or model: how baton's scheduler places
    each step's micro-batches.
    micro_batch: samples per micro-batch (default: a batch cut in 8 per device).
    autocast: a dtype (torch.bfloat16) to run forward and loss under autocast.
    cuda_graphs: on CUDA devices, capture each replica's forward and backward at
    the micro-batch size once (after an eager pass) and replay it: for launch-
    bound steps. The model and loss_fn must then be capturable (static shapes,
    no host synchronisation).
    trace, report: a Chrome/Perfetto trace file and an HTML report folder,
    written by close(), as `baton train --trace/--report` writes them.
    fault: inject device faults ("cpu1:after=3"), to see a step go on without one.
    shares: a baton.torch.distributed.Shares, where this is one rank of a job:
    step() then takes the rank's share of the batch, and the gradients of the
    rank's devices, summed, are summed over the ranks weighted by their shares.
    """

    def __init__(self, model, make_optimizer, devices="auto", policy="ws", micro_batch=None,
                 autocast=None, trace=None, report=None, fault=None, perf_model_file=None,
                 cuda_graphs=False, shares=None):
        check_on_host(model)
        if micro_batch is not None and (not isinstance(micro_batch, int) or micro_batch < 1):
            raise ValueError(f"micro_batch: a positive number of samples, not {micro_batch!r}")
        self._rt = Runtime(devices, policy=policy, fault=fault, perf_model_file=perf_model_file)
        try:
            self._infos = self._rt.devices
            self._devices = [torch_device(d) for d in self._infos]
            self._master = master_index(self._devices)
            self._replicas = make_replicas(model, self._devices, self._master)
            self.optimizer = make_optimizer(self._replicas[self._master].parameters())
            if trace or report:
                self._rt.start_recording(trace or "", report or "",
                                         f"baton.torch.Balanced({type(model).__name__}, "
                                         f"devices={devices!r}, policy={policy!r})")
        except BaseException:
            self._rt.close()
            raise
        self._recording = bool(trace or report)
        self._policy = policy
        self._micro_batch = micro_batch
        self._autocast = autocast
        self._graphs = {} if cuda_graphs else None  # (device, micro-batch) -> GraphedPass
        self._shares = shares
        self._name = type(model).__name__
        self._streams = {}
        self._steps = []
        self._last = None

    @property
    def module(self):
        """The master replica: the weights the optimizer updates."""
        return self._replicas[self._master]

    @property
    def replicas(self):
        """Every device's replica, in the order of the devices."""
        return list(self._replicas)

    @property
    def devices(self):
        """The devices, as baton.devices() describes them."""
        return self._rt.devices

    def _stream(self, device, handle):
        if not handle:
            return contextlib.nullcontext()
        key = (device, handle)
        if key not in self._streams:
            self._streams[key] = torch.cuda.ExternalStream(handle, device=self._devices[device])
        return torch.cuda.stream(self._streams[key])

    def _autocast_ctx(self, dev):
        if self._autocast is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=dev.type, dtype=self._autocast)

    def step(self, inputs, targets, loss_fn):
        """One training step over the batch; returns its mean loss (a float).

        loss_fn(outputs, targets) returns a scalar, the mean over its samples.
        Each micro-batch's loss is weighted by its share of the batch, so the
        gradient is the whole batch's, whichever device ran which part.
        """
        if self._rt is None:
            raise UsageError("invalid argument (Balanced): closed")
        n = _batch_size(inputs, targets)
        mb = self._micro_batch or max(1, math.ceil(n / (8 * len(self._devices))))
        count = math.ceil(n / mb)
        if any(d.type == "cuda" for d in self._devices) and not inputs.is_pinned():
            inputs, targets = inputs.pin_memory(), targets.pin_memory()
        losses = [None] * count

        def run(device, begin, end, stream):
            dev, model = self._devices[device], self._replicas[device]
            with self._stream(device, stream):
                for i in range(begin, end):
                    lo, hi = i * mb, min(n, (i + 1) * mb)
                    if stream and self._graphs is not None and hi - lo == mb:
                        graphed = self._graphed(device, model, loss_fn, inputs[lo:hi], targets[lo:hi])
                        if graphed is not None:
                            losses[i] = graphed.run(inputs[lo:hi], targets[lo:hi], (hi - lo) / n)
                            continue
                    x = inputs[lo:hi].to(dev, non_blocking=True)
                    y = targets[lo:hi].to(dev, non_blocking=True)
                    with self._autocast_ctx(dev):
                        loss = loss_fn(model(x), y)
                    if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
                        shape = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
                        raise ValueError(f"loss_fn returned {shape}: it must return a scalar tensor "
                                         "(the mean over the micro-batch)")
                    (loss * ((hi - lo) / n)).backward()
                    losses[i] = loss.detach()

        kernel = f"torch.{self._name}.mb{mb}"
        if self._shares:
            self._shares.begin_step()
        t0 = time.perf_counter()
        c0 = self._rt.now()
        failed_before = [self._rt.failed(d) for d in range(len(self._devices))]
        while True:
            self._zero_grads()
            stats = self._rt.run(count, run, kernel=kernel, learn_rates=True)
            lost = [d for d in range(len(self._devices))
                    if self._rt.failed(d) and not failed_before[d]]
            if not lost:
                break
            # A device failed mid-step: what it summed is lost with it, so the
            # step runs again on the others.
            failed_before = [self._rt.failed(d) for d in range(len(self._devices))]
            if self._master in lost:
                raise DeviceError(f"device failed ({self._infos[self._master]['name']}): it held "
                                  "the optimizer's weights: " + self._rt.failure(self._master))
        t1 = time.perf_counter()
        params = sum_gradients(self._replicas, self._devices, self._master)
        loss = sum(float(l) * (min(n, (i + 1) * mb) - i * mb) for i, l in enumerate(losses)) / n
        if self._shares:
            self._shares.note_gradients_ready()
            loss = self._sum_over_ranks(params, loss)
        self._sync()
        t2 = time.perf_counter()
        self.optimizer.step()
        broadcast(self._replicas, self._devices, self._master)
        self._sync()
        t3 = time.perf_counter()
        if self._shares:
            self._shares.end_step()
        if self._recording:
            self._rt.trace_span(f"step {len(self._steps) + 1}", c0, self._rt.now())
        self._last = {"run": stats, "micro_batch": mb, "micro_batches": count,
                      "seconds": {"fwd_bwd": t1 - t0, "reduce": t2 - t1, "update": t3 - t2}}
        self._steps.append({"step": len(self._steps) + 1, "loss": loss, "seconds": t3 - t0,
                            "samples": n})
        return loss

    def _sum_over_ranks(self, params, loss):
        """The ranks' gradients and losses summed, each weighted by its share."""
        for p in params:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
        total = torch.tensor([loss], dtype=params[0].grad.dtype, device=params[0].device)
        sum_weighted([p.grad for p in params] + [total], self._shares)
        return float(total)

    def _zero_grads(self):
        if self._graphs is None:
            for r in self._replicas:
                r.zero_grad(set_to_none=True)
            return
        # Graphs add into these very tensors: zeroed in place, before any device starts.
        for r in self._replicas:
            grads = [p.grad for p in r.parameters() if p.grad is not None]
            if grads:
                torch._foreach_zero_(grads)
        self._sync()

    def _graphed(self, device, model, loss_fn, x, y):
        """The device's graph at this micro-batch size; None until an eager pass made the grads."""
        key = (device, x.shape[0])
        if key not in self._graphs:
            if any(p.grad is None for p in model.parameters() if p.requires_grad):
                return None
            self._graphs[key] = GraphedPass(model, loss_fn, x, y,
                                            lambda: self._autocast_ctx(self._devices[device]),
                                            torch.cuda.current_stream(self._devices[device]))
        return self._graphs[key]

    def _sync(self):
        for d in set(self._devices):
            if d.type == "cuda":
                torch.cuda.synchronize(d)

    def stats(self):
        """The last step: micro-batches, items/s and failure per device, the step split."""
        if self._last is None:
            return {}
        run = self._last["run"]
        per_device = []
        for info, d in zip(self._infos, run["devices"]):
            per_device.append({
                "name": d["name"], "micro_batches": d["items"], "chunks": d["chunks"],
                "steals": d["steals"],
                "rate": d["items"] / d["busy_s"] if d["busy_s"] > 0 else 0.0,
                "failed": d["failed"], "failure": d["failure"],
            })
        return {"policy": run["policy"], "micro_batch": self._last["micro_batch"],
                "micro_batches": self._last["micro_batches"], "devices": per_device,
                "seconds": dict(self._last["seconds"]),
                "efficiency": run["efficiency"], "steps": len(self._steps),
                "loss": self._steps[-1]["loss"]}

    def close(self):
        """Writes the trace and report (where asked) and releases the devices."""
        if self._rt is None:
            return
        try:
            if self._recording:
                batch = self._steps[-1]["samples"] if self._steps else 0
                self._rt.finish_recording(json.dumps({
                    "policy": self._policy, "batch": batch, "collective": "baton.torch",
                    "steps": [{k: s[k] for k in ("step", "loss", "seconds")} for s in self._steps],
                }))
        finally:
            self._rt.close()
            self._rt = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_rt", None) is not None:
            self._rt.close()
