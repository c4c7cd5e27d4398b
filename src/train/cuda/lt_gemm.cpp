#include "train/cuda/lt_gemm.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <optional>

namespace baton::train::cuda_step {

namespace {

std::atomic<std::uint64_t> fused_count{0}, unfused_count{0}, search_count{0}, check_count{0};
std::atomic<std::uint64_t> host_ns{0};

std::uint64_t alignment_of(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a ? std::min<std::uint64_t>(kAlign, a & (~a + 1)) : kAlign;
}

int& rows_of(Gemm& g) {
  return g.rows_in == RowsIn::n ? g.n : g.k;
}

// g with its bucket's rows (bucket_rows()), or null where a matrix's
// leading dimension would be too short for them (the rows run down its
// columns).
std::optional<Gemm> bucket_of(Gemm g) {
  int& rows = rows_of(g);
  rows = bucket_rows(rows);
  const bool fits = g.lda >= (g.ta ? g.k : g.m) && g.ldb >= (g.tb ? g.n : g.k) && g.ldd >= g.m;
  return fits ? std::optional<Gemm>(g) : std::nullopt;
}

AlgoKey key_of(const Gemm& g, int sm_target) {
  return {g.ta,
          g.tb,
          g.m,
          g.n,
          g.k,
          g.lda,
          g.ldb,
          g.ldd,
          g.d_type,
          g.beta != 0,
          std::int64_t(g.epilogue),
          g.aux_ld,
          std::int64_t(alignment_of(g.a)),
          std::int64_t(alignment_of(g.b)),
          std::int64_t(alignment_of(g.d)),
          std::int64_t(alignment_of(g.bias)),
          std::int64_t(alignment_of(g.aux)),
          sm_target,
          0,
          0};
}

// cuBLASLt's descriptors of one GEMM, destroyed with it.
struct Described {
  const Lt& api = lt();
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;

  Described(const Gemm& g, int sm_target) {
    check(api.cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
    auto set = [&](cublasLtMatmulDescAttributes_t attr, const auto& value) {
      check(api.cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof value),
            "MatmulDescSetAttribute");
    };
    const std::int32_t ta = g.ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb = g.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    set(CUBLASLT_MATMUL_DESC_TRANSA, ta);
    set(CUBLASLT_MATMUL_DESC_TRANSB, tb);
    if (sm_target > 0) set(CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, std::int32_t(sm_target));
    if (g.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
      set(CUBLASLT_MATMUL_DESC_EPILOGUE, g.epilogue);
      if (g.bias) set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, g.bias);
      if (g.aux) {
        set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, g.aux);
        set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, g.aux_ld);
      }
    }
    check(
        api.cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, g.ta ? g.k : g.m, g.ta ? g.m : g.k, g.lda),
        "MatrixLayoutCreate");
    check(
        api.cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, g.tb ? g.n : g.k, g.tb ? g.k : g.n, g.ldb),
        "MatrixLayoutCreate");
    check(api.cublasLtMatrixLayoutCreate(&d, g.d_type, g.m, g.n, g.ldd), "MatrixLayoutCreate");
  }
  Described(const Described&) = delete;
  Described& operator=(const Described&) = delete;
  ~Described() {
    if (d) api.cublasLtMatrixLayoutDestroy(d);
    if (b) api.cublasLtMatrixLayoutDestroy(b);
    if (a) api.cublasLtMatrixLayoutDestroy(a);
    if (desc) api.cublasLtMatmulDescDestroy(desc);
  }
};

using Found = std::pair<bool, cublasLtMatmulAlgo_t>;  // found?, algo

// cuBLASLt's first choice for g, if it has one.
Found search(StreamState& st, const Gemm& g) {
  search_count.fetch_add(1, std::memory_order_relaxed);
  const Lt& api = lt();
  const Described s(g, st.sm_target);
  cublasLtMatmulPreference_t pref = nullptr;
  check(api.cublasLtMatmulPreferenceCreate(&pref), "MatmulPreferenceCreate");
  struct Drop {
    const Lt& api;
    cublasLtMatmulPreference_t pref;
    ~Drop() { api.cublasLtMatmulPreferenceDestroy(pref); }
  } drop{api, pref};
  // Each attribute's own type: the workspace is uint64_t, alignments uint32_t.
  auto pref_set = [&](cublasLtMatmulPreferenceAttributes_t attr, const auto& value) {
    check(api.cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof value),
          "MatmulPreferenceSetAttribute");
  };
  pref_set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, std::uint64_t(kWorkspace));
  pref_set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, std::uint32_t(alignment_of(g.a)));
  pref_set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, std::uint32_t(alignment_of(g.b)));
  pref_set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, std::uint32_t(alignment_of(g.d)));
  pref_set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, std::uint32_t(alignment_of(g.d)));
  cublasLtMatmulHeuristicResult_t result{};
  int count = 0;
  const cublasStatus_t status = api.cublasLtMatmulAlgoGetHeuristic(st.handle, s.desc, s.a, s.b, s.d,
                                                                   s.d, pref, 1, &result, &count);
  if (status != CUBLAS_STATUS_SUCCESS && status != CUBLAS_STATUS_NOT_SUPPORTED)
    check(status, "MatmulAlgoGetHeuristic");
  return {status == CUBLAS_STATUS_SUCCESS && count > 0, result.algo};
}

// True where cuBLASLt runs `algo` on the shape `d` within the workspace.
bool accepts(StreamState& st, const Described& d, const cublasLtMatmulAlgo_t& algo) {
  check_count.fetch_add(1, std::memory_order_relaxed);
  cublasLtMatmulHeuristicResult_t result{};
  return lt().cublasLtMatmulAlgoCheck(st.handle, d.desc, d.a, d.b, d.d, d.d, &algo, &result) ==
             CUBLAS_STATUS_SUCCESS &&
         result.workspaceSize <= kWorkspace;
}

void launch_matmul(StreamState& st, CUstream stream, const Gemm& g, const Described& d,
                   const cublasLtMatmulAlgo_t& algo) {
  const float alpha = 1.0f;
  check(lt().cublasLtMatmul(
            st.handle, d.desc, &alpha, g.a, d.a, g.b, d.b, &g.beta, g.d, d.d, g.d, d.d, &algo,
            reinterpret_cast<void*>(st.workspace.at_least(kWorkspace, stream, "train.grad")),
            kWorkspace, stream),
        "cublasLtMatmul");
}

// The algorithm for g's exact shape: its bucket's, where cuBLASLt accepts it
// for this shape within the workspace, else one searched for the shape.
Found algorithm_for(StreamState& st, const Gemm& g, const Described& exact) {
  const AlgoKey key = key_of(g, st.sm_target);
  if (auto hit = st.algos.find(key); hit != st.algos.end()) return hit->second;
  const auto start = std::chrono::steady_clock::now();
  const std::optional<Gemm> bucket = bucket_of(g);
  const AlgoKey bucket_key = key_of(bucket.value_or(g), st.sm_target);
  auto shared = st.algos.find(bucket_key);
  if (shared == st.algos.end())
    shared = st.algos.emplace(bucket_key, search(st, bucket.value_or(g))).first;
  Found found = shared->second;
  if (found.first && bucket_key != key && !accepts(st, exact, found.second)) found = search(st, g);
  st.algos.emplace(key, found);
  host_ns.fetch_add(
      std::uint64_t(std::chrono::nanoseconds(std::chrono::steady_clock::now() - start).count()),
      std::memory_order_relaxed);
  return found;
}

}  // namespace

int bucket_rows(int rows) {
  return rows <= 128 ? int(std::bit_ceil(unsigned(rows))) : (rows + 127) / 128 * 128;
}

bool run_gemm(StreamState& st, CUstream stream, const Gemm& g) {
  const Described exact(g, st.sm_target);
  const Found found = algorithm_for(st, g, exact);
  if (found.first) launch_matmul(st, stream, g, exact, found.second);
  return found.first;
}

bool load_algorithm(StreamState& st, CUstream stream, const Gemm& g, int rows) {
  const Found found = algorithm_for(st, g, Described(g, st.sm_target));
  if (!found.first) return false;
  Gemm few = g;
  rows_of(few) = std::min(rows, rows_of(few));
  const Described d(few, st.sm_target);
  if (accepts(st, d, found.second)) launch_matmul(st, stream, few, d, found.second);
  return true;
}

void count_epilogue(bool fused) {
  (fused ? fused_count : unfused_count).fetch_add(1, std::memory_order_relaxed);
}

}  // namespace baton::train::cuda_step

namespace baton::train {

GemmCounts cuda_gemm_counts() {
  using namespace cuda_step;
  return {fused_count.load(), unfused_count.load(), search_count.load(), check_count.load(),
          double(host_ns.load()) * 1e-9};
}

}  // namespace baton::train
