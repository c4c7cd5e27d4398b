// Buckets and shares: how a collective cuts a gradient.
#include <gtest/gtest.h>

#include "baton/error.hpp"
#include "collective/pieces.hpp"

using namespace baton;
using namespace baton::collective;

TEST(Buckets, CutFromTheEndFirstSmallThenLarge) {
  const std::uint64_t n = 20'000'001;  // floats: 80 MB
  const auto b = buckets(n, 4);
  ASSERT_GE(b.size(), 4u);
  EXPECT_EQ(b.front().end, n);
  EXPECT_EQ(b.back().begin, 0u);
  for (std::size_t i = 0; i + 1 < b.size(); ++i) {
    EXPECT_EQ(b[i + 1].end, b[i].begin) << "bucket " << i;
    EXPECT_EQ(b[i].begin % 4, 0u) << "bucket " << i;
  }
  EXPECT_NEAR(double(b[0].size()) * 4, double(kFirstBucketBytes), 16.0);
  for (std::size_t i = 1; i + 1 < b.size(); ++i)
    EXPECT_EQ(b[i].size() * 4, kBucketBytes) << "bucket " << i;
  EXPECT_LE(b.back().size() * 4, kBucketBytes);
}

// More ranks, larger buckets: a rank's share stays at 12.5 MiB or more up
// to 8 ranks, and a bucket at DDP's 25 MiB to 100 MiB.
TEST(Buckets, GrowWithTheRanksWithinBounds) {
  for (std::size_t ranks : {1, 2, 3, 4, 8, 16, 64, 1024}) {
    const std::uint64_t b = bucket_bytes(ranks);
    EXPECT_GE(b, kBucketBytes) << ranks << " ranks";
    EXPECT_LE(b, 4 * kBucketBytes) << ranks << " ranks";
    if (ranks <= 8) {
      EXPECT_GE(b / ranks, kBucketBytes / 2) << ranks << " ranks";
    }
    if (ranks > 1) {
      EXPECT_GE(b, bucket_bytes(ranks - 1)) << ranks << " ranks";
    }
  }
}

TEST(Buckets, ASmallGradientIsOneBucket) {
  EXPECT_EQ(buckets(10, 4), (std::vector<Piece>{{0, 10}}));
  EXPECT_TRUE(buckets(0, 4).empty());
  EXPECT_THROW(buckets(10, 0), Error);
}

TEST(Shares, FollowTheWeightsOnAlignedBoundaries) {
  const auto s = shares({100, 1100}, {1, 3, 0, 1}, 4);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].begin, 100u);
  EXPECT_EQ(s[3].end, 1100u);
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    EXPECT_EQ(s[i].end, s[i + 1].begin);
    EXPECT_EQ(s[i].end % 4, 0u);
  }
  EXPECT_NEAR(double(s[0].size()), 200, 4);
  EXPECT_NEAR(double(s[1].size()), 600, 4);
  EXPECT_EQ(s[2].size(), 0u);
  EXPECT_NEAR(double(s[3].size()), 200, 4);
}

TEST(Shares, RefuseWeightsThatSumToNothing) {
  EXPECT_THROW(shares({0, 10}, {0, 0}, 1), Error);
  EXPECT_THROW(shares({0, 10}, {}, 1), Error);
}

TEST(Uncovered, IsWhatNoDonePieceHolds) {
  using V = std::vector<Piece>;
  EXPECT_EQ(uncovered({10, 50}, {}), (V{{10, 50}}));
  EXPECT_EQ(uncovered({10, 50}, {{0, 10}, {50, 60}}), (V{{10, 50}}));
  // Out of order, overlapping, reaching past either end.
  EXPECT_EQ(uncovered({10, 50}, {{30, 35}, {5, 12}, {33, 40}, {48, 70}}), (V{{12, 30}, {40, 48}}));
  EXPECT_EQ(uncovered({10, 50}, {{0, 100}}), V{});
  EXPECT_EQ(uncovered({10, 10}, {}), V{});
}
