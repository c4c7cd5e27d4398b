// Disjoint byte ranges of a buffer, each tagged with the event after which its
// data is ready (null: ready now). One per replica: the ranges a memory node
// holds valid data for.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "baton/device.hpp"
#include "baton/range.hpp"

namespace baton::detail {

class IntervalMap {
 public:
  // [b, e) becomes covered with `ready`, replacing whatever covered it.
  void assign(std::uint64_t b, std::uint64_t e, EventPtr ready);
  void erase(std::uint64_t b, std::uint64_t e);
  // The covered pieces overlapping [b, e), clipped to it, in order.
  void for_each(std::uint64_t b, std::uint64_t e,
                const std::function<void(Span, const EventPtr&)>& fn) const;
  // The pieces of [b, e) not covered.
  std::vector<Span> gaps(std::uint64_t b, std::uint64_t e) const;
  // The covered piece that contains `at`, if any.
  bool find(std::uint64_t at, Span& piece, EventPtr& ready) const;
  bool covers(std::uint64_t b, std::uint64_t e) const { return gaps(b, e).empty(); }
  // Drops the events that are complete and joins neighbours left without
  // one. An event still in flight stays: a copy home queued behind the task
  // that wrote the piece (Options::write_back) lands after the task ends.
  void settle();
  // Erases the pieces whose events are complete: a map of what is in flight.
  void erase_complete();
  std::size_t pieces() const { return map_.size(); }

 private:
  struct Piece {
    std::uint64_t end;
    EventPtr ready;
  };
  void split_at(std::uint64_t at);
  std::map<std::uint64_t, Piece> map_;  // begin -> piece
};

}  // namespace baton::detail
