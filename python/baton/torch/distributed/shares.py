"""Each rank's share of every step's global batch, agreed by all ranks."""

import contextlib
import socket
import time

import torch
import torch.distributed as dist

from .ledger import Ledger


class Shares:
    """The ranks' shares of each step's batch, cut by their measured rates.

    A step's split is fixed the first time it is asked for (by the sampler,
    ahead of the step), from the rates known then; every rank asks at the
    same point of its loop, so all cut alike, and end_step() checks that they
    did. Rates: each rank's samples over the time from begin_step() to its
    last gradient bucket (the hook notes it: the wait for slower ranks in the
    all-reduce is not counted), the median of its last five steps, gathered
    in one all-gather per step. The first step pays one-time costs and is
    not learned from.
    """

    def __init__(self, global_batch, group=None, learn=True):
        self.group = group
        self.rank = dist.get_rank(group)
        self.world_size = dist.get_world_size(group)
        self.host = socket.gethostname()
        self.ledger = Ledger(self.world_size, global_batch, self.where)
        self.learn = learn  # False: equal shares throughout (a baseline), rates still measured
        self.steps_begun = 0
        nccl = dist.get_backend(group) == "nccl"
        self.device = torch.device("cuda", torch.cuda.current_device()) if nccl else torch.device("cpu")
        self._t0 = self._ready = None
        self.measured = [0.0] * self.world_size  # each rank's samples/s in the last step

    @property
    def where(self):
        return f"rank {self.rank} ({self.host})"

    @property
    def global_batch(self):
        """Samples in each step's batch, as the ledger cuts it."""
        return self.ledger.global_batch

    @property
    def rates(self):
        """Each rank's samples/s, as every rank knows them."""
        return self.ledger.rates

    def split(self, step, size=None):
        """Samples per rank at `step` (from 1) of a batch of `size` (default: the global batch)."""
        return self.ledger.split(step, size)

    def share(self, step=None):
        """(first sample, samples) of this rank at `step` (default: the current one)."""
        split = self.split(self.steps_begun if step is None else step)
        return sum(split[: self.rank]), split[self.rank]

    def weight(self):
        """This rank's samples over the step's global batch."""
        step = self.steps_begun
        return self.split(step)[self.rank] / self.ledger.size(step)

    def begin_step(self):
        self.steps_begun += 1
        self._ready = None
        self._t0 = self._clock_mark()

    def note_gradients_ready(self):
        """Called by the hooks for each bucket: the last call ends this rank's compute."""
        self._ready = self._clock_mark()

    def end_step(self):
        """Learns every rank's rate from the step just run (a collective)."""
        step = self.steps_begun
        split = self.split(step)
        seconds = self._seconds(self._t0, self._ready or self._clock_mark())
        rate = split[self.rank] / seconds if step > 1 and seconds > 0 else 0.0
        fingerprint = float(sum((i + 1) * (n + 1) for i, n in enumerate(split)))
        mine = torch.tensor([rate, fingerprint], dtype=torch.float64, device=self.device)
        parts = [torch.empty_like(mine) for _ in range(self.world_size)]
        try:
            dist.all_gather(parts, mine, group=self.group)  # Gloo has no all_gather_into_tensor
        except RuntimeError as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else "no reason given"
            raise RuntimeError(f"{self.where}: step {step}: the ranks' rates could not be "
                               f"gathered ({first}); a rank that ended names itself in its "
                               "own output") from e
        everyone = torch.cat(parts).cpu().tolist()
        prints = everyone[1::2]
        if any(p != prints[0] for p in prints):
            raise RuntimeError(f"{self.where}: the ranks cut step {step}'s batch differently; give "
                               "every rank's DataLoader the same settings (workers, prefetch)")
        self.measured = everyone[0::2]
        if self.learn:
            self.ledger.learn(self.measured)

    @contextlib.contextmanager
    def step(self):
        """begin_step() ... end_step() around a step's forward and backward."""
        self.begin_step()
        yield self
        self.end_step()

    def state_dict(self):
        """The rates and the step count, for a checkpoint."""
        return dict(self.ledger.state_dict(), steps_begun=self.steps_begun)

    def load_state_dict(self, state):
        self.ledger.load_state_dict(state, self.where)
        self.steps_begun = state["steps_begun"]

    def _clock_mark(self):
        if self.device.type == "cuda":
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            return e
        return time.perf_counter()

    def _seconds(self, start, end):
        if self.device.type == "cuda":
            end.synchronize()
            return start.elapsed_time(end) / 1e3
        return end - start
