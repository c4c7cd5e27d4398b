// --report DIR: a run's results (the command's --json object) and its trace
// drawn as one self-contained HTML page, DIR/index.html (inline SVG and CSS,
// no script, nothing fetched): the policy table, each device's share of the
// work by policy, a timeline per device, utilisation over time (from the
// spans; and NVML's readings where there were any) and, for training, loss
// and throughput by step. The trace itself is DIR/trace.json.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/trace_events.hpp"

namespace baton::cli {

// `command`: the command line that made the run, shown on the page.
// Throws Error(invalid_argument, dir) where the page cannot be written.
void write_report(const std::string& dir, const std::string& command, const nlohmann::json& results,
                  const TraceEvents& trace);

// DIR made (with its parents) and writable, before the run: Error(invalid_argument, "--report").
void prepare_report_dir(const std::string& dir);
std::string report_trace_path(const std::string& dir);

}  // namespace baton::cli
