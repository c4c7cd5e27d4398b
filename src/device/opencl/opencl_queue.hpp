// An in-order cl_command_queue behind baton's Queue. Transfers are enqueued
// non-blocking (the Queue contract keeps host memory valid until the queue
// passes them); events are markers, flushed so that other queues and host
// threads waiting on them see progress.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "baton/device.hpp"
#include "device/opencl/opencl_context.hpp"
#include "vendor/opencl/cl_api.hpp"

namespace baton::detail::opencl {

inline cl_mem cl_mem_of(const DeviceMemory& memory) {
  return reinterpret_cast<cl_mem>(memory.handle);
}

class ClQueue final : public Queue {
 public:
  // `where`: the device's name, for errors.
  ClQueue(std::shared_ptr<ClContext> context, cl_device_id device, std::string where);
  ~ClQueue() override;
  ClQueue(const ClQueue&) = delete;
  ClQueue& operator=(const ClQueue&) = delete;

  void write(DeviceMemory dst, std::size_t dst_offset, const void* host, std::size_t bytes,
             HostKind kind) override;
  void read(void* host, DeviceMemory src, std::size_t src_offset, std::size_t bytes,
            HostKind kind) override;
  // Any two buffers of this queue's context: also serves copies from a peer device.
  void copy(DeviceMemory dst, std::size_t dst_offset, DeviceMemory src, std::size_t src_offset,
            std::size_t bytes) override;
  // Thread-safe: arguments are set and the kernel enqueued under one lock.
  void launch(const Kernel& kernel, Span span, const KernelArgs& args) override;
  EventPtr record() override;
  // An event of this context: a device-side barrier. Any other event (another
  // backend's, another platform's): the calling thread waits for it on the host.
  void wait(const EventPtr& event) override;
  // Events of this queue's context, waited for by a device-side barrier.
  bool can_wait(const EventPtr& event) override;
  void finish() override;

  cl_command_queue handle() const { return queue_; }
  const ClContext& context() const { return *context_; }

 private:
  // clSetKernelArg is not thread-safe on one cl_kernel, so every queue makes
  // its own from the context's cached program.
  struct ClKernel {
    cl_kernel kernel = nullptr;
    std::size_t local_size = 1;  // work-group size used for every launch
    cl_uint arg_count = 0;       // begin, end and the kernel's own parameters
  };
  ClKernel& kernel_for(const Kernel& kernel, const GpuCode& code);  // under launch_mutex_

  std::shared_ptr<ClContext> context_;
  cl_device_id device_;
  std::string where_;
  cl_command_queue queue_ = nullptr;
  std::mutex launch_mutex_;
  std::unordered_map<std::uint64_t, ClKernel> kernels_;  // by Kernel::id()
};

}  // namespace baton::detail::opencl
