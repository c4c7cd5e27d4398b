// The state of one task spread over devices while it runs: its chunk source,
// which devices take part, and per-device figures. Pooled by the engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "baton/stats.hpp"
#include "submit/policy_hooks.hpp"

namespace baton::detail {

struct SplitRun {
  std::unique_ptr<ChunkSource> source;  // from its policy's pool
  int policy = -1;
  Plan plan;
  std::atomic<std::uint64_t> remaining{0};  // items not yet counted complete
  std::mutex mu;                            // participating
  std::vector<char> participating;          // per device
  std::vector<DeviceStats> stats;           // per device; each written by its device's worker
  std::atomic<std::uint64_t> reruns{0};
  double start_s = 0, end_s = 0;
};

}  // namespace baton::detail
