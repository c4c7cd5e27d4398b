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

}  // namespace baton::detail
