#include "baton/kernel.hpp"

#include "baton/error.hpp"

#include <atomic>

namespace baton {

static std::uint64_t next_kernel_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

Kernel::Kernel(std::string name) : impl_(std::make_shared<Impl>()) {
  impl_->name = std::move(name);
  impl_->id = next_kernel_id();
  std::fill(std::begin(impl_->pass_items), std::end(impl_->pass_items), 1);
}

Kernel& Kernel::cpu(CpuFn fn) {
  impl_->cpu = std::move(fn);
  return *this;
}

Kernel& Kernel::cuda_image(std::span<const unsigned char> image, std::string entry) {
  impl_->cuda = GpuCode{{image.begin(), image.end()}, {}, std::move(entry)};
  impl_->has_cuda = true;
  return *this;
}

Kernel& Kernel::cuda_source(std::string source, std::string entry) {
  impl_->cuda = GpuCode{{}, std::move(source), std::move(entry)};
  impl_->has_cuda = true;
  return *this;
}

Kernel& Kernel::opencl(std::string source, std::string entry) {
  impl_->opencl = GpuCode{{}, std::move(source), std::move(entry)};
  impl_->has_opencl = true;
  return *this;
}

Kernel& Kernel::native(BackendKind backend, NativeFn fn, std::uint64_t pass_items) {
  impl_->native[static_cast<int>(backend)] = std::move(fn);
  impl_->pass_items[static_cast<int>(backend)] = std::max<std::uint64_t>(1, pass_items);
  return *this;
}

Kernel& Kernel::traffic(CostFn fn) {
  impl_->traffic = std::move(fn);
  return *this;
}

Kernel& Kernel::unused(BackendKind b, std::initializer_list<unsigned> args) {
  for (unsigned a : args) {
    if (a >= 64)
      raise(Errc::invalid_argument, name(),
            "unused(): argument index " + std::to_string(a) + " is past the 64 a kernel can name");
    impl_->unused[int(b)] |= std::uint64_t(1) << a;
  }
  return *this;
}

Kernel& Kernel::side_queue() {
  impl_->side = true;
  return *this;
}

Kernel& Kernel::prefetch() {
  impl_->prefetch = true;
  return *this;
}

Kernel& Kernel::cost(CostFn fn) {
  impl_->cost = std::move(fn);
  return *this;
}

const NativeFn* Kernel::native_fn(BackendKind b) const {
  const NativeFn& fn = impl_->native[static_cast<int>(b)];
  return fn ? &fn : nullptr;
}

bool Kernel::runs_on(BackendKind b) const {
  if (native_fn(b)) return true;
  switch (b) {
    case BackendKind::cpu:
      return cpu_fn() != nullptr;
    case BackendKind::sim:
      return true;  // the virtual clock needs only the cost
    case BackendKind::cuda:
      return cuda_code() != nullptr;
    case BackendKind::opencl:
      return opencl_code() != nullptr;
  }
  return false;
}

}  // namespace baton
