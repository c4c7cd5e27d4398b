// One physical GPU: its properties, its primary context and what every device
// made from it shares (one memory node, the caching allocator, the pinned
// staging pool). Whole-GPU devices and SM partitions hold it by shared_ptr.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "baton/device.hpp"
#include "device/cuda/caching_allocator.hpp"
#include "device/cuda/staging_pool.hpp"
#include "vendor/cuda/driver_api.hpp"

namespace baton::cuda {

struct GpuProperties {
  int ordinal = 0;
  std::string model;       // "NVIDIA H200"
  std::string pci_bus_id;  // "0000:19:00.0"
  int sm_count = 0;
  int threads_per_sm = 0;  // resident at most
  int cc_major = 0, cc_minor = 0;
  int clock_khz = 0;  // SM boost clock
  std::uint64_t memory_bytes = 0;
  bool can_map_host = false;
};

// FP32 lanes per SM by architecture, for peak figures.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

class Gpu {
 public:
  // Retains the primary context of CUDA device `ordinal`; throws
  // Error(bad_device_spec) for an ordinal the driver does not have.
  static std::shared_ptr<Gpu> open(int ordinal, MemoryNode node);
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  const GpuProperties& props() const { return props_; }
  CUdevice device() const { return device_; }
  CUcontext primary() const { return primary_; }
  MemoryNode memory_node() const { return node_; }
  const std::string& topology_id() const { return topology_id_; }  // "gpu0"
  const std::string& name() const { return name_; }                // "cuda0"
  // FP32 peak of `sms` of this GPU's SMs at the boost clock, GFLOP/s.
  double peak_gflops(int sms) const;

  // Lets this GPU's contexts read `peer`'s memory directly; false where the
  // hardware has no peer path.
  bool enable_peer_access(const Gpu& peer);

  CachingAllocator& allocator() { return *allocator_; }
  StagingPool& staging() { return *staging_; }

 private:
  Gpu(int ordinal, MemoryNode node);

  GpuProperties props_;
  CUdevice device_ = 0;
  CUcontext primary_ = nullptr;
  MemoryNode node_;
  std::string topology_id_, name_;
  std::unique_ptr<CachingAllocator> allocator_;
  std::unique_ptr<StagingPool> staging_;
  std::mutex peer_mu_;
  std::set<CUdevice> peers_;  // peer access enabled
};

}  // namespace baton::cuda
