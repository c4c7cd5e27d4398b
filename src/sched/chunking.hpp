// Chunk sizing for work stealing. Each device's chunk is a fraction of its fair
// share of the work still unstarted, so chunks shrink toward the end and the
// last ones on every device finish close together. Rates are measured
// completion rates (items per busy second), the median of the last samples so
// that one outlier (a page fault, a preempted thread) cannot skew the split.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace baton::detail {

class RateTracker {
 public:
  // Single writer (the device's worker); readers load rate() from any thread.
  void add(double items_per_s);
  void reset() {
    count_ = 0;
    rate_.store(0.0, std::memory_order_relaxed);
    latest_.store(0.0, std::memory_order_relaxed);
  }
  double rate() const { return rate_.load(std::memory_order_relaxed); }  // 0: no sample yet
  // The last sample: the first sign of a device that just slowed down,
  // which the median shows only a few chunks later.
  double latest() const { return latest_.load(std::memory_order_relaxed); }

 private:
  std::array<double, 7> ring_{};
  int count_ = 0;
  std::atomic<double> rate_{0.0};
  std::atomic<double> latest_{0.0};
};

// The rate of each device: measured where known, else its weight scaled by
// the measured devices' rate-to-weight ratio (so both live on one scale).
// Writes into `out` (resized) so that the hot path reuses one vector per device.
void effective_rates(const std::vector<double>& weights, const std::vector<RateTracker>& measured,
                     std::vector<double>& out);

struct ChunkBounds {
  std::uint64_t lo, hi;
};
// A device's chunk bounds: the plan's, scaled by its share of the total rate
// times the number of devices, so that chunks take about the same time on a
// fast and a slow device (and the last ones end together). Once its rate is
// measured (0: not yet), the lower bound is raised to `floor_s` of it, so
// per-chunk costs stay small on fast devices, but never above the plan's
// upper bound: the tail of a short run keeps its short chunks. The upper
// bound is raised to `body_s` of it: the plan's bound of a 5 ms run is 0.3 ms
// a chunk, and a GPU's chunk costs about 10 us besides its waves (launch,
// ramp, drain), 3 % of that.
ChunkBounds device_bounds(std::uint64_t min_chunk, std::uint64_t max_chunk, double share,
                          int devices, double measured_rate, double floor_s, double body_s);

// The next chunk for a device whose share of the total rate is `share`, with
// `unstarted` items not yet handed out anywhere.
std::uint64_t guided_chunk(std::uint64_t unstarted, double share, double tail_split,
                           std::uint64_t min_chunk, std::uint64_t max_chunk);

}  // namespace baton::detail
