// Utilisation read from a trace (--trace, or the doctor's own probe run):
// for each run in it (the host's spans: a policy's run, a training run's
// steps), each device's busy share; where the shares are uneven, the likely
// cause, from what the spans show: one chunk too long for the run (chunks
// too coarse), nothing stolen (a fixed split, or a steal threshold too
// high), a device idle between its chunks (waiting for data: a slow link),
// or else rates other than the split assumed. Even shares that are all low
// say the devices wait for the host.
#pragma once

#include "doctor/findings.hpp"
#include "report/trace_events.hpp"

namespace baton::cli {

// Runs' shares apart by more than this are uneven; a run whose busiest
// device is busy less than kMostlyIdle of it is idle.
inline constexpr double kUnevenSpread = 0.2;
inline constexpr double kMostlyIdle = 0.5;

Findings check_trace(const TraceEvents& t);

}  // namespace baton::cli
