#include "device/opencl/opencl_device.hpp"

#include <algorithm>

#include "baton/error.hpp"
#include "device/opencl/cl_error.hpp"

namespace baton::detail::opencl {

ClDevice::ClDevice(DeviceInfo info, std::shared_ptr<ClContext> context, cl_device_id device,
                   std::uint64_t max_alloc)
    : Device(std::move(info)),
      context_(std::move(context)),
      device_(device),
      max_alloc_(max_alloc) {
  for (auto& q : queues_) q = std::make_unique<ClQueue>(context_, device_, name());
}

DeviceMemory ClDevice::allocate(std::size_t bytes) {
  if (bytes > max_alloc_)
    raise(Errc::out_of_memory, name(),
          std::to_string(bytes) + " bytes exceed the largest single allocation (" +
              std::to_string(max_alloc_) + " bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
  const std::uint64_t before = allocated_.fetch_add(bytes);
  if (before + bytes > info_.memory_bytes) {
    allocated_.fetch_sub(bytes);
    raise(Errc::out_of_memory, name(),
          std::to_string(bytes) + " bytes do not fit: " + std::to_string(before) + " of " +
              std::to_string(info_.memory_bytes) + " bytes are allocated");
  }
  cl_int status = CL_SUCCESS;
  // OpenCL has no empty buffers; a 1-byte one stands for an empty allocation.
  cl_mem mem = clCreateBuffer(context_->handle(), CL_MEM_READ_WRITE,
                              std::max<std::size_t>(bytes, 1), nullptr, &status);
  if (status != CL_SUCCESS) {
    allocated_.fetch_sub(bytes);
    if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ||
        status == CL_OUT_OF_HOST_MEMORY)
      raise(Errc::out_of_memory, name(),
            std::to_string(bytes) + " bytes: " + cl_failure("clCreateBuffer", status));
    fail(status, "clCreateBuffer", name());
  }
  DeviceMemory memory;
  memory.handle = reinterpret_cast<std::uintptr_t>(mem);
  memory.bytes = bytes;
  return memory;
}

void ClDevice::release(DeviceMemory memory) {
  if (!memory.handle) return;
  // The driver keeps the storage until enqueued commands that use it are done.
  clReleaseMemObject(cl_mem_of(memory));
  allocated_.fetch_sub(memory.bytes);
}

Queue& ClDevice::queue(QueueRole role) {
  return *queues_[static_cast<std::size_t>(role)];
}

bool ClDevice::copy_from_peer(Queue& q, DeviceMemory dst, std::size_t dst_offset, Device& peer,
                              DeviceMemory src, std::size_t src_offset, std::size_t bytes) {
  auto* other = dynamic_cast<ClDevice*>(&peer);
  if (!other || other->context_ != context_) return false;
  // Buffers belong to the context, so one clEnqueueCopyBuffer moves the data;
  // the driver migrates it between the devices.
  q.copy(dst, dst_offset, src, src_offset, bytes);
  return true;
}

}  // namespace baton::detail::opencl
