#include "device/cuda/cuda_queue.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "baton/error.hpp"
#include "device/copy_range.hpp"

namespace baton::cuda {
namespace {

CUdeviceptr at(const DeviceMemory& m, std::size_t offset) {
  return reinterpret_cast<CUdeviceptr>(m.ptr) + offset;
}

}  // namespace

void CudaEvent::wait() {
  // Any current context will do; a thread with none (a CPU worker) borrows
  // the primary context, which, unlike a green context, may be current on
  // many threads at once.
  CUcontext current = nullptr;
  driver().cuCtxGetCurrent(&current);
  std::optional<ContextGuard> guard;
  if (!current) guard.emplace(ctx_->gpu().primary());
  BATON_CU(ctx_->gpu().name(), cuEventSynchronize, event_);
}

bool CudaEvent::ready() {
  CUcontext current = nullptr;
  driver().cuCtxGetCurrent(&current);
  std::optional<ContextGuard> guard;
  if (!current) guard.emplace(ctx_->gpu().primary());
  CUresult r = driver().cuEventQuery(event_);
  if (r == CUDA_ERROR_NOT_READY) return false;
  check(r, "cuEventQuery", ctx_->gpu().name());
  return true;
}

double CudaEvent::seconds_since(Event& start) {
  auto* from = dynamic_cast<CudaEvent*>(start.recorded());
  if (!timed_ || !from || !from->timed_) return -1;
  ContextGuard guard(ctx_->handle());
  float ms = 0;
  BATON_CU(ctx_->gpu().name(), cuEventElapsedTime, &ms, from->event_, event_);
  return double(ms) * 1e-3;
}

CudaQueue::CudaQueue(std::shared_ptr<Context> ctx, ModuleCache& modules, std::string where)
    : ctx_(std::move(ctx)), modules_(modules), where_(std::move(where)) {
  stream_ = ctx_->create_stream();
}

CudaQueue::~CudaQueue() {
  ContextGuard guard(ctx_->handle());
  driver().cuStreamSynchronize(stream_);
  staging_.reset();
  driver().cuStreamDestroy(stream_);
}

void CudaQueue::write(DeviceMemory dst, std::size_t dst_offset, const void* host, std::size_t bytes,
                      HostKind kind) {
  detail::check_copy_range(dst, dst_offset, bytes, where_, "write");
  if (bytes == 0) return;
  ContextGuard guard(ctx_->handle());
  if (kind == HostKind::pinned) {
    BATON_CU(where_, cuMemcpyHtoDAsync, at(dst, dst_offset), host, bytes, stream_);
    return;
  }
  if (!staging_) staging_ = std::make_unique<StagingRing>(ctx_->gpu().staging(), where_);
  staging_->write(stream_, at(dst, dst_offset), host, bytes);
}

void CudaQueue::read(void* host, DeviceMemory src, std::size_t src_offset, std::size_t bytes,
                     HostKind kind) {
  detail::check_copy_range(src, src_offset, bytes, where_, "read");
  if (bytes == 0) return;
  ContextGuard guard(ctx_->handle());
  if (kind == HostKind::pinned) {
    BATON_CU(where_, cuMemcpyDtoHAsync, host, at(src, src_offset), bytes, stream_);
    return;
  }
  if (!staging_) staging_ = std::make_unique<StagingRing>(ctx_->gpu().staging(), where_);
  staging_->read(stream_, host, at(src, src_offset), bytes);
}

void CudaQueue::copy(DeviceMemory dst, std::size_t dst_offset, DeviceMemory src,
                     std::size_t src_offset, std::size_t bytes) {
  detail::check_copy_range(dst, dst_offset, bytes, where_, "copy");
  detail::check_copy_range(src, src_offset, bytes, where_, "copy");
  if (bytes == 0) return;
  ContextGuard guard(ctx_->handle());
  BATON_CU(where_, cuMemcpyDtoDAsync, at(dst, dst_offset), at(src, src_offset), bytes, stream_);
}

void CudaQueue::launch(const Kernel& kernel, Span span, const KernelArgs& args) {
  ContextGuard guard(ctx_->handle());
  if (const NativeFn* fn = kernel.native_fn(BackendKind::cuda)) {
    (*fn)(stream_, span, args);
    return;
  }
  const GpuCode* code = kernel.cuda_code();
  if (!code)
    raise(Errc::no_implementation, where_, "kernel '" + kernel.name() + "' has no CUDA code");
  // The kernel of the last launch again (a stream of small tasks): no lookup.
  if (kernel.id() != last_kernel_) {
    last_fn_ = modules_.function(kernel, *code);
    last_kernel_ = kernel.id();
  }
  CUfunction fn = last_fn_;
  if (span.empty()) return;

  // One pointer per parameter: begin, end, then each argument's value (a
  // CUdeviceptr for a buffer, the raw bytes for a scalar). Kept on the stack
  // for the usual few arguments: this runs once per task or chunk.
  constexpr std::size_t kInline = 16;
  unsigned long long begin = span.begin, end = span.end;
  CUdeviceptr pointer_store[kInline];
  void* param_store[kInline + 2];
  std::vector<CUdeviceptr> pointer_heap;
  std::vector<void*> param_heap;
  CUdeviceptr* pointers = pointer_store;
  void** params = param_store;
  if (args.size() > kInline) {
    pointer_heap.resize(args.size());
    param_heap.resize(args.size() + 2);
    pointers = pointer_heap.data();
    params = param_heap.data();
  }
  params[0] = &begin;
  params[1] = &end;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const LaunchArg& a = args[i];
    if (a.kind == LaunchArg::Kind::buffer) {
      pointers[i] = reinterpret_cast<CUdeviceptr>(a.memory.ptr);
      params[i + 2] = &pointers[i];
    } else {
      params[i + 2] = const_cast<unsigned char*>(a.value);
    }
  }
  const std::uint64_t blocks = (span.size() + kLaunchBlock - 1) / kLaunchBlock;
  if (blocks > 0x7fffffffu)
    raise(Errc::invalid_argument, where_,
          "span of " + std::to_string(span.size()) + " items is more than one launch can cover");
  CUresult r = driver().cuLaunchKernel(fn, unsigned(blocks), 1, 1, kLaunchBlock, 1, 1, 0, stream_,
                                       params, nullptr);
  if (r != CUDA_SUCCESS) check(r, ("cuLaunchKernel(" + code->entry + ")").c_str(), where_);
}

EventPtr CudaQueue::record_event(bool timed) {
  ContextGuard guard(ctx_->handle());
  CUevent e = ctx_->take_event(timed);
  auto event = std::make_shared<CudaEvent>(ctx_, e, stream_, timed);
  BATON_CU(where_, cuEventRecord, e, stream_);
  return event;
}

void CudaQueue::wait(const EventPtr& event) {
  if (!event) return;
  // Waited for already: later work on the stream is ordered after it.
  if (std::find(waited_.begin(), waited_.end(), event) != waited_.end()) return;
  if (auto* cuda_event = dynamic_cast<CudaEvent*>(event->recorded())) {
    if (cuda_event->stream() != stream_) {
      ContextGuard guard(ctx_->handle());
      BATON_CU(where_, cuStreamWaitEvent, stream_, cuda_event->handle(), 0);
    }
  } else {
    event->wait();
  }
  waited_[next_waited_] = event;
  next_waited_ = (next_waited_ + 1) % waited_.size();
}

bool CudaQueue::can_wait(const EventPtr& event) {
  return dynamic_cast<CudaEvent*>(event->recorded()) || event->ready();
}

void CudaQueue::finish() {
  ContextGuard guard(ctx_->handle());
  BATON_CU(where_, cuStreamSynchronize, stream_);
}

}  // namespace baton::cuda
