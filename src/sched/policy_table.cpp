#include <algorithm>

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
       "capability-weighted first split whose shares end together in each device's waves, then "
       "work stealing with shrinking chunks, a thief taking only what it finishes first",
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

}  // namespace baton::detail
