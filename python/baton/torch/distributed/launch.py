"""Which rank this process is, from the launcher's environment."""

import dataclasses
import datetime
import os
import socket
import sys

import torch.distributed as dist

# (rank, world size, local rank) variables of each launcher, in order of preference.
_LAUNCHERS = [
    ("torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"),
    ("mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
    ("srun", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),
]


@dataclasses.dataclass
class Launch:
    launcher: str
    rank: int
    world_size: int
    local_rank: int
    host: str

    @staticmethod
    def from_env(env=None):
        """The launcher's view of this process; ValueError naming what is missing or wrong."""
        env = os.environ if env is None else env
        for name, rank, size, local in _LAUNCHERS:
            if rank in env and size in env:
                try:
                    r, w, lr = int(env[rank]), int(env[size]), int(env.get(local, 0))
                except ValueError:
                    raise ValueError(f"{name}: {rank}={env[rank]!r}, {size}={env[size]!r}: "
                                     "not whole numbers") from None
                if not 0 <= r < w:
                    raise ValueError(f"{name}: rank {r} is not in a world of {w}")
                return Launch(name, r, w, lr, socket.gethostname())
        raise ValueError("no launcher found: start under torchrun, mpirun or srun "
                         "(RANK and WORLD_SIZE, OMPI_COMM_WORLD_*, SLURM_PROCID and SLURM_NTASKS)")


def init_process_group(backend="gloo", world_size=None, timeout_s=120, env=None):
    """torch.distributed.init_process_group from the launcher's environment.

    MASTER_ADDR and MASTER_PORT default to 127.0.0.1:29500 (one node). A
    world_size other than the launcher's is a ValueError naming the rank.
    """
    launch = Launch.from_env(env)
    where = f"rank {launch.rank} ({launch.host})"
    if world_size is not None and world_size != launch.world_size:
        raise ValueError(f"{where}: world size {world_size} given, but {launch.launcher} "
                         f"started {launch.world_size} processes")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    dist.init_process_group(backend, rank=launch.rank, world_size=launch.world_size,
                            timeout=datetime.timedelta(seconds=timeout_s))
    _name_this_rank_on_exit(where)
    return launch


def _name_this_rank_on_exit(where):
    """An uncaught exception ends with a line naming the rank and host: the
    other ranks see only a collective that failed."""
    previous = sys.excepthook

    def hook(kind, value, trace):
        previous(kind, value, trace)
        first = str(value).strip().splitlines()[0] if str(value).strip() else kind.__name__
        print(f"baton: {where} failed: {kind.__name__}: {first}", file=sys.stderr)

    sys.excepthook = hook
