// One run of `baton train`'s comparison: a Trainer over some devices under
// one policy, its steps timed, the memory it held and the bytes the sim's
// links moved counted.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "baton/runtime.hpp"
#include "train_args.hpp"

namespace baton::cli {

// What a run measured.
struct Run {
  std::vector<int> devices;
  int batch = 0;
  std::string policy;
  std::string collective;  // how its gradients were summed
  double samples_per_s = 0;
  std::vector<double> losses;
  // Per step: all of it, its micro-batches' run, and the update's run.
  std::vector<double> step_s, grad_s, update_s;
  std::vector<double> reduce_s;              // the reduction alone, where it was not overlapped
  std::vector<std::string> failures;         // devices that failed ("step: name: cause")
  std::vector<std::uint64_t> micro_batches;  // per device of the runtime, last step
  // Per device of the runtime, over the measured steps: micro-batches run and
  // the time spent on them (their rate, side by side with the run's others).
  std::vector<double> items, busy_s;
  // Peak bytes the run's buffers held, per memory it used, named by the
  // devices in it ("cuda0.p0+cuda0.p1"); the host's for cpu devices.
  std::vector<std::pair<std::string, std::uint64_t>> memory_peaks;
  // Sim devices: bytes their copies moved per step over each kind of link,
  // over the measured steps (sim::bytes_moved).
  std::map<std::string, double> bytes_per_step;
};

// "sim0+sim2": the devices' names.
std::string names_of(const Runtime& rt, const std::vector<int>& devices);

// Whether the devices keep time only: sim devices that compute nothing
// (BATON_SIM_EXECUTE=0, or "execute": false in their file) and stand for
// another backend; their runs have no losses.
bool keeps_time_only(const Runtime& rt, const std::vector<int>& devices);

// `a.warmup` steps, then `a.steps` measured, of `batch` samples on `devices`
// under `policy`; `label` names its progress lines and trace spans.
Run run_training(Runtime& rt, const TrainArgs& a, std::vector<int> devices, int batch,
                 const std::string& policy, const std::string& label);

// `r`, the alone run of device `from`, as the run of its twin `to` (a sim
// device that would have run it the same: Device::twin_of).
Run as_twin(const Runtime& rt, Run r, int from, int to);

}  // namespace baton::cli
