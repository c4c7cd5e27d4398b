// Machines without an NVIDIA driver: the backend and NVML say why, and
// nothing crashes. Skipped where a driver is present (the gpu tests run there).
#include "cuda_test.hpp"
#include "resource/nvml.hpp"

using namespace baton;
using namespace baton::test;

TEST(CudaUnavailable, BackendExplainsWhy) {
  BackendFixture f;
  detail::BackendContext& ctx = f.ctx;
  if (!cuda_missing()) GTEST_SKIP() << "a CUDA driver is present: nothing to explain";
  try {
    detail::cuda_backend().create("", ctx);
    FAIL() << "created devices without a driver";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::backend_unavailable);
    EXPECT_EQ(e.where(), "cuda");
    const std::string m = e.what();
    EXPECT_TRUE(m.find("libcuda.so.1") != std::string::npos || m.find("GPU") != std::string::npos)
        << m;
  }
}

TEST(CudaUnavailable, NvmlExplainsWhy) {
  const Nvml& nvml = Nvml::get();
  if (nvml.available()) GTEST_SKIP() << "NVML is present";
  EXPECT_FALSE(nvml.error().empty());
  EXPECT_EQ(nvml.device_count(), 0u);
  EXPECT_FALSE(nvml.sample(0));
  EXPECT_FALSE(nvml.pcie_link(0));
}
