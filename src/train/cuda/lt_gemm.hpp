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

// Runs g with its epilogue and returns true, or returns false, having run
// nothing, where cuBLASLt offers no algorithm for that epilogue.
bool run_gemm(StreamState& st, CUstream stream, const Gemm& g);

// Counted for cuda_gemm_counts().
void count_epilogue(bool fused);

// Runs g with its epilogue fused where cuBLASLt has an algorithm for it;
// else g plain, then `unfused` (the epilogue as a kernel of ours).
template <class Epilogue>
void run_gemm_or(StreamState& st, CUstream stream, const Gemm& g, Epilogue unfused,
                 const char* where, const char* what) {
  if (run_gemm(st, stream, g)) return count_epilogue(true);
  count_epilogue(false);
  Gemm plain = g;
  plain.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  plain.bias = nullptr, plain.aux = nullptr, plain.aux_ld = 0;
  if (!run_gemm(st, stream, plain))
    raise(Errc::invalid_argument, where, std::string("cuBLASLt has no algorithm for ") + what);
  unfused();
}

}  // namespace baton::train::cuda_step
