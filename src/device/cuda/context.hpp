// An execution context on one GPU: its primary context (a whole-GPU device)
// or a green context holding some of its SMs (a partition). Streams, events
// and modules belong to one; events keep it alive, so an Event may outlive
// its device.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "device/cuda/gpu.hpp"
#include "vendor/cuda/context_registry.hpp"
#include "vendor/cuda/driver_api.hpp"

namespace baton::cuda {

class Context {
 public:
  static std::shared_ptr<Context> primary(std::shared_ptr<Gpu> gpu);
  // Takes ownership of `green`, a green context with `sm_count` SMs.
  static std::shared_ptr<Context> green(std::shared_ptr<Gpu> gpu, CUgreenCtx green, int sm_count);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  CUcontext handle() const { return ctx_; }
  Gpu& gpu() const { return *gpu_; }
  bool is_green() const { return green_ != nullptr; }
  int sm_count() const { return sm_count_; }

  CUstream create_stream();  // non-blocking, in this context
  // Events are recycled: record() runs once per chunk. `timed`: with timing
  // (record_timed), else timing disabled (cheaper to record and wait for).
  CUevent take_event(bool timed = false);
  void give_event(CUevent e, bool timed = false);

 private:
  Context(std::shared_ptr<Gpu> gpu, CUcontext ctx, CUgreenCtx green, int sm_count);

  std::shared_ptr<Gpu> gpu_;
  CUcontext ctx_;
  CUgreenCtx green_;
  int sm_count_;
  std::mutex mu_;
  std::vector<CUevent> events_, timed_events_;
  std::uint64_t registration_;  // in vendor/cuda/context_registry
};

}  // namespace baton::cuda
