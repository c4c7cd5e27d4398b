// The first split of a spread task whose shares end together on every
// device, each device's time in its waves (common/wave_cost.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "common/wave_cost.hpp"

namespace baton::detail {

// How many of `items` each device takes so that all end as soon as their
// waves allow: the least time by which the devices together can run them
// all, each taking the most it ends by then, what that gives beyond
// `items` taken back from the slowest first. Where nothing comes in waves,
// this is the split in proportion to the rates (give or take an item a
// device). Devices of rate 0 take none; at least one must have a rate.
std::vector<std::uint64_t> shares_ending_together(std::uint64_t items,
                                                  const std::vector<Waves>& devices);

}  // namespace baton::detail
