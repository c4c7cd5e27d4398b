#include "sched/waves.hpp"

#include <algorithm>
#include <cmath>

#include "baton/error.hpp"

namespace baton::detail {

double Waves::costed(double items) const {
  const double whole = std::floor(items / at_once) * at_once, part = items - whole;
  if (!(part > 0)) return whole;
  const double least = std::min(busy, at_once);
  return whole + (part <= least ? least : std::min(at_once, std::ceil(part / step) * step));
}

double Waves::most_within(double s) const {
  const double t = s * rate;
  const double whole = std::floor(t / at_once) * at_once, rest = t - whole;
  const double least = std::min(busy, at_once);
  if (rest < least) return whole;
  return whole + std::max(least, std::floor(rest / step) * step);
}

std::vector<std::uint64_t> shares_ending_together(std::uint64_t items,
                                                  const std::vector<Waves>& devices) {
  const std::size_t n = devices.size();
  const double want = double(items);
  double total_rate = 0;
  std::size_t fastest = n;  // alone, over all the items
  for (std::size_t d = 0; d < n; ++d) {
    if (!(devices[d].rate > 0)) continue;
    total_rate += devices[d].rate;
    if (fastest == n || devices[d].seconds(want) < devices[fastest].seconds(want)) fastest = d;
  }
  if (fastest == n) raise(Errc::invalid_argument, "scheduler", "no device can run this kernel");
  std::vector<std::uint64_t> share(n, 0);
  auto most = [&](std::size_t d, double s) {
    return devices[d].rate > 0 ? std::uint64_t(std::min(want, devices[d].most_within(s)))
                               : std::uint64_t{0};
  };
  auto enough = [&](double s) {
    std::uint64_t can = 0;
    for (std::size_t d = 0; d < n && can < items; ++d) can += most(d, s);
    return can >= items;
  };
  // None ends them sooner than all at their summed rate; the fastest alone
  // ends them by `hi` (a hair above, for rounding).
  double lo = want / total_rate, hi = devices[fastest].seconds(want) * (1 + 1e-9);
  if (items == 0 || !enough(hi)) {
    share[fastest] = items;
    return share;
  }
  for (int i = 0; i < 48 && hi > lo * (1 + 1e-9); ++i) {
    const double mid = 0.5 * (lo + hi);
    (enough(mid) ? hi : lo) = mid;
  }
  std::uint64_t given = 0;
  for (std::size_t d = 0; d < n; ++d) given += share[d] = most(d, hi);
  // Beyond `items`: taken back in proportion to the rates, so that where
  // the devices' waves cut alike (the partitions of one GPU) the shares stay
  // alike, the rest from whichever ends last.
  const std::uint64_t beyond = given - items;
  std::uint64_t excess = beyond;
  for (std::size_t d = 0; d < n && excess > 0; ++d) {
    const auto back =
        std::min({share[d], excess, std::uint64_t(double(beyond) * devices[d].rate / total_rate)});
    share[d] -= back;
    excess -= back;
  }
  while (excess > 0) {
    std::size_t last = n;
    for (std::size_t d = 0; d < n; ++d)
      if (share[d] > 0 && (last == n || devices[d].seconds(double(share[d])) >
                                            devices[last].seconds(double(share[last]))))
        last = d;
    const std::uint64_t back = std::min(share[last], excess);
    share[last] -= back;
    excess -= back;
  }
  return share;
}

}  // namespace baton::detail
