"""The shares of each step's batch, kept by every rank alike (no communication).

Shares (shares.py) feeds it the rates the ranks gathered; the DDP simulator
(bench/torch/sim_ddp.py) feeds it simulated ones: the same cut either way.
"""

from ... import RateWindow, split_by_rates


class Ledger:
    """Rates per rank (the median of each one's last five) and the splits they gave."""

    def __init__(self, world_size, global_batch, where="this job"):
        if not isinstance(global_batch, int) or global_batch < world_size:
            raise ValueError(f"{where}: a global batch of {global_batch!r} samples is smaller "
                             f"than the {world_size} ranks (each runs at least one)")
        self.world_size = world_size
        self.global_batch = global_batch
        self.rates = [1.0] * world_size
        self._seen = [RateWindow() for _ in range(world_size)]
        self._splits = {}

    def split(self, step, size=None):
        """Samples per rank at `step` of a batch of `size` (default: the global batch).

        Fixed the first time it is asked for, from the rates known then.
        """
        if step not in self._splits:
            size = self.global_batch if size is None else size
            self._splits[step] = (size, split_by_rates(size, self.rates))
            for old in [s for s in self._splits if s < step - 16]:
                del self._splits[old]
        return self._splits[step][1]

    def size(self, step):
        """The batch `step` was cut from."""
        self.split(step)
        return self._splits[step][0]

    def learn(self, rates):
        """Each rank's samples/s in the last step (0: not measured)."""
        for r, rate in enumerate(rates):
            if rate > 0:
                self.rates[r] = self._seen[r].add(rate)

    def state_dict(self):
        return {"rates": list(self.rates), "world_size": self.world_size}

    def load_state_dict(self, state, where="this job"):
        if state["world_size"] != self.world_size:
            raise ValueError(f"{where}: the checkpoint holds {state['world_size']} ranks' rates, "
                             f"this job has {self.world_size}")
        self.rates = list(state["rates"])
        self._splits.clear()
        for w in self._seen:
            w.clear()
