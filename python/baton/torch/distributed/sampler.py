"""A batch sampler giving this rank its share of each step's global batch."""

import torch


class BalancedSampler(torch.utils.data.Sampler):
    """Yields, per step, the indices of this rank's share of the step's batch.

    Each epoch is a permutation of range(dataset_size) (seeded by seed and
    the epoch: every rank draws the same) cut into steps of shares.global_batch
    samples; a tail smaller than the ranks joins the last step. Each step's
    batch is cut by shares.split(), so every sample of the epoch is used
    exactly once, whatever the shares. Use as DataLoader(batch_sampler=...).
    """

    def __init__(self, dataset_size, shares, shuffle=True, seed=0):
        if not isinstance(dataset_size, int) or dataset_size < shares.global_batch:
            raise ValueError(f"{shares.where}: a dataset of {dataset_size!r} samples is smaller "
                             f"than a global batch of {shares.global_batch}")
        self.dataset_size = dataset_size
        self.shares = shares
        self.shuffle = shuffle
        self.seed = seed
        self.epoch = 0
        self._next_step = None
        self._skip = 0  # steps of the epoch run before a checkpoint
        self._epoch_first_step = None

    def set_epoch(self, epoch):
        self.epoch = epoch

    def state_dict(self):
        """Where the job is in its epochs, for a checkpoint (with the shares')."""
        done = 0
        if self._epoch_first_step is not None:
            done = self.shares.steps_begun - self._epoch_first_step + 1
        return {"epoch": self.epoch, "steps_done": max(0, done)}

    def load_state_dict(self, state):
        """The next iteration goes on from the checkpoint's step of its epoch."""
        self.epoch = state["epoch"]
        self._skip = state["steps_done"]
        self._next_step = None

    def step_sizes(self):
        batch = self.shares.global_batch
        sizes = [batch] * (self.dataset_size // batch)
        tail = self.dataset_size % batch
        if tail >= self.shares.world_size:
            sizes.append(tail)
        else:
            sizes[-1] += tail
        return sizes

    def __len__(self):
        return len(self.step_sizes())

    def __iter__(self):
        if self.shuffle:
            g = torch.Generator().manual_seed(self.seed + self.epoch)
            order = torch.randperm(self.dataset_size, generator=g)
        else:
            order = torch.arange(self.dataset_size)
        if self._next_step is None:
            self._next_step = self.shares.steps_begun + 1
        skip, self._skip = self._skip, 0
        self._epoch_first_step = self._next_step - skip
        base = 0
        for j, size in enumerate(self.step_sizes()):
            if j < skip:
                base += size
                continue
            split = self.shares.split(self._next_step, size)
            self._next_step += 1
            first = base + sum(split[: self.shares.rank])
            yield order[first:first + split[self.shares.rank]].tolist()
            base += size
