#include "sched/first_split.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "baton/error.hpp"

namespace baton::detail {

std::vector<std::uint64_t> shares_ending_together(std::uint64_t items,
                                                  const std::vector<Waves>& devices) {
  const std::size_t n = devices.size();
  const double want = double(items);
  std::size_t fastest = n;  // alone, over all the items
  for (std::size_t d = 0; d < n; ++d)
    if (devices[d].rate > 0 &&
        (fastest == n || devices[d].seconds(want) < devices[fastest].seconds(want)))
      fastest = d;
  if (fastest == n) raise(Errc::invalid_argument, "scheduler", "no device can run this kernel");
  const double by = least_time_in_waves(items, devices);
  std::vector<std::uint64_t> share(n, 0);
  std::uint64_t given = 0;
  for (std::size_t d = 0; d < n; ++d)
    if (devices[d].rate > 0)
      given += share[d] = std::uint64_t(std::min(want, devices[d].most_within(by)));
  if (given < items) {  // rounding: the fastest alone runs them all
    std::fill(share.begin(), share.end(), 0);
    share[fastest] = items;
    return share;
  }
  // Beyond `items`, taken back from the slowest first: each still ends by
  // then, the slow ones sooner. Beside an H100 whose last part of a wave
  // could take 27 k items of 2^18 fma steps more at no cost, a CPU that kept
  // its rounds ran them in chunks of one item a thread, each as long as its
  // slowest thread (0.94 ms for items of 0.62), and ended 0.9 ms after it.
  std::vector<std::size_t> slowest(n);
  std::iota(slowest.begin(), slowest.end(), std::size_t{0});
  // Of two as fast, the one with the smaller waves first: fewer items less
  // make it end sooner.
  std::stable_sort(slowest.begin(), slowest.end(), [&](std::size_t a, std::size_t b) {
    const Waves &x = devices[a], &y = devices[b];
    return x.rate < y.rate || (x.rate == y.rate && x.at_once < y.at_once);
  });
  std::uint64_t excess = given - items;
  for (std::size_t d : slowest) {
    const std::uint64_t back = std::min(share[d], excess);
    share[d] -= back;
    excess -= back;
  }
  return share;
}

}  // namespace baton::detail
