// baton devices --watch: a refreshing table of every device's telemetry
// (as nvtop shows GPUs), on a terminal in place, elsewhere one table a round.
#pragma once

#include "baton/devices.hpp"

namespace baton::cli {

// Shows `set`'s devices every `interval_s` seconds, `count` times (0: until
// interrupted). Throws Error(invalid_argument) for an interval or count out of range.
void watch_devices(const DeviceSet& set, double interval_s, int count);

}  // namespace baton::cli
