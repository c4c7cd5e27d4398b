#include "sched/policy.hpp"

#include <algorithm>
#include <cmath>

#include "baton/error.hpp"

namespace baton::detail {

std::unique_ptr<Policy> make_split_policy(bool weighted);
std::unique_ptr<Policy> make_ws_policy(bool topology_aware);

void Policy::give_back(Span span) {
  std::lock_guard lock(orphans_mu_);
  orphans_.push_back(span);
  has_orphans_.store(true, std::memory_order_release);
}

std::optional<Span> Policy::take_orphan(std::uint64_t max_items) {
  if (!has_orphans_.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(orphans_mu_);
  if (orphans_.empty()) return std::nullopt;
  Span& s = orphans_.back();
  Span out{s.begin, std::min(s.end, s.begin + std::max<std::uint64_t>(1, max_items))};
  s.begin = out.end;
  if (s.empty()) orphans_.pop_back();
  has_orphans_.store(!orphans_.empty(), std::memory_order_release);
  return out;
}

const std::vector<PolicyInfo>& policies() {
  static const std::vector<PolicyInfo> list = {
      {"static", "equal contiguous shares, no rebalancing (the baseline)"},
      {"weighted", "shares proportional to device capability, no rebalancing"},
      {"ws", "capability-weighted first split, then work stealing with shrinking chunks"},
      {"ws-topo", "ws, stealing from the nearest devices first and only when the transfer pays"},
  };
  return list;
}

std::unique_ptr<Policy> make_policy(const std::string& name) {
  if (name == "static") return make_split_policy(false);
  if (name == "weighted") return make_split_policy(true);
  if (name == "ws") return make_ws_policy(false);
  if (name == "ws-topo") return make_ws_policy(true);
  std::string known;
  for (const auto& p : policies()) known += (known.empty() ? "" : ", ") + p.name;
  raise(Errc::invalid_argument, "--policy", "unknown policy '" + name + "' (known: " + known + ")");
}

std::vector<Span> proportional_shares(std::uint64_t items, const std::vector<double>& weights) {
  double total = 0;
  std::size_t last = 0;  // the last device that can run: it takes the rounding remainder
  for (std::size_t i = 0; i < weights.size(); ++i)
    if (weights[i] > 0) total += weights[i], last = i;
  if (!(total > 0)) raise(Errc::invalid_argument, "scheduler", "no device can run this kernel");
  std::vector<Span> out(weights.size(), Span{items, items});
  double acc = 0;
  std::uint64_t begin = 0;
  for (std::size_t i = 0; i <= last; ++i) {
    acc += std::max(0.0, weights[i]);  // a weight of 0 adds nothing: an empty share
    std::uint64_t end =
        i == last ? items
                  : std::min<std::uint64_t>(items, std::llround(double(items) * (acc / total)));
    out[i] = {begin, std::max(begin, end)};
    begin = out[i].end;
  }
  return out;
}

}  // namespace baton::detail
