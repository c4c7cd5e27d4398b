"""A replica's forward and backward at one micro-batch size, as a CUDA graph.

Small micro-batches, and several partitions of one GPU driven from one
interpreter, are bound by launching: one replay replaces the hundreds of
launches (and of Python calls holding the GIL) of an eager pass. The graph
reads its inputs from static tensors and adds into the replica's .grad in
place, so the gradients must exist before capture (an eager pass first) and
are zeroed in place, never dropped.
"""

import torch


class GraphedPass:
    """Captured on `stream` (the device's own): run() copies a micro-batch in and replays."""

    def __init__(self, model, loss_fn, x, y, autocast, stream):
        self.x = torch.empty_like(x, device=stream.device)
        self.y = torch.empty_like(y, device=stream.device)
        self.scale = torch.zeros((), device=stream.device)
        grads = [p.grad for p in model.parameters() if p.requires_grad]
        if any(g is None for g in grads):
            raise RuntimeError("capture needs the gradients of an eager pass first")
        self.graph = torch.cuda.CUDAGraph()
        # relaxed: the other devices' workers keep allocating and launching meanwhile.
        with torch.cuda.graph(self.graph, stream=stream, capture_error_mode="relaxed"):
            with autocast():
                loss = loss_fn(model(self.x), self.y)
            (loss * self.scale).backward()
            self.loss = loss.detach()
        after = [p.grad for p in model.parameters() if p.requires_grad]
        if any(a is not g for a, g in zip(after, grads)):
            raise RuntimeError("backward replaced a gradient instead of adding into it")

    def run(self, x, y, scale):
        """Replays on the current stream; returns the micro-batch's loss (a device tensor)."""
        self.x.copy_(x, non_blocking=True)
        self.y.copy_(y, non_blocking=True)
        self.scale.fill_(scale)
        self.graph.replay()
        return self.loss.clone()
