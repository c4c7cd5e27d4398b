// What the submission engine asks of a scheduling policy, at two grains: a
// whole task (place it on a device, or leave it to the engine)
// and the chunks of a task spread over devices (a ChunkSource per such task).
// The policies themselves live in src/sched/, above this layer; the runtime
// hands their table to the engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "baton/link.hpp"
#include "baton/options.hpp"
#include "baton/range.hpp"

namespace baton {
class Clock;
}

namespace baton::detail {

// What is fixed about the machine for the Runtime's life.
struct MachineView {
  int devices = 0;
  std::vector<double> peak;        // per device, fp32 GFLOP/s: the capability before any measure
  std::vector<int> memory_node;    // per device
  std::vector<std::string> names;  // per device
  std::vector<std::uint64_t> parallel_items;  // per device (DeviceInfo::parallel_items)
  std::vector<std::uint64_t> wave_step;       // per device (DeviceInfo::wave_step)
  std::vector<std::string> identity;  // per device, stable across runs (name and description)
  // paths[i][j]: the cost of moving data resident on j's memory to i (zero on one node).
  std::vector<std::vector<PathCost>> paths;
  // Per device, its link to host memory (none, 0 GB/s, for a device in host memory).
  std::vector<PathCost> host_path;
  Options options;
};

// ---- chunks of a task spread over devices ----

struct Plan {
  std::uint64_t items = 0;
  std::uint64_t max_chunk = 0;  // largest span for a device of average speed (ws scales it)
  std::uint64_t min_chunk = 1;  // smallest (ws shrinks toward it at the end)
  // > 0: the user's chunk. A span handed out is launched in pieces of at
  // most this many items, so tiny chunks cost one launch each but not one
  // trip through the source each.
  std::uint64_t launch = 0;
  double min_chunk_s = 0;          // ws: no chunk shorter than this on a device of known rate
  double body_chunk_s = 0;         // ws: before the tail, chunks up to this on such a device
  std::vector<double> weights;     // per device, relative capability; 0: takes no part
  bool weights_are_rates = false;  // they are the kernel's calibrated rates, items/s
  // Per device, the least span worth handing it (DeviceInfo::parallel_items),
  // unless less is left.
  const std::vector<std::uint64_t>* parallel_items = nullptr;
  // Per device, what of those fills at a time (DeviceInfo::wave_step).
  const std::vector<std::uint64_t>* wave_step = nullptr;
  // Per device, the items its native launcher runs in one pass (Kernel::native).
  const std::vector<std::uint64_t>* pass_items = nullptr;
  // Per device, how many items keep it as busy as a whole wave of them
  // (Engine::set_busy_items; 0: a whole wave).
  std::vector<double> busy_items;
  const std::vector<std::vector<PathCost>>* paths = nullptr;  // for ws-topo
  double bytes_per_item = 0;  // data a span carries per item, for ws-topo
  double tail_split = 4;      // ws: chunk = fair share of what is left / tail_split
  // The devices' clock (virtual on sim devices), for what is left of work in
  // flight; none: work in flight counts in full.
  const Clock* clock = nullptr;

  std::uint64_t least_span(int dev) const { return parallel_items ? (*parallel_items)[dev] : 1; }
  std::uint64_t pass(int dev) const { return pass_items ? (*pass_items)[dev] : 1; }
  std::uint64_t step(int dev) const { return wave_step ? (*wave_step)[dev] : 1; }
};

struct Take {
  Span span;                 // items [0, plan.items)
  int victim = -1;           // >= 0: stolen from that device
  bool left_work = false;    // it left stealable work behind: wake an idle thief
  std::uint64_t launch = 0;  // > 0: launched in pieces of at most this many items
};

// Hands out the chunks of one spread task. next() and completed() for device d
// are called by d's worker only; workers call concurrently. A source is reused
// for later tasks after start().
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  virtual void start(const Plan& plan) = 0;
  // The next span for device `dev`, or nothing for it now.
  virtual std::optional<Take> next(int dev) = 0;
  // `dev` finished `span` in `seconds` of its busy time.
  virtual void completed(int dev, Span span, double seconds) {
    (void)dev, (void)span, (void)seconds;
  }
  // `dev` is gone: what is queued for it goes to the others. Called by dev's worker.
  virtual void retire(int dev) = 0;
  // True once every item has been handed out and nothing given back waits.
  virtual bool exhausted() const = 0;
  // Something `dev` might take now that others hold (a hint for an idle worker).
  virtual bool stealable(int dev) const {
    (void)dev;
    return has_orphans();
  }
  // `span`, handed to `dev` by next(), was not run (its device failed):
  // someone else takes it first.
  void give_back(int dev, Span span) {
    started_again(dev, span.size());
    store_orphan(span);
  }
  // No more spans for anyone (a chunk failed with a usage error).
  void abort() { aborted_.store(true, std::memory_order_release); }
  bool aborted() const { return aborted_.load(std::memory_order_acquire); }

 protected:
  void reset_shared();
  // Items next() handed to `dev` that will not run there after all.
  virtual void started_again(int dev, std::uint64_t items) { (void)dev, (void)items; }
  void store_orphan(Span span);
  std::optional<Span> take_orphan(std::uint64_t max_items);
  bool has_orphans() const { return has_orphans_.load(std::memory_order_acquire); }

 private:
  std::mutex orphans_mu_;
  std::vector<Span> orphans_;
  std::atomic<bool> has_orphans_{false};
  std::atomic<bool> aborted_{false};
};

// ---- whole tasks ----

// No preference: the engine keeps a task where it was released, or spreads
// it over the devices in proportion to their capability.
inline constexpr int kAnyDevice = -1;

// What a policy sees of a ready task when it places it.
struct TaskShape {
  std::uint64_t kernel_id = 0;
  const std::string* kernel_name = nullptr;
  std::uint64_t items = 0;
  // Per device: its expected rate for this kernel (items/s, or the peak
  // figure before any measure); 0 where the task cannot run.
  std::span<const double> weights;
  // Per device: seconds to bring the task's inputs there; empty when
  // nothing would move (one memory node, or no inputs).
  std::span<const double> transfer_s;
};

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  // A device with a weight > 0, or kAnyDevice.
  virtual int place(const TaskShape& task) = 0;
  // Idle devices may take tasks queued for others.
  virtual bool steals() const { return false; }
  // place() reads TaskShape::transfer_s (computing it reads the buffers' state).
  virtual bool wants_transfer_costs() const { return false; }
  // ws-topo: the victims `thief` tries, nearest first (empty: any order), and
  // whether taking work whose data sits with `victim` pays.
  virtual const std::vector<int>* victim_order(int thief) const {
    (void)thief;
    return nullptr;
  }
  virtual bool steal_pays(int thief, int victim, double bytes) const {
    (void)thief, (void)victim, (void)bytes;
    return true;
  }
  // Per-task run times are wanted (the model policy learns from them).
  virtual bool learns() const { return false; }
  // `dev` ran a task (or a chunk) of `task`'s shape in `seconds` (only when learns()).
  virtual void finished(int dev, const TaskShape& task, double seconds) {
    (void)dev, (void)task, (void)seconds;
  }
  // The weights a spread task of this shape is split by (they start as
  // TaskShape::weights); the model policy puts its predictions in.
  virtual void chunk_weights(const TaskShape& task, std::vector<double>& weights) {
    (void)task, (void)weights;
  }
  // A task placed on `dev` by this policy left its queue (ran or moved).
  virtual void unplaced(int dev, const TaskShape& task) { (void)dev, (void)task; }
  virtual std::unique_ptr<ChunkSource> make_chunk_source() = 0;
};

// One row of the policy table: the only place a policy's name is written.
struct PolicyEntry {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<SchedulingPolicy>(const MachineView&)> make;
};

}  // namespace baton::detail
