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

    def set_epoch(self, epoch):
        self.epoch = epoch

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
        base = 0
        for size in self.step_sizes():
            split = self.shares.split(self._next_step, size)
            self._next_step += 1
            first = base + sum(split[: self.shares.rank])
            yield order[first:first + split[self.shares.rank]].tolist()
            base += size
