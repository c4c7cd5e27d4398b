// How a job's processes cut each step's batch (train/process_shares.hpp), in
// one process: the split's arithmetic, and a group of one.
#include <gtest/gtest.h>

#include <numeric>

#include "baton/error.hpp"
#include "train/process_shares.hpp"

using namespace baton;
using namespace baton::train;

TEST(SplitMicroBatches, FollowsTheRatesAndSumsToTheBatch) {
  const std::vector<int> s = split_micro_batches(100, {3, 1});
  EXPECT_EQ(s, (std::vector<int>{75, 25}));
  const std::vector<int> odd = split_micro_batches(10, {1, 1, 1});
  EXPECT_EQ(std::accumulate(odd.begin(), odd.end(), 0), 10);
  EXPECT_EQ(odd, (std::vector<int>{4, 3, 3}));  // the remainder to the lower rank
}

TEST(SplitMicroBatches, EveryProcessRunsAtLeastOne) {
  // A process a thousand times slower still runs one micro-batch: its
  // rate is measured again every step.
  EXPECT_EQ(split_micro_batches(8, {1000, 1, 0}), (std::vector<int>{6, 1, 1}));
  EXPECT_EQ(split_micro_batches(3, {1, 1, 1}), (std::vector<int>{1, 1, 1}));
}

TEST(SplitMicroBatches, FewerMicroBatchesThanProcessesIsNamed) {
  try {
    split_micro_batches(2, {1, 1, 1});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(e.message().find("fewer than the 3 processes"), std::string::npos) << e.message();
  }
  EXPECT_THROW(split_micro_batches(4, {0, 0}), Error);
}

TEST(ProcessShares, OneProcessRunsTheWholeBatch) {
  auto group = collective::single_process();
  ProcessShares shares(*group, 12, 5.0);
  const ProcessShares::Share s = shares.of(3);
  EXPECT_EQ(s.first, 0);
  EXPECT_EQ(s.micro_batches, 12);
  EXPECT_DOUBLE_EQ(shares.learn(2.5, 40.0), 2.5);  // its own loss
  EXPECT_DOUBLE_EQ(shares.rates()[0], 40.0);
}

TEST(ProcessShares, AStepsSplitIsFixedOnceAskedFor) {
  auto group = collective::single_process();
  ProcessShares shares(*group, 12, 1.0);
  const std::vector<int> before = shares.split(2);
  shares.learn(0, 99.0);  // a new rate moves later steps only
  EXPECT_EQ(shares.split(2), before);
}
