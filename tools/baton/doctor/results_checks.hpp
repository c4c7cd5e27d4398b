// A run's results read back (--json of bench balance or train): a device
// that ran out of memory or failed, the managed-memory fallback, devices that
// share a resource, a policy far from the oracle or losing to static, and a
// training step spent mostly outside forward and backward.
#pragma once

#include <nlohmann/json.hpp>

#include "doctor/findings.hpp"

namespace baton::cli {

Findings check_results(const nlohmann::json& results);

}  // namespace baton::cli
