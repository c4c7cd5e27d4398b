// A rate learned across steps: the median of the last few measured. One
// step's figure swings with what ran beside it (partitions of a GPU share its
// memory; a device, or process, that finishes last ran partly alone, faster):
// split by it alone, the next step's split swung back and forth for ten
// steps on the H200.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace baton::train {

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
