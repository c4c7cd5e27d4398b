#include "device/opencl/opencl_queue.hpp"

#include <algorithm>

#include "baton/error.hpp"
#include "device/copy_range.hpp"
#include "device/opencl/cl_error.hpp"
#include "device/opencl/opencl_event.hpp"

namespace baton::detail::opencl {

namespace {

// Work-group size aimed for: a multiple of every GPU's SIMD width, and on
// PoCL's CPU devices a loop long enough to vectorise and amortise the
// work-group start. The kernel's own limit lowers it.
constexpr std::size_t kLocalSizeTarget = 256;

cl_command_queue create_queue(cl_context context, cl_device_id device, const std::string& where) {
  cl_int status = CL_SUCCESS;
  // In order, no profiling. clCreateCommandQueue serves 1.2 platforms too (see cl_api.hpp).
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);
  check(status, "clCreateCommandQueue", where);
  return queue;
}

template <class T>
T kernel_work_group_info(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info what,
                         const std::string& where) {
  T value{};
  check(clGetKernelWorkGroupInfo(kernel, device, what, sizeof value, &value, nullptr),
        "clGetKernelWorkGroupInfo", where);
  return value;
}

}  // namespace

ClQueue::ClQueue(std::shared_ptr<ClContext> context, cl_device_id device, std::string where)
    : context_(std::move(context)),
      device_(device),
      where_(std::move(where)),
      queue_(create_queue(context_->handle(), device_, where_)) {}

ClQueue::~ClQueue() {
  // Destructors do not throw: a failure here has already been reported by the
  // commands that failed, or will be by their events.
  clFinish(queue_);
  for (auto& [id, k] : kernels_) clReleaseKernel(k.kernel);
  clReleaseCommandQueue(queue_);
}

// The OpenCL runtime handles host memory of either kind itself.
void ClQueue::write(DeviceMemory dst, std::size_t dst_offset, const void* host, std::size_t bytes,
                    HostKind) {
  check_copy_range(dst, dst_offset, bytes, where_, "write");
  if (bytes == 0) return;  // OpenCL rejects empty transfers
  check(clEnqueueWriteBuffer(queue_, cl_mem_of(dst), CL_FALSE, dst_offset, bytes, host, 0, nullptr,
                             nullptr),
        "clEnqueueWriteBuffer", where_);
}

void ClQueue::read(void* host, DeviceMemory src, std::size_t src_offset, std::size_t bytes,
                   HostKind) {
  check_copy_range(src, src_offset, bytes, where_, "read");
  if (bytes == 0) return;
  check(clEnqueueReadBuffer(queue_, cl_mem_of(src), CL_FALSE, src_offset, bytes, host, 0, nullptr,
                            nullptr),
        "clEnqueueReadBuffer", where_);
}

void ClQueue::copy(DeviceMemory dst, std::size_t dst_offset, DeviceMemory src,
                   std::size_t src_offset, std::size_t bytes) {
  check_copy_range(dst, dst_offset, bytes, where_, "copy");
  check_copy_range(src, src_offset, bytes, where_, "copy");
  if (bytes == 0) return;
  check(clEnqueueCopyBuffer(queue_, cl_mem_of(src), cl_mem_of(dst), src_offset, dst_offset, bytes,
                            0, nullptr, nullptr),
        "clEnqueueCopyBuffer", where_);
}

ClQueue::ClKernel& ClQueue::kernel_for(const Kernel& kernel, const GpuCode& code) {
  auto found = kernels_.find(kernel.id());
  if (found != kernels_.end()) return found->second;

  cl_program program = context_->programs().get(code.source, kernel.name(), where_);
  cl_int status = CL_SUCCESS;
  ClKernel k;
  k.kernel = clCreateKernel(program, code.entry.c_str(), &status);
  if (status == CL_INVALID_KERNEL_NAME)
    raise(Errc::compile_failed, where_,
          "kernel '" + kernel.name() + "': clCreateKernel(" + code.entry +
              "): CL_INVALID_KERNEL_NAME: its OpenCL source has no __kernel of that name");
  check(status, "clCreateKernel", where_);
  try {
    check(clGetKernelInfo(k.kernel, CL_KERNEL_NUM_ARGS, sizeof k.arg_count, &k.arg_count, nullptr),
          "clGetKernelInfo", where_);
    const auto limit =
        kernel_work_group_info<std::size_t>(k.kernel, device_, CL_KERNEL_WORK_GROUP_SIZE, where_);
    const auto multiple = kernel_work_group_info<std::size_t>(
        k.kernel, device_, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, where_);
    k.local_size = std::max<std::size_t>(1, std::min(limit, kLocalSizeTarget));
    if (multiple > 0 && k.local_size >= multiple) k.local_size -= k.local_size % multiple;
  } catch (...) {
    clReleaseKernel(k.kernel);
    throw;
  }
  return kernels_.emplace(kernel.id(), k).first->second;
}

void ClQueue::launch(const Kernel& kernel, Span span, const KernelArgs& args) {
  if (const NativeFn* native = kernel.native_fn(BackendKind::opencl)) {
    (*native)(queue_, span, args);
    return;
  }
  const GpuCode* code = kernel.opencl_code();
  if (!code)
    raise(Errc::no_implementation, where_,
          "kernel '" + kernel.name() + "' has no OpenCL implementation");
  std::lock_guard lock(launch_mutex_);
  // Built (and its errors reported) even for an empty span, so a bad kernel fails early.
  const ClKernel& k = kernel_for(kernel, *code);
  if (span.empty()) return;
  if (k.arg_count != args.size() + 2)
    raise(Errc::invalid_argument, where_,
          "kernel '" + kernel.name() + "' takes " + std::to_string(k.arg_count) +
              " parameters (begin, end and its own) but the launch passes begin, end and " +
              std::to_string(args.size()));

  const cl_ulong begin = span.begin, end = span.end;
  check(clSetKernelArg(k.kernel, 0, sizeof begin, &begin), "clSetKernelArg", where_);
  check(clSetKernelArg(k.kernel, 1, sizeof end, &end), "clSetKernelArg", where_);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const LaunchArg& a = args[i];
    const cl_uint index = cl_uint(i + 2);
    if (a.kind == LaunchArg::Kind::buffer) {
      const cl_mem mem = cl_mem_of(a.memory);
      check(clSetKernelArg(k.kernel, index, sizeof mem, &mem), "clSetKernelArg", where_);
    } else {
      check(clSetKernelArg(k.kernel, index, a.value_size, a.value), "clSetKernelArg", where_);
    }
  }
  // Round up to whole work-groups; the kernel returns for items at or past `end`.
  const std::size_t global = (span.size() + k.local_size - 1) / k.local_size * k.local_size;
  check(clEnqueueNDRangeKernel(queue_, k.kernel, 1, nullptr, &global, &k.local_size, 0, nullptr,
                               nullptr),
        "clEnqueueNDRangeKernel", where_);
}

EventPtr ClQueue::record() {
  cl_event event = nullptr;
  check(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &event), "clEnqueueMarkerWithWaitList",
        where_);
  auto recorded = std::make_shared<ClEvent>(event, context_->handle(), where_);
  // Unflushed commands may never start: a waiter polling ready(), or another
  // queue's barrier, would then wait forever.
  check(clFlush(queue_), "clFlush", where_);
  return recorded;
}

void ClQueue::wait(const EventPtr& event) {
  if (!event) return;
  if (auto* cl = dynamic_cast<ClEvent*>(event->recorded());
      cl && cl->context() == context_->handle()) {
    const cl_event handle = cl->handle();
    check(clEnqueueBarrierWithWaitList(queue_, 1, &handle, nullptr), "clEnqueueBarrierWithWaitList",
          where_);
    return;
  }
  // No device-side dependency on a foreign event exists: this thread blocks
  // until it completes, which orders everything enqueued afterwards after it.
  // Flush first so the commands already queued run meanwhile.
  check(clFlush(queue_), "clFlush", where_);
  event->wait();
}

bool ClQueue::can_wait(const EventPtr& event) {
  auto* cl = dynamic_cast<ClEvent*>(event->recorded());
  return (cl && cl->context() == context_->handle()) || event->ready();
}

void ClQueue::finish() {
  check(clFinish(queue_), "clFinish", where_);
}

}  // namespace baton::detail::opencl
