"""PyTorch models trained data-parallel over the devices of a baton spec.

    import baton.torch
    bal = baton.torch.Balanced(model, lambda p: torch.optim.AdamW(p, lr=1e-3),
                               devices="cuda:0/64+32+16+8", policy="ws")
    for x, y in loader:
        loss = bal.step(x, y, torch.nn.functional.cross_entropy)
    print(bal.stats())

Each device holds a replica of the model. Each step's batch is cut into
micro-batches that baton's C++ scheduler places (static, weighted, ws,
model); each device runs its micro-batches on a stream baton owns for it
(a green context's stream on an SM partition), and the gradients are summed
weighted by samples: in place where devices share a memory, through NCCL
between GPUs, copied to and from the host's replica. One optimizer step
updates the weights every replica then holds, bit for bit.
"""

from .balanced import Balanced

__all__ = ["Balanced"]
