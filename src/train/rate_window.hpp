// A rate learned across steps: the median of the last few measured. One
// step's figure swings with what ran beside it (partitions of a GPU share its
// memory; a device, or process, that finishes last ran partly alone, faster):
// split by it alone, the next step's split swung back and forth for ten
// steps on the H200.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "baton/stats.hpp"

namespace baton::train {

// A device's rate (items/s) in one run, 0 where it ran nothing. Its first
// chunk also waited for what the run read (the weights), as long on every
// device: counted, a device that ran more would look faster, get more the
// next run, and so on. Where the chunks after it hold at least as many
// items, its rate is theirs (a stolen item or two at the end of a run would
// say less than the wait they leave out).
inline double run_rate(const DeviceStats& s) {
  double items = double(s.items), busy = s.busy_s;
  if (s.items >= 2 * s.first_chunk_items && s.busy_s > s.first_chunk_s)
    items -= double(s.first_chunk_items), busy -= s.first_chunk_s;
  return items > 0 && busy > 0 ? items / busy : 0;
}

class RateWindow {
 public:
  static constexpr std::size_t kKept = 5;
  // Adds a measurement; returns the median of those kept.
  double add(double rate) {
    seen_.push_back(rate);
    if (seen_.size() > kKept) seen_.erase(seen_.begin());
    std::vector<double> sorted = seen_;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t m = sorted.size() / 2;
    return sorted.size() % 2 ? sorted[m] : 0.5 * (sorted[m - 1] + sorted[m]);
  }
  void clear() { seen_.clear(); }

 private:
  std::vector<double> seen_;
};

}  // namespace baton::train
