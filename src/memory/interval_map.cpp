#include "memory/interval_map.hpp"

#include "baton/error.hpp"

namespace baton::detail {

void IntervalMap::split_at(std::uint64_t at) {
  auto it = map_.upper_bound(at);
  if (it == map_.begin()) return;
  --it;
  if (it->first < at && at < it->second.end) {
    map_[at] = Piece{it->second.end, it->second.ready};
    it->second.end = at;
  }
}

void IntervalMap::erase(std::uint64_t b, std::uint64_t e) {
  if (b >= e) return;
  split_at(b);
  split_at(e);
  map_.erase(map_.lower_bound(b), map_.lower_bound(e));
}

void IntervalMap::assign(std::uint64_t b, std::uint64_t e, EventPtr ready) {
  if (b >= e) return;
  // The same piece again (a task rewriting what it wrote last time): no reshaping.
  if (auto it = map_.find(b); it != map_.end() && it->second.end == e) {
    it->second.ready = std::move(ready);
    return;
  }
  erase(b, e);
  map_[b] = Piece{e, std::move(ready)};
}

void IntervalMap::for_each(std::uint64_t b, std::uint64_t e,
                           const std::function<void(Span, const EventPtr&)>& fn) const {
  auto it = map_.upper_bound(b);
  if (it != map_.begin()) --it;
  for (; it != map_.end() && it->first < e; ++it) {
    std::uint64_t lo = std::max(b, it->first), hi = std::min(e, it->second.end);
    if (lo < hi) fn(Span{lo, hi}, it->second.ready);
  }
}

std::vector<Span> IntervalMap::gaps(std::uint64_t b, std::uint64_t e) const {
  std::vector<Span> out;
  std::uint64_t at = b;
  for_each(b, e, [&](Span s, const EventPtr&) {
    if (s.begin > at) out.push_back({at, s.begin});
    at = s.end;
  });
  if (at < e) out.push_back({at, e});
  return out;
}

bool IntervalMap::find(std::uint64_t at, Span& piece, EventPtr& ready) const {
  auto it = map_.upper_bound(at);
  if (it == map_.begin()) return false;
  --it;
  if (at >= it->second.end) return false;
  piece = {it->first, it->second.end};
  ready = it->second.ready;
  return true;
}

namespace {

// Complete, as far as the map goes: a failed device's event is left for the
// reader to meet (it names the failure). Pieces of one task share its event,
// so the last answer is kept.
class Completion {
 public:
  bool operator()(const EventPtr& e) {
    if (!e) return true;
    if (e != last_) {
      last_ = e;
      try {
        last_done_ = e->ready();
      } catch (const Error&) {
        last_done_ = false;
      }
    }
    return last_done_;
  }

 private:
  EventPtr last_;
  bool last_done_ = false;
};

}  // namespace

void IntervalMap::settle() {
  Completion complete;
  for (auto it = map_.begin(); it != map_.end();) {
    if (complete(it->second.ready)) it->second.ready.reset();
    auto next = std::next(it);
    if (next != map_.end() && next->first == it->second.end && !it->second.ready &&
        complete(next->second.ready)) {
      it->second.end = next->second.end;
      map_.erase(next);
    } else {
      it = next;
    }
  }
}

void IntervalMap::erase_complete() {
  Completion complete;
  std::erase_if(map_, [&](const auto& piece) { return complete(piece.second.ready); });
}

}  // namespace baton::detail
