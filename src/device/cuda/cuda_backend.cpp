// The "cuda" backend: device specs, DeviceInfo and topology for CUDA GPUs.
//   cuda                 every GPU, one device each ("cuda0", "cuda1", ...)
//   cuda:N               GPU N
//   cuda:N/64+32+16+8    GPU N as SM partitions ("cuda0.p0" ... "cuda0.p3")
//   cuda:N/~96+32        the 96 SMs set aside (another process's), cuda0.p1 of 32
#include <algorithm>
#include <charconv>
#include <cstdio>

#include "baton/error.hpp"
#include "common/human_bytes.hpp"
#include "device/backend.hpp"
#include "device/cuda/cuda_device.hpp"
#include "device/cuda/green_partition.hpp"
#include "device/cuda/pinned_host.hpp"

namespace baton::detail {
namespace {

using namespace baton::cuda;

// Pinned PCIe Gen5 x16 per direction, as measured on the H200 host
// (docs/results/data-path.md); the launch-to-first-byte cost of a DMA.
// The resource layer replaces the rate by the link's own generation and
// width where NVML gives them, and adds NVLink between GPUs.
constexpr double kPcieGbps = 55.0;
constexpr double kPcieLatencyUs = 2.0;

DeviceInfo base_info(const Gpu& gpu) {
  const GpuProperties& p = gpu.props();
  DeviceInfo info;
  info.backend = BackendKind::cuda;
  info.topology_id = gpu.topology_id();
  info.memory_node = gpu.memory_node();
  info.memory_bytes = p.memory_bytes;
  info.pci_bus_id = p.pci_bus_id;
  info.shares = {"gpu:" + (p.pci_bus_id.empty() ? gpu.topology_id() : p.pci_bus_id)};
  info.pipeline_depth = 3;  // copy in, compute, copy out overlapped
  info.needs_driver_thread = true;
  info.collective_library = "nccl";
  info.description = p.model + ", sm_" + std::to_string(p.cc_major * 10 + p.cc_minor) + ", " +
                     human_bytes(p.memory_bytes) + ", " + std::to_string(p.clock_khz / 1000) +
                     " MHz";
  return info;
}

// Buffers' host memory becomes pinned once a GPU is open (the first GPU's
// offer serves them all: pinned memory is portable to every context).
void offer_pinned_memory(const std::shared_ptr<Gpu>& gpu, BackendContext& ctx) {
  if (ctx.host_memory()) return;
  const double gb = ctx.options().pinned_limit_gb;
  const std::uint64_t limit =
      gb > 0 ? std::uint64_t(gb * double(1ull << 30)) : ctx.host().memory_bytes / 2;
  ctx.offer_host_memory(std::make_shared<PinnedHostMemory>(gpu, limit));
}

void add_topology(const Gpu& gpu, BackendContext& ctx) {
  ctx.add_node({gpu.topology_id(), "gpu"});
  ctx.add_link({gpu.topology_id(), "host", LinkKind::pcie, kPcieGbps, kPcieLatencyUs});
}

// A device of `sms` of the GPU's SMs: its capability and what it runs at once.
void set_sms(DeviceInfo& info, const Gpu& gpu, int sms) {
  info.compute_units = sms;
  info.peak_gflops = gpu.peak_gflops(sms);
  info.parallel_items = std::uint64_t(sms) * std::uint64_t(std::max(1, gpu.props().threads_per_sm));
  info.wave_step = std::min<std::uint64_t>(info.parallel_items, std::uint64_t(sms) * kLaunchBlock);
}

DeviceList whole_gpu(const std::shared_ptr<Gpu>& gpu, bool zero_copy) {
  DeviceInfo info = base_info(*gpu);
  info.name = gpu->name();
  set_sms(info, *gpu, gpu->props().sm_count);
  info.description += ", " + std::to_string(info.compute_units) + " SMs";
  DeviceList list;
  info.maps_host_memory = zero_copy;
  list.push_back(std::make_unique<CudaDevice>(std::move(info), Context::primary(gpu), zero_copy));
  return list;
}

DeviceList partitions(const std::shared_ptr<Gpu>& gpu, const std::vector<int>& sizes,
                      const std::vector<bool>& skipped, const std::string& where, bool zero_copy) {
  DeviceList list;
  const auto contexts = create_partitions(gpu, sizes, skipped, where);
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    if (!contexts[i]) continue;  // set aside ('~'): its number stays its own
    DeviceInfo info = base_info(*gpu);
    info.name = gpu->name() + ".p" + std::to_string(i);
    set_sms(info, *gpu, contexts[i]->sm_count());
    info.description += ", partition " + std::to_string(i) + ": " +
                        std::to_string(info.compute_units) + " of " +
                        std::to_string(gpu->props().sm_count) + " SMs (green context)";
    info.maps_host_memory = zero_copy;
    list.push_back(std::make_unique<CudaDevice>(std::move(info), contexts[i], zero_copy));
  }
  return list;
}

int parse_ordinal(const std::string& text, const std::string& where) {
  int v = -1;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < 0)
    raise(Errc::bad_device_spec, where,
          "expected cuda, cuda:N or cuda:N/64+32+16+8 (GPU N split into SM partitions; "
          "~96+32: the 96 set aside); "
          "list several GPUs as cuda:0,cuda:1");
  return v;
}

DeviceList create(const std::string& args, BackendContext& ctx) {
  const std::string where = args.empty() ? "cuda" : "cuda:" + args;
  const bool zero_copy = ctx.options().cuda_zero_copy;
  if (args.empty()) {
    int count = 0;  // driver() throws backend_unavailable with the reason
    BATON_CU("cuda", cuDeviceGetCount, &count);
    DeviceList all;
    for (int i = 0; i < count; ++i) {
      auto gpu = Gpu::open(i, ctx.new_memory_node());
      add_topology(*gpu, ctx);
      offer_pinned_memory(gpu, ctx);
      for (auto& dev : whole_gpu(gpu, zero_copy)) all.push_back(std::move(dev));
    }
    return all;
  }
  const std::size_t slash = args.find('/');
  const int ordinal = parse_ordinal(args.substr(0, slash), where);
  // Sizes are checked for form before the driver is touched.
  std::vector<int> sizes;
  std::vector<bool> skipped;
  if (slash != std::string::npos)
    sizes = parse_partition_sizes(args.substr(slash + 1), where, &skipped);
  auto gpu = Gpu::open(ordinal, ctx.new_memory_node());
  DeviceList list =
      sizes.empty() ? whole_gpu(gpu, zero_copy) : partitions(gpu, sizes, skipped, where, zero_copy);
  add_topology(*gpu, ctx);
  offer_pinned_memory(gpu, ctx);
  return list;
}

}  // namespace

Backend cuda_backend() {
  Backend b;
  b.name = "cuda";
  b.spec_help =
      "cuda                  every CUDA GPU, one device each (cuda0, cuda1, ...)\n"
      "cuda:N                GPU N\n"
      "cuda:N/64+32+16+8     GPU N split into SM partitions (green contexts: cuda0.p0, ...)\n"
      "cuda:N/~96+32         the same, the partition after ~ set aside (another process's SMs)\n"
      "                      in the GPU's granularity (8 SMs on Hopper)";
  b.create = create;
  return b;
}

}  // namespace baton::detail
