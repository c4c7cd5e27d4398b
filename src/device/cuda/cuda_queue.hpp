// A CUDA stream as a baton Queue, and a CUDA event as a baton Event.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "baton/device.hpp"
#include "device/cuda/context.hpp"
#include "device/cuda/module_cache.hpp"
#include "device/cuda/staging_pool.hpp"

namespace baton::cuda {

// Threads a block of an item-a-thread launch: the convention of
// include/baton/kernel.hpp.
constexpr unsigned kLaunchBlock = 256;

class CudaEvent final : public Event {
 public:
  CudaEvent(std::shared_ptr<Context> ctx, CUevent event, CUstream stream, bool timed = false)
      : ctx_(std::move(ctx)), event_(event), stream_(stream), timed_(timed) {}
  ~CudaEvent() override { ctx_->give_event(event_, timed_); }
  void wait() override;
  bool ready() override;
  // cuEventElapsedTime, where both were recorded with timing.
  double seconds_since(Event& start) override;
  CUevent handle() const { return event_; }
  CUstream stream() const { return stream_; }  // where it was recorded

 private:
  std::shared_ptr<Context> ctx_;
  CUevent event_;
  CUstream stream_;
  bool timed_;
};

class CudaQueue final : public Queue {
 public:
  CudaQueue(std::shared_ptr<Context> ctx, ModuleCache& modules, std::string where);
  ~CudaQueue() override;

  // Host memory the caller says is pinned is copied by DMA straight away;
  // pageable memory goes through the staging ring (and read() then returns
  // only once the data has landed).
  void write(DeviceMemory dst, std::size_t dst_offset, const void* host, std::size_t bytes,
             HostKind kind) override;
  void read(void* host, DeviceMemory src, std::size_t src_offset, std::size_t bytes,
            HostKind kind) override;
  void copy(DeviceMemory dst, std::size_t dst_offset, DeviceMemory src, std::size_t src_offset,
            std::size_t bytes) override;
  // Kernel::native_fn(cuda) when set (it gets the CUstream), else the
  // kernel's CUDA code, one thread per item in blocks of 256.
  void launch(const Kernel& kernel, Span span, const KernelArgs& args) override;
  EventPtr record() override { return record_event(false); }
  EventPtr record_timed() override { return record_event(true); }
  // A CUDA event of this process is waited for on the GPU (one of this very
  // stream needs nothing: the stream is in order); any other event on this
  // host thread.
  void wait(const EventPtr& event) override;
  // Any CUDA event: cuStreamWaitEvent orders work across contexts and GPUs.
  bool can_wait(const EventPtr& event) override;
  void finish() override;

  CUstream stream() const { return stream_; }
  CUcontext context() const { return ctx_->handle(); }

 private:
  EventPtr record_event(bool timed);
  std::shared_ptr<Context> ctx_;
  ModuleCache& modules_;
  std::string where_;
  CUstream stream_ = nullptr;
  std::unique_ptr<StagingRing> staging_;  // made on the first pageable transfer
  std::uint64_t last_kernel_ = 0;         // launches come from one worker thread
  CUfunction last_fn_ = nullptr;
  // The last events waited for (held, so that none is freed and another
  // allocated at its address): a task that reads the same input as the one
  // before it does not wait for the input's event again.
  std::array<EventPtr, 4> waited_{};
  std::size_t next_waited_ = 0;
};

}  // namespace baton::cuda
