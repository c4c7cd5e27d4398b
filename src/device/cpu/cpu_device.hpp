// The cpu backend: a device is a group of host threads computing straight on
// host memory (memory node 0). Its queue runs each command as it is enqueued.
#pragma once

#include <chrono>
#include <memory>

#include "baton/device.hpp"
#include "device/cpu/thread_group.hpp"

namespace baton::detail {

class CpuDevice final : public Device {
 public:
  // `spin`: how long its threads look for the next job before they sleep.
  CpuDevice(DeviceInfo info, int threads, std::chrono::nanoseconds spin);
  DeviceMemory allocate(std::size_t bytes) override;
  void release(DeviceMemory memory) override;
  Queue& queue(QueueRole role) override;
  bool copy_from_peer(Queue& q, DeviceMemory dst, std::size_t dst_offset, Device& peer,
                      DeviceMemory src, std::size_t src_offset, std::size_t bytes) override;
  ThreadGroup& threads() { return group_; }

 private:
  class CpuQueue;
  ThreadGroup group_;
  std::unique_ptr<Queue> queue_;
};

}  // namespace baton::detail
