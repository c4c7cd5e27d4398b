#include "device/cuda/cublas_gemm.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "baton/error.hpp"
#include "vendor/cuda/context_registry.hpp"
#include "vendor/cuda/driver_api.hpp"
#include "vendor/cuda/library.hpp"

namespace baton {
namespace {

// cublasGemmEx has a C++ overload taking cudaDataType as the compute type:
// name the C entry point's type, which the cast checks against the header.
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void*, const void*, cudaDataType, int, const void*,
                                    cudaDataType, int, const void*, void*, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
[[maybe_unused]] constexpr GemmExFn kGemmExChecked = static_cast<GemmExFn>(&::cublasGemmEx);

struct Cublas {
  // Macro names (cublasCreate -> cublasCreate_v2) expand before the
  // stringification, so dlsym gets the exported _v2 symbols.
#define BATON_STR2(x) #x
#define BATON_STR(x) BATON_STR2(x)
#define BATON_CUBLAS_FUNCTIONS(X) \
  X(cublasCreate)                 \
  X(cublasDestroy)                \
  X(cublasSetStream)              \
  X(cublasSetMathMode)            \
  X(cublasGetStatusString)
#define BATON_CUBLAS_DECLARE(name) decltype(&::name) name = nullptr;
  BATON_CUBLAS_FUNCTIONS(BATON_CUBLAS_DECLARE)
#undef BATON_CUBLAS_DECLARE
  GemmExFn gemm_ex = nullptr;
  std::string error;
};

Cublas load() {
  Cublas api;
  cuda::Library lib = cuda::open_library({"libcublas.so.13", "libcublas.so"});
  if (!lib.handle) {
    api.error = "cuBLAS not found (" + lib.error + ")";
    return api;
  }
#define BATON_CUBLAS_RESOLVE(name) \
  cuda::resolve(lib, api.name, BATON_STR(name), "cuBLAS", api.error);
  BATON_CUBLAS_FUNCTIONS(BATON_CUBLAS_RESOLVE)
#undef BATON_CUBLAS_RESOLVE
  cuda::resolve(lib, api.gemm_ex, "cublasGemmEx", "cuBLAS", api.error);
  return api;
}

const Cublas& cublas() {
  static const Cublas api = load();
  return api;
}

void check(const Cublas& api, cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    raise(Errc::device_failed, "cublas", std::string(call) + ": " + api.cublasGetStatusString(s));
}

// One handle per (context, stream), made on first use with that context
// current and bound to the stream once; destroyed with the context. A
// queue's launches come from its device's worker, so no handle is used by
// two threads at a time.
std::mutex handles_mu;
std::map<std::pair<CUcontext, CUstream>, cublasHandle_t> handles;

void drop_handles(const Cublas& api, CUcontext ctx) {
  std::lock_guard lock(handles_mu);
  for (auto it = handles.begin(); it != handles.end();) {
    if (it->first.first != ctx) {
      ++it;
      continue;
    }
    api.cublasDestroy(it->second);
    it = handles.erase(it);
  }
}

cublasHandle_t handle_for(const Cublas& api, CUstream stream, bool tf32) {
  CUcontext ctx = nullptr;
  cuda::check(cuda::driver().cuCtxGetCurrent(&ctx), "cuCtxGetCurrent", "cublas");
  bool first_of_context = false;
  cublasHandle_t h = nullptr;
  {
    std::lock_guard lock(handles_mu);
    auto [it, fresh] = handles.try_emplace({ctx, stream}, nullptr);
    if (fresh) {
      first_of_context = std::none_of(handles.begin(), handles.end(), [&](const auto& e) {
        return e.first.first == ctx && e.second != nullptr;
      });
      if (cublasStatus_t s = api.cublasCreate(&it->second); s != CUBLAS_STATUS_SUCCESS) {
        handles.erase(it);
        check(api, s, "cublasCreate");
      }
      check(api, api.cublasSetStream(it->second, stream), "cublasSetStream");
    }
    h = it->second;
  }
  if (first_of_context) cuda::on_context_destroyed(ctx, [&api, ctx] { drop_handles(api, ctx); });
  check(api, api.cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
        "cublasSetMathMode");
  return h;
}

}  // namespace

Kernel cuda_gemm_kernel(GemmSpec spec) {
  constexpr std::uint64_t kIntMax = 0x7fffffff;
  if (spec.m == 0 || spec.n == 0 || spec.k == 0 || spec.m > kIntMax || spec.n > kIntMax ||
      spec.k > kIntMax)
    raise(Errc::invalid_argument, "cuda_gemm_kernel",
          "GEMM dimensions must be between 1 and 2^31-1");
  const bool bf16 = spec.type == GemmType::bf16;
  Kernel kernel(bf16 ? "gemm_bf16_cublas" : "gemm_f32_cublas");
  kernel.native(BackendKind::cuda, [spec, bf16](void* stream, Span span, const KernelArgs& args) {
    if (args.size() != 3) raise(Errc::invalid_argument, "gemm", "expects the arguments (A, B, C)");
    if (span.end > spec.m) raise(Errc::invalid_argument, "gemm", "span reaches past row m of C");
    if (span.empty()) return;
    const Cublas& api = cublas();
    if (!api.error.empty()) raise(Errc::no_implementation, "gemm", api.error);
    cublasHandle_t h = handle_for(api, static_cast<CUstream>(stream), spec.tf32);
    const std::size_t esize = bf16 ? 2 : 4;
    const cudaDataType type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
    const auto* a = static_cast<const char*>(args[0].memory.ptr) + span.begin * spec.k * esize;
    const auto* b = static_cast<const char*>(args[1].memory.ptr);
    auto* c = static_cast<char*>(args[2].memory.ptr) + span.begin * spec.n * esize;
    const float alpha = 1.0f, beta = 0.0f;
    const int n = int(spec.n), k = int(spec.k), rows = int(span.size());
    // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
    check(api,
          api.gemm_ex(h, CUBLAS_OP_N, CUBLAS_OP_N, n, rows, k, &alpha, b, type, n, a, type, k,
                      &beta, c, type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  });
  kernel.cost([spec](Span s) { return 2.0 * double(spec.n) * double(spec.k) * double(s.size()); });
  return kernel;
}

}  // namespace baton
