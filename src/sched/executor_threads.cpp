#include <algorithm>
#include <chrono>
#include <deque>
#include <thread>

#include "baton/error.hpp"
#include "common/tunables.hpp"
#include "sched/executor.hpp"

namespace baton::detail {

namespace {

using Clock = std::chrono::steady_clock;

// Items completed by one device; one cache line each, written by its worker only.
struct alignas(64) DoneCount {
  std::atomic<std::uint64_t> items{0};
};

struct Shared {
  const Execution& ex;
  Clock::time_point t0;
  std::vector<DoneCount> done;
  std::atomic<bool> abort{false};  // a worker hit an error that is not a device failure
  std::atomic<std::uint64_t> reruns{0};
  double max_backoff_us = 50;
  double long_chunk_s = 1e-3;
  double since(Clock::time_point t) const { return std::chrono::duration<double>(t - t0).count(); }
  std::uint64_t done_items() const {
    std::uint64_t n = 0;
    for (const auto& d : done) n += d.items.load(std::memory_order_acquire);
    return n;
  }
};

// Idle workers spin briefly, then yield, then sleep up to max_backoff_us.
void back_off(int& idle, double max_us) {
  ++idle;
  if (idle < 64) return;
  if (idle < 128) {
    std::this_thread::yield();
    return;
  }
  std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(
      std::min(max_us, double(1 << std::min(idle - 128, 6)))));
}

void worker(Shared& sh, int d, DeviceStats& st, double& last_done) {
  Device& dev = *sh.ex.devices[d];
  Policy& policy = *sh.ex.policy;
  Dispatch& dispatch = *sh.ex.dispatch;
  const std::uint64_t total = sh.ex.plan.items;
  const std::size_t depth = static_cast<std::size_t>(std::max(1, dev.info().pipeline_depth));
  std::deque<InFlight> flight;
  std::vector<EventPtr> pending;  // write-backs to host
  double busy_since = -1, prev_done = 0, last_chunk_s = 0;
  try {
    dev.bind_thread();
    int idle = 0;
    for (;;) {
      // Chunks in flight are committed to this device and cannot be stolen:
      // when chunks are long, one queued behind the running one hides the
      // launch gap, and more would only lengthen the tail.
      const std::size_t room =
          last_chunk_s > sh.long_chunk_s ? std::min<std::size_t>(depth, 2) : depth;
      while (flight.size() < room) {
        auto take = policy.next(d);
        if (!take) break;
        double now = sh.since(Clock::now());
        if (flight.empty()) busy_since = now, prev_done = now;
        flight.push_back(InFlight{take->span, nullptr, now});
        flight.back() = dispatch.start(dev, st, take->span, now);
        if (take->victim >= 0) ++st.steals;
        idle = 0;
      }
      if (flight.empty()) {
        if (sh.done_items() >= total || sh.abort.load(std::memory_order_relaxed)) break;
        back_off(idle, sh.max_backoff_us);
        continue;
      }
      // It leaves `flight` only once finished: if the device fails before, the
      // span is still there to be given back.
      InFlight f = flight.front();
      f.done->wait();
      dispatch.finish(dev, st, f, pending);
      flight.pop_front();
      double now = sh.since(Clock::now());
      // With chunks pipelined, a chunk's cost is the time since the previous completion.
      last_chunk_s = now - std::max(prev_done, f.started);
      policy.completed(d, f.span, last_chunk_s);
      prev_done = now;
      ++st.chunks;
      st.items += f.span.size();
      if (flight.empty()) st.busy_s += now - busy_since;
      last_done = now;
      auto& mine = sh.done[d].items;
      mine.store(mine.load(std::memory_order_relaxed) + f.span.size(), std::memory_order_release);
    }
    for (auto& e : pending) e->wait();
    last_done = std::max(last_done, sh.since(Clock::now()));
  } catch (const Error& e) {
    if (e.code() != Errc::device_failed && e.code() != Errc::out_of_memory) throw;
    // The device is gone: what it held runs elsewhere.
    st.failed = true;
    st.failure = e.what();
    for (const InFlight& f : flight) policy.give_back(f.span), sh.reruns.fetch_add(1);
    policy.retire(d);
  }
}

}  // namespace

RunStats run_on_threads(const Execution& ex) {
  Shared sh{ex, Clock::now(), std::vector<DoneCount>(ex.devices.size())};
  sh.max_backoff_us = tunable_number("BATON_STEAL_BACKOFF_US");
  sh.long_chunk_s = tunable_number("BATON_LONG_CHUNK_US") * 1e-6;
  const int n = static_cast<int>(ex.devices.size());
  RunStats stats;
  stats.devices.resize(n);
  std::vector<double> last(n, 0.0);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (int d = 0; d < n; ++d) stats.devices[d].name = ex.devices[d]->name();
  for (int d = 0; d < n; ++d) {
    if (ex.plan.weights[d] <= 0) continue;
    threads.emplace_back([&, d] {
      try {
        worker(sh, d, stats.devices[d], last[d]);
      } catch (...) {
        errors[d] = std::current_exception();
        sh.abort.store(true);  // let the others stop
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (sh.done_items() < ex.plan.items)
    raise(Errc::device_failed, "scheduler", "every device failed; the run is incomplete");
  stats.items = ex.plan.items;
  stats.makespan_s = *std::max_element(last.begin(), last.end());
  stats.reruns = sh.reruns.load();
  return stats;
}

}  // namespace baton::detail
