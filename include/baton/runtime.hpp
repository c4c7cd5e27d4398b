// The entry point. A Runtime opens the devices of a spec, starts one worker
// per device, and runs tasks on them:
//   baton::Runtime rt{baton::Options::from_env()};
//   auto x = rt.buffer<float>(n), y = rt.buffer<float>(n);
//   baton::RunStats s = rt.parallel_for({n}, saxpy, 2.0f, baton::in(x), baton::inout(y));
//   baton::Task t = rt.submit({n}, saxpy, 2.0f, baton::in(x), baton::inout(y));  // at once
//   rt.wait(t);
// README.md shows a kernel with code for every backend.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "baton/args.hpp"
#include "baton/buffer.hpp"
#include "baton/devices.hpp"
#include "baton/kernel.hpp"
#include "baton/options.hpp"
#include "baton/per_device.hpp"
#include "baton/stats.hpp"
#include "baton/task.hpp"

namespace baton {

namespace detail {
class Engine;
}  // namespace detail

// Selects the policy of a task: Policy::ws(), Policy::by_name("static").
// `baton bench balance --help` lists them.
struct Policy {
  std::string name;
  static Policy by_name(std::string n) { return Policy{std::move(n)}; }
  static Policy static_split() { return {"static"}; }
  static Policy weighted() { return {"weighted"}; }
  static Policy ws() { return {"ws"}; }
  static Policy ws_topo() { return {"ws-topo"}; }
  static Policy model() { return {"model"}; }
};

class Runtime {
 public:
  explicit Runtime(Options options = Options::from_env());
  // Over devices opened elsewhere (a custom backend, say); options.devices is ignored.
  Runtime(DeviceSet devices, Options options);
  // Waits for every task; buffers that outlive the Runtime keep their data on the host.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const std::vector<std::unique_ptr<Device>>& devices() const { return set_.devices; }
  // Device `d` failed (a lost device, an injected fault): it runs nothing more.
  bool failed(int d) const;
  // Why device `d` failed ("" while it has not).
  std::string failure(int d) const;
  const Topology& topology() const { return set_.topology; }
  const std::vector<std::string>& notes() const { return set_.notes; }
  const Options& options() const { return options_; }
  Clock& clock();

  template <class T>
  Buffer<T> buffer(std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T>, "buffers hold trivially copyable elements");
    return Buffer<T>(make_buffer(n, sizeof(T)), n);
  }
  // A buffer over the caller's memory, which must outlive it: tasks read and
  // write it there (pinned in place where a GPU backend can), read() and
  // host() make it current. Its span is its host copy.
  template <class T>
  Buffer<T> wrap(std::span<T> memory) {
    static_assert(std::is_trivially_copyable_v<T>, "buffers hold trivially copyable elements");
    return Buffer<T>(wrap_memory(memory.data(), memory.size(), sizeof(T)), memory.size());
  }
  // n elements on each device that touches it, zeroed (see per_device.hpp).
  template <class T>
  PerDevice<T> per_device(std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T>, "buffers hold trivially copyable elements");
    return PerDevice<T>(make_per_device(n, sizeof(T)), n);
  }
  // Device `device`'s instance of `b`, once the tasks that write it are done.
  template <class T>
  std::vector<T> read(const PerDevice<T>& b, int device) {
    std::vector<T> out(b.size());
    read_instance(*b.state(), device, out.data());
    return out;
  }
  // How buffers' host memory is allocated ("pageable", "pinned ...").
  std::string host_memory() const { return set_.host_memory->describe(); }

  // Submits a task and returns at once; it may start while more are
  // submitted. Args are buffers (in/out/inout, with the part they touch),
  // scalars (trivially copyable, at most 16 bytes) and tags: a Policy,
  // baton::split (spread the range over the devices in chunks; else one
  // launch on one device the policy picks) and baton::on(device). The task
  // follows the earlier tasks that touch the same bytes of its buffers.
  template <class... A>
  Task submit(Range range, const Kernel& kernel, A&&... args) {
    Packed p = packer();
    (pack(p, std::forward<A>(args)), ...);
    return submit_packed(range, kernel, p, false);
  }
  // Blocks until `task` is done; rethrows the error it failed with.
  void wait(Task task);
  // Blocks until every task submitted so far is done; rethrows the first
  // error not yet raised. Returns what each device did since the last call.
  RunStats wait_all();

  // A task spread over the devices (submit with baton::split), waited for:
  // returns its figures, with the efficiency against the oracle.
  template <class... A>
  RunStats parallel_for(Range range, const Kernel& kernel, A&&... args) {
    Packed p = packer();
    p.split = true;
    (pack(p, std::forward<A>(args)), ...);
    return wait(start_packed(range, kernel, p));
  }

  // parallel_for that returns at once, so the caller works while it runs:
  // wait(run), which every run must get, waits for it and returns its figures.
  struct PendingRun {
    Task task;
    const Kernel* kernel = nullptr;
    Range range;
    int pinned = -1;
    std::vector<std::shared_ptr<detail::BufferState>> buffers;
  };
  template <class... A>
  PendingRun parallel_for_async(Range range, const Kernel& kernel, A&&... args) {
    Packed p = packer();
    p.split = true;
    (pack(p, std::forward<A>(args)), ...);
    return start_packed(range, kernel, p);
  }
  RunStats wait(PendingRun run);

  // Runs `range` on each device alone, and side by side on devices that
  // share a resource (see Calibration), and records the rates (items/s) of
  // the best arrangement for the kernel: later splits follow them, and
  // RunStats' oracle sums them.
  template <class... A>
  Calibration calibrate(Range range, const Kernel& kernel, A&&... args) {
    Packed p = packer();
    (pack(p, std::forward<A>(args)), ...);
    return calibrate_packed(range, kernel, p);
  }

  // Each device's throughput (items/s) for a kernel, as calibrate() records
  // it. The weighted policies split by these and RunStats' oracle sums them;
  // without them, the split uses peak figures and the oracle the rates seen
  // in the run. A device given 0 is left out of the kernel's work (it runs
  // tasks pinned to it, and the rest once no other device can).
  void set_standalone_rates(const Kernel& kernel, std::vector<double> rates);

  // Tracing, to see where the time goes: from start_trace() (call it with no
  // task under way) each device notes a span per chunk and task it runs, and
  // trace_span() adds the caller's own (a training step) on a host track,
  // trace_counter() a value over time (telemetry) on a counter track.
  // write_trace() waits for every task, writes Chrome/Perfetto trace-event
  // JSON (ui.perfetto.dev, chrome://tracing: a track per device) and stops.
  void start_trace();
  void trace_span(const std::string& name, double begin_s, double end_s);  // clock() times
  void trace_counter(const std::string& name, double time_s, double value);
  void write_trace(const std::string& path);

 private:
  struct Packed {
    std::vector<detail::RunArg>* args = nullptr;  // this thread's scratch
    const std::string* policy = nullptr;          // null: options().policy
    bool split = false;
    int on = -1;
  };
  static Packed packer();
  template <class A>
  static void pack(Packed& p, A&& a);
  static void pack_buffer(Packed& p, BufferArg b);
  static void pack_scalar(Packed& p, const void* value, std::size_t n);
  std::shared_ptr<detail::BufferState> make_buffer(std::size_t n, std::size_t element_size);
  std::shared_ptr<detail::BufferState> wrap_memory(void* p, std::size_t n,
                                                   std::size_t element_size);
  std::shared_ptr<detail::BufferState> make_per_device(std::size_t n, std::size_t element_size);
  void read_instance(detail::BufferState& state, int device, void* out);
  std::shared_ptr<detail::BufferState> keep(std::shared_ptr<detail::BufferState> state);
  Task submit_packed(Range range, const Kernel& kernel, Packed& p, bool keep);
  PendingRun start_packed(Range range, const Kernel& kernel, Packed& p);
  Calibration calibrate_packed(Range range, const Kernel& kernel, Packed& p);
  // Error(out_of_memory) when the task's buffers fit no device's memory.
  void check_fits(const Kernel& kernel, const Packed& p) const;

  Options options_;
  DeviceSet set_;
  std::unique_ptr<detail::Engine> engine_;
  int default_policy_ = 0;  // options().policy's index
  // The most memory any device has for buffers; 0: some device is bounded
  // only by host memory (a cpu device, mapped host memory), so all fit.
  std::uint64_t largest_device_memory_ = 0;
  // Buffers made here: those still alive when the runtime goes keep their
  // data on the host and drop their device replicas.
  std::vector<std::weak_ptr<detail::BufferState>> buffers_;
};

template <class A>
void Runtime::pack(Packed& p, A&& a) {
  using T = std::decay_t<A>;
  if constexpr (std::is_same_v<T, Policy>) {
    p.policy = &a.name;
  } else if constexpr (std::is_same_v<T, Split>) {
    p.split = true;
  } else if constexpr (std::is_same_v<T, On>) {
    p.on = a.device;
  } else if constexpr (std::is_same_v<T, BufferArg>) {
    pack_buffer(p, std::forward<A>(a));
  } else {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 16,
                  "a kernel argument is a buffer (in/out/inout), a scalar of at most 16 bytes, "
                  "a Policy, baton::split or baton::on(device)");
    pack_scalar(p, &a, sizeof(T));
  }
}

}  // namespace baton
