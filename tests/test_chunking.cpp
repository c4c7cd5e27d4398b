#include <gtest/gtest.h>

#include "baton/error.hpp"
#include "sched/chunking.hpp"
#include "sched/policy.hpp"

using namespace baton::detail;

TEST(Chunking, GuidedChunksShrinkTowardTheEndWithinBounds) {
  EXPECT_EQ(guided_chunk(1'000'000, 0.5, 4, 10, 1000), 1000u);  // capped at the largest
  EXPECT_EQ(guided_chunk(4000, 0.5, 4, 10, 1000), 500u);       // a quarter of its share
  EXPECT_EQ(guided_chunk(100, 0.1, 4, 10, 1000), 10u);         // floored at the smallest
  EXPECT_GT(guided_chunk(8000, 0.8, 4, 1, 10000), guided_chunk(8000, 0.2, 4, 1, 10000));
}

TEST(Chunking, MedianRateIgnoresAnOutlier) {
  RateTracker r;
  EXPECT_EQ(r.rate(), 0.0);
  for (double x : {100.0, 101.0, 99.0, 1.0, 100.0}) r.add(x);  // one chunk 100x slow
  EXPECT_DOUBLE_EQ(r.rate(), 100.0);
  r.add(-5);  // nonsense samples are dropped
  EXPECT_DOUBLE_EQ(r.rate(), 100.0);
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
