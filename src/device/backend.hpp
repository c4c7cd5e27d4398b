// How a backend plugs into baton: a name, help text for its device spec, and a
// factory that turns the arguments of one spec item into devices. The
// resource layer lists the backends and opens specs (src/resource/registry.cpp);
// backends never include each other, nor the topology or resource layers:
// what they know of the host and of links comes and goes through the context.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "baton/device.hpp"
#include "baton/link.hpp"
#include "baton/options.hpp"

namespace baton::detail {

// What the resource layer found out about the host before opening devices.
struct HostFacts {
  int threads = 1;  // hardware threads
  std::string cpu_model;
  std::uint64_t memory_bytes = 0;
};

// What a backend may touch while it creates devices.
class BackendContext {
 public:
  BackendContext(const Options& options, HostFacts host)
      : options_(options), host_(std::move(host)) {}
  MemoryNode new_memory_node() { return next_node_++; }
  const Options& options() const { return options_; }
  const HostFacts& host() const { return host_; }
  // Host threads that the set's other devices' workers keep busy: a GPU's
  // worker polls its queues. The registry opens the cpu backend last and
  // sets this first, so that a cpu device leaves them their cores.
  void set_driver_threads(int n) { driver_threads_ = n; }
  int driver_threads() const { return driver_threads_; }

  // How the backend's devices connect: nodes ("gpu0") and direct links,
  // "host" being host memory. The topology is built from these.
  void add_node(TopoNode node) { nodes_.push_back(std::move(node)); }
  void add_link(TopoLink link) { links_.push_back(std::move(link)); }
  const std::vector<TopoNode>& nodes() const { return nodes_; }
  const std::vector<TopoLink>& links() const { return links_; }

  // State one backend shares between the devices of one set (the sim
  // backend's virtual clock), kept under the backend's name.
  std::shared_ptr<void>& shared(const std::string& backend) { return shared_[backend]; }

  // Host memory for buffers, which a backend may offer (the first offer is
  // kept: one pinned pool serves every GPU).
  void offer_host_memory(std::shared_ptr<HostAllocator> a) {
    if (!host_memory_) host_memory_ = std::move(a);
  }
  const std::shared_ptr<HostAllocator>& host_memory() const { return host_memory_; }

 private:
  const Options& options_;
  HostFacts host_;
  int driver_threads_ = 0;
  MemoryNode next_node_ = kHostNode + 1;
  std::vector<TopoNode> nodes_;
  std::vector<TopoLink> links_;
  std::map<std::string, std::shared_ptr<void>> shared_;
  std::shared_ptr<HostAllocator> host_memory_;
};

using DeviceList = std::vector<std::unique_ptr<Device>>;

struct Backend {
  std::string name;            // spec keyword: "cpu", "sim", "cuda", "opencl"
  std::string spec_help;       // one line per accepted form, for `baton devices --help`
  bool in_default_set = true;  // part of the "all detected devices" set
  // args: what followed "name:" in the spec item ("" when there was no colon).
  // Throws Error(bad_device_spec) for bad arguments and
  // Error(backend_unavailable) when the backend finds nothing to run on.
  std::function<DeviceList(const std::string& args, BackendContext& ctx)> create;
};

Backend cpu_backend();
Backend sim_backend();
#ifdef BATON_HAVE_CUDA
Backend cuda_backend();
#endif
#ifdef BATON_HAVE_OPENCL
Backend opencl_backend();
#endif

}  // namespace baton::detail
