// static and weighted: the baselines ws is measured against. A spread task is
// one contiguous share per device, handed out in chunks of at most max_chunk;
// whole tasks go round the devices, equally (static) or in proportion to
// their capability (weighted). Nothing moves between devices except work
// given back by a failed device.
#include <algorithm>
#include <atomic>
#include <cmath>

#include "sched/policy.hpp"

namespace baton::detail {

namespace {

class ShareSource final : public ChunkSource {
 public:
  explicit ShareSource(bool weighted) : weighted_(weighted) {}

  void start(const Plan& plan) override {
    reset_shared();
    std::vector<double> w = plan.weights;
    if (!weighted_)
      for (double& x : w) x = x > 0 ? 1.0 : 0.0;
    shares_ = proportional_shares(plan.items, w);
    chunk_ = std::max<std::uint64_t>(1, plan.max_chunk);
    least_.resize(plan.weights.size());
    for (std::size_t d = 0; d < least_.size(); ++d) least_[d] = plan.least_span(int(d));
    launch_ = plan.launch;
    unstarted_.store(plan.items, std::memory_order_relaxed);
  }

  std::optional<Take> next(int dev) override {
    if (aborted()) return std::nullopt;
    Take t;
    t.launch = launch_;
    if (auto orphan = take_orphan(chunk_)) {
      t.span = *orphan;
      return t;
    }
    Span& s = shares_[dev];
    if (s.empty()) return std::nullopt;
    t.span = {s.begin, std::min(s.end, s.begin + std::max(chunk_, least_[dev]))};
    s.begin = t.span.end;
    unstarted_.fetch_sub(t.span.size(), std::memory_order_relaxed);
    return t;
  }

  void retire(int dev) override {
    Span& s = shares_[dev];
    if (!s.empty()) {
      unstarted_.fetch_sub(s.size(), std::memory_order_relaxed);
      store_orphan(s);
    }
    s.begin = s.end;
  }

  bool exhausted() const override {
    return aborted() || (unstarted_.load(std::memory_order_relaxed) == 0 && !has_orphans());
  }

 private:
  bool weighted_;
  std::uint64_t chunk_ = 1, launch_ = 0;
  std::vector<std::uint64_t> least_;  // per device, Plan::least_span
  std::vector<Span> shares_;          // shares_[d] is touched by d's worker only
  std::atomic<std::uint64_t> unstarted_{0};
};

class SharePolicy final : public SchedulingPolicy {
 public:
  explicit SharePolicy(bool weighted) : weighted_(weighted) {}

  // static: round robin over the devices that can run the task. weighted: the
  // golden-ratio sequence over the devices' cumulative weights, which gives
  // each a share in proportion to its weight with no state but a counter.
  int place(const TaskShape& task) override {
    const std::uint64_t n = counter_.fetch_add(1, std::memory_order_relaxed);
    const auto& w = task.weights;
    if (!weighted_) {
      std::uint64_t able = 0;
      for (double x : w) able += x > 0;
      if (able == 0) return kAnyDevice;
      std::uint64_t k = n % able;
      for (std::size_t d = 0; d < w.size(); ++d)
        if (w[d] > 0 && k-- == 0) return int(d);
    }
    double total = 0;
    for (double x : w) total += std::max(0.0, x);
    if (!(total > 0)) return kAnyDevice;
    const double golden = 0.6180339887498949;
    const double at = std::fmod(double(n) * golden, 1.0) * total;
    double acc = 0;
    int last = kAnyDevice;
    for (std::size_t d = 0; d < w.size(); ++d) {
      if (!(w[d] > 0)) continue;
      acc += w[d];
      last = int(d);
      if (at < acc) return last;
    }
    return last;
  }

  std::unique_ptr<ChunkSource> make_chunk_source() override { return make_share_source(weighted_); }

 private:
  bool weighted_;
  std::atomic<std::uint64_t> counter_{0};
};

}  // namespace

std::unique_ptr<ChunkSource> make_share_source(bool weighted) {
  return std::make_unique<ShareSource>(weighted);
}

std::unique_ptr<SchedulingPolicy> make_split_policy(bool weighted, const MachineView&) {
  return std::make_unique<SharePolicy>(weighted);
}

}  // namespace baton::detail
