// Buffers' host memory where a GPU is present: pinned (page-locked, portable
// to every context), so copies run on the copy engines at link speed with no
// staging copy. Pinned memory is taken from what the OS can swap, so it is
// bounded (BATON_PINNED_LIMIT_GB); past the bound, or where the driver
// refuses, buffers fall back to pageable memory and its staged copies.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "baton/device.hpp"
#include "device/cuda/gpu.hpp"

namespace baton::cuda {

class PinnedHostMemory final : public HostAllocator {
 public:
  // Buffers below this stay pageable: pinning costs a driver call, and their
  // copies are too small for the staging copy to matter.
  static constexpr std::size_t kSmallest = std::size_t(256) << 10;

  PinnedHostMemory(std::shared_ptr<Gpu> gpu, std::uint64_t limit_bytes);
  DeviceMemory allocate(const std::string& who, std::size_t bytes) override;
  void release(DeviceMemory memory) override;
  bool register_memory(void* p, std::size_t bytes) override;
  void unregister_memory(void* p) override;
  std::string describe() const override;

 private:
  bool reserve(std::size_t bytes);  // counts `bytes` against the bound, if they fit
  void unreserve(std::size_t bytes);

  std::shared_ptr<Gpu> gpu_;  // its primary context is current for the driver calls
  const std::uint64_t limit_;
  std::mutex mu_;
  std::uint64_t in_use_ = 0;
  struct Registration {
    void* base = nullptr;  // the first page
    std::size_t bytes = 0;
  };
  std::unordered_map<void*, Registration> registered_;  // by the caller's pointer
};

}  // namespace baton::cuda
