// How a backend plugs into baton: a name, help text for its device spec, and a
// factory that turns the arguments of one spec item into devices. Backends are
// listed in registry.cpp; they never include each other.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "baton/device.hpp"
#include "baton/topology.hpp"

namespace baton::detail {

// What a backend may touch while it creates devices.
class BackendContext {
 public:
  explicit BackendContext(Topology& topo) : topo_(topo) {}
  MemoryNode new_memory_node() { return next_node_++; }
  Topology& topology() { return topo_; }

 private:
  Topology& topo_;
  MemoryNode next_node_ = kHostNode + 1;
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
