#include <gtest/gtest.h>

#include "baton/error.hpp"
#include "sched/chunking.hpp"
#include "sched/policy.hpp"

using namespace baton::detail;

TEST(Chunking, GuidedChunksShrinkTowardTheEndWithinBounds) {
  EXPECT_EQ(guided_chunk(1'000'000, 0.5, 4, 10, 1000), 1000u);  // capped at the largest
  EXPECT_EQ(guided_chunk(4000, 0.5, 4, 10, 1000), 500u);        // a quarter of its share
  EXPECT_EQ(guided_chunk(100, 0.1, 4, 10, 1000), 10u);          // floored at the smallest
  EXPECT_GT(guided_chunk(8000, 0.8, 4, 1, 10000), guided_chunk(8000, 0.2, 4, 1, 10000));
}

TEST(Chunking, BoundsScaleWithShareAndKeepATimeFloor) {
  // Four devices; one with half the total rate gets chunks twice the plan's.
  auto fast = device_bounds(100, 1000, 0.5, 4, 0, 0, 1e-3);
  EXPECT_EQ(fast.lo, 200u);
  EXPECT_EQ(fast.hi, 2000u);
  auto slow = device_bounds(100, 1000, 0.0625, 4, 0, 0, 1e-3);
  EXPECT_EQ(slow.lo, 25u);
  EXPECT_EQ(slow.hi, 250u);
  // Measured at 1e6 items/s with a 200 us floor: no chunk under 200 items...
  EXPECT_EQ(device_bounds(10, 1000, 0.25, 4, 1e6, 200e-6, 0).lo, 200u);
  // ...but never above the plan's upper bound, even where the body's chunks
  // may be longer: the tail of a short run keeps its short chunks.
  EXPECT_EQ(device_bounds(10, 100, 0.25, 4, 1e6, 200e-6, 0).lo, 100u);
  EXPECT_EQ(device_bounds(10, 100, 0.25, 4, 1e6, 200e-6, 1e-3).lo, 100u);
}

TEST(Chunking, AMeasuredDevicesChunksMayLastTheBodysTime) {
  // The plan's bound, scaled to a slow device's share, is 250 items: 250 us
  // at 1e6 items/s. Measured, its chunks may grow to 1 ms of its rate...
  EXPECT_EQ(device_bounds(100, 1000, 0.0625, 4, 1e6, 200e-6, 1e-3).hi, 1000u);
  // ...and a bound the plan already gives past that stays.
  EXPECT_EQ(device_bounds(100, 1000, 0.5, 4, 1e6, 200e-6, 1e-3).hi, 2000u);
  // Unmeasured, the plan's bound stands.
  EXPECT_EQ(device_bounds(100, 1000, 0.0625, 4, 0, 200e-6, 1e-3).hi, 250u);
}

TEST(Chunking, MedianRateIgnoresAnOutlier) {
  RateTracker r;
  EXPECT_EQ(r.rate(), 0.0);
  for (double x : {100.0, 101.0, 99.0, 1.0, 100.0}) r.add(x);  // one chunk 100x slow
  EXPECT_DOUBLE_EQ(r.rate(), 100.0);
  r.add(2.0);  // the last sample is kept apart: a device may just have slowed down
  EXPECT_DOUBLE_EQ(r.latest(), 2.0);
  EXPECT_DOUBLE_EQ(r.rate(), 100.0);
  r.add(-5);  // nonsense samples are dropped
  EXPECT_DOUBLE_EQ(r.rate(), 100.0);
  EXPECT_DOUBLE_EQ(r.latest(), 2.0);
}

TEST(Chunking, UnmeasuredDevicesAreScaledByTheMeasuredOnes) {
  std::vector<RateTracker> m(3);
  m[0].add(2000);  // weight 2 -> 1000 items/s per unit of weight
  std::vector<double> r;
  effective_rates({2, 1, 0}, m, r);
  EXPECT_DOUBLE_EQ(r[0], 2000);
  EXPECT_DOUBLE_EQ(r[1], 1000);
  EXPECT_DOUBLE_EQ(r[2], 0);
}

TEST(Chunking, SharesFollowWeightsAndSkipZeros) {
  auto s = proportional_shares(100, {3, 0, 1});
  EXPECT_EQ(s[0], (baton::Span{0, 75}));
  EXPECT_TRUE(s[1].empty());
  EXPECT_EQ(s[2], (baton::Span{75, 100}));
  auto t = proportional_shares(10, {1, 1, 0});
  EXPECT_EQ(t[1].end, 10u);
  EXPECT_TRUE(t[2].empty());
  EXPECT_THROW(proportional_shares(10, {0, 0}), baton::Error);
}

// Rounding to nearest gave the slowest 4 of 64 (3.6 by its weight), and it
// finished last by far; the items left after rounding down go where they
// end soonest.
TEST(Chunking, SharesRoundSoThatTheLastEndsSoonest) {
  const std::vector<double> w{4.0, 1.92, 0.92, 0.41};
  const auto s = proportional_shares(64, w);
  std::vector<std::uint64_t> sizes;
  for (const auto& x : s) sizes.push_back(x.size());
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{36, 17, 8, 3}));
  EXPECT_EQ(s.back().end, 64u);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_EQ(s[i].begin, s[i - 1].end);
  // No single item moved from the last to finish to another ends sooner.
  auto last_end = [&](const std::vector<std::uint64_t>& n) {
    double t = 0;
    for (std::size_t i = 0; i < n.size(); ++i) t = std::max(t, double(n[i]) / w[i]);
    return t;
  };
  for (std::size_t from = 0; from < w.size(); ++from)
    for (std::size_t to = 0; to < w.size(); ++to) {
      if (from == to || sizes[from] == 0) continue;
      auto moved = sizes;
      --moved[from];
      ++moved[to];
      EXPECT_GE(last_end(moved), last_end(sizes)) << from << " -> " << to;
    }
  // Huge counts still add up.
  const auto big = proportional_shares(~0ull, {1, 1, 1});
  EXPECT_EQ(big.back().end, ~0ull);
}
