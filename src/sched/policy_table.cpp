#include <cmath>

#include "baton/error.hpp"
#include "sched/policy.hpp"

namespace baton::detail {

const std::vector<PolicyEntry>& policies() {
  static const std::vector<PolicyEntry> table = {
      {"static", "equal shares, no rebalancing (the baseline)",
       [](const MachineView& m) { return make_split_policy(false, m); }},
      {"weighted", "shares proportional to device capability, no rebalancing",
       [](const MachineView& m) { return make_split_policy(true, m); }},
      {"ws",
       "capability-weighted first split, then work stealing with shrinking chunks, a thief taking "
       "only what it finishes first",
       [](const MachineView& m) { return make_ws_policy(false, m); }},
      {"ws-topo", "ws, stealing from the nearest devices first and only when the transfer pays",
       [](const MachineView& m) { return make_ws_policy(true, m); }},
      {"model",
       "earliest expected finish (queue + history model + transfers), as HEFT and StarPU dmda",
       [](const MachineView& m) { return make_model_policy(m); }},
  };
  return table;
}

std::string policy_names(const char* separator) {
  std::string names;
  for (const auto& p : policies()) names += (names.empty() ? "" : separator) + p.name;
  return names;
}

const PolicyEntry& find_policy(const std::string& name) {
  for (const auto& p : policies())
    if (p.name == name) return p;
  raise(Errc::invalid_argument, "policy",
        "unknown policy '" + name + "' (known: " + policy_names(", ") + ")");
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
