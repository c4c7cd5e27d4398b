#include "device/cuda/staging_pool.hpp"

#include <algorithm>

#include "device/cuda/host_copy.hpp"

namespace baton::cuda {

StagingPool::StagingPool(CUcontext primary, std::string where)
    : primary_(primary), where_(std::move(where)) {}

StagingPool::~StagingPool() {
  ContextGuard guard(primary_);
  for (void* p : all_) driver().cuMemFreeHost(p);
}

void* StagingPool::take() {
  std::lock_guard lock(mu_);
  if (!free_.empty()) {
    void* p = free_.back();
    free_.pop_back();
    return p;
  }
  ContextGuard guard(primary_);
  void* p = nullptr;
  // Portable: usable from the green contexts of this GPU as well.
  BATON_CU(where_, cuMemHostAlloc, &p, kChunk, CU_MEMHOSTALLOC_PORTABLE);
  all_.push_back(p);
  return p;
}

void StagingPool::give(void* chunk) {
  std::lock_guard lock(mu_);
  free_.push_back(chunk);
}

StagingRing::~StagingRing() {
  for (Slot& s : slots_) {
    if (!s.buffer) continue;
    // A DMA may still read the buffer: wait before it goes back to the pool.
    if (s.pending) driver().cuEventSynchronize(s.done);
    driver().cuEventDestroy(s.done);
    pool_.give(s.buffer);
  }
}

StagingRing::Slot& StagingRing::slot(int i) {
  Slot& s = slots_[i];
  if (!s.buffer) {
    BATON_CU(where_, cuEventCreate, &s.done, CU_EVENT_DISABLE_TIMING);
    s.buffer = pool_.take();
  }
  return s;
}

void StagingRing::drain(Slot& s) {
  if (!s.pending) return;
  BATON_CU(where_, cuEventSynchronize, s.done);
  s.pending = false;
}

void StagingRing::write(CUstream stream, CUdeviceptr dst, const void* host, std::size_t bytes) {
  const auto* src = static_cast<const char*>(host);
  for (std::size_t off = 0; off < bytes; off += StagingPool::kChunk) {
    const std::size_t n = std::min(StagingPool::kChunk, bytes - off);
    Slot& s = slot(next_);
    next_ = (next_ + 1) % kDepth;
    drain(s);
    parallel_memcpy(s.buffer, src + off, n);
    BATON_CU(where_, cuMemcpyHtoDAsync, dst + off, s.buffer, n, stream);
    BATON_CU(where_, cuEventRecord, s.done, stream);
    s.pending = true;
  }
}

void StagingRing::read(CUstream stream, void* host, CUdeviceptr src, std::size_t bytes) {
  auto* out = static_cast<char*>(host);
  const std::size_t chunks = (bytes + StagingPool::kChunk - 1) / StagingPool::kChunk;
  auto chunk_bytes = [&](std::size_t c) {
    return std::min(StagingPool::kChunk, bytes - c * StagingPool::kChunk);
  };
  auto enqueue = [&](std::size_t c) {
    Slot& s = slot(int(c % kDepth));
    drain(s);
    BATON_CU(where_, cuMemcpyDtoHAsync, s.buffer, src + c * StagingPool::kChunk, chunk_bytes(c),
             stream);
    BATON_CU(where_, cuEventRecord, s.done, stream);
    s.pending = true;
  };
  // Keep kDepth chunks in flight; copy each out as soon as it has landed.
  for (std::size_t c = 0; c < std::min<std::size_t>(chunks, kDepth); ++c) enqueue(c);
  for (std::size_t c = 0; c < chunks; ++c) {
    Slot& s = slots_[c % kDepth];
    drain(s);
    parallel_memcpy(out + c * StagingPool::kChunk, s.buffer, chunk_bytes(c));
    if (c + kDepth < chunks) enqueue(c + kDepth);
  }
  next_ = 0;
}

}  // namespace baton::cuda
