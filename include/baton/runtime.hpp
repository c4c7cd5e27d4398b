// The entry point. A Runtime opens the devices of a spec and spreads kernels
// over them:
//   baton::Runtime rt{baton::Options::from_env()};
//   auto x = rt.buffer<float>(n), y = rt.buffer<float>(n);
//   baton::RunStats s = rt.parallel_for({n, chunk}, saxpy, 2.0f, baton::in(x), baton::inout(y),
//                                       baton::Policy::ws());
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "baton/args.hpp"
#include "baton/buffer.hpp"
#include "baton/devices.hpp"
#include "baton/kernel.hpp"
#include "baton/stats.hpp"

namespace baton {

namespace detail {
std::shared_ptr<BufferState> make_buffer_state(std::size_t bytes, const void* owner);
class TaskGraph;
}  // namespace detail

struct Options {
  std::string devices = "auto";  // a device spec (see devices.hpp)
  std::string policy = "ws";     // static, weighted, ws, ws-topo
  std::string topology_file;     // JSON links that override discovered ones
  bool write_back = true;        // copy results back to host behind the compute
  // BATON_DEVICES, BATON_POLICY and BATON_TOPO_FILE; bad values are Errors.
  static Options from_env();
};

// Selects the policy of one run: Policy::ws(), Policy::by_name("static").
struct Policy {
  std::string name;
  static Policy by_name(std::string n) { return Policy{std::move(n)}; }
  static Policy static_split() { return {"static"}; }
  static Policy weighted() { return {"weighted"}; }
  static Policy ws() { return {"ws"}; }
  static Policy ws_topo() { return {"ws-topo"}; }
};

class Runtime {
 public:
  explicit Runtime(Options options = Options::from_env());
  // Over devices opened elsewhere (a custom backend, say); options.devices is ignored.
  Runtime(DeviceSet devices, Options options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const std::vector<std::unique_ptr<Device>>& devices() const { return set_.devices; }
  const Topology& topology() const { return set_.topology; }
  const std::vector<std::string>& notes() const { return set_.notes; }
  const Options& options() const { return options_; }

  template <class T>
  Buffer<T> buffer(std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T>, "buffers hold trivially copyable elements");
    auto state = detail::make_buffer_state(n * sizeof(T), this);
    buffers_.push_back(state);
    return Buffer<T>(std::move(state), n);
  }

  // Runs kernel over range on the devices. Args are buffers (in/out/inout),
  // scalars (trivially copyable, at most 16 bytes) and optionally one Policy.
  template <class... A>
  RunStats parallel_for(Range range, const Kernel& kernel, A&&... args) {
    std::vector<detail::RunArg> packed;
    std::string policy = options_.policy;
    (pack(packed, policy, std::forward<A>(args)), ...);
    return run(range, kernel, std::move(packed), policy);
  }

  // Records a task without running it; its dependencies on earlier tasks
  // follow from the order in which they access the same buffers. Returns its index.
  template <class... A>
  std::size_t submit(Range range, const Kernel& kernel, A&&... args) {
    std::vector<detail::RunArg> packed;
    std::string policy = options_.policy;
    (pack(packed, policy, std::forward<A>(args)), ...);
    return submit_packed(range, kernel, std::move(packed), policy);
  }
  // Runs every submitted task, each after the tasks it depends on, each spread
  // over the devices; returns their stats in submission order.
  std::vector<RunStats> wait_all();
  // The tasks each submitted task waits for (for inspection and tests).
  std::vector<std::vector<std::size_t>> dependencies() const;

  // Runs `range` on each device alone and records its rate (items/s) for the kernel.
  template <class... A>
  std::vector<double> calibrate(Range range, const Kernel& kernel, A&&... args) {
    std::vector<detail::RunArg> packed;
    std::string policy;
    (pack(packed, policy, std::forward<A>(args)), ...);
    return calibrate_packed(range, kernel, std::move(packed));
  }

  // Each device's throughput (items/s) for a kernel when running alone. The
  // weighted policies split by these and RunStats' oracle sums them; without
  // them, the split uses peak figures and the oracle the rates seen in the run.
  void set_standalone_rates(const Kernel& kernel, std::vector<double> rates);
  std::size_t submit_packed(Range range, const Kernel& kernel, std::vector<detail::RunArg> args,
                            const std::string& policy);
  std::vector<double> calibrate_packed(Range range, const Kernel& kernel,
                                       std::vector<detail::RunArg> args);
  RunStats run(Range range, const Kernel& kernel, std::vector<detail::RunArg> args,
               const std::string& policy);

 private:
  template <class A>
  static void pack(std::vector<detail::RunArg>& out, std::string& policy, A&& a);
  static void pack_buffer(std::vector<detail::RunArg>& out, BufferArg b);
  static void pack_scalar(std::vector<detail::RunArg>& out, const void* p, std::size_t n);

  Options options_;
  DeviceSet set_;
  std::map<std::uint64_t, std::vector<double>> rates_;  // kernel id -> standalone rates
  std::unique_ptr<detail::TaskGraph> graph_;
  // Buffers made here: those still alive when the runtime goes keep their
  // data on the host and drop their device replicas.
  std::vector<std::weak_ptr<detail::BufferState>> buffers_;
};

template <class A>
void Runtime::pack(std::vector<detail::RunArg>& out, std::string& policy, A&& a) {
  using T = std::decay_t<A>;
  if constexpr (std::is_same_v<T, Policy>) {
    policy = a.name;
  } else if constexpr (std::is_same_v<T, BufferArg>) {
    pack_buffer(out, std::forward<A>(a));
  } else {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 16,
                  "a kernel argument is a buffer (in/out/inout) or a scalar of at most 16 bytes");
    pack_scalar(out, &a, sizeof(T));
  }
}

}  // namespace baton
