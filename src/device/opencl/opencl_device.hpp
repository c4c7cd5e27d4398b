// One OpenCL device: buffers in the platform's shared context, on a memory
// node of their own (even PoCL's CPU devices keep separate buffers), and one
// in-order queue per role.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "baton/device.hpp"
#include "device/opencl/opencl_context.hpp"
#include "device/opencl/opencl_queue.hpp"

namespace baton::detail::opencl {

class ClDevice final : public Device {
 public:
  ClDevice(DeviceInfo info, std::shared_ptr<ClContext> context, cl_device_id device,
           std::uint64_t max_alloc);

  // DeviceMemory{ptr = nullptr, handle = cl_mem}. Throws Errc::out_of_memory
  // beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE or the device's global memory.
  DeviceMemory allocate(std::size_t bytes) override;
  void release(DeviceMemory memory) override;
  Queue& queue(QueueRole role) override;
  // Direct when the peer is an OpenCL device of the same context.
  bool copy_from_peer(Queue& q, DeviceMemory dst, std::size_t dst_offset, Device& peer,
                      DeviceMemory src, std::size_t src_offset, std::size_t bytes) override;

  cl_device_id handle() const { return device_; }
  const ClContext& context() const { return *context_; }

 private:
  std::shared_ptr<ClContext> context_;
  cl_device_id device_;
  std::uint64_t max_alloc_;
  // OpenCL allocates lazily, at first use, so running out would surface at
  // some later enqueue; counting here reports it at allocate().
  std::atomic<std::uint64_t> allocated_{0};
  std::array<std::unique_ptr<ClQueue>, kQueueRoles> queues_;  // by QueueRole
};

}  // namespace baton::detail::opencl
