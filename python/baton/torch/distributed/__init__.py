"""Per-rank batch shares for DDP under torchrun, mpirun or srun.

    import baton.torch.distributed as bd
    bd.init_process_group("nccl")                 # RANK/WORLD_SIZE, OMPI_*, SLURM_*
    shares = bd.Shares(global_batch=512)           # each rank's share of every step
    loader = DataLoader(data, batch_sampler=bd.BalancedSampler(len(data), shares))
    ddp = DistributedDataParallel(model, device_ids=[local_rank])
    ddp.register_comm_hook(shares, bd.weighted_allreduce_hook)
    for x, y in loader:
        with shares.step():
            loss_fn(ddp(x), y).backward()
        opt.step(); opt.zero_grad()

A rank's share of each step's global batch follows its measured rate (its
samples over the time its forward and backward took, the median of its last
five steps), agreed by every rank through torch.distributed; the hook weights
each rank's gradient by its share before a summing all-reduce, so the step's
gradient is the global batch's, however it was cut. Within a rank, several
devices (a GPU's partitions, GPU and CPU) train through
baton.torch.Balanced(..., shares=shares): the rank's devices first, then the ranks.
"""

from .across_ranks import sum_weighted
from .hooks import weighted_allreduce_hook, weighted_bf16_allreduce_hook
from .launch import Launch, init_process_group
from .sampler import BalancedSampler
from .shares import Shares

__all__ = ["BalancedSampler", "Launch", "Shares", "init_process_group", "sum_weighted",
           "weighted_allreduce_hook", "weighted_bf16_allreduce_hook"]
