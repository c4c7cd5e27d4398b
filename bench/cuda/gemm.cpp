// bf16 GEMM 8192^3 as baton tasks (cuda_gemm_kernel through the compute
// queue: one task over all rows, and 8 tasks of 1024 rows as parallel_for
// would cut it) against the same cublasGemmEx call looped directly on a
// stream of our own, in the same run, on the same random data.
//   bench_cuda_gemm [json path]
#include <cublas_v2.h>
#include <dlfcn.h>

#include <random>

#include "bench_util.hpp"
#include "device/cuda/cublas_gemm.hpp"
#include "vendor/cuda/library.hpp"

using namespace baton;
using namespace baton::bench;

namespace {

using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void*, const void*, cudaDataType, int, const void*,
                                    cudaDataType, int, const void*, void*, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);

template <class F>
F symbol(void* lib, const char* name) {
  auto f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) throw std::runtime_error(std::string("cuBLAS lacks ") + name);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  CudaGpu gpu;
  cuda::CudaDevice& dev = gpu.dev();
  dev.bind_thread();
  const cuda::DriverApi& d = cuda::driver();
  constexpr int N = 8192;
  constexpr std::size_t bytes = std::size_t(N) * N * 2;
  constexpr int batch = 10, reps = 7;

  // Random bf16 in [-1, 1): the top halves of random floats.
  std::vector<std::uint16_t> host(std::size_t(N) * N);
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto& h : host) {
    const float f = dist(gen);
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    h = std::uint16_t(u >> 16);
  }
  DeviceMemory A = dev.allocate(bytes), B = dev.allocate(bytes), C = dev.allocate(bytes);
  Queue& q = dev.queue(QueueRole::compute);
  q.write(A, 0, host.data(), bytes, HostKind::pageable);
  q.write(B, 0, host.data(), bytes, HostKind::pageable);
  q.finish();

  Kernel gemm = cuda_gemm_kernel({N, N, N, GemmType::bf16});
  std::vector<LaunchArg> args{buffer_arg(A, 2), buffer_arg(B, 2), buffer_arg(C, 2)};

  cuda::Library lib = cuda::open_library({"libcublas.so.13", "libcublas.so"});
  if (!lib.handle) {
    std::fprintf(stderr, "%s\n", lib.error.c_str());
    return 1;
  }
  auto create = symbol<decltype(&::cublasCreate)>(lib.handle, "cublasCreate_v2");
  auto set_stream = symbol<decltype(&::cublasSetStream)>(lib.handle, "cublasSetStream_v2");
  auto gemm_ex = symbol<GemmExFn>(lib.handle, "cublasGemmEx");
  CUstream raw = nullptr;
  cuda::check(d.cuStreamCreate(&raw, CU_STREAM_NON_BLOCKING), "cuStreamCreate", "bench");
  cublasHandle_t h = nullptr;
  create(&h);
  set_stream(h, raw);
  const float alpha = 1, beta = 0;
  auto direct = [&] {
    for (int i = 0; i < batch; ++i)
      gemm_ex(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &alpha, B.ptr, CUDA_R_16BF, N, A.ptr,
              CUDA_R_16BF, N, &beta, C.ptr, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F,
              CUBLAS_GEMM_DEFAULT);
    d.cuStreamSynchronize(raw);
  };
  auto one_task = [&] {
    for (int i = 0; i < batch; ++i) q.launch(gemm, Span{0, N}, KernelArgs(args));
    q.finish();
  };
  auto eight_tasks = [&] {
    for (int i = 0; i < batch; ++i)
      for (std::uint64_t r = 0; r < N; r += N / 8)
        q.launch(gemm, Span{r, r + N / 8}, KernelArgs(args));
    q.finish();
  };
  const double flop = 2.0 * N * N * N * batch;
  auto tflops = [&](double s) { return flop / s * 1e-12; };
  std::vector<Row> rows;
  auto t1 = side_by_side(one_task, direct, reps);
  rows.push_back(
      {"bf16 8192^3, 1 task", "TFLOP/s", tflops(t1.first), tflops(t1.second), true, 0.97});
  auto t8 = side_by_side(eight_tasks, direct, reps);
  rows.push_back({"bf16 8192^3, 8 tasks of 1024 rows", "TFLOP/s", tflops(t8.first),
                  tflops(t8.second), true, 0});
  report("cuBLAS GEMM: baton task vs direct cublasGemmEx loop", dev.info().description, rows,
         argc > 1 ? argv[1] : "bench_cuda_gemm.json");
  d.cuStreamDestroy(raw);
  dev.release(A);
  dev.release(B);
  dev.release(C);
  return 0;
}
