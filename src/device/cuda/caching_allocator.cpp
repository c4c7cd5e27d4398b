#include "device/cuda/caching_allocator.hpp"

#include <bit>
#include <cstdio>

#include "baton/error.hpp"
#include "common/human_bytes.hpp"

namespace baton::cuda {

using detail::human_bytes;

std::size_t CachingAllocator::size_class(std::size_t bytes) {
  constexpr std::size_t kMin = 512, kLarge = std::size_t(32) << 20, kPage = std::size_t(2) << 20;
  if (bytes <= kMin) return kMin;
  if (bytes > kLarge) return (bytes + kPage - 1) / kPage * kPage;
  // Four classes per power of two: 2^s < bytes <= 2^(s+1) rounds up to a
  // multiple of 2^s / 4.
  const int s = std::bit_width(bytes - 1) - 1;
  const std::size_t step = (std::size_t(1) << s) / 4;
  return (bytes + step - 1) / step * step;
}

bool CachingAllocator::managed_fits(std::size_t bytes, std::size_t free_bytes) {
  return free_bytes >= kManagedHeadroom && bytes <= free_bytes - kManagedHeadroom;
}

CachingAllocator::CachingAllocator(CUcontext primary, std::string where)
    : primary_(primary), where_(std::move(where)) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard lock(mu_);
  trim_locked();
  // Blocks still handed out go with the primary context when it is destroyed.
}

CUdeviceptr CachingAllocator::take_cached(std::size_t cls) {
  auto it = free_.lower_bound(cls);
  if (it == free_.end() || it->first > cls + cls / 8) return 0;
  CUdeviceptr p = it->second.back();
  it->second.pop_back();
  stats_.cached_bytes -= it->first;
  live_[p] = Block{it->first, Kind::device};
  stats_.live_bytes += it->first;
  if (it->second.empty()) free_.erase(it);
  ++stats_.reuses;
  return p;
}

DeviceMemory CachingAllocator::allocate(std::size_t bytes) {
  if (bytes == 0) raise(Errc::invalid_argument, where_, "allocation of 0 bytes");
  const std::size_t cls = size_class(bytes);
  std::lock_guard lock(mu_);
  if (CUdeviceptr p = take_cached(cls)) return DeviceMemory{reinterpret_cast<void*>(p), 0, bytes};

  const DriverApi& d = driver();
  ContextGuard guard(primary_);
  auto try_device = [&]() -> CUdeviceptr {
    if (device_limit_ && device_bytes_ + cls > device_limit_) return 0;
    CUdeviceptr p = 0;
    CUresult r = d.cuMemAlloc(&p, cls);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return 0;
    check(r, "cuMemAlloc", where_);
    return p;
  };
  CUdeviceptr p = try_device();
  if (!p && !free_.empty()) {
    trim_locked();  // cached blocks of other sizes may be what is missing
    p = try_device();
  }
  if (p) {
    device_bytes_ += cls;
    live_[p] = Block{cls, Kind::device};
    stats_.live_bytes += cls;
    ++stats_.driver_allocs;
    return DeviceMemory{reinterpret_cast<void*>(p), 0, bytes};
  }

  std::size_t free_bytes = 0, total = 0;
  BATON_CU(where_, cuMemGetInfo, &free_bytes, &total);
  if (!managed_fits(cls, free_bytes)) out_of_memory(bytes, free_bytes, total);
  BATON_CU(where_, cuMemAllocManaged, &p, cls, CU_MEM_ATTACH_GLOBAL);
  live_[p] = Block{cls, Kind::managed};
  stats_.live_bytes += cls;
  ++stats_.managed_allocs;
  DeviceMemory m{reinterpret_cast<void*>(p), 0, bytes};
  m.managed = true;
  return m;
}

void CachingAllocator::out_of_memory(std::size_t bytes, std::size_t free_bytes,
                                     std::size_t total) const {
  raise(Errc::out_of_memory, where_,
        human_bytes(bytes) + " requested, " + human_bytes(free_bytes) + " free of " +
            human_bytes(total) +
            (device_limit_ ? " (capped at " + human_bytes(device_limit_) + ")" : std::string()) +
            "; managed memory is used only within free memory");
}

DeviceMemory CachingAllocator::allocate_mapped(std::size_t bytes) {
  if (bytes == 0) raise(Errc::invalid_argument, where_, "allocation of 0 bytes");
  ContextGuard guard(primary_);
  void* host = nullptr;
  CUresult r =
      driver().cuMemHostAlloc(&host, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    raise(Errc::out_of_memory, where_, human_bytes(bytes) + " of mapped host memory");
  check(r, "cuMemHostAlloc", where_);
  CUdeviceptr p = 0;
  BATON_CU(where_, cuMemHostGetDevicePointer, &p, host, 0);
  std::lock_guard lock(mu_);
  live_[p] = Block{bytes, Kind::mapped};
  DeviceMemory m{reinterpret_cast<void*>(p), reinterpret_cast<std::uintptr_t>(host), bytes};
  m.mapped = true;
  return m;
}

void CachingAllocator::release(DeviceMemory memory) {
  const auto p = reinterpret_cast<CUdeviceptr>(memory.ptr);
  std::lock_guard lock(mu_);
  auto it = live_.find(p);
  if (it == live_.end())
    raise(Errc::internal, where_, "release of memory this device did not allocate");
  const Block block = it->second;
  live_.erase(it);
  ContextGuard guard(primary_);
  switch (block.kind) {
    case Kind::device:
      stats_.live_bytes -= block.bytes;
      free_[block.bytes].push_back(p);
      stats_.cached_bytes += block.bytes;
      break;
    case Kind::managed:
      stats_.live_bytes -= block.bytes;
      BATON_CU(where_, cuMemFree, p);
      break;
    case Kind::mapped:
      BATON_CU(where_, cuMemFreeHost, reinterpret_cast<void*>(memory.handle));
      break;
  }
}

void CachingAllocator::trim() {
  std::lock_guard lock(mu_);
  trim_locked();
}

void CachingAllocator::trim_locked() {
  if (free_.empty()) return;
  ContextGuard guard(primary_);
  for (auto& [cls, blocks] : free_) {
    for (CUdeviceptr p : blocks) {
      driver().cuMemFree(p);
      device_bytes_ -= cls;
    }
  }
  free_.clear();
  stats_.cached_bytes = 0;
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void CachingAllocator::limit_device_bytes(std::size_t bytes) {
  std::lock_guard lock(mu_);
  device_limit_ = bytes;
}

}  // namespace baton::cuda
