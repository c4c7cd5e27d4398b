// The `opencl` backend: devices of every platform the ICD loader offers.
#include <map>

#include "device/backend.hpp"
#include "device/opencl/link_probe.hpp"
#include "device/opencl/opencl_device.hpp"
#include "device/opencl/opencl_device_info.hpp"
#include "device/opencl/opencl_platforms.hpp"
#include "device/opencl/opencl_spec.hpp"

namespace baton::detail {

namespace {

using opencl::ClDeviceIndex;
using opencl::ClPlatform;

void add_to_topology(BackendContext& ctx, const Device& device, LinkKind kind,
                     const opencl::LinkFigures& link) {
  ctx.add_node({device.info().topology_id, "opencl"});
  ctx.add_link({"host", device.info().topology_id, kind, link.gbps, link.latency_us});
}

DeviceList create_devices(const std::string& args, BackendContext& ctx) {
  const std::vector<ClPlatform> platforms = opencl::discover_platforms();
  std::map<int, std::vector<int>> chosen;  // platform -> its selected devices, in order
  for (ClDeviceIndex i : opencl::select_devices(args, platforms))
    chosen[i.platform].push_back(i.device);

  DeviceList devices;
  for (const auto& [p, indices] : chosen) {
    const ClPlatform& platform = platforms[p];
    std::vector<cl_device_id> ids;
    for (int d : indices) ids.push_back(platform.devices[d]);
    auto context =
        std::make_shared<opencl::ClContext>(platform.id, ids, "opencl" + std::to_string(p));
    for (int d : indices) {
      opencl::ClDeviceFacts facts = opencl::query_device(platform, {p, d});
      facts.info.memory_node = ctx.new_memory_node();
      auto device = std::make_unique<opencl::ClDevice>(std::move(facts.info), context,
                                                       platform.devices[d], facts.max_alloc);
      add_to_topology(ctx, *device, facts.host_link, opencl::probe_host_link(*device));
      devices.push_back(std::move(device));
    }
  }
  return devices;
}

}  // namespace

Backend opencl_backend() {
  Backend b;
  b.name = "opencl";
  b.spec_help =
      "  opencl                every device of every OpenCL platform (in auto too, but for\n"
      "                        NVIDIA's platform when the cuda backend drives those GPUs)\n"
      "  opencl:P              every device of platform P\n"
      "  opencl:P.D            device D of platform P\n";
  b.create = create_devices;
  return b;
}

}  // namespace baton::detail
