// Built-in kernels through Queue::launch against a CPU reference.
#include <thread>

#include "cuda_test.hpp"

using namespace baton;
using namespace baton::test;

namespace {

constexpr float kPoison = -12345.0f;

struct Fixture {
  CudaSet set{"0"};
  cuda::CudaDevice& dev = set[0];
  Queue& q = dev.queue(QueueRole::compute);
};

}  // namespace

TEST(CudaLaunch, FmaMatchesTheCpuOnRandomInputs) {
  BATON_REQUIRE_CUDA();
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  Fixture f;
  const std::size_t n = (1 << 20) + 77;  // not a multiple of the block
  for (unsigned seed : {1u, 2u}) {
    auto in = random_floats(n, seed);
    std::vector<float> out(n, kPoison);
    DeviceMemory din = f.dev.allocate(n * 4), dout = f.dev.allocate(n * 4);
    f.q.write(din, 0, in.data(), n * 4, HostKind::pageable);
    f.q.write(dout, 0, out.data(), n * 4, HostKind::pageable);
    const float a = 0.999f, b = 0.001f * float(seed);
    const int iters = 100;
    Kernel fma = builtin("baton_fma");
    std::vector<LaunchArg> args{buffer_arg(din, 4), buffer_arg(dout, 4), scalar_arg(a),
                                scalar_arg(b), scalar_arg(iters)};
    // Two launches over two pieces, the second starting off a block boundary.
    const std::uint64_t cut = 1000;
    f.q.launch(fma, Span{0, cut}, KernelArgs(args));
    f.q.launch(fma, Span{cut, n}, KernelArgs(args));
    f.q.read(out.data(), dout, 0, n * 4, HostKind::pageable);
    f.q.finish();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += out[i] != fma_ref(in[i], a, b, iters);
    EXPECT_EQ(wrong, 0u) << "seed " << seed;
    f.dev.release(din);
    f.dev.release(dout);
  }
}

TEST(CudaLaunch, SaxpyTouchesOnlyItsSpan) {
  BATON_REQUIRE_CUDA();
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  Fixture f;
  const std::size_t n = 100000;
  auto x = random_floats(n, 3), y = random_floats(n, 4);
  DeviceMemory dx = f.dev.allocate(n * 4), dy = f.dev.allocate(n * 4);
  f.q.write(dx, 0, x.data(), n * 4, HostKind::pageable);
  f.q.write(dy, 0, y.data(), n * 4, HostKind::pageable);
  const float a = 1.5f;
  std::vector<LaunchArg> args{scalar_arg(a), buffer_arg(dx, 4), buffer_arg(dy, 4)};
  const Span span{333, 77777};
  f.q.launch(builtin("baton_saxpy"), span, KernelArgs(args));
  std::vector<float> out(n);
  f.q.read(out.data(), dy, 0, n * 4, HostKind::pageable);
  f.q.finish();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float want = i >= span.begin && i < span.end ? std::fma(a, x[i], y[i])
                                                       : y[i];  // nvcc contracts to an FMA
    wrong += out[i] != want;
  }
  EXPECT_EQ(wrong, 0u);
  f.dev.release(dx);
  f.dev.release(dy);
}

TEST(CudaLaunch, EmptyKernelAndEmptySpansRun) {
  BATON_REQUIRE_CUDA();
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  Fixture f;
  Kernel empty = builtin("baton_empty");
  for (int i = 0; i < 1000; ++i) f.q.launch(empty, Span{0, 256}, KernelArgs({}));
  f.q.launch(empty, Span{5, 5}, KernelArgs({}));
  EXPECT_NO_THROW(f.q.finish());
}

TEST(CudaLaunch, NativeFunctionsGetTheStreamAndRunInOrder) {
  BATON_REQUIRE_CUDA();
  Fixture f;
  const std::size_t n = 4096;
  DeviceMemory m = f.dev.allocate(n * 4);
  void* seen = nullptr;
  std::thread::id caller;
  Kernel fill =
      Kernel("fill").native(BackendKind::cuda, [&](void* stream, Span s, const KernelArgs& args) {
        seen = stream;
        caller = std::this_thread::get_id();
        auto p = reinterpret_cast<CUdeviceptr>(args[0].memory.ptr) + s.begin * 4;
        cuda::check(cuda::driver().cuMemsetD32Async(p, 0x3f800000u, s.size(),
                                                    static_cast<CUstream>(stream)),
                    "cuMemsetD32Async", "test");
      });
  std::vector<LaunchArg> args{buffer_arg(m, 4)};
  f.q.launch(fill, Span{0, n}, KernelArgs(args));
  std::vector<float> out(n);
  f.q.read(out.data(), m, 0, n * 4, HostKind::pageable);
  f.q.finish();
  EXPECT_EQ(seen, static_cast<cuda::CudaQueue&>(f.q).stream());
  EXPECT_EQ(caller, std::this_thread::get_id());
  for (float v : out) ASSERT_EQ(v, 1.0f);
  f.dev.release(m);
}

// (A kernel with no CUDA code at all is the device contract's.)
TEST(CudaLaunch, AnEntryTheImageLacksIsAUsageError) {
  BATON_REQUIRE_CUDA();
  Fixture f;
  Kernel missing = Kernel("missing").cuda_image(detail::builtin_cuda_fatbin(), "no_such_entry");
  try {
    f.q.launch(missing, Span{0, 1}, KernelArgs({}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);  // a usage error: the device stays
    EXPECT_NE(std::string(e.what()).find("cuModuleGetFunction(no_such_entry)"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_NOT_FOUND"), std::string::npos) << e.what();
  }
}
