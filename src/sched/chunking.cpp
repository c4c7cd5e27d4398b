#include "sched/chunking.hpp"

#include <algorithm>
#include <cmath>

namespace baton::detail {

void RateTracker::add(double items_per_s) {
  if (!(items_per_s > 0) || !std::isfinite(items_per_s)) return;
  latest_.store(items_per_s, std::memory_order_relaxed);
  ring_[count_ % ring_.size()] = items_per_s;
  ++count_;
  std::size_t n = std::min<std::size_t>(count_, ring_.size());
  std::array<double, 7> sorted = ring_;
  std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.begin() + n);
  rate_.store(sorted[n / 2], std::memory_order_relaxed);
}

void effective_rates(const std::vector<double>& weights, const std::vector<RateTracker>& measured,
                     std::vector<double>& out) {
  double ratio_sum = 0;
  int known = 0;
  for (std::size_t i = 0; i < weights.size(); ++i)
    if (weights[i] > 0 && measured[i].rate() > 0)
      ratio_sum += measured[i].rate() / weights[i], ++known;
  out.assign(weights.size(), 0.0);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    double m = measured[i].rate();
    out[i] = m > 0 ? m : known ? weights[i] * ratio_sum / known : weights[i];
  }
}

ChunkBounds device_bounds(std::uint64_t min_chunk, std::uint64_t max_chunk, double share,
                          int devices, double measured_rate, double floor_s, double body_s) {
  const double scale = share * double(std::max(1, devices));
  const auto planned =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(double(max_chunk) * scale));
  const double lo = std::max(double(min_chunk) * scale, measured_rate * floor_s);
  const auto body = static_cast<std::uint64_t>(measured_rate * body_s);
  return {std::clamp<std::uint64_t>(static_cast<std::uint64_t>(lo), 1, planned),
          std::max(planned, body)};
}

std::uint64_t guided_chunk(std::uint64_t unstarted, double share, double tail_split,
                           std::uint64_t min_chunk, std::uint64_t max_chunk) {
  double want = double(unstarted) * share / std::max(1.0, tail_split);
  auto c = static_cast<std::uint64_t>(want);
  return std::clamp(c, std::max<std::uint64_t>(1, min_chunk), std::max(min_chunk, max_chunk));
}

}  // namespace baton::detail
