// One shape of work for the balance benchmarks: the fma_rows kernel over
// `items` items of `bytes` moved each, its buffers, its calibration, and the
// check of each run's output: about 4096 spread elements equal to a host
// reference, and, on a policy's first run, every element written.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "baton/devices.hpp"
#include "baton/runtime.hpp"

namespace baton::workloads {

struct Shape {
  std::uint64_t items = 1 << 20;
  std::uint64_t chunk = 0;  // launch size in items; 0: one launch per span handed out
  int iters = 256;          // fma steps per element
  int bytes = 8;            // moved per item: 4 (written only) or 8 per float read and written
  // Passes a run makes over the data, each reading what the pass before
  // wrote, where it was written: a device that takes items another device
  // ran before copies them from there (over NVLink, or through host memory).
  int passes = 1;
  // Each run starts from inputs the host has just written and ends once the
  // results are back in host memory, so the data crosses the host links both
  // ways inside the run (the runtime must write results back behind later
  // work: Options::write_back).
  bool from_host = false;
};

// Floats read and written per item for `bytes`; throws Error(invalid_argument).
int width_of(int bytes);
// The one of median makespan among `xs` (not empty), `run(x)` giving each
// one's RunStats: what a policy's row reports.
template <class T, class Run>
T median_by_makespan(std::vector<T> xs, Run run) {
  std::sort(xs.begin(), xs.end(),
            [&](const T& a, const T& b) { return run(a).makespan_s < run(b).makespan_s; });
  return xs[xs.size() / 2];
}
inline RunStats median_run(std::vector<RunStats> runs) {
  return median_by_makespan(std::move(runs),
                            [](const RunStats& r) -> const RunStats& { return r; });
}
// Runs one after another (passes) as one: from the first's start to the
// last's end, their items, oracle times and each device's figures summed.
RunStats joined_runs(const std::vector<RunStats>& runs);

// Bytes per second that a run moved into the devices and out of them.
double gbps_in(const RunStats& r);
double gbps_out(const RunStats& r);
// The links between host memory and the devices with memory of their own,
// each once however many devices (partitions of one GPU) share it, summed
// per direction: the topology's one-way figure, and what they carry with a
// copy in beside a copy out at once, measured (kProbeBytes, the best of 5). Both
// ways at once is what a run from host memory asks of them.
struct HostLinks {
  double one_way_gbps = 0;
  double both_ways_gbps = 0;
};
HostLinks measure_host_links(DeviceSet& set);

// How many times faster r ran than a baseline that took `base_s` (a static
// split's run); 0 where either took no time (no baseline).
double speedup_over(double base_s, const RunStats& r);
// A run as bench balance's --json has it (the doctor reads the same).
nlohmann::json run_json(const RunStats& r, double speedup_vs_static);

// How much later than `items` at the calibration's summed rates the run's
// bound in the devices' waves is (RunStats::waves_bound_s), where it is
// (more than 0.1 %); 0 where the summed rates are the oracle.
double waves_over_rates(const RunStats& r, const Calibration& cal, double items);
// The calibration's groups of devices that share a resource, likewise.
nlohmann::json sharing_json(const Runtime& rt, const Calibration& cal);

class BalanceCase {
 public:
  // Allocates and fills the buffers; throws Error(invalid_argument) when they
  // would not fit in the host's available memory. From host, `link_gbps` is
  // what the host links carry per direction both ways at once
  // (HostLinks::both_ways_gbps, measured once by the caller): the oracle's cap.
  BalanceCase(Runtime& rt, const Shape& shape, double link_gbps = 0);

  const Shape& shape() const { return shape_; }
  const Kernel& kernel() const { return kernel_; }
  // Each device alone, and side by side where devices share a resource.
  Calibration calibrate();
  // One run (shape().passes passes) under `policy`; throws Error(internal)
  // on a wrong or missing result.
  RunStats run(const std::string& policy);
  // From host: the least time the host links allow a run (no schedule beats
  // it; the oracle is capped by it); else 0.
  double link_bound_s() const;

 private:
  void check(const std::string& policy, bool every_element);
  // Where the last pass writes.
  Buffer<float>& result() { return shape_.passes % 2 ? out_ : mid_; }

  Runtime& rt_;
  Shape shape_;
  int width_;
  bool sim_;
  Kernel kernel_;
  Part in_part_, out_part_;  // what an item reads and writes
  Buffer<float> in_, out_;
  Buffer<float> mid_;                         // passes: they go in -> out -> mid -> out -> mid ...
  double link_gbps_ = 0;                      // from host: the constructor's
  std::size_t stride_ = 1;                    // elements between checked ones
  std::vector<float> expect_;                 // results of the inputs' values
  std::vector<std::string> checked_in_full_;  // policies whose output was scanned whole
};

}  // namespace baton::workloads
