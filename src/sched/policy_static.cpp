// static and weighted: one contiguous share per device, handed out in chunks
// of at most max_chunk; nothing moves between devices except work given back
// by a failed device. The baselines that ws is measured against.
#include <algorithm>

#include "sched/policy.hpp"

namespace baton::detail {

namespace {

class SplitPolicy final : public Policy {
 public:
  explicit SplitPolicy(bool weighted) : weighted_(weighted) {}
  std::string_view name() const override { return weighted_ ? "weighted" : "static"; }

  void start(const Plan& plan) override {
    std::vector<double> w = plan.weights;
    if (!weighted_)
      for (double& x : w) x = x > 0 ? 1.0 : 0.0;
    shares_ = proportional_shares(plan.items, w);
    chunk_ = std::max<std::uint64_t>(1, plan.max_chunk);
  }

  std::optional<Take> next(int dev) override {
    if (auto orphan = take_orphan(chunk_)) return Take{*orphan};
    Span& s = shares_[dev];
    if (s.empty()) return std::nullopt;
    Span out{s.begin, std::min(s.end, s.begin + chunk_)};
    s.begin = out.end;
    return Take{out};
  }

  void retire(int dev) override {
    Span& s = shares_[dev];
    if (!s.empty()) give_back(s);
    s.begin = s.end;
  }

 private:
  bool weighted_;
  std::uint64_t chunk_ = 1;
  std::vector<Span> shares_;  // shares_[d] is touched by d's worker only
};

}  // namespace

std::unique_ptr<Policy> make_split_policy(bool weighted) {
  return std::make_unique<SplitPolicy>(weighted);
}

}  // namespace baton::detail
