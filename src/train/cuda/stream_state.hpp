// What the training step's CUDA code keeps per stream: cuBLASLt (opened at
// run time) and its handle, the step's own kernels loaded from the embedded
// fatbin into the stream's context, scratch memory, and the launch helpers.
#pragma once

#include <cublasLt.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "vendor/cuda/driver_api.hpp"

namespace baton::train::cuda_step {

#define BATON_LT_FUNCTIONS(X)             \
  X(cublasLtCreate)                       \
  X(cublasLtDestroy)                      \
  X(cublasLtGetStatusString)              \
  X(cublasLtMatmul)                       \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)          \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmulAlgoCheck)

struct Lt {
#define BATON_LT_DECLARE(name) decltype(&::name) name = nullptr;
  BATON_LT_FUNCTIONS(BATON_LT_DECLARE)
#undef BATON_LT_DECLARE
  std::string error;  // why cuBLASLt is not usable; empty when it is
};
const Lt& lt();

// A bad shape or type is the caller's; a failed execution is the device's.
void check(cublasStatus_t s, const char* call);

constexpr std::size_t kWorkspace = 32u << 20;  // cuBLASLt's, as PyTorch gives it on Hopper
constexpr std::size_t kAlign = 256;
constexpr std::size_t aligned(std::size_t bytes) {
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

// Device memory, grown as larger chunks arrive (the work queued on `stream`
// that uses the old memory is waited for first).
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch();
  CUdeviceptr at_least(std::size_t bytes, CUstream stream, const char* where);

 private:
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

struct Functions {
  CUmodule module = nullptr;
  CUfunction to_bf16 = nullptr, loss = nullptr, bias_grad = nullptr, bias_gelu = nullptr,
             gelu_backward = nullptr, adamw_shared = nullptr, adamw_slots = nullptr;
};

using AlgoKey = std::array<std::int64_t, 20>;

struct StreamState {
  CUcontext ctx = nullptr;
  int sm_target = 0;  // a green context's SMs; 0: the whole GPU
  cublasLtHandle_t handle = nullptr;
  Functions fn;
  Scratch workspace, activations;
  std::map<const float*, std::uint32_t> tags;  // accumulator -> the accumulation it holds
  std::map<AlgoKey, std::pair<bool, cublasLtMatmulAlgo_t>> algos;  // found?, algo
  std::set<std::array<std::int64_t, 5>> loaded;  // models (and micro-batch) whose GEMMs are loaded
  ~StreamState();
};

// The state of `stream` in the current context, made on first use and
// dropped with the context. A stream's launches come from its device's
// worker alone, so the state needs no lock of its own.
StreamState& state_for(CUstream stream, const char* where);

// 256-thread blocks: blocks_x by blocks_y of them.
void launch(CUfunction f, CUstream stream, unsigned blocks_x, unsigned blocks_y,
            std::initializer_list<void*> params, const char* where);
// Blocks of 256 threads for a grid-stride loop over n items.
unsigned blocks_for(std::uint64_t n);

}  // namespace baton::train::cuda_step
