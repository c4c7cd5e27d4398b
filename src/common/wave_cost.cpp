#include "common/wave_cost.hpp"

#include <algorithm>
#include <cmath>

namespace baton::detail {

double Waves::costed(double items) const {
  const double whole = std::floor(items / at_once) * at_once, part = items - whole;
  if (!(part > 0)) return whole;
  const double least = std::min(busy, at_once), by = std::max(1.0, std::min(step, least));
  return whole + std::min(at_once, std::max(least, std::ceil(part / by) * by));
}

double Waves::most_within(double s) const {
  const double t = s * rate;
  const double whole = std::floor(t / at_once) * at_once, rest = t - whole;
  const double least = std::min(busy, at_once), by = std::max(1.0, std::min(step, least));
  return whole + (rest < least ? 0.0 : std::floor(rest / by) * by);
}

Waves waves_for(std::uint64_t parallel, std::uint64_t step, double busy, std::uint64_t items,
                double rate) {
  const double at_once =
      double(std::clamp<std::uint64_t>(parallel, 1, std::max<std::uint64_t>(1, items)));
  return {at_once, double(step), busy > 0 ? busy : at_once, rate};
}

double whole_wave_rate(const Waves& shape, double least_s, double timed, double measured) {
  if (!(timed > 0) || !(measured > 0)) return 0;
  const double t = timed / measured, at_once = std::max(1.0, shape.at_once);
  const double whole = std::floor(timed / at_once) * at_once, part = timed - whole;
  if (!(part > 0)) return measured;
  // The part as its steps: t = (whole + steps) / r; steps of no more than
  // the least run's items, as Waves::costed counts them.
  auto steps_at = [&](double r) {
    const double by = std::max(1.0, std::min(shape.step, least_s * r));
    return std::min(at_once, std::ceil(part / by) * by);
  };
  double r = (whole + steps_at(measured)) / t;
  r = (whole + steps_at(r)) / t;
  // Steps that took clearly longer than the least run (a quarter more: the
  // two are medians of a few runs) ran as steps; a part no longer than that
  // may have run as the least run, which says nothing of the rate.
  if (steps_at(r) / r >= (whole > 0 ? 1.0 : 1.25) * least_s) return r;
  // The part as the least run: t = whole / r + least_s.
  return whole > 0 && t > least_s ? whole / (t - least_s) : 0;
}

double least_time_in_waves(std::uint64_t items, const std::vector<Waves>& devices) {
  const double want = double(items);
  double total_rate = 0;
  const Waves* fastest = nullptr;  // alone, over all the items
  for (const Waves& w : devices) {
    if (!(w.rate > 0)) continue;
    total_rate += w.rate;
    if (!fastest || w.seconds(want) < fastest->seconds(want)) fastest = &w;
  }
  if (!fastest) return 0;
  auto enough = [&](double s) {
    double can = 0;
    for (const Waves& w : devices)
      if (w.rate > 0 && (can += std::floor(std::min(want, w.most_within(s)))) >= want) return true;
    return false;
  };
  // None ends them sooner than all at their summed rate; the fastest alone
  // ends them by `hi` (a hair above, for rounding).
  double lo = want / total_rate, hi = fastest->seconds(want) * (1 + 1e-9);
  if (items == 0 || !enough(hi)) return hi;
  // Until the time between them is worth less than half an item at the
  // summed rate: then `hi` ends within that of the least time (a task's
  // start pays for each step: 4 devices in waves took 1.4 us at 1e-9).
  for (int i = 0; i < 64 && (hi - lo) * total_rate > 0.5; ++i) {
    const double mid = 0.5 * (lo + hi);
    (enough(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace baton::detail
