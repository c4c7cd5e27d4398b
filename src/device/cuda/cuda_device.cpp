#include "device/cuda/cuda_device.hpp"

namespace baton::cuda {

CudaDevice::CudaDevice(DeviceInfo info, std::shared_ptr<Context> ctx, bool zero_copy)
    : Device(std::move(info)), ctx_(std::move(ctx)) {
  modules_ = std::make_unique<ModuleCache>(ctx_, name());
  for (auto& q : queues_) q = std::make_unique<CudaQueue>(ctx_, *modules_, name());
  zero_copy_ = zero_copy && gpu().props().can_map_host;
}

CudaDevice::~CudaDevice() {
  // Streams before the modules their kernels use, both before the context.
  for (auto& q : queues_) q.reset();
  modules_.reset();
}

// An empty buffer holds no memory, as on the other backends: nothing to
// allocate or give back.
DeviceMemory CudaDevice::allocate(std::size_t bytes) {
  if (bytes == 0) return {};
  return zero_copy_ ? allocate_mapped(bytes) : gpu().allocator().allocate(bytes);
}

DeviceMemory CudaDevice::allocate_mapped(std::size_t bytes) {
  return gpu().allocator().allocate_mapped(bytes);
}

void CudaDevice::release(DeviceMemory memory) {
  if (memory.bytes == 0 && !memory.ptr) return;
  gpu().allocator().release(memory);
}

Queue& CudaDevice::queue(QueueRole role) {
  return *queues_[static_cast<int>(role)];
}

void CudaDevice::bind_thread() {
  BATON_CU(name(), cuCtxSetCurrent, ctx_->handle());
}

bool CudaDevice::copy_from_peer(Queue& q, DeviceMemory dst, std::size_t dst_offset, Device& peer,
                                DeviceMemory src, std::size_t src_offset, std::size_t bytes) {
  auto* queue = dynamic_cast<CudaQueue*>(&q);
  auto* other = dynamic_cast<CudaDevice*>(&peer);
  if (!queue || !other) return false;
  const CUdeviceptr to = reinterpret_cast<CUdeviceptr>(dst.ptr) + dst_offset;
  const CUdeviceptr from = reinterpret_cast<CUdeviceptr>(src.ptr) + src_offset;
  ContextGuard guard(ctx_->handle());
  if (other->gpu().device() == gpu().device()) {  // partitions of one GPU
    BATON_CU(name(), cuMemcpyDtoDAsync, to, from, bytes, queue->stream());
    return true;
  }
  if (!gpu().enable_peer_access(other->gpu())) return false;
  BATON_CU(name(), cuMemcpyPeerAsync, to, ctx_->handle(), from, other->context().handle(), bytes,
           queue->stream());
  return true;
}

}  // namespace baton::cuda
