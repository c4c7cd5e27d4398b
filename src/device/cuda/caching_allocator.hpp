// Device memory of one GPU, cached: released blocks go to size-class free
// lists and are handed out again without cuMemFree/cuMemAlloc (each of which
// synchronises the device). When the GPU is full the cache is trimmed and the
// request retried; after that, unified (managed) memory is taken, but only
// where it fits in the memory cuMemGetInfo reports free: oversubscribing
// managed memory can hang the GPU.
//
// Callers release a block only once the work using it has finished (as with
// every baton device): a cached block is reused at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "baton/kernel.hpp"
#include "vendor/cuda/driver_api.hpp"

namespace baton::cuda {

struct AllocatorStats {
  std::uint64_t driver_allocs = 0;   // blocks taken from cuMemAlloc
  std::uint64_t reuses = 0;          // requests served from the cache
  std::uint64_t managed_allocs = 0;  // out-of-memory fallbacks to managed memory
  std::uint64_t cached_bytes = 0;    // free blocks held in the cache now
  std::uint64_t live_bytes = 0;      // blocks handed out now
};

class CachingAllocator {
 public:
  CachingAllocator(CUcontext primary, std::string where);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Device memory; managed memory as the fallback; Error(out_of_memory) when
  // neither fits.
  DeviceMemory allocate(std::size_t bytes);
  // Zero-copy: pinned host memory mapped into the device (DeviceMemory.mapped).
  DeviceMemory allocate_mapped(std::size_t bytes);
  void release(DeviceMemory memory);
  // Frees every cached block.
  void trim();
  AllocatorStats stats() const;

  // Caps the device memory this allocator takes from cuMemAlloc, as if the GPU
  // had only `bytes`; beyond it requests take the out-of-memory path. For
  // tests of that path without filling a real GPU; 0 lifts the cap.
  void limit_device_bytes(std::size_t bytes);

  // Rounds a request up to its size class (at most 1/4 more, and 2 MiB
  // multiples above 32 MiB, which is cuMemAlloc's own granularity).
  static std::size_t size_class(std::size_t bytes);
  // The fallback rule: managed memory only when the request, plus headroom
  // for the driver, fits in what is free now.
  static bool managed_fits(std::size_t bytes, std::size_t free_bytes);
  static constexpr std::size_t kManagedHeadroom = std::size_t(256) << 20;

 private:
  enum class Kind : std::uint8_t { device, managed, mapped };
  struct Block {
    std::size_t bytes;  // size class
    Kind kind;
  };
  // Under mu_: a cached block of class >= cls and at most 1/8 larger, or 0.
  CUdeviceptr take_cached(std::size_t cls);
  void trim_locked();
  [[noreturn]] void out_of_memory(std::size_t bytes, std::size_t free_bytes,
                                  std::size_t total) const;

  CUcontext primary_;
  std::string where_;
  mutable std::mutex mu_;
  std::map<std::size_t, std::vector<CUdeviceptr>> free_;  // by size class
  std::unordered_map<CUdeviceptr, Block> live_;
  std::size_t device_bytes_ = 0;  // from cuMemAlloc: live + cached
  std::size_t device_limit_ = 0;
  AllocatorStats stats_;
};

}  // namespace baton::cuda
