#include "common/proportional_shares.hpp"

#include <algorithm>

#include "baton/error.hpp"

namespace baton::detail {

std::vector<Span> proportional_shares(std::uint64_t items, const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += std::max(0.0, w);
  if (!(total > 0)) raise(Errc::invalid_argument, "scheduler", "no device can run this kernel");
  // Each share rounded down, then the items left one at a time to whoever
  // would finish soonest with one more: rounding to nearest can hand a slow
  // device a whole unit it takes longest over (of 64 micro-batches, the
  // 8-SM partition's 3.6 became 4 and it ended a step 0.9 ms after the rest).
  std::vector<std::uint64_t> n(weights.size(), 0);
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i)
    if (weights[i] > 0) {
      n[i] = std::min(items - given, std::uint64_t(double(items) * (weights[i] / total)));
      given += n[i];
    }
  auto finish = [&](std::size_t i) { return double(n[i] + 1) / weights[i]; };
  for (; given < items; ++given) {
    std::size_t soonest = weights.size();
    for (std::size_t i = 0; i < weights.size(); ++i)
      if (weights[i] > 0 && (soonest == weights.size() || finish(i) < finish(soonest))) soonest = i;
    ++n[soonest];
  }
  std::vector<Span> out;
  std::uint64_t begin = 0;
  for (std::uint64_t k : n) {
    out.push_back({begin, begin + k});
    begin += k;
  }
  return out;
}

}  // namespace baton::detail
