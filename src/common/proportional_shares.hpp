// Cutting items into contiguous shares by weight: the first split of the
// policies (sched/) and of the engine's span sizes (submit/).
#pragma once

#include <cstdint>
#include <vector>

#include "baton/range.hpp"

namespace baton::detail {

// Split `items` into contiguous shares proportional to `weights` (zeros get
// none), rounded so that the last to finish (share over weight) ends soonest.
// Error(invalid_argument) where no weight is positive.
std::vector<Span> proportional_shares(std::uint64_t items, const std::vector<double>& weights);

}  // namespace baton::detail
