// A kernel as the engine keeps it for the Runtime's life, with what it
// knows of it per device: tasks point here, and workers read it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "baton/kernel.hpp"

namespace baton::detail {

// What the calibration timed a kernel on, per device (0: not timed): the
// items its rate in use was timed over, and its least run's items and time.
struct TimedRuns {
  std::vector<double> items, least_items, least_s;
};

// A kernel as the engine keeps it for the Runtime's life: tasks point here,
// so submitting one costs no reference count.
struct KernelEntry {
  Kernel kernel;
  std::vector<char> runs_on;  // per device: its backend has an implementation
  // Per device: the items it runs at once of this kernel, its waves
  // (DeviceInfo::parallel_items), or 1 where its code is a native launcher,
  // whose every item runs over the whole device.
  std::vector<std::uint64_t> parallel_items;
  std::vector<std::uint64_t> wave_step;  // of those, what fills at a time (DeviceInfo::wave_step)
  // Per device: the items its native launcher runs in one pass (1: none).
  std::vector<std::uint64_t> pass_items;
  // Per device: the kernel's standalone rate once calibrated, else the peak
  // figure; 0 where it cannot run. Read by placement on any thread.
  std::unique_ptr<std::atomic<double>[]> weights;
  // Per device: left out of this kernel's work (it shares a resource with
  // devices that do more without it); it still runs tasks pinned to it, and
  // the kernel's work when no other device can.
  std::unique_ptr<std::atomic<bool>[]> left_out;
  // Per device: how many items keep it as busy as a whole wave of them
  // (Engine::set_busy_items); 0: a whole wave.
  std::unique_ptr<std::atomic<double>[]> busy_items;
  TimedRuns timed;  // guarded by the engine's submit lock; empty before calibration
  std::atomic<bool> calibrated{false};  // the weights are measured rates (Engine::set_rates)
};

}  // namespace baton::detail
