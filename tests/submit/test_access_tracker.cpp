// Dependencies from data access, per byte range (submit/access_tracker.hpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "submit/access_tracker.hpp"
#include "submit/task_pool.hpp"

using namespace baton::detail;

namespace {

struct Graph {
  TaskPool pool;
  AccessTracker tracker;
  std::vector<TaskRecord*> tasks;
  // Adds a task with these accesses; returns the indices of the tasks it follows.
  std::vector<int> add(std::vector<ByteAccess> accesses) {
    TaskRecord* t = pool.take();
    tasks.push_back(t);
    std::vector<TaskRef> follows;
    tracker.add(t->ref(), accesses, follows);
    std::vector<int> out;
    for (const TaskRef& r : follows)
      out.push_back(int(std::find(tasks.begin(), tasks.end(), r.record) - tasks.begin()));
    std::sort(out.begin(), out.end());
    return out;
  }
  void finish(int i) { tasks[i]->state.store(TaskState::done); }
};

char buffers[3];  // three buffers, by address
const void* const a = &buffers[0];
const void* const b = &buffers[1];
const void* const c = &buffers[2];
constexpr std::uint64_t kBytes = 4096;

ByteAccess rd(const void* buf, std::uint64_t begin = 0, std::uint64_t end = kBytes) {
  return {buf, begin, end, false};
}
ByteAccess wr(const void* buf, std::uint64_t begin = 0, std::uint64_t end = kBytes) {
  return {buf, begin, end, true};
}

using Ids = std::vector<int>;

}  // namespace

TEST(AccessTracker, ReadAfterWriteWriteAfterReadAndWriteAfterWrite) {
  Graph g;
  EXPECT_EQ(g.add({rd(a), wr(b)}), Ids{});         // 0: b = f(a)
  EXPECT_EQ(g.add({rd(a), rd(c), wr(c)}), Ids{});  // 1: c = f(a, c)
  EXPECT_EQ(g.add({rd(b), rd(c), wr(c)}), (Ids{0, 1}));
  EXPECT_EQ(g.add({rd(c), wr(a)}), (Ids{0, 1, 2}));  // RAW on c (2), WAR on a (0, 1)
  EXPECT_EQ(g.add({wr(b)}), (Ids{0, 2}));            // WAW on b (0), WAR on b (2)
}

TEST(AccessTracker, DisjointBytesOfOneBufferDoNotDepend) {
  Graph g;
  for (int p = 0; p < 8; ++p) EXPECT_EQ(g.add({wr(a, p * 512, (p + 1) * 512)}), Ids{}) << p;
  EXPECT_EQ(g.add({rd(a, 600, 1100)}), (Ids{1, 2}));   // overlaps parts 1 and 2 only
  EXPECT_EQ(g.add({wr(a, 1024, 1536)}), (Ids{2, 8}));  // part 2's writer and the reader
  EXPECT_EQ(g.add({rd(a)}), (Ids{0, 1, 3, 4, 5, 6, 7, 9}));
}

TEST(AccessTracker, FinishedTasksAreNotFollowed) {
  Graph g;
  g.add({wr(a)});
  g.add({rd(a)});
  g.finish(0);
  g.finish(1);
  EXPECT_EQ(g.add({wr(a)}), Ids{});
  g.add({rd(a)});
  FreeBatch batch;
  g.pool.give(g.tasks[3], batch);  // reused: a later generation is another task
  EXPECT_EQ(g.add({wr(a)}), (Ids{2}));
}

TEST(AccessTracker, AWriterAfterManyReadersFollowsEachOnce) {
  Graph g;
  g.add({wr(a)});
  for (int r = 0; r < 20; ++r) EXPECT_EQ(g.add({rd(a), rd(a, 0, 8)}), Ids{0});
  Ids readers;
  for (int r = 1; r <= 20; ++r) readers.push_back(r);
  readers.insert(readers.begin(), 0);
  EXPECT_EQ(g.add({wr(a)}), readers);
}

TEST(AccessTracker, WholeBufferUseStaysOnePiece) {
  Graph g;
  for (int i = 0; i < 100; ++i) g.add({rd(a), wr(a)});
  EXPECT_EQ(g.tracker.pieces(a), 1u);
  g.add({wr(a, 100, 200)});
  EXPECT_EQ(g.tracker.pieces(a), 3u);
  for (auto* t : g.tasks) t->state.store(TaskState::done);
  g.tracker.prune();
  EXPECT_EQ(g.tracker.buffers(), 0u);
}
