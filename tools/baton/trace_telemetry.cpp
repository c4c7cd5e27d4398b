#include "trace_telemetry.hpp"

namespace baton::cli {

TracedRun::TracedRun(Runtime& rt) : rt_(rt) {
  rt_.start_trace();
  if (rt_.clock().is_virtual()) return;  // sim devices report nothing, on virtual time
  for (const auto& d : rt_.devices()) devices_.push_back(d.get());
  // 20 minutes of readings at 50 ms before the oldest go.
  telemetry_ = std::make_unique<Telemetry>(devices_, std::chrono::milliseconds(50), 24000);
  telemetry_->start();
}

void TracedRun::write(const std::string& path) {
  if (telemetry_) {
    telemetry_->stop();
    for (std::size_t d = 0; d < devices_.size(); ++d) {
      const std::string& name = devices_[d]->name();
      for (const DeviceReading& r : telemetry_->history(d)) {
        if (r.util_pct >= 0) rt_.trace_counter(name + " util %", r.time_s, r.util_pct);
        if (r.memory_total > 0)
          rt_.trace_counter(name + " memory GiB", r.time_s, double(r.memory_used) / (1 << 30));
        if (r.power_w >= 0) rt_.trace_counter(name + " power W", r.time_s, r.power_w);
        if (r.clock_mhz > 0) rt_.trace_counter(name + " SM MHz", r.time_s, r.clock_mhz);
      }
    }
  }
  rt_.write_trace(path);
}

}  // namespace baton::cli
