// Calibration: each device's rate for a kernel alone, then, for devices that
// share a resource (the host's cores, one GPU's link and memory), their rates
// side by side, and the arrangement that does the most: all of them, or the
// fastest alone with the others left out of the kernel's work.
#include <algorithm>
#include <array>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "submit/engine.hpp"

namespace baton {

Calibration Runtime::calibrate_packed(Range range, const Kernel& kernel, Packed& p) {
  if (range.n == 0) raise(Errc::invalid_argument, kernel.name(), "the range is empty");
  const std::size_t n = set_.devices.size();
  const std::vector<detail::RunArg> args = *p.args;
  const std::string weighted = "weighted";
  auto run = [&](int on, Range r, const std::string* policy) {
    Packed q = packer();
    *q.args = args;
    q.split = true;
    q.on = on;
    q.policy = policy;
    return wait(start_packed(r, kernel, q));
  };
  Calibration c;
  c.alone.assign(n, 0.0);
  std::vector<char> runs(n, 0);
  // Per device, the items-worth of its least warm-up's time at its rate
  // alone: how many items keep it busy however few it runs (wake-ups and
  // launches included, so never fewer than really do).
  c.busy_items.assign(n, 0.0);
  // What each device was timed on, for the oracle's bound in waves
  // (Engine::least_time_in_waves).
  detail::TimedRuns timed_on{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0),
                             std::vector<double>(n, 0.0)};
  for (std::size_t d = 0; d < n; ++d) {
    if (!kernel.runs_on(set_.devices[d]->info().backend)) continue;
    runs[d] = 1;
    // Untimed runs first. The first loads modules and compiles; the next
    // grow from 1/1024 of the range, doubling up to 1/16, until one lasts
    // kWarmS: it tells how long the whole range would take.
    constexpr double kWarmS = 0.02, kTimedRunS = 0.2;
    auto part = [&](std::uint64_t items) { return Range{items, range.chunk, range.first}; };
    const std::uint64_t most_warm = std::max<std::uint64_t>(1, range.n / 16);
    std::uint64_t warm = std::max<std::uint64_t>(1, range.n / 1024);
    run(int(d), part(warm), p.policy);
    const std::uint64_t least = warm;
    double warm_s = 0, least_s = 0;
    for (;;) {
      warm_s = run(int(d), part(warm), p.policy).makespan_s;
      if (warm == least) least_s = warm_s;
      if (warm_s >= kWarmS || warm >= most_warm) break;
      warm = std::min(most_warm, warm * 2);
    }
    // Timed over the range, or over a part of it that lasts about
    // kTimedRunS where the whole would take longer: a CPU beside a GPU took
    // 34 s a run over 42 M items of 4096 fma steps, which the GPU ran in 11
    // ms. Never over less than the last warm-up's part, nor than the device
    // runs at once where the range has that many: a GPU takes as long for a
    // wave of heavy items as for one, and 16 items of 2^18 fma steps on
    // partitions of 2^17 threads, timed on one, gave rates of a wave's time
    // an item and an oracle 4x the makespan.
    Range timed = range;
    if (warm_s * double(range.n) / double(warm) > kTimedRunS)
      timed.n = std::max({warm, std::uint64_t(double(warm) * kTimedRunS / warm_s),
                          std::min(range.n, engine_->runs_at_once(kernel, int(d)))});
    // The median of three timed runs: one slow run (another process, a page
    // fault storm) must not skew the split or the oracle.
    std::array<double, 3> t{};
    for (double& x : t) x = run(int(d), timed, p.policy).makespan_s;
    std::sort(t.begin(), t.end());
    c.alone[d] = t[1] > 0 ? double(timed.n) / t[1] : 0;
    c.busy_items[d] = least_s * c.alone[d];
    timed_on.items[d] = double(timed.n);
    timed_on.least_items[d] = double(least);
    timed_on.least_s[d] = least_s;
  }
  engine_->set_busy_items(kernel, c.busy_items);
  c.least_run_s = timed_on.least_s;
  c.used = c.alone;
  c.left_out.assign(n, 0);
  std::vector<int> ran;
  for (std::size_t d = 0; d < n; ++d)
    if (runs[d]) ran.push_back(int(d));
  for (SharingGroup& g : sharing_groups(set_.devices, ran))
    c.groups.push_back({std::move(g.devices), std::move(g.resource)});

  for (Calibration::Group& g : c.groups) {
    // Side by side: a weighted split over the group alone, first by the
    // rates alone, then by the rates seen side by side (each device then
    // works the whole time); the median of three of the latter.
    std::vector<double> rates = c.alone;
    std::vector<char> others(n, 1);
    for (int d : g.devices) others[d] = 0;
    // Each device's rate seen, and the items it ran.
    struct Seen {
      std::vector<double> rates, items;
    };
    auto side_by_side = [&] {
      engine_->set_rates(kernel, rates, others);
      RunStats s = run(-1, range, &weighted);
      Seen seen{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
      for (int d : g.devices) {
        const DeviceStats& ds = s.devices[d];
        seen.rates[d] = ds.busy_s > 0 ? double(ds.items) / ds.busy_s : 0;
        seen.items[d] = double(ds.items);
      }
      return seen;
    };
    const Seen first = side_by_side();
    for (int d : g.devices) rates[d] = std::max(first.rates[d], 1e-9);
    std::array<Seen, 3> seen;
    for (auto& s : seen) s = side_by_side();
    auto sum = [&](const Seen& s) {
      double t = 0;
      for (int d : g.devices) t += s.rates[d];
      return t;
    };
    std::sort(seen.begin(), seen.end(),
              [&](const Seen& a, const Seen& b) { return sum(a) < sum(b); });
    g.together = sum(seen[1]);
    int best = g.devices.front();
    for (int d : g.devices)
      if (c.alone[d] > c.alone[best]) best = d;
    g.best_alone = c.alone[best];
    g.alone_wins = g.best_alone > g.together;
    for (int d : g.devices) {
      c.used[d] = g.alone_wins ? (d == best ? c.alone[d] : 0.0) : seen[1].rates[d];
      c.left_out[d] = g.alone_wins && d != best;
      if (!g.alone_wins) timed_on.items[d] = seen[1].items[d];
    }
  }
  // Left-out devices keep their rate alone: theirs to use if the others fail.
  std::vector<double> weights = c.used;
  for (std::size_t d = 0; d < n; ++d)
    if (c.left_out[d]) weights[d] = c.alone[d];
  engine_->set_rates(kernel, weights, c.left_out);
  engine_->set_timed_runs(kernel, std::move(timed_on));
  return c;
}

}  // namespace baton
