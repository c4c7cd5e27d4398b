#include "vendor/cuda/context_registry.hpp"

#include <algorithm>
#include <mutex>

namespace baton::cuda {

namespace {

struct Entry {
  std::uint64_t id;
  CUcontext ctx;
  ContextFacts facts;
  std::vector<std::function<void()>> on_destroy;
};

std::mutex mu;
std::vector<Entry>& live() {
  static std::vector<Entry> entries;
  return entries;
}

// The latest live registration of `ctx`, or end().
std::vector<Entry>::reverse_iterator latest(CUcontext ctx) {
  return std::find_if(live().rbegin(), live().rend(), [&](const Entry& e) { return e.ctx == ctx; });
}

}  // namespace

std::uint64_t register_context(CUcontext ctx, ContextFacts facts) {
  static std::uint64_t next = 0;
  std::lock_guard lock(mu);
  live().push_back({++next, ctx, facts, {}});
  return next;
}

std::vector<std::function<void()>> forget_context(std::uint64_t id) {
  std::lock_guard lock(mu);
  auto it = std::find_if(live().begin(), live().end(), [&](const Entry& e) { return e.id == id; });
  if (it == live().end()) return {};
  std::vector<std::function<void()>> calls = std::move(it->on_destroy);
  live().erase(it);
  return calls;
}

std::optional<ContextFacts> context_facts(CUcontext ctx) {
  std::lock_guard lock(mu);
  auto it = latest(ctx);
  if (it == live().rend()) return std::nullopt;
  return it->facts;
}

bool on_context_destroyed(CUcontext ctx, std::function<void()> fn) {
  std::lock_guard lock(mu);
  auto it = latest(ctx);
  if (it == live().rend()) return false;
  it->on_destroy.push_back(std::move(fn));
  return true;
}

}  // namespace baton::cuda
