#include "submit/access_tracker.hpp"

#include <algorithm>

namespace baton::detail {

// A failed task stays followed (its followers fail too) until its error has
// been raised and its record let go.
bool AccessTracker::live(const TaskRef& t) {
  return t.record && t.record->generation.load(std::memory_order_acquire) == t.generation &&
         t.record->state.load(std::memory_order_acquire) != TaskState::done;
}

// Makes `at` a piece boundary when a piece spans it.
void AccessTracker::split_at(Pieces& m, std::uint64_t at) {
  auto it = m.upper_bound(at);
  if (it == m.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  Piece tail = it->second;
  it->second.end = at;
  m.emplace(at, std::move(tail));
}

// Joins neighbours in [begin, end] that touch and name the same tasks, so a
// buffer used whole stays one piece.
void AccessTracker::merge_around(Pieces& m, std::uint64_t begin, std::uint64_t end) {
  auto it = m.lower_bound(begin);
  if (it != m.begin()) --it;
  while (it != m.end() && it->first <= end) {
    auto nx = std::next(it);
    if (nx == m.end()) break;
    if (it->second.end == nx->first && it->second.writer == nx->second.writer &&
        it->second.readers == nx->second.readers) {
      it->second.end = nx->second.end;
      m.erase(nx);
    } else {
      it = nx;
    }
  }
}

void AccessTracker::add(TaskRef task, std::span<const ByteAccess> accesses,
                        std::vector<TaskRef>& follows) {
  auto follow = [&](const TaskRef& t) {
    if (t.record == task.record || !live(t)) return;
    if (std::find(follows.begin(), follows.end(), t) == follows.end()) follows.push_back(t);
  };
  for (const ByteAccess& a : accesses) {
    if (a.end <= a.begin) continue;
    Pieces& m = buffers_[a.buffer];
    split_at(m, a.begin);
    split_at(m, a.end);
    // Uncovered gaps inside [begin, end) become empty pieces.
    for (std::uint64_t at = a.begin; at < a.end;) {
      auto it = m.find(at);
      if (it != m.end()) {
        at = it->second.end;
        continue;
      }
      auto nx = m.upper_bound(at);
      const std::uint64_t gap_end = nx == m.end() ? a.end : std::min(a.end, nx->first);
      m.emplace(at, Piece{gap_end, {}, {}});
      at = gap_end;
    }
    for (auto it = m.find(a.begin); it != m.end() && it->first < a.end; ++it) {
      Piece& p = it->second;
      follow(p.writer);
      if (a.writes) {
        for (const TaskRef& r : p.readers) follow(r);
        p.writer = task;
        p.readers.clear();
        p.prune_at = 8;
      } else {
        // Keep a read-mostly buffer's list short, at an amortised cost: a
        // scan each time it doubles, not one per reader.
        if (p.readers.size() >= p.prune_at) {
          std::erase_if(p.readers, [](const TaskRef& r) { return !live(r); });
          p.prune_at = std::max<std::size_t>(8, 2 * p.readers.size());
        }
        if (p.readers.empty() || !(p.readers.back() == task)) p.readers.push_back(task);
        if (!live(p.writer)) p.writer = {};
      }
    }
    merge_around(m, a.begin, a.end);
  }
}

void AccessTracker::users(const void* buffer, std::uint64_t begin, std::uint64_t end,
                          bool for_write, std::vector<TaskRef>& out) const {
  auto found = buffers_.find(buffer);
  if (found == buffers_.end()) return;
  const Pieces& m = found->second;
  auto it = m.upper_bound(begin);
  if (it != m.begin()) --it;
  for (; it != m.end() && it->first < end; ++it) {
    if (it->second.end <= begin) continue;
    if (live(it->second.writer)) out.push_back(it->second.writer);
    if (for_write)
      for (const TaskRef& r : it->second.readers)
        if (live(r)) out.push_back(r);
  }
}

void AccessTracker::prune() {
  std::erase_if(buffers_, [](const auto& entry) {
    for (const auto& [begin, p] : entry.second) {
      if (live(p.writer)) return false;
      for (const TaskRef& r : p.readers)
        if (live(r)) return false;
    }
    return true;
  });
}

std::size_t AccessTracker::pieces(const void* buffer) const {
  auto it = buffers_.find(buffer);
  return it == buffers_.end() ? 0 : it->second.size();
}

}  // namespace baton::detail
