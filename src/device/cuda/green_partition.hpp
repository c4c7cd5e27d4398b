// SM partitions of one GPU through green contexts: "cuda:0/64+32+16+8" makes
// four devices of 64, 32, 16 and 8 SMs. The GPU is split once into groups of
// its partition granularity (8 SMs on Hopper), and each partition is built
// from consecutive groups, so sizes may differ while staying disjoint.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/cuda/context.hpp"

namespace baton::cuda {

// "64+32+16" -> {64, 32, 16}; Error(bad_device_spec) naming `where` for
// anything but positive numbers joined by '+'. A size after '~' is skipped:
// its SMs are set aside but no device is made of them, so that processes
// sharing a GPU take disjoint SMs ("cuda:0/96" and "cuda:0/~96+32"); where
// `skipped` is given it gets a flag per size, else '~' is an error.
std::vector<int> parse_partition_sizes(const std::string& text, const std::string& where,
                                       std::vector<bool>* skipped = nullptr);

// What the hardware allows: partitions in multiples of `unit` SMs, at most
// `groups` units in all, out of `sm_count`. Throws Error(bad_device_spec)
// saying what would fit.
void check_partition_sizes(const std::vector<int>& sizes, int sm_count, int unit, int groups,
                           const std::string& where);

// One green context per size, in order; null for a skipped one.
std::vector<std::shared_ptr<Context>> create_partitions(const std::shared_ptr<Gpu>& gpu,
                                                        const std::vector<int>& sizes,
                                                        const std::vector<bool>& skipped,
                                                        const std::string& where);

}  // namespace baton::cuda
