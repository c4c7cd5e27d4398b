// --trace for the commands: the runtime's trace of the run, with each
// device's telemetry (utilisation, memory, power, SM clock) sampled during
// the run as counter tracks beside its spans.
#pragma once

#include <memory>
#include <string>

#include "baton/runtime.hpp"
#include "resource/telemetry.hpp"

namespace baton::cli {

class TracedRun {
 public:
  // Starts the trace, and sampling every 50 ms where time is real.
  explicit TracedRun(Runtime& rt);
  // Adds the readings as counters and writes the trace to `path`.
  void write(const std::string& path);

 private:
  Runtime& rt_;
  std::vector<const Device*> devices_;
  std::unique_ptr<Telemetry> telemetry_;
};

}  // namespace baton::cli
