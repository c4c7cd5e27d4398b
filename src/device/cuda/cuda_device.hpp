// A baton Device on a whole GPU (its primary context) or on one SM partition
// of it (a green context). Partitions of one GPU share its memory node,
// allocator and staging pool.
#pragma once

#include <memory>

#include "baton/device.hpp"
#include "device/cuda/context.hpp"
#include "device/cuda/cuda_queue.hpp"
#include "device/cuda/module_cache.hpp"

namespace baton::cuda {

class CudaDevice final : public Device {
 public:
  // zero_copy: every allocation is host memory mapped into the GPU (BATON_CUDA_ZERO_COPY).
  CudaDevice(DeviceInfo info, std::shared_ptr<Context> ctx, bool zero_copy);
  ~CudaDevice() override;

  // Device memory from the GPU's caching allocator, or zero-copy mapped host
  // memory for every allocation when BATON_CUDA_ZERO_COPY=1.
  DeviceMemory allocate(std::size_t bytes) override;
  // Zero-copy host memory mapped into the GPU, whatever the environment says.
  DeviceMemory allocate_mapped(std::size_t bytes);
  void release(DeviceMemory memory) override;
  Queue& queue(QueueRole role) override;
  // Makes this device's context current on the calling thread. A green
  // context may be current on one thread at a time: the worker's.
  void bind_thread() override;
  // Same GPU (another partition): a device-to-device copy. Another GPU with
  // peer access: cuMemcpyPeerAsync. Anything else: false.
  bool copy_from_peer(Queue& q, DeviceMemory dst, std::size_t dst_offset, Device& peer,
                      DeviceMemory src, std::size_t src_offset, std::size_t bytes) override;

  Context& context() const { return *ctx_; }
  Gpu& gpu() const { return ctx_->gpu(); }

 private:
  std::shared_ptr<Context> ctx_;
  std::unique_ptr<ModuleCache> modules_;
  std::unique_ptr<CudaQueue> queues_[kQueueRoles];  // by QueueRole
  bool zero_copy_ = false;
};

}  // namespace baton::cuda
