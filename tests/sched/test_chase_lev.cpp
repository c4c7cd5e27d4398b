#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "common/chase_lev.hpp"

using baton::detail::ChaseLevDeque;

TEST(ChaseLev, OwnerIsLifoThiefIsFifo) {
  ChaseLevDeque q(2);
  for (std::uint64_t i = 1; i <= 5; ++i) q.push(i);  // grows past its capacity
  EXPECT_EQ(q.size(), 5);
  EXPECT_EQ(q.steal(), 1u);
  EXPECT_EQ(q.pop(), 5u);
  EXPECT_EQ(q.steal(), 2u);
  EXPECT_EQ(q.pop(), 4u);
  EXPECT_EQ(q.pop(), 3u);
  EXPECT_FALSE(q.pop());
  EXPECT_FALSE(q.steal());
}

// A thief sees the top before it takes it, and leaves what it does not want.
TEST(ChaseLev, AThiefTakesTheTopOnlyWhereItWantsIt) {
  ChaseLevDeque q;
  EXPECT_FALSE(q.peek());
  EXPECT_FALSE(q.steal_if([](std::uint64_t) { return true; }));
  q.push(7);
  q.push(8);
  EXPECT_EQ(q.peek(), 7u);
  EXPECT_FALSE(q.steal_if([](std::uint64_t x) { return x > 7; }));
  EXPECT_EQ(q.size(), 2);
  EXPECT_EQ(q.steal_if([](std::uint64_t x) { return x == 7; }), 7u);
  EXPECT_EQ(q.peek(), 8u);
  EXPECT_EQ(q.pop(), 8u);
  EXPECT_FALSE(q.peek());
}

// Every pushed value is taken exactly once by the owner or one of the thieves.
TEST(ChaseLev, ConcurrentStealsTakeEachItemOnce) {
  constexpr std::uint64_t kItems = 200000;
  ChaseLevDeque q(4);
  std::vector<std::atomic<int>> taken(kItems);
  std::atomic<bool> done{false};
  std::vector<std::thread> thieves;
  for (int t = 0; t < 3; ++t)
    thieves.emplace_back([&] {
      while (!done.load(std::memory_order_acquire))
        if (auto v = q.steal()) taken[*v].fetch_add(1);
      while (auto v = q.steal()) taken[*v].fetch_add(1);
    });
  for (std::uint64_t i = 0; i < kItems; ++i) {
    q.push(i);
    if (i % 3 == 0)
      if (auto v = q.pop()) taken[*v].fetch_add(1);
  }
  while (auto v = q.pop()) taken[*v].fetch_add(1);
  done.store(true, std::memory_order_release);
  for (auto& t : thieves) t.join();
  for (std::uint64_t i = 0; i < kItems; ++i) ASSERT_EQ(taken[i].load(), 1) << i;
}
