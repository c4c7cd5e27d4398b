#include "device/cuda/pinned_host.hpp"

#include <cstdio>

#include "device/host_memory.hpp"
#include "vendor/cuda/driver_api.hpp"

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
  // Whole pages: the pages around a range are pinned with it. A page that
  // another registration holds makes the driver refuse: the memory then
  // stays pageable, which works, through staging.
  const std::uintptr_t page = 4096;
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(p) / page * page;
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes + page - 1) / page * page;
  const std::size_t span = end - begin;
  if (bytes < kSmallest || !reserve(span)) return false;
  ContextGuard guard(gpu_->primary());
  void* base = reinterpret_cast<void*>(begin);
  if (driver().cuMemHostRegister(base, span, CU_MEMHOSTREGISTER_PORTABLE) != CUDA_SUCCESS) {
    unreserve(span);
    return false;
  }
  std::lock_guard lock(mu_);
  registered_[p] = {base, span};
  return true;
}

void PinnedHostMemory::unregister_memory(void* p) {
  Registration r;
  {
    std::lock_guard lock(mu_);
    auto it = registered_.find(p);
    if (it == registered_.end()) return;
    r = it->second;
    registered_.erase(it);
  }
  ContextGuard guard(gpu_->primary());
  driver().cuMemHostUnregister(r.base);
  unreserve(r.bytes);
}

std::string PinnedHostMemory::describe() const {
  char text[96];
  std::snprintf(text, sizeof text, "pinned (cuMemHostAlloc) up to %.1f GiB, then pageable",
                double(limit_) / double(1ull << 30));
  return text;
}

}  // namespace baton::cuda
