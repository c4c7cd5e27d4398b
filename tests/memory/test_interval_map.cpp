#include <gtest/gtest.h>

#include "memory/interval_map.hpp"
#include "support/held_event.hpp"

using baton::Span;
using baton::detail::IntervalMap;

namespace {
struct DoneEvent final : baton::Event {
  void wait() override {}
  bool ready() override { return true; }
};
}  // namespace

TEST(IntervalMap, AssignEraseAndGaps) {
  IntervalMap m;
  m.assign(0, 100, nullptr);
  m.erase(20, 30);
  m.erase(50, 60);
  auto gaps = m.gaps(0, 100);
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[0], (Span{20, 30}));
  EXPECT_EQ(gaps[1], (Span{50, 60}));
  EXPECT_TRUE(m.covers(0, 20));
  EXPECT_FALSE(m.covers(15, 25));
  m.assign(10, 55, nullptr);
  EXPECT_EQ(m.gaps(0, 100), (std::vector<Span>{{55, 60}}));
  EXPECT_EQ(m.gaps(100, 120), (std::vector<Span>{{100, 120}}));
}

TEST(IntervalMap, KeepsEventsPerPieceAndSettlesToOne) {
  IntervalMap m;
  auto ev = std::make_shared<DoneEvent>();
  m.assign(0, 10, nullptr);
  m.assign(10, 20, ev);
  m.assign(20, 30, nullptr);
  std::vector<std::pair<Span, bool>> seen;
  m.for_each(5, 25, [&](Span s, const baton::EventPtr& e) { seen.push_back({s, e != nullptr}); });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].first, (Span{5, 10}));
  EXPECT_TRUE(seen[1].second);
  EXPECT_EQ(seen[2].first, (Span{20, 25}));
  Span piece;
  baton::EventPtr ready;
  ASSERT_TRUE(m.find(12, piece, ready));
  EXPECT_EQ(piece, (Span{10, 20}));
  EXPECT_EQ(ready, ev);
  EXPECT_FALSE(m.find(30, piece, ready));
  m.settle();
  EXPECT_EQ(m.pieces(), 1u);
  ASSERT_TRUE(m.find(12, piece, ready));
  EXPECT_EQ(ready, nullptr);
  EXPECT_EQ(piece, (Span{0, 30}));
}

// A copy home queued behind a task lands after the task ends: settling keeps
// its event (and the piece apart) until it is done; a map of what is in
// flight loses the pieces that have landed.
TEST(IntervalMap, SettlingKeepsEventsStillInFlight) {
  IntervalMap m;
  auto landing = std::make_shared<baton::test::HeldEvent>();
  m.assign(0, 10, std::make_shared<DoneEvent>());
  m.assign(10, 20, landing);
  m.assign(20, 30, std::make_shared<DoneEvent>());
  m.settle();
  EXPECT_EQ(m.pieces(), 3u);
  Span piece;
  baton::EventPtr ready;
  ASSERT_TRUE(m.find(15, piece, ready));
  EXPECT_EQ(ready, landing);
  ASSERT_TRUE(m.find(5, piece, ready));
  EXPECT_EQ(ready, nullptr);

  IntervalMap in_flight = m;
  in_flight.erase_complete();
  EXPECT_EQ(in_flight.pieces(), 1u);
  EXPECT_TRUE(in_flight.covers(10, 20));
  landing->complete();
  in_flight.erase_complete();
  EXPECT_EQ(in_flight.pieces(), 0u);
  m.settle();
  EXPECT_EQ(m.pieces(), 1u);
  ASSERT_TRUE(m.find(15, piece, ready));
  EXPECT_EQ(piece, (Span{0, 30}));
}
