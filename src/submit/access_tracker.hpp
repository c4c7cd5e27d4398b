// Dependencies from data access, per buffer and per byte range, as StarPU
// derives them (sequential consistency per piece of data): a task that reads
// bytes follows their last writer; a task that writes them follows their last
// writer and every reader since. Tasks on disjoint bytes of one buffer (the
// micro-batches of a step) do not follow each other.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "submit/task.hpp"

namespace baton::detail {

struct ByteAccess {
  const void* buffer = nullptr;
  std::uint64_t begin = 0, end = 0;  // bytes
  bool writes = false;
};

class AccessTracker {
 public:
  // Records `task`'s accesses, in order, and appends to `follows` each earlier
  // task it must follow (once each). References to tasks that are done are
  // dropped on the way; failed ones are kept until their record is let go.
  void add(TaskRef task, std::span<const ByteAccess> accesses, std::vector<TaskRef>& follows);
  // The tasks not done that touch [begin, end) of `buffer`: its writers, and
  // for a write also its readers. For host access to a buffer.
  void users(const void* buffer, std::uint64_t begin, std::uint64_t end, bool for_write,
             std::vector<TaskRef>& out) const;
  // Forgets buffers none of whose pieces refer to an unfinished task.
  void prune();
  std::size_t buffers() const { return buffers_.size(); }
  std::size_t pieces(const void* buffer) const;

 private:
  struct Piece {
    std::uint64_t end = 0;
    TaskRef writer;
    std::vector<TaskRef> readers;  // since the last write
    std::size_t prune_at = 8;      // drop finished readers once the list is this long
  };
  using Pieces = std::map<std::uint64_t, Piece>;  // begin -> piece

  static bool live(const TaskRef& t);
  static void split_at(Pieces& m, std::uint64_t at);
  static void merge_around(Pieces& m, std::uint64_t begin, std::uint64_t end);
  std::unordered_map<const void*, Pieces> buffers_;
};

}  // namespace baton::detail
