// Opening devices from a spec string (--devices, BATON_DEVICES).
//   auto                 every device every compiled-in backend finds
//   cpu | cpu:N | cpu:NxT  the host CPU as 1 or N devices (T threads each)
//   sim:8,4,2,1          virtual devices of those speeds; sim:FILE.json from a topology file
//   cuda | cuda:G | cuda:G/64+32   GPUs, or GPU G split into SM partitions
//   opencl | opencl:P | opencl:P.D OpenCL devices
// Items are separated by commas; numbers after "sim:" belong to the sim item.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "baton/device.hpp"
#include "baton/options.hpp"
#include "baton/topology.hpp"

namespace baton {

struct DeviceSet {
  std::vector<std::unique_ptr<Device>> devices;
  Topology topology;
  // Why a backend contributed nothing under "auto" ("cuda: libcuda.so.1 not found").
  std::vector<std::string> notes;
  // Per device, the host CPUs its worker thread should run on: those of the
  // NUMA node the device hangs off. Empty: anywhere.
  std::vector<std::vector<unsigned>> affinity;
  // Buffers' host memory: what a backend offered (pinned where a GPU is);
  // null: pageable, which the Runtime then takes.
  std::shared_ptr<HostAllocator> host_memory;
};

struct SpecItem {
  std::string backend;  // "sim"
  std::string args;     // "8,4,2,1" ("" when the item had no colon)
};

// Splits a spec into items; throws Error(bad_device_spec) naming the bad part.
std::vector<SpecItem> parse_device_spec(const std::string& spec);
// Opens the devices of a spec, with the backends' settings from `options`.
// Throws Error(bad_device_spec) for a malformed spec, Error(backend_unavailable)
// when an item names a backend that finds nothing.
DeviceSet open_devices(const std::string& spec, const Options& options = env_options());
// Devices among `among` (indices into `devices`) that share a resource
// (DeviceInfo::shares), directly or through others: the host's cores, one
// GPU's link and memory. Each group of two or more, with the first resource
// that ties it.
struct SharingGroup {
  std::vector<int> devices;
  std::string resource;  // "host-cores", "gpu:0000:19:00.0"
};
std::vector<SharingGroup> sharing_groups(const std::vector<std::unique_ptr<Device>>& devices,
                                         const std::vector<int>& among);
// One line per backend and accepted form, for --help.
std::string device_spec_help();
// Names of the backends compiled into this build.
std::vector<std::string> compiled_backends();

}  // namespace baton
