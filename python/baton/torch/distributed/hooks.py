"""DDP communication hooks that weight each rank's gradient by its share.

DDP's own hook averages over ranks, right only where every rank ran as many
samples. Here each rank's gradient (the mean over its n_i samples) is scaled
by n_i / N before a summing all-reduce: the sum is the mean over all N.
Register with ddp.register_comm_hook(shares, hook).
"""

import torch
import torch.distributed as dist


def weighted_allreduce_hook(shares, bucket):
    shares.note_gradients_ready()
    t = bucket.buffer()
    t.mul_(shares.weight())
    work = dist.all_reduce(t, group=shares.group, async_op=True)
    return work.get_future().then(lambda f: f.value()[0])


def weighted_bf16_allreduce_hook(shares, bucket):
    """The same with the gradients sent in bf16 (as PyTorch's bf16_compress_hook).

    Gloo sums no bf16 (nor gathers it): there the buckets, as 16-bit words, are gathered (the same
    bytes on the wire for two ranks) and summed in fp32.
    """
    shares.note_gradients_ready()
    buffer = bucket.buffer()
    compressed = buffer.mul(shares.weight()).to(torch.bfloat16)
    if dist.get_backend(shares.group) != "gloo":
        work = dist.all_reduce(compressed, group=shares.group, async_op=True)

        def decompress(fut):
            buffer.copy_(fut.value()[0])
            return buffer

        return work.get_future().then(decompress)
    bits = compressed.view(torch.float16)  # only copied: the bits stay bf16
    parts = [torch.empty_like(bits) for _ in range(shares.world_size)]
    work = dist.all_gather(parts, bits, group=shares.group, async_op=True)

    def add_up(fut):
        buffer.zero_()
        for p in parts:
            buffer.add_(p.view(torch.bfloat16).float())
        return buffer

    return work.get_future().then(add_up)
