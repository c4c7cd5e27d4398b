// The caching allocator: reuse, the out-of-memory path and its bounded
// managed fallback, zero-copy mapped memory. Nothing here asks for managed
// memory beyond what cuMemGetInfo reports free.
#include "cuda_test.hpp"

using namespace baton;
using namespace baton::test;

TEST(CudaMemory, ReleasedBlocksAreReusedWithoutTheDriver) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  auto& dev = set[0];
  auto& alloc = dev.gpu().allocator();
  const auto before = alloc.stats();
  DeviceMemory a = dev.allocate(3 << 20);
  dev.release(a);
  DeviceMemory b = dev.allocate((3 << 20) - 100);  // same size class
  EXPECT_EQ(a.ptr, b.ptr);
  const auto after = alloc.stats();
  EXPECT_EQ(after.driver_allocs - before.driver_allocs, 1u);
  EXPECT_EQ(after.reuses - before.reuses, 1u);
  DeviceMemory c = dev.allocate(3 << 20);  // the cached block is taken: a new one
  EXPECT_NE(c.ptr, b.ptr);
  dev.release(b);
  dev.release(c);
  EXPECT_GE(alloc.stats().cached_bytes, 2u * (3 << 20));
  alloc.trim();
  EXPECT_EQ(alloc.stats().cached_bytes, 0u);
  EXPECT_THROW(dev.release(DeviceMemory{reinterpret_cast<void*>(0x1234), 0, 8}), Error);
}

TEST(CudaMemory, TooLargeARequestIsOutOfMemoryWithoutManagedMemory) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  auto& dev = set[0];
  const std::size_t huge = dev.info().memory_bytes * 2;  // more than is free: no fallback
  try {
    dev.allocate(huge);
    FAIL() << "allocated twice the GPU's memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::out_of_memory);
    EXPECT_NE(std::string(e.what()).find("free of"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dev.gpu().allocator().stats().managed_allocs, 0u);
}

TEST(CudaMemory, ManagedFallbackWhenTheDeviceIsFullButMemoryIsFree) {
  BATON_REQUIRE_CUDA();
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  CudaSet set("0");
  auto& dev = set[0];
  auto& alloc = dev.gpu().allocator();
  alloc.trim();
  // Pretend the GPU holds 8 MiB: the second 8 MiB request takes the
  // out-of-memory path, and 8 MiB of managed memory fits in what is free.
  alloc.limit_device_bytes(8 << 20);
  const std::size_t n = (8 << 20) / 4;
  DeviceMemory first = dev.allocate(n * 4);
  EXPECT_FALSE(first.managed);
  DeviceMemory second = dev.allocate(n * 4);
  EXPECT_TRUE(second.managed);
  EXPECT_EQ(alloc.stats().managed_allocs, 1u);
  // Managed memory works like device memory for kernels and copies.
  auto in = random_floats(n, 5);
  std::vector<float> out(n);
  Queue& q = dev.queue(QueueRole::compute);
  q.write(first, 0, in.data(), n * 4, HostKind::pageable);
  std::vector<LaunchArg> args{buffer_arg(first, 4), buffer_arg(second, 4), scalar_arg(2.0f),
                              scalar_arg(1.0f), scalar_arg(3)};
  q.launch(builtin("baton_fma"), Span{0, n}, KernelArgs(args));
  q.read(out.data(), second, 0, n * 4, HostKind::pageable);
  q.finish();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += out[i] != fma_ref(in[i], 2.0f, 1.0f, 3);
  EXPECT_EQ(wrong, 0u);
  dev.release(second);
  dev.release(first);
  alloc.limit_device_bytes(0);
}

TEST(CudaMemory, ZeroCopyMemoryIsSharedWithTheHost) {
  BATON_REQUIRE_CUDA();
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  CudaSet set("0");
  auto& dev = set[0];
  if (!dev.gpu().props().can_map_host) GTEST_SKIP() << "GPU cannot map host memory";
  const std::size_t n = 100000;
  DeviceMemory x = dev.allocate_mapped(n * 4), y = dev.allocate_mapped(n * 4);
  ASSERT_TRUE(x.mapped);
  auto* hx = reinterpret_cast<float*>(x.handle);
  auto* hy = reinterpret_cast<float*>(y.handle);
  auto in = random_floats(n, 6);
  std::copy(in.begin(), in.end(), hx);
  std::fill(hy, hy + n, 1.0f);
  std::vector<LaunchArg> args{scalar_arg(3.0f), buffer_arg(x, 4), buffer_arg(y, 4)};
  Queue& q = dev.queue(QueueRole::compute);
  q.launch(builtin("baton_saxpy"), Span{0, n}, KernelArgs(args));
  q.finish();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    wrong += hy[i] != std::fma(3.0f, in[i], 1.0f);  // nvcc contracts to an FMA
  EXPECT_EQ(wrong, 0u);
  dev.release(x);
  dev.release(y);
}
