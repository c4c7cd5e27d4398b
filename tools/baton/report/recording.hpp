// --trace FILE and --report DIR for a command's runs: the runtime's trace
// (with telemetry) is on where either is asked for; it goes to FILE, or into
// DIR beside the HTML page drawn from it and the command's results.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "baton/runtime.hpp"
#include "trace_telemetry.hpp"

namespace baton::cli {

class Recording {
 public:
  // Checks that FILE and DIR can be written (Error invalid_argument naming
  // --trace or --report) before anything runs; starts nothing yet.
  Recording(std::string trace, std::string report);
  bool on() const { return !trace_.empty() || !report_.empty(); }
  // From here on, the runs are traced.
  void start(Runtime& rt);
  // Writes the trace (once the runs are done).
  void stop();
  // Draws the report from the trace and `results` (the command's --json).
  void report(const nlohmann::json& results) const;

 private:
  std::string trace_, report_;
  std::optional<TracedRun> traced_;
};

// The command line baton was started with, as given (for the report).
const std::string& command_line();
void set_command_line(int argc, const char* const* argv);

}  // namespace baton::cli
