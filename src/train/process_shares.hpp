// How the processes of a job share each step's global batch: by their
// measured rates, as the devices of one process share theirs. Each process
// learns its rate from its own steps (micro-batches over the time its
// devices took), the rates are gathered every step with the losses (one
// collective), and every process cuts the batch by the same figures, so all
// agree on who runs which rows without a word more. A step's split is fixed
// the first time it is asked for: the next step's batch is made while the
// current step runs, before its rates are known, so a rate learned at step s
// first moves the split of step s + 2.
#pragma once

#include <map>
#include <vector>

#include "collective/process_group.hpp"
#include "train/rate_window.hpp"

namespace baton::train {

// `total` micro-batches cut by `rates` (one per process, not all 0) by
// largest remainders, each process at least one. Error(invalid_argument)
// where there are fewer micro-batches than processes.
std::vector<int> split_micro_batches(int total, const std::vector<double>& rates);

class ProcessShares {
 public:
  // `micro_batches` in each step's batch; `first_guess` this process's
  // figure before any step (its devices' summed peak rates). A collective:
  // every process constructs its shares at the same point.
  ProcessShares(collective::ProcessGroup& group, int micro_batches, double first_guess);

  struct Share {
    int first = 0;          // index of this process's first micro-batch in the batch
    int micro_batches = 0;  // how many it runs
  };
  Share of(int step);
  // Micro-batches per process at `step` (fixed by the first call of either).
  const std::vector<int>& split(int step);

  // After a step: this process's summed loss and, unless `rate` is 0 (not
  // learned from), its micro-batches/s. Returns the loss summed over every
  // process. A collective.
  double learn(double loss, double rate);

  // micro-batches/s per process: the median of the last steps' (at first the guesses).
  const std::vector<double>& rates() const { return rates_; }
  // Takes `rates` (from a checkpoint of as many processes) and forgets the splits made.
  void restore(const std::vector<double>& rates);
  collective::ProcessGroup& group() { return group_; }

 private:
  collective::ProcessGroup& group_;
  int micro_batches_;
  std::vector<double> rates_;
  std::vector<RateWindow> seen_;  // per process
  std::map<int, std::vector<int>> splits_;
};

}  // namespace baton::train
