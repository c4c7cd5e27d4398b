// What the sim devices' copies moved so far, by kind of link
// (sim::bytes_moved), for the commands that report it per run or per step.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "baton/runtime.hpp"

namespace baton::workloads {

using LinkBytes = std::array<std::uint64_t, kLinkKinds>;

// Summed over `devices` (indices into rt.devices()); empty: every device.
// Devices of other backends count nothing.
LinkBytes sim_bytes_moved(const Runtime& rt, const std::vector<int>& devices = {});

// after - before, kind by kind.
LinkBytes bytes_between(const LinkBytes& before, const LinkBytes& after);

}  // namespace baton::workloads
