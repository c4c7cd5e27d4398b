// Injected device faults (BATON_FAULT), for what real hardware cannot be made
// to do on demand: "cpu1:after=100,sim0:after=5" makes device cpu1's 101st
// launch and sim0's 6th fail as a lost device would (Errc::device_failed),
// on any backend.
#pragma once

#include <string>
#include <vector>

namespace baton::detail {

// Per device (by position in `names`): launches allowed before the fault, or
// -1 for none. Throws Error(invalid_argument, "BATON_FAULT") naming what is wrong.
std::vector<long long> parse_faults(const std::string& spec, const std::vector<std::string>& names);

}  // namespace baton::detail
