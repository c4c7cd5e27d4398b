#include "device/cuda/pinned_host.hpp"

#include <cstdio>

#include "device/cuda/driver_api.hpp"
#include "device/host_memory.hpp"

namespace baton::cuda {

PinnedHostMemory::PinnedHostMemory(std::shared_ptr<Gpu> gpu, std::uint64_t limit_bytes)
    : gpu_(std::move(gpu)), limit_(limit_bytes) {}

bool PinnedHostMemory::reserve(std::size_t bytes) {
  std::lock_guard lock(mu_);
  if (in_use_ + bytes > limit_) return false;
  in_use_ += bytes;
  return true;
}

void PinnedHostMemory::unreserve(std::size_t bytes) {
  std::lock_guard lock(mu_);
  in_use_ -= std::min<std::uint64_t>(in_use_, bytes);
}

DeviceMemory PinnedHostMemory::allocate(const std::string& who, std::size_t bytes) {
  if (bytes >= kSmallest && reserve(bytes)) {
    ContextGuard guard(gpu_->primary());
    void* p = nullptr;
    if (driver().cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE) == CUDA_SUCCESS) {
      DeviceMemory m{p, 0, bytes};
      m.pinned = true;
      return m;
    }
    unreserve(bytes);
  }
  return detail::allocate_host(who, bytes);
}

void PinnedHostMemory::release(DeviceMemory memory) {
  if (!memory.pinned) {
    detail::release_host(memory);
    return;
  }
  ContextGuard guard(gpu_->primary());
  driver().cuMemFreeHost(memory.ptr);
  unreserve(memory.bytes);
}

bool PinnedHostMemory::register_memory(void* p, std::size_t bytes) {
  if (bytes < kSmallest || !reserve(bytes)) return false;
  ContextGuard guard(gpu_->primary());
  if (driver().cuMemHostRegister(p, bytes, CU_MEMHOSTREGISTER_PORTABLE) != CUDA_SUCCESS) {
    unreserve(bytes);
    return false;
  }
  std::lock_guard lock(mu_);
  registered_[p] = bytes;
  return true;
}

void PinnedHostMemory::unregister_memory(void* p) {
  std::size_t bytes = 0;
  {
    std::lock_guard lock(mu_);
    auto it = registered_.find(p);
    if (it == registered_.end()) return;
    bytes = it->second;
    registered_.erase(it);
  }
  ContextGuard guard(gpu_->primary());
  driver().cuMemHostUnregister(p);
  unreserve(bytes);
}

std::string PinnedHostMemory::describe() const {
  char text[96];
  std::snprintf(text, sizeof text, "pinned (cuMemHostAlloc) up to %.1f GiB, then pageable",
                double(limit_) / double(1ull << 30));
  return text;
}

}  // namespace baton::cuda
