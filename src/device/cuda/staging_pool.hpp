// Transfers from and to pageable host memory, pipelined through pinned
// staging buffers: while the copy engine moves chunk i, the CPU copies chunk
// i+1 into (or chunk i-1 out of) another buffer. The pool (one per GPU) owns
// the pinned chunks; each queue keeps a ring of a few, with one event each.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "vendor/cuda/driver_api.hpp"

namespace baton::cuda {

class StagingPool {
 public:
  static constexpr std::size_t kChunk = std::size_t(8) << 20;

  StagingPool(CUcontext primary, std::string where);
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  void* take();  // kChunk bytes of pinned memory
  void give(void* chunk);

 private:
  CUcontext primary_;
  std::string where_;
  std::mutex mu_;
  std::vector<void*> free_, all_;
};

// A queue's staging buffers. Not thread-safe: one queue, one ring.
class StagingRing {
 public:
  static constexpr int kDepth = 3;

  StagingRing(StagingPool& pool, std::string where) : pool_(pool), where_(std::move(where)) {}
  ~StagingRing();
  StagingRing(const StagingRing&) = delete;
  StagingRing& operator=(const StagingRing&) = delete;

  // Enqueue host -> device on `stream`; returns once `host` has been read
  // (the last chunks may still be in flight).
  void write(CUstream stream, CUdeviceptr dst, const void* host, std::size_t bytes);
  // Device -> host on `stream`, after the work already in it; returns when
  // `host` holds the data.
  void read(CUstream stream, void* host, CUdeviceptr src, std::size_t bytes);

 private:
  struct Slot {
    void* buffer = nullptr;
    CUevent done = nullptr;  // the last DMA that used `buffer`
    bool pending = false;
  };
  // The slot's buffer and event, made on first use in the current context.
  Slot& slot(int i);
  void drain(Slot& s);  // waits for the slot's last DMA

  StagingPool& pool_;
  std::string where_;
  Slot slots_[kDepth];
  int next_ = 0;
};

}  // namespace baton::cuda
