// GPU telemetry through NVML, loaded with dlopen("libnvidia-ml.so.1") and
// declared here (no nvml.h needed to build). Utilisation is NVML's
// time-occupancy figure ("a kernel was running"), so it says whether a GPU is
// busy, not how much of it: use it for diagnosis, not for balancing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "baton/device.hpp"

namespace baton {

struct GpuSample {
  double time_s = 0;             // steady-clock seconds when taken
  unsigned util_gpu_pct = 0;     // share of the last sample period with a kernel running
  unsigned util_memory_pct = 0;  // share with device memory being read or written
  std::uint64_t memory_used = 0, memory_free = 0, memory_total = 0;  // bytes
  double power_w = 0;
  unsigned sm_clock_mhz = 0;
  unsigned temperature_c = 0;
};

// A GPU's PCIe link as NVML reports it: the most the device and the system
// allow (an idle GPU may run its link slower to save power).
struct PcieLink {
  unsigned generation = 0;  // 1 to 6
  unsigned width = 0;       // lanes
};
// GB/s per direction of a PCIe link: the signalling rate of its generation
// (2.5, 5, 8, 16, 32, 64 GT/s per lane) less its line encoding (8b/10b up to
// Gen 2, 128b/130b for Gen 3-5, 242/256 FLIT for Gen 6), times its lanes.
// Gen 5 x16: 63.0. 0 for a generation it does not know.
double pcie_gbps(const PcieLink& link);

// The NVML library, opened once per process.
class Nvml {
 public:
  static const Nvml& get();
  bool available() const { return error_.empty(); }
  const std::string& error() const { return error_; }  // why not available

  unsigned device_count() const { return count_; }
  // NVML's index of the GPU at PCI bus id "0000:19:00.0" (as CUDA spells it), or -1.
  int index_of_pci_bus_id(const std::string& bus_id) const;
  // NVML's index of the GPU a CUDA device runs on (a partition's: its GPU's), or -1.
  int index_of(const DeviceInfo& device) const;
  // One reading; nullopt when the index is bad or NVML fails. Fields a GPU
  // does not report stay 0.
  std::optional<GpuSample> sample(unsigned index) const;
  // NVML's P2P status over NVLink between two GPUs.
  bool nvlink_between(unsigned a, unsigned b) const;
  // Active NVLink links of a GPU (18 on an H100/H200 SXM).
  unsigned active_nvlinks(unsigned index) const;
  // The GPU's PCIe link, or nullopt where NVML does not say.
  std::optional<PcieLink> pcie_link(unsigned index) const;

  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

 private:
  Nvml();
  struct Api;
  Api* api_ = nullptr;
  std::string error_;
  unsigned count_ = 0;
};

}  // namespace baton
