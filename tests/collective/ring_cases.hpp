// The ring's reduce-scatter through the Runtime, written once and
// instantiated per backend (test_ring.cpp: cpu and sim; test_ring_opencl.cpp;
// test_ring_cuda.cpp): every rank's share holds the sum of every slot,
// whatever the buckets, the weights and the devices' memories, in one ring
// or in two levels where the devices sit in several nodes.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "collective/communicator.hpp"
#include "collective/ring.hpp"
#include "support/open_runtime.hpp"

namespace ring_cases {

using namespace baton;
using namespace baton::collective;

class RingOver : public testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Runtime> open() {
    Options o;
    o.devices = GetParam();
    o.perf_model_file = "";
    return test::open_or_skip(o, skip_reason_);
  }
  std::string skip_reason_;
};

#define RING_OPEN(rt)                                                    \
  auto rt = open();                                                      \
  if (!rt) {                                                             \
    GTEST_SKIP() << "no " << GetParam() << " devices: " << skip_reason_; \
  }

// Slot p's element i: small integers, so sums in any order are exact.
inline float value(std::size_t p, std::uint64_t i) {
  return float((i * 7 + p * 13) % 29) - 14.0f;
}

TEST_P(RingOver, EachShareHoldsTheSumOfEverySlot) {
  RING_OPEN(rt);
  std::vector<int> devices(rt->devices().size());
  std::iota(devices.begin(), devices.end(), 0);
  const auto ring_ptr = make_communicator(*rt, devices, "ring");
  Communicator& ring = *ring_ptr;
  ASSERT_EQ(ring.ranks().size(), devices.size());
  const std::size_t k = devices.size();
  const std::uint64_t n = 10'003;  // not a multiple of 4: the last bucket's edge
  std::vector<Buffer<float>> slots;
  for (std::size_t p = 0; p < k; ++p) {
    slots.push_back(rt->buffer<float>(n));
    auto host = slots.back().host();
    for (std::uint64_t i = 0; i < n; ++i) host[i] = value(p, i);
  }
  // Buckets of 4 KiB after a first of 1 KiB; uneven weights, one of them 0.
  std::vector<double> weights(k);
  for (std::size_t p = 0; p < k; ++p) weights[p] = p == 1 ? 0.0 : double(p + 1);
  std::vector<Task> tasks;
  std::vector<std::vector<Piece>> owned;
  for (const Piece& b : buckets(n, sizeof(float), 1024, 4096))
    owned.push_back(ring.reduce_scatter(slots, b, weights, tasks));
  for (Task t : tasks) rt->wait(t);
  std::vector<int> covered(n, 0);
  for (std::size_t p = 0; p < k; ++p) {
    const auto got = slots[p].read();
    for (const auto& pieces : owned)
      for (std::uint64_t i = pieces[p].begin; i < pieces[p].end; ++i) {
        ++covered[i];
        float sum = 0;
        for (std::size_t q = 0; q < k; ++q) sum += value(q, i);
        ASSERT_EQ(got[i], sum) << "rank " << p << ", element " << i;
      }
  }
  EXPECT_TRUE(std::all_of(covered.begin(), covered.end(), [](int c) { return c == 1; }))
      << "the shares do not cover the gradient once";
  if (k > 1) {
    for (const auto& pieces : owned) EXPECT_EQ(pieces[1].size(), 0u) << "a rank of weight 0";
  }
}

TEST_P(RingOver, OrdersEveryDeviceOnce) {
  RING_OPEN(rt);
  std::vector<int> devices(rt->devices().size());
  std::iota(devices.rbegin(), devices.rend(), 0);  // any order in
  const std::vector<int> order = ring_order(*rt, devices);
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order.front(), devices.front()) << "the ring starts at the first device given";
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> all(devices.size());
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(sorted, all);
  // Devices that share a memory sit next to each other.
  const auto& devs = rt->devices();
  for (std::size_t i = 0; i < order.size(); ++i)
    for (std::size_t j = i + 2; j < order.size(); ++j)
      if (devs[order[i]]->info().memory_node == devs[order[j]]->info().memory_node) {
        for (std::size_t m = i + 1; m < j; ++m)
          EXPECT_EQ(devs[order[m]]->info().memory_node, devs[order[i]]->info().memory_node)
              << "a device of another memory between two that share one";
      }
}

TEST_P(RingOver, ASlotOrWeightMissingIsNamed) {
  RING_OPEN(rt);
  Ring ring(*rt, {0});
  std::vector<Buffer<float>> slots{rt->buffer<float>(8), rt->buffer<float>(8)};
  std::vector<Task> tasks;
  try {
    ring.reduce_scatter(slots, Piece{0, 8}, {1.0}, tasks);
    ADD_FAILURE() << "two slots for one rank accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("one slot and one weight per rank"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(tasks.empty());
}

}  // namespace ring_cases
