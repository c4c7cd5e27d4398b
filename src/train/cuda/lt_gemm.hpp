// The training step's GEMMs through cuBLASLt: bf16 inputs, fp32 compute, a
// fused epilogue where cuBLASLt has one, and an algorithm found once per
// stream for each bucket of rows.
#pragma once

#include <cstdint>
#include <string>

#include "baton/error.hpp"
#include "train/cuda/gemm_counts.hpp"
#include "train/cuda/stream_state.hpp"

namespace baton::train::cuda_step {

// Which dimension of a GEMM is the chunk's rows: it varies with the chunks a
// policy hands out, the others are the model's.
enum class RowsIn { n, k };

// Column-major D (m x n) = op(A) (m x k) op(B) (k x n) + beta D, bf16 inputs,
// fp32 compute; D bf16 or fp32; an epilogue with its bias and aux.
struct Gemm {
  bool ta = false, tb = false;
  int m = 0, n = 0, k = 0;
  RowsIn rows_in = RowsIn::n;
  const void *a = nullptr, *b = nullptr;
  int lda = 0, ldb = 0, ldd = 0;
  void* d = nullptr;
  cudaDataType d_type = CUDA_R_16BF;
  float beta = 0;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void* bias = nullptr;
  void* aux = nullptr;
  std::int64_t aux_ld = 0;
};

// The rows whose algorithm serves a count of rows: up to 128, the next power
// of two; above, the next multiple of 128 (a tile's width). Policies hand out
// chunks of many sizes, and each new count once cost the worker a dozen
// heuristic queries; an algorithm chosen for many more rows than a chunk has
// wastes tiles (16 SMs ran 1088 rows with 2048's in 1.3x 1024's time).
int bucket_rows(int rows);

// Runs g with its epilogue and returns true, or returns false, having run
// nothing, where cuBLASLt offers no algorithm for that epilogue.
bool run_gemm(StreamState& st, CUstream stream, const Gemm& g);

// Finds the algorithm g would run with and launches it once on at most
// `rows` of g's rows (its outputs are scratch): a kernel's first launch in a
// context loads its module, which waits for all the work on the GPU, so a
// worker that meets it mid-step stalls (about 18 ms on an H100's
// partitions). False where cuBLASLt has no algorithm for g.
bool load_algorithm(StreamState& st, CUstream stream, const Gemm& g, int rows);

// Counted for cuda_gemm_counts().
void count_epilogue(bool fused);

// g without its epilogue.
inline Gemm plain_of(Gemm g) {
  g.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  g.bias = nullptr, g.aux = nullptr, g.aux_ld = 0;
  return g;
}

// Runs g with its epilogue fused where cuBLASLt has an algorithm for it;
// else g plain, then `unfused` (the epilogue as a kernel of ours).
template <class Epilogue>
void run_gemm_or(StreamState& st, CUstream stream, const Gemm& g, Epilogue unfused,
                 const char* where, const char* what) {
  if (run_gemm(st, stream, g)) return count_epilogue(true);
  count_epilogue(false);
  if (!run_gemm(st, stream, plain_of(g)))
    raise(Errc::invalid_argument, where, std::string("cuBLASLt has no algorithm for ") + what);
  unfused();
}

}  // namespace baton::train::cuda_step
