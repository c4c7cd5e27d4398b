// What baton doctor found: one finding per check, with what to change where
// something is off. The source document's troubleshooting list (uneven
// utilisation, chunk granularity, PCIe bandwidth, steal threshold, out of
// memory) as checks over probes, traces and runs' results.
#pragma once

#include <string>
#include <vector>

namespace baton::cli {

struct Finding {
  std::string area;    // "balance", "links", "memory", "sharing", "run"
  std::string status;  // "ok", "warn" or "info"
  std::string what;    // what was seen, with the figures
  std::string change;  // what to change (empty where nothing is off)
};

using Findings = std::vector<Finding>;

}  // namespace baton::cli
