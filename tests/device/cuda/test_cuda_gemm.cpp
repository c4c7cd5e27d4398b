// cuBLAS GEMM as a baton kernel, block of rows by block of rows, against a
// float64 CPU reference on random inputs; on a whole GPU and on a partition.
#include <cmath>

#include "cuda_test.hpp"
#include "device/cuda/cublas_gemm.hpp"

using namespace baton;
using namespace baton::test;

namespace {

// ||C - ref|| / ||ref|| for C = A B computed by `spec` over rows [0, m) in
// three launches.
double gemm_error(cuda::CudaDevice& dev, GemmSpec spec, unsigned seed) {
  const std::size_t m = spec.m, n = spec.n, k = spec.k;
  const bool bf16 = spec.type == GemmType::bf16;
  const std::size_t es = bf16 ? 2 : 4;
  auto a = random_floats(m * k, seed), b = random_floats(k * n, seed + 1);
  std::vector<unsigned char> ha(m * k * es), hb(k * n * es), hc(m * n * es, 0xff);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (bf16) {
      const std::uint16_t h = to_bf16(a[i]);
      std::memcpy(&ha[i * 2], &h, 2);
      a[i] = from_bf16(h);
    } else {
      std::memcpy(&ha[i * 4], &a[i], 4);
    }
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (bf16) {
      const std::uint16_t h = to_bf16(b[i]);
      std::memcpy(&hb[i * 2], &h, 2);
      b[i] = from_bf16(h);
    } else {
      std::memcpy(&hb[i * 4], &b[i], 4);
    }
  }
  DeviceMemory da = dev.allocate(ha.size()), db = dev.allocate(hb.size()),
               dc = dev.allocate(hc.size());
  Queue& q = dev.queue(QueueRole::compute);
  q.write(da, 0, ha.data(), ha.size(), HostKind::pageable);
  q.write(db, 0, hb.data(), hb.size(), HostKind::pageable);
  q.write(dc, 0, hc.data(), hc.size(), HostKind::pageable);  // poison
  Kernel gemm = cuda_gemm_kernel(spec);
  std::vector<LaunchArg> args{buffer_arg(da, es), buffer_arg(db, es), buffer_arg(dc, es)};
  const std::uint64_t cuts[] = {0, 1, m / 3, m};
  for (int i = 0; i < 3; ++i) q.launch(gemm, Span{cuts[i], cuts[i + 1]}, KernelArgs(args));
  q.read(hc.data(), dc, 0, hc.size(), HostKind::pageable);
  q.finish();
  double diff = 0, norm = 0;
  for (std::size_t r = 0; r < m; ++r) {
    for (std::size_t c = 0; c < n; ++c) {
      double ref = 0;
      for (std::size_t j = 0; j < k; ++j) ref += double(a[r * k + j]) * double(b[j * n + c]);
      float got;
      if (bf16) {
        std::uint16_t h;
        std::memcpy(&h, &hc[(r * n + c) * 2], 2);
        got = from_bf16(h);
      } else {
        std::memcpy(&got, &hc[(r * n + c) * 4], 4);
      }
      if (std::isnan(got)) return INFINITY;
      diff += (got - ref) * (got - ref);
      norm += ref * ref;
    }
  }
  dev.release(da);
  dev.release(db);
  dev.release(dc);
  return std::sqrt(diff / norm);
}

}  // namespace

TEST(CudaGemm, Bf16AndF32MatchTheReference) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  const double e16 = gemm_error(set[0], {301, 257, 190, GemmType::bf16}, 41);
  EXPECT_LT(e16, 1e-2);
  EXPECT_GT(e16, 0) << "bf16 output cannot be exact";
  const double e32 = gemm_error(set[0], {301, 257, 190, GemmType::f32}, 43);
  EXPECT_LT(e32, 1e-5);
  std::cout << "  relative error: bf16 " << e16 << ", fp32 " << e32 << "\n";
}

TEST(CudaGemm, RunsInAGreenContext) {
  BATON_REQUIRE_CUDA();
  if (!cuda::driver().has_green_contexts) GTEST_SKIP() << "driver without green contexts";
  CudaSet set("0/16+8");
  for (int i = 0; i < 2; ++i) {
    set[i].bind_thread();
    EXPECT_LT(gemm_error(set[i], {256, 128, 512, GemmType::bf16}, 50 + i), 1e-2);
  }
}

TEST(CudaGemm, RejectsBadSpecsAndArguments) {
  EXPECT_THROW(cuda_gemm_kernel({0, 1, 1}), Error);
  EXPECT_THROW(cuda_gemm_kernel({1ull << 31, 1, 1}), Error);
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  Kernel gemm = cuda_gemm_kernel({64, 64, 64});
  DeviceMemory m = set[0].allocate(64 * 64 * 2);
  std::vector<LaunchArg> args{buffer_arg(m, 2), buffer_arg(m, 2), buffer_arg(m, 2)};
  EXPECT_THROW(set[0].queue(QueueRole::compute).launch(gemm, Span{0, 65}, KernelArgs(args)), Error);
  set[0].release(m);
}
