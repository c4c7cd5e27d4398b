// The sim executor: a discrete-event loop over virtual time. Each event is a
// device becoming free; it first completes the span it was running (so the
// policy learns of it only at its virtual completion time), then asks the
// policy for the next. A device that finds no work retries after a steal
// attempt's virtual cost, as a real idle worker would poll.
#include <algorithm>
#include <queue>

#include "baton/error.hpp"
#include "common/tunables.hpp"
#include "device/virtual_clock.hpp"
#include "sched/executor.hpp"

namespace baton::detail {

RunStats run_on_sim(const Execution& ex) {
  const int n = static_cast<int>(ex.devices.size());
  std::vector<VirtualClock*> clocks(n);
  for (int d = 0; d < n; ++d) {
    clocks[d] = dynamic_cast<VirtualClock*>(ex.devices[d]);
    if (!clocks[d])
      raise(Errc::invalid_argument, ex.devices[d]->name(), "sim runs need sim devices only");
    clocks[d]->set_now(0);
  }
  const double steal_s = tunable_number("BATON_SIM_STEAL_US") * 1e-6;
  RunStats stats;
  stats.devices.resize(n);
  std::vector<std::optional<InFlight>> running(n);
  std::vector<EventPtr> pending;
  std::vector<double> last(n, 0.0);
  std::uint64_t done = 0;
  using Item = std::pair<double, int>;  // (virtual time, device)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> events;
  for (int d = 0; d < n; ++d) {
    stats.devices[d].name = ex.devices[d]->name();
    if (ex.plan.weights[d] > 0) events.push({0.0, d});
  }
  while (!events.empty() && done < ex.plan.items) {
    auto [t, d] = events.top();
    events.pop();
    Device& dev = *ex.devices[d];
    DeviceStats& st = stats.devices[d];
    clocks[d]->set_now(t);
    if (running[d]) {
      InFlight f = *running[d];
      running[d].reset();
      ex.dispatch->finish(dev, st, f, pending);
      ex.policy->completed(d, f.span, t - f.started);
      st.busy_s += t - f.started;
      ++st.chunks;
      st.items += f.span.size();
      done += f.span.size();
      last[d] = clocks[d]->now();  // includes the write-back
    }
    auto take = ex.policy->next(d);
    if (!take) {
      if (done < ex.plan.items) events.push({clocks[d]->now() + steal_s, d});
      continue;
    }
    double start = clocks[d]->now();
    if (take->victim >= 0) ++st.steals, start += steal_s, clocks[d]->set_now(start);
    try {
      running[d] = ex.dispatch->start(dev, st, take->span, start);
    } catch (const Error& e) {
      if (e.code() != Errc::device_failed) throw;
      st.failed = true;
      st.failure = e.what();
      ex.policy->give_back(take->span);
      ex.policy->retire(d);
      ++stats.reruns;
      continue;  // the device takes no more events
    }
    events.push({clocks[d]->now(), d});
  }
  if (done < ex.plan.items)
    raise(Errc::device_failed, "scheduler", "every device failed; the run is incomplete");
  stats.items = ex.plan.items;
  stats.makespan_s = *std::max_element(last.begin(), last.end());
  return stats;
}

}  // namespace baton::detail
