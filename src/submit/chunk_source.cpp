#include <algorithm>

#include "submit/policy_hooks.hpp"

namespace baton::detail {

void ChunkSource::reset_shared() {
  std::lock_guard lock(orphans_mu_);
  orphans_.clear();
  has_orphans_.store(false, std::memory_order_release);
  aborted_.store(false, std::memory_order_release);
}

void ChunkSource::store_orphan(Span span) {
  std::lock_guard lock(orphans_mu_);
  orphans_.push_back(span);
  has_orphans_.store(true, std::memory_order_release);
}

std::optional<Span> ChunkSource::take_orphan(std::uint64_t max_items) {
  if (!has_orphans_.load(std::memory_order_acquire) || aborted()) return std::nullopt;
  std::lock_guard lock(orphans_mu_);
  if (orphans_.empty()) return std::nullopt;
  Span& s = orphans_.back();
  Span out{s.begin, std::min(s.end, s.begin + std::max<std::uint64_t>(1, max_items))};
  s.begin = out.end;
  if (s.empty()) orphans_.pop_back();
  has_orphans_.store(!orphans_.empty(), std::memory_order_release);
  return out;
}

}  // namespace baton::detail
