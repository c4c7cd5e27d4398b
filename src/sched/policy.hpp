// The scheduling policies: one table (name, one-line description, factory),
// and what the policies share. Each policy places whole tasks and hands out
// the chunks of spread tasks, through the interfaces of submit/policy_hooks.hpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/proportional_shares.hpp"
#include "submit/policy_hooks.hpp"

namespace baton::detail {

// Every policy, in the order `--help` lists them.
const std::vector<PolicyEntry>& policies();
// The entry named `name`; throws Error(invalid_argument) naming the known ones.
const PolicyEntry& find_policy(const std::string& name);
// "static,weighted,ws,..." : every name, for defaults and help texts.
std::string policy_names(const char* separator = ",");

// The factories behind the table.
std::unique_ptr<SchedulingPolicy> make_split_policy(bool weighted, const MachineView& machine);
std::unique_ptr<SchedulingPolicy> make_ws_policy(bool topology_aware, const MachineView& machine);
std::unique_ptr<SchedulingPolicy> make_model_policy(const MachineView& machine);
// The chunk sources the factories share: one contiguous share per device.
std::unique_ptr<ChunkSource> make_share_source(bool weighted);

}  // namespace baton::detail
