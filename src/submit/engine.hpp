// The submission engine: persistent device workers and an asynchronous task
// graph. submit() records a task with the dependencies its data accesses imply
// and returns at once; a task becomes ready when every predecessor is issued
// (a spread one: done) and is then placed by its policy. A dependency between
// tasks on two devices is an event the later device's queue waits for, never
// a host barrier; on one device, queue order alone. A device that fails is
// drained and its tasks and chunks run elsewhere; a usage error fails the
// task (and what depends on it) and is raised to whoever waits for it.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "baton/devices.hpp"
#include "baton/options.hpp"
#include "baton/stats.hpp"
#include "baton/task.hpp"
#include "memory/coherence.hpp"
#include "submit/access_tracker.hpp"
#include "submit/kernel_entry.hpp"
#include "submit/policy_hooks.hpp"
#include "submit/split_run.hpp"
#include "submit/task_pool.hpp"
#include "submit/worker.hpp"
#include "submit/worker_host.hpp"

namespace baton::detail {

class Engine final : public HostAccessGuard, public WorkerHost {
 public:
  // `devices` outlives the engine. Starts one worker per device.
  Engine(DeviceSet& devices, const Options& options, const std::vector<PolicyEntry>& policies,
         const void* owner);
  ~Engine() override;  // waits for every task, then stops the workers
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // The policy's index; throws Error(invalid_argument) naming the known ones.
  int policy_index(const std::string& name);
  const std::string& policy_name(int index) const { return policies_[index].name; }

  struct Request {
    TaskKind kind = TaskKind::single;
    Range range;
    const Kernel* kernel = nullptr;
    std::vector<RunArg>* args = nullptr;  // moved into the task
    int policy = 0;
    int pinned = -1;
    bool keep = false;  // the caller will read its stats, then release() it
  };
  // Throws Error(invalid_argument) for arguments that do not fit the range.
  Task submit(Request request);
  // Blocks until the task is done; rethrows the error it failed with.
  void wait(Task task);
  // Blocks until every task submitted before the call is done; rethrows the
  // first error not yet raised. Returns what the devices did since the last call.
  RunStats wait_all();
  // A kept spread task, after wait(): its figures. release() lets it go.
  RunStats spread_stats(Task task);
  void release(Task task);

  // A kernel's calibrated rate on each device (items/s): weights of later
  // splits, and what the oracle sums.
  // `left_out` (empty: none): devices to leave out of the kernel's work.
  void set_rates(const Kernel& kernel, const std::vector<double>& rates,
                 const std::vector<char>& left_out = {});
  // Per device, how many items keep it as busy as a whole wave of them: a
  // GPU's SMs hold 2048 threads each, and a few hundred heavy items may keep
  // them busy, so the last part of a wave takes as long as that many, not as
  // a whole wave (0: not known, a whole wave).
  void set_busy_items(const Kernel& kernel, const std::vector<double>& items);
  // The items device d runs of the kernel at once (KernelEntry::parallel_items).
  std::uint64_t runs_at_once(const Kernel& kernel, int d);
  // Null before calibration; left-out devices count 0, but for `pinned`.
  const std::vector<double>* known_rates(const Kernel& kernel, int pinned = -1);
  // What the calibration timed the kernel on, for least_time_in_waves.
  void set_timed_runs(const Kernel& kernel, TimedRuns runs);
  // The least time by which devices at `rates` (calibrated) can run `items`
  // of the kernel in their waves, a part of one as its steps and no shorter
  // than the device's least run (wave_cost.hpp). A rate timed over a last
  // part of a wave is raised to what whole waves do: the bound must not
  // count that part twice. No sooner than the least of the devices' least
  // runs, where each device's share could hold as many items as its least
  // run had. 0 where that is not so and none runs in waves, or where a
  // device was not timed (before calibration).
  double least_time_in_waves(const Kernel& kernel, std::uint64_t items,
                             const std::vector<double>& rates);

  Clock& clock() { return clock_; }
  const MachineView& machine() const { return machine_; }
  // Buffers made by the runtime: dropped node data and rehomed replicas
  // reach them when a device fails.
  void track(const std::shared_ptr<BufferState>& buffer);
  void before_host_access(BufferState& buffer, std::uint64_t b, std::uint64_t e,
                          bool for_write) override;

  SchedulingPolicy& policy(const TaskRecord* t) { return *policies_[t->policy].instance; }
  void wake_all();
  bool alive(int d) const { return workers_[d]->alive(); }
  std::string failure(int d) const { return workers_[d]->failure(); }  // once !alive(d)

  // ---- for the workers (WorkerHost: each says what it is for) ----
  void make_ready(TaskRecord* t, Worker* from) override;
  bool can_run(const TaskRecord* t, int d) const override;
  void left_queue(TaskRecord* t, int d) override;
  void issued(TaskRecord* t, const EventPtr& done, int device, LaneId lane, Worker& from) override;
  void finished(TaskRecord* t, Worker& by, double seconds) override;
  void fail(TaskRecord* t, std::exception_ptr error, Worker* by) override;
  void exclude(TaskRecord* t, int d, const std::string& why) override;
  void lost_in_flight(TaskRecord* t, const std::string& cause) override;
  void requeue(std::vector<TaskRecord*>& tasks) override;
  void published(std::uint64_t tasks) override;
  void pool_flush(FreeBatch& batch) override { pool_.flush(batch); }

  std::optional<Take> next_chunk(TaskRecord* t, int d) override;
  void chunk_done(TaskRecord* t, int d, Span span, double seconds) override;
  void chunk_returned(TaskRecord* t, int d, Span span, bool rerun) override;
  void chunks_retired(TaskRecord* t, int d) override;
  bool chunks_for(const TaskRecord* t, int d) const override;
  bool chunks_exhausted(const TaskRecord* t) const override;
  void spread_publish(TaskRecord* t, std::uint64_t items, Worker& w) override;
  void spread_leave(TaskRecord* t, Worker& w) override;
  void spread_error(TaskRecord* t, std::exception_ptr e) override;
  void spread_exclude(TaskRecord* t, int d, const std::string& why) override;

  const std::vector<int>* victim_order(int d) const override;
  void wake_one(int except) override;
  void device_failed(Worker& w, const std::string& cause, std::vector<TaskRecord*>& requeue,
                     std::vector<TaskRecord*>& left) override;

  const Options& options() const override { return machine_.options; }

 private:
  void let_go_when_idle();
  struct PolicySlot {
    std::string name;
    const PolicyEntry* entry = nullptr;
    std::unique_ptr<SchedulingPolicy> instance;  // made on first use
    std::vector<std::unique_ptr<ChunkSource>> idle_sources;
  };

  const KernelEntry& kernel_entry(const Kernel& k);  // under submit_mu_
  void depend(TaskRecord* t, const TaskRef& pred);
  void place_single(TaskRecord* t, Worker* from);
  // Fails `t` naming every failed device's cause when no weight is left.
  bool fail_if_no_device(TaskRecord* t, const std::vector<double>& weights, Worker* from);
  // Fails `t` where it is pinned to a failed device whose per-device instance it uses.
  bool lost_with_its_device(TaskRecord* t, Worker* from);
  int by_capability(const std::vector<double>& weights);
  void fill_weights(const TaskRecord* t, std::vector<double>& weights) const;
  // fill_weights(), from a cache of this thread's (valid until its next call).
  const std::vector<double>& weights_of(const TaskRecord* t) const;
  // What `t`'s policy sees of it, over weights from fill_weights().
  TaskShape shape(const TaskRecord* t, const std::vector<double>& weights,
                  std::vector<double>& transfer, bool with_transfers) const;
  void start_split(TaskRecord* t);
  void finish_split(TaskRecord* t, Worker* by);
  void announce(TaskRecord* t, int device);  // run->mu held
  void fail_if_stranded(TaskRecord* t);      // a spread task no live device can finish
  void drop_ref(TaskRecord* t, Worker* by);
  void count_done(Worker* by);
  void remember_failure(TaskRecord* t);
  void release(std::vector<TaskRecord*>& successors, Worker* from);
  template <class Done>
  void wait_until(Done done, TaskRecord* task);
  void notify_hosts();
  std::string causes() const;  // every failed device's cause
  RunStats stats_since(std::vector<DeviceStats>& last);

  DeviceSet& set_;
  Options options_;
  const void* owner_;
  std::uint64_t serial_ = 0;  // unique in the process, for caches keyed by engine
  Clock& clock_;
  MachineView machine_;
  TraceLog trace_;  // a track per device, in device order
  std::vector<PolicySlot> policies_;
  std::vector<std::unique_ptr<Worker>> workers_;
  TaskPool pool_;

  // Submission: program order across submitting threads. Held for the
  // little a submission does (no waiting under it), so a spin lock.
  SpinLock submit_mu_;
  AccessTracker tracker_;
  std::vector<ByteAccess> accesses_;
  std::vector<TaskRef> follows_;
  std::vector<double> weights_scratch_, transfer_scratch_;
  std::unordered_map<std::uint64_t, std::unique_ptr<KernelEntry>> kernels_;
  const KernelEntry* last_kernel_ = nullptr;
  // Each on a line of its own: the submitter writes the first, workers the others.
  alignas(64) std::atomic<std::uint64_t> submitted_{0};
  alignas(64) std::atomic<std::uint64_t> completed_{0};
  alignas(64) std::atomic<std::uint64_t> wait_all_target_{
      ~std::uint64_t{0}};    // least a wait_all() waits for
  double epoch_start_ = -1;  // when the first task since the last wait_all was submitted
  std::vector<DeviceStats> last_totals_;  // the workers' counters at the last wait_all
  std::vector<std::uint64_t> last_reruns_;

  std::atomic<std::uint64_t> spread_counter_{0};
  std::atomic<std::uint64_t> weights_epoch_{1};  // moves when a device fails or rates change

  // Host threads blocked in wait(), wait_all() or before host access.
  std::mutex hosts_mu_;
  std::vector<Parker*> hosts_;
  std::atomic<int> hosts_waiting_{0};

  // Failures not yet raised by wait_all().
  std::mutex failed_mu_;
  std::vector<TaskRecord*> failed_;

  std::mutex runs_mu_;
  std::vector<std::unique_ptr<SplitRun>> idle_runs_;
  std::vector<TaskRecord*> active_spreads_;  // started, not finished

  std::mutex buffers_mu_;
  std::vector<std::weak_ptr<BufferState>> buffers_;

  std::atomic<int> live_devices_{0};
  mutable std::mutex causes_mu_;
  std::vector<std::string> causes_;  // "cuda0: <why>", per failed device
};

}  // namespace baton::detail
