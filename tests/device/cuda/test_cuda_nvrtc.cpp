// Kernels from CUDA C++ source (NVRTC) and from a compiled image, and what a
// compile error looks like.
#include "cuda_test.hpp"
#include "device/cuda/nvrtc.hpp"

using namespace baton;
using namespace baton::test;

namespace {

const char* kScale = R"(
extern "C" __global__ void scale(unsigned long long begin, unsigned long long end,
                                 const float* x, float* y, float s) {
  unsigned long long i = begin + blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < end) y[i] = s * x[i] + 1.0f;
}
)";

void run_scale(cuda::CudaDevice& dev, const Kernel& k) {
  const std::size_t n = 50000;
  auto x = random_floats(n, 31);
  std::vector<float> y(n, -7);
  DeviceMemory dx = dev.allocate(n * 4), dy = dev.allocate(n * 4);
  Queue& q = dev.queue(QueueRole::compute);
  q.write(dx, 0, x.data(), n * 4, HostKind::pageable);
  std::vector<LaunchArg> args{buffer_arg(dx, 4), buffer_arg(dy, 4), scalar_arg(0.5f)};
  q.launch(k, Span{0, n}, KernelArgs(args));
  q.read(y.data(), dy, 0, n * 4, HostKind::pageable);
  q.finish();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += y[i] != 0.5f * x[i] + 1.0f;
  EXPECT_EQ(wrong, 0u);
  dev.release(dx);
  dev.release(dy);
}

}  // namespace

TEST(CudaNvrtc, CompilesSourceForTheDevice) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  run_scale(set[0], Kernel("scale").cuda_source(kScale, "scale"));
}

TEST(CudaNvrtc, LoadsACompiledImage) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  const auto& p = set[0].gpu().props();
  std::vector<char> cubin = cuda::nvrtc_compile(kScale, "scale", p.cc_major, p.cc_minor);
  std::span<const unsigned char> image(reinterpret_cast<const unsigned char*>(cubin.data()),
                                       cubin.size());
  run_scale(set[0], Kernel("scale_image").cuda_image(image, "scale"));
}

TEST(CudaNvrtc, CompileErrorsCarryTheLog) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  Kernel broken = Kernel("broken").cuda_source(
      "extern \"C\" __global__ void broken(unsigned long long b, unsigned long long e) {\n"
      "  undeclared_thing = 1;\n}\n",
      "broken");
  try {
    set[0].queue(QueueRole::compute).launch(broken, Span{0, 1}, KernelArgs({}));
    FAIL() << "a broken kernel compiled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::compile_failed);
    EXPECT_EQ(e.where(), "broken");
    const std::string m = e.what();
    EXPECT_NE(m.find("undeclared_thing"), std::string::npos) << m;
    EXPECT_NE(m.find("broken.cu"), std::string::npos) << "the log names the file: " << m;
  }
}
