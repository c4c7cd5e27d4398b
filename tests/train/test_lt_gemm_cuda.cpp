// The training step's cuBLASLt GEMMs at every count of rows a policy may hand
// out: right against a float64 reference, with one algorithm search per
// bucket of rows, not one per count.
#include <set>

#include "device/cuda/cuda_test.hpp"
#include "train/cuda/lt_gemm.hpp"

using namespace baton;
using namespace baton::test;
using baton::train::cuda_step::Gemm;
using baton::train::cuda_step::RowsIn;

namespace {

// bf16 copies of random values, and the values they hold.
struct Bf16s {
  std::vector<std::uint16_t> bits;
  std::vector<float> values;
  Bf16s(std::size_t n, unsigned seed) : values(random_floats(n, seed)) {
    for (float& v : values) {
      bits.push_back(to_bf16(v));
      v = from_bf16(bits.back());
    }
  }
};

constexpr int kModel = 72, kInner = 40, kMaxRows = 300;

// How the chunk's rows enter a GEMM of the training step, or of a caller's.
enum class Shape {
  forward,      // their n: D (kModel x rows) = A (kModel x kInner) B (kInner x rows)
  weight_grad,  // their k: D (kModel x kInner) = A (kModel x rows) B^T, B stored kInner x rows
  rows_lead,    // their k, B stored rows x kInner: its leading dimension grows with them
};

// D = A B in fp32 for `rows`, column-major as cuBLASLt; ||D - ref|| / ||ref||.
double gemm_error(cuda::CudaDevice& dev, Shape shape, int rows, const Bf16s& a, const Bf16s& b) {
  const bool forward = shape == Shape::forward;
  const int m = kModel, n = forward ? rows : kInner, k = forward ? kInner : rows;
  DeviceMemory da = dev.allocate(a.bits.size() * 2), db = dev.allocate(b.bits.size() * 2),
               dd = dev.allocate(std::size_t(m) * n * 4);
  Queue& q = dev.queue(QueueRole::compute);
  q.write(da, 0, a.bits.data(), a.bits.size() * 2, HostKind::pageable);
  q.write(db, 0, b.bits.data(), b.bits.size() * 2, HostKind::pageable);
  Kernel gemm = Kernel("gemm").native(BackendKind::cuda, [&](void* s, Span, const KernelArgs& x) {
    auto stream = static_cast<CUstream>(s);
    Gemm g;
    g.m = m, g.n = n, g.k = k, g.rows_in = forward ? RowsIn::n : RowsIn::k;
    g.tb = shape == Shape::weight_grad;
    g.a = x[0].memory.ptr, g.lda = m;
    g.b = x[1].memory.ptr, g.ldb = g.tb ? n : k;
    g.d = x[2].memory.ptr, g.ldd = m, g.d_type = CUDA_R_32F;
    auto& st = train::cuda_step::state_for(stream, "test");
    ASSERT_TRUE(train::cuda_step::run_gemm(st, stream, g));
  });
  std::vector<LaunchArg> args{buffer_arg(da, 2), buffer_arg(db, 2), buffer_arg(dd, 4)};
  q.launch(gemm, Span{0, 1}, KernelArgs(args));
  std::vector<float> d(std::size_t(m) * n);
  q.read(d.data(), dd, 0, d.size() * 4, HostKind::pageable);
  q.finish();
  // B's element (j, c) of the product: stored column-major, or transposed.
  auto b_at = [&](int j, int c) {
    return shape == Shape::weight_grad ? b.values[j * n + c] : b.values[c * k + j];
  };
  double diff = 0, norm = 0;
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < m; ++r) {
      double ref = 0;
      for (int j = 0; j < k; ++j) ref += double(a.values[j * m + r]) * b_at(j, c);
      diff += (d[c * m + r] - ref) * (d[c * m + r] - ref);
      norm += ref * ref;
    }
  for (DeviceMemory* mem : {&da, &db, &dd}) dev.release(*mem);
  return std::sqrt(diff / norm);
}

}  // namespace

TEST(LtGemm, EveryCountOfRowsIsRightAndBucketsShareTheirSearch) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  const Bf16s a(std::size_t(kModel) * kMaxRows, 7), b(std::size_t(kMaxRows) * kInner, 8);
  std::vector<int> counts;  // every count up to 40 (powers of two), then a few over 128
  for (int rows = 1; rows <= 40; ++rows) counts.push_back(rows);
  for (int rows : {129, 200, 255, 256, 257, kMaxRows}) counts.push_back(rows);
  for (Shape shape : {Shape::forward, Shape::weight_grad, Shape::rows_lead}) {
    const train::GemmCounts before = train::cuda_gemm_counts();
    std::set<int> buckets;
    for (int rows : counts) {
      buckets.insert(train::cuda_step::bucket_rows(rows));
      EXPECT_LT(gemm_error(set[0], shape, rows, a, b), 1e-5) << int(shape) << ", " << rows;
    }
    const train::GemmCounts after = train::cuda_gemm_counts();
    const std::uint64_t searches = after.searches - before.searches;
    std::cout << "  shape " << int(shape) << ": " << searches << " searches, "
              << after.checks - before.checks << " checks for " << counts.size()
              << " counts of rows, " << after.host_seconds - before.host_seconds << " s\n";
    if (shape == Shape::rows_lead) {
      // Each count is searched for (but where a shape before had the same key).
      EXPECT_GE(searches, counts.size() - buckets.size())
          << "a bucket used where B's rows are its lead";
      EXPECT_EQ(after.checks, before.checks);
    } else {
      EXPECT_LE(searches, buckets.size()) << "a search per count of rows, not per bucket";
      EXPECT_GE(after.checks - before.checks, counts.size() - buckets.size());
    }
  }
}

TEST(LtGemm, BucketsAreTight) {
  using train::cuda_step::bucket_rows;
  EXPECT_EQ(bucket_rows(1), 1);
  EXPECT_EQ(bucket_rows(33), 64);
  EXPECT_EQ(bucket_rows(128), 128);
  EXPECT_EQ(bucket_rows(129), 256);
  EXPECT_EQ(bucket_rows(1088), 1152);  // not 2048: its algorithm would waste tiles
  EXPECT_EQ(bucket_rows(4096), 4096);
}
