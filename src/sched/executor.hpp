// Executors drive devices through a policy: one host thread per device in real
// time, or one event loop over the sim backend's virtual clocks. Both run the
// same Policy and Dispatch code.
#pragma once

#include <vector>

#include "baton/device.hpp"
#include "baton/stats.hpp"
#include "sched/dispatch.hpp"
#include "sched/policy.hpp"

namespace baton::detail {

struct Execution {
  std::vector<Device*> devices;  // index = policy device number
  Policy* policy = nullptr;
  Dispatch* dispatch = nullptr;
  Plan plan;
};

// Fills stats.devices, items, makespan_s, reruns. Throws Error(device_failed)
// only when every device failed (work is otherwise re-run elsewhere).
RunStats run_on_threads(const Execution& ex);
RunStats run_on_sim(const Execution& ex);

}  // namespace baton::detail
