// Kernels compiled from OpenCL C at run time: results against a CPU reference,
// the launch convention (begin, end, bounds), program caching, build errors
// with their log, native launchers and concurrent launches of one kernel.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "opencl_test_support.hpp"
#include "workloads/kernels_opencl.hpp"

namespace baton {
namespace {

Kernel balance_kernel(const char* name, const char* entry) {
  return Kernel{name}.opencl(workloads::opencl_kernels_source(), entry);
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

class OpenclKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_OPENCL();
    device_ = &test::cl_device(0);
  }
  detail::opencl::ClDevice& device() { return *device_; }
  Queue& compute() { return device().queue(QueueRole::compute); }

  DeviceMemory upload(const std::vector<float>& v) {
    DeviceMemory m = device().allocate(v.size() * sizeof(float));
    compute().write(m, 0, v.data(), m.bytes, HostKind::pageable);
    return m;
  }
  std::vector<float> download(DeviceMemory m) {
    std::vector<float> v(m.bytes / sizeof(float));
    compute().read(v.data(), m, 0, m.bytes, HostKind::pageable);
    compute().finish();
    return v;
  }

 private:
  detail::opencl::ClDevice* device_ = nullptr;
};

TEST_F(OpenclKernels, FmaMatchesTheCpuReference) {
  static const Kernel fma = balance_kernel("fma", workloads::kOpenclFmaEntry);
  const std::size_t n = 100003;  // not a multiple of any work-group size
  const float a = 0.999f, b = 0.001f;
  const int iters = 50;
  const auto in = random_floats(n, 3);
  DeviceMemory din = upload(in), dout = device().allocate(n * sizeof(float));
  const LaunchArg args[] = {buffer_arg(din, 4), buffer_arg(dout, 4), scalar_arg(a), scalar_arg(b),
                            scalar_arg(iters)};
  compute().launch(fma, Span{0, n}, KernelArgs(args));
  const auto out = download(dout);
  for (std::size_t i = 0; i < n; ++i) {
    float x = in[i];
    for (int k = 0; k < iters; ++k) x = x * a + b;
    // The device may contract x * a + b into one fma (OpenCL C allows it).
    ASSERT_NEAR(out[i], x, 1e-5f) << "item " << i;
  }
  device().release(din);
  device().release(dout);
}

TEST_F(OpenclKernels, SaxpyTouchesOnlyItsSpan) {
  static const Kernel saxpy = balance_kernel("saxpy", workloads::kOpenclSaxpyEntry);
  const std::size_t n = 60000;
  const Span span{1000, 51234};
  const float a = 2.5f;
  const auto x = random_floats(n, 4), y = random_floats(n, 5);
  DeviceMemory dx = upload(x), dy = upload(y);
  const LaunchArg args[] = {scalar_arg(a), buffer_arg(dx, 4), buffer_arg(dy, 4)};
  compute().launch(saxpy, span, KernelArgs(args));
  const auto out = download(dy);
  for (std::size_t i = 0; i < n; ++i) {
    const bool inside = i >= span.begin && i < span.end;
    if (inside)
      ASSERT_NEAR(out[i], a * x[i] + y[i], 1e-6f) << "item " << i;  // maybe one fma
    else
      ASSERT_EQ(out[i], y[i]) << "item " << i;
  }
  device().release(dx);
  device().release(dy);
}

TEST_F(OpenclKernels, EmptyKernelAndEmptySpan) {
  static const Kernel empty = balance_kernel("empty", workloads::kOpenclEmptyEntry);
  compute().launch(empty, Span{0, 12345}, KernelArgs({}));
  compute().launch(empty, Span{7, 7}, KernelArgs({}));
  compute().finish();
}

TEST_F(OpenclKernels, OneBuildServesEveryKernelOfASource) {
  const detail::opencl::ProgramCache& programs = device().context().programs();
  const std::size_t before = programs.builds();
  for (int i = 0; i < 2; ++i) {
    const Kernel fresh = balance_kernel("fresh", workloads::kOpenclEmptyEntry);  // a new id
    compute().launch(fresh, Span{0, 1}, KernelArgs({}));
  }
  compute().finish();
  EXPECT_LE(programs.builds() - before, 1u);  // 0 when an earlier test built the source
}

TEST_F(OpenclKernels, BuildFailureCarriesTheLog) {
  static const Kernel broken = Kernel{"broken"}.opencl(
      "__kernel void broken(ulong begin, ulong end) { undeclared_thing_42 = 1; }", "broken");
  for (int attempt = 0; attempt < 2; ++attempt) {  // the second answer comes from the cache
    try {
      compute().launch(broken, Span{0, 1}, KernelArgs({}));
      FAIL() << "a kernel that cannot compile was launched";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::compile_failed);
      EXPECT_EQ(e.where(), device().name());
      const std::string what = e.what();
      EXPECT_NE(what.find("kernel 'broken'"), std::string::npos) << what;
      EXPECT_NE(what.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << what;
      EXPECT_NE(what.find("build log"), std::string::npos) << what;
      EXPECT_NE(what.find("undeclared_thing_42"), std::string::npos) << what;
    }
  }
}

TEST_F(OpenclKernels, MissingEntryIsACompileError) {
  static const Kernel wrong = balance_kernel("wrong", "no_such_kernel");
  try {
    compute().launch(wrong, Span{0, 1}, KernelArgs({}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::compile_failed);
    EXPECT_NE(std::string(e.what()).find("clCreateKernel(no_such_kernel): CL_INVALID_KERNEL_NAME"),
              std::string::npos);
  }
}

TEST_F(OpenclKernels, WrongArgumentCountIsInvalidArgument) {
  static const Kernel saxpy = balance_kernel("saxpy", workloads::kOpenclSaxpyEntry);
  const LaunchArg args[] = {scalar_arg(1.0f)};
  try {
    compute().launch(saxpy, Span{0, 1}, KernelArgs(args));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
  }
}

TEST_F(OpenclKernels, NativeLauncherGetsTheCommandQueue) {
  void* seen = nullptr;
  Span seen_span;
  const Kernel native = Kernel{"native"}.native(
      BackendKind::opencl,
      [&](void* queue, Span s, const KernelArgs&) { seen = queue, seen_span = s; });
  compute().launch(native, Span{3, 9}, KernelArgs({}));
  EXPECT_EQ(seen, static_cast<detail::opencl::ClQueue&>(compute()).handle());
  EXPECT_EQ(seen_span, (Span{3, 9}));
}

// Threads launching one Kernel with different arguments, on one queue and on
// two: without a cl_kernel per queue and the launch lock, arguments of one
// launch would leak into another's.
TEST_F(OpenclKernels, ConcurrentLaunchesKeepTheirArguments) {
  static const Kernel saxpy = balance_kernel("saxpy", workloads::kOpenclSaxpyEntry);
  const std::size_t n = 1024;
  const int launches = 40;
  const std::vector<float> ones(n, 1.0f), zeros(n, 0.0f);
  DeviceMemory x = upload(ones);
  struct Job {
    Queue* queue;
    float a;
    DeviceMemory y;
  };
  std::vector<Job> jobs = {{&compute(), 1.0f, upload(zeros)},
                           {&compute(), 2.0f, upload(zeros)},
                           {&device().queue(QueueRole::copy_in), 3.0f, upload(zeros)}};
  compute().finish();
  std::vector<std::thread> threads;
  for (Job& job : jobs)
    threads.emplace_back([&, job] {
      const LaunchArg args[] = {scalar_arg(job.a), buffer_arg(x, 4), buffer_arg(job.y, 4)};
      for (int i = 0; i < launches; ++i) job.queue->launch(saxpy, Span{0, n}, KernelArgs(args));
    });
  for (auto& t : threads) t.join();
  for (Job& job : jobs) {
    job.queue->finish();
    const auto y = download(job.y);
    for (float v : y) ASSERT_EQ(v, job.a * launches);  // small integers: exact
    device().release(job.y);
  }
  device().release(x);
}

}  // namespace
}  // namespace baton
