// A Kernel is one operation with an implementation per backend. Devices pick
// the implementation for their backend; a device whose backend has none is
// skipped by the scheduler (and it is an error if no device has one).
//
// Conventions for the code behind each backend, for a launch over Span s:
//   cpu:    fn(s, args)                      called on a host thread of the device
//   cuda:   extern "C" __global__ void k(unsigned long long begin, unsigned long long end, ...)
//   opencl: __kernel void k(ulong begin, ulong end, ...)
// followed by one parameter per argument: a pointer for a buffer (to the whole
// replica on that device, index it with the global item number) and a value
// for a scalar. GPU launches cover at least s.size() threads; each thread
// handles item begin + global_id and returns when that is >= end.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "baton/range.hpp"

namespace baton {

enum class BackendKind : std::uint8_t { cpu, sim, cuda, opencl };
inline constexpr int kBackendCount = 4;

// A piece of memory on one device. `ptr` is a pointer the backend understands
// (host pointer, CUdeviceptr); `handle` carries an opaque object where needed
// (an OpenCL cl_mem).
struct DeviceMemory {
  void* ptr = nullptr;
  std::uintptr_t handle = 0;
  std::size_t bytes = 0;
  bool managed = false;  // unified memory taken as the out-of-memory fallback
  bool mapped = false;   // zero-copy host memory mapped into the device
  bool pinned = false;   // host memory the copy engines reach directly
};

struct LaunchArg {
  enum class Kind : std::uint8_t { buffer, scalar };
  Kind kind = Kind::scalar;
  DeviceMemory memory;  // buffer: the launching device's replica
  std::size_t element_size = 0;
  alignas(8) unsigned char value[16] = {};
  std::uint8_t value_size = 0;
};

// Launch arguments made by hand (backend tests, native launchers); the runtime
// makes them from buffers and scalars passed to parallel_for.
inline LaunchArg buffer_arg(DeviceMemory memory, std::size_t element_size) {
  LaunchArg a;
  a.kind = LaunchArg::Kind::buffer;
  a.memory = memory;
  a.element_size = element_size;
  return a;
}
inline LaunchArg scalar_bytes(const void* value, std::size_t size) {
  LaunchArg a;
  std::memcpy(a.value, value, size);  // size <= sizeof a.value, checked by the callers
  a.value_size = static_cast<std::uint8_t>(size);
  return a;
}
template <class T>
LaunchArg scalar_arg(T value) {
  static_assert(sizeof(T) <= sizeof(LaunchArg::value), "a scalar argument is at most 16 bytes");
  return scalar_bytes(&value, sizeof value);
}

// What a kernel implementation sees of its arguments, in call order.
class KernelArgs {
 public:
  explicit KernelArgs(std::span<const LaunchArg> args) : args_(args) {}
  std::size_t size() const { return args_.size(); }
  const LaunchArg& operator[](std::size_t i) const { return args_[i]; }
  template <class T>
  T* ptr(std::size_t i) const {
    return static_cast<T*>(args_[i].memory.ptr);
  }
  template <class T>
  T value(std::size_t i) const {
    T v;
    std::memcpy(&v, args_[i].value, sizeof(T));
    return v;
  }
  std::span<const LaunchArg> all() const { return args_; }

 private:
  std::span<const LaunchArg> args_;
};

// In a native launcher: the device whose worker runs it, as its index in
// Runtime::devices() (a launcher shared by every device tells them apart by
// it: a PyTorch replica per device). -1 on any other thread.
int this_device();

using CpuFn = std::function<void(Span, const KernelArgs&)>;
// A backend-native launcher (a cuBLAS call, say): gets the backend's stream or
// queue handle, the span and the arguments.
using NativeFn = std::function<void(void* stream, Span, const KernelArgs&)>;
// Work units of a span, used by the sim backend's virtual clock; one unit runs
// in 1/speed nanoseconds on a sim device of that speed. Also, for kernels
// bound by memory, the bytes a span reads and writes in device memory: a sim
// device with a memory bandwidth takes the longer of the two times.
using CostFn = std::function<double(Span)>;

struct GpuCode {
  std::vector<unsigned char> image;  // fatbin, cubin or PTX (cuda); empty when `source` is used
  std::string source;                // CUDA C++ (NVRTC) or OpenCL C
  std::string entry;
};

class Kernel {
 public:
  explicit Kernel(std::string name);

  Kernel& cpu(CpuFn fn);
  Kernel& cuda_image(std::span<const unsigned char> image, std::string entry);
  Kernel& cuda_source(std::string source, std::string entry);
  Kernel& opencl(std::string source, std::string entry);
  // `pass_items`: the most items the launcher runs in one pass of its own
  // (cuBLAS GEMMs over that many micro-batches at once). A pass costs a part
  // that does not shrink with its items (reading every weight, say), so a
  // policy that cuts spans cuts them no finer than a pass where it can.
  Kernel& native(BackendKind backend, NativeFn fn, std::uint64_t pass_items = 1);
  Kernel& cost(CostFn fn);
  Kernel& traffic(CostFn fn);  // bytes of device memory a span touches
  // Buffer arguments (0-based, as passed to submit) that the code for
  // backend `b` never touches: on such a device they are not copied in (the
  // launch gets an empty DeviceMemory) and a write there is not recorded.
  // E.g. fp32 master weights that a GPU's bf16 kernel does not read.
  Kernel& unused(BackendKind b, std::initializer_list<unsigned> args);
  // Its launches go on the device's side queue (QueueRole::side), beside the
  // long kernels of the compute queue rather than behind them.
  Kernel& side_queue();
  // It launches nothing that matters: a task of it only brings its inputs to
  // the device (an early read). Held on the host until those are written, so
  // that its copies do not wait at the head of the device's copy queue, in
  // front of copies that could run now.
  Kernel& prefetch();

  const std::string& name() const { return impl_->name; }
  // Unique per Kernel object (copies share it): backends key compiled code on it.
  std::uint64_t id() const { return impl_->id; }

  const CpuFn* cpu_fn() const { return impl_->cpu ? &impl_->cpu : nullptr; }
  const GpuCode* cuda_code() const { return impl_->has_cuda ? &impl_->cuda : nullptr; }
  const GpuCode* opencl_code() const { return impl_->has_opencl ? &impl_->opencl : nullptr; }
  const NativeFn* native_fn(BackendKind b) const;
  // True where the code for backend `b` runs an item a thread, so that a
  // device runs its items in waves (DeviceInfo::parallel_items); false for a
  // native launcher (cuBLAS, a grid of its own choosing), whose every item
  // runs over the whole device (a micro-batch of training is no thread).
  bool item_per_thread(BackendKind b) const { return !native_fn(b); }
  // Items the native launcher for `b` runs in one pass (native()); 1 without one.
  std::uint64_t pass_items(BackendKind b) const { return impl_->pass_items[int(b)]; }
  double cost_of(Span s) const { return impl_->cost ? impl_->cost(s) : double(s.size()); }
  double traffic_of(Span s) const { return impl_->traffic ? impl_->traffic(s) : 0.0; }
  // Bit i: argument i is not touched on backend `b` (see unused()).
  std::uint64_t unused_args(BackendKind b) const { return impl_->unused[int(b)]; }
  bool uses_side_queue() const { return impl_->side; }
  bool is_prefetch() const { return impl_->prefetch; }
  // True when a device of backend `b` can run this kernel.
  bool runs_on(BackendKind b) const;

 private:
  struct Impl {
    std::string name;
    std::uint64_t id = 0;
    CpuFn cpu;
    GpuCode cuda, opencl;
    bool has_cuda = false, has_opencl = false, side = false, prefetch = false;
    NativeFn native[kBackendCount];
    std::uint64_t pass_items[kBackendCount];
    CostFn cost, traffic;
    std::uint64_t unused[kBackendCount] = {};
  };
  std::shared_ptr<Impl> impl_;
};

}  // namespace baton
