#include "train/cuda/stream_state.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "baton/error.hpp"
#include "train/cuda/train_fatbin.hpp"
#include "vendor/cuda/context_registry.hpp"
#include "vendor/cuda/library.hpp"

namespace baton::train::cuda_step {

const Lt& lt() {
  static const Lt api = [] {
    Lt a;
    cuda::Library lib = cuda::open_library({"libcublasLt.so.13", "libcublasLt.so"});
    if (!lib.handle) {
      a.error = "cuBLASLt not found (" + lib.error + ")";
      return a;
    }
#define BATON_LT_RESOLVE(name) cuda::resolve(lib, a.name, #name, "cuBLASLt", a.error);
    BATON_LT_FUNCTIONS(BATON_LT_RESOLVE)
#undef BATON_LT_RESOLVE
    return a;
  }();
  return api;
}

void check(cublasStatus_t s, const char* call) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  Errc code = Errc::device_failed;
  if (s == CUBLAS_STATUS_INVALID_VALUE || s == CUBLAS_STATUS_NOT_SUPPORTED ||
      s == CUBLAS_STATUS_ARCH_MISMATCH)
    code = Errc::invalid_argument;
  else if (s == CUBLAS_STATUS_ALLOC_FAILED)
    code = Errc::out_of_memory;
  raise(code, "cublasLt", std::string(call) + ": " + lt().cublasLtGetStatusString(s));
}

Scratch::~Scratch() {
  if (ptr_) cuda::driver().cuMemFree(ptr_);
}

CUdeviceptr Scratch::at_least(std::size_t bytes, CUstream stream, const char* where) {
  if (bytes <= bytes_) return ptr_;
  if (ptr_) {
    BATON_CU(where, cuStreamSynchronize, stream);
    BATON_CU(where, cuMemFree, ptr_);
  }
  ptr_ = 0, bytes_ = 0;
  BATON_CU(where, cuMemAlloc, &ptr_, bytes);
  bytes_ = bytes;
  return ptr_;
}

StreamState::~StreamState() {
  if (handle) lt().cublasLtDestroy(handle);
  if (fn.module) cuda::driver().cuModuleUnload(fn.module);
}

namespace {

// One state per (context, stream), dropped with the context.
std::mutex states_mu;
std::map<std::pair<CUcontext, CUstream>, std::unique_ptr<StreamState>> states;

void drop_states(CUcontext ctx) {
  std::lock_guard lock(states_mu);
  std::erase_if(states, [ctx](const auto& e) { return e.first.first == ctx; });
}

Functions load_functions(const char* where) {
  Functions f;
  const auto image = train_cuda_fatbin();
  if (image.empty()) raise(Errc::no_implementation, where, "this build has no training fatbin");
  BATON_CU(where, cuModuleLoadData, &f.module, image.data());
  auto get = [&](CUfunction& out, const char* name) {
    BATON_CU(where, cuModuleGetFunction, &out, f.module, name);
  };
  get(f.to_bf16, "baton_train_to_bf16");
  get(f.loss, "baton_train_loss");
  get(f.bias_grad, "baton_train_bias_grad");
  get(f.bias_gelu, "baton_train_bias_gelu");
  get(f.gelu_backward, "baton_train_gelu_backward");
  get(f.adamw_shared, "baton_train_adamw_shared");
  get(f.adamw_slots, "baton_train_adamw_slots");
  return f;
}

}  // namespace

StreamState& state_for(CUstream stream, const char* where) {
  if (!lt().error.empty()) raise(Errc::no_implementation, where, lt().error);
  CUcontext ctx = nullptr;
  BATON_CU(where, cuCtxGetCurrent, &ctx);
  bool first_of_context = false;
  StreamState* s = nullptr;
  {
    std::lock_guard lock(states_mu);
    auto& slot = states[{ctx, stream}];
    if (!slot) {
      first_of_context = std::none_of(states.begin(), states.end(), [&](const auto& e) {
        return e.first.first == ctx && e.second;
      });
      auto fresh = std::make_unique<StreamState>();
      fresh->ctx = ctx;
      if (auto facts = cuda::context_facts(ctx); facts && facts->green)
        fresh->sm_target = facts->sm_count;
      check(lt().cublasLtCreate(&fresh->handle), "cublasLtCreate");
      fresh->fn = load_functions(where);
      fresh->workspace.at_least(kWorkspace, stream, where);
      slot = std::move(fresh);
    }
    s = slot.get();
  }
  if (first_of_context) cuda::on_context_destroyed(ctx, [ctx] { drop_states(ctx); });
  return *s;
}

void launch(CUfunction f, CUstream stream, unsigned blocks_x, unsigned blocks_y,
            std::initializer_list<void*> params, const char* where) {
  std::vector<void*> p(params);
  BATON_CU(where, cuLaunchKernel, f, blocks_x, blocks_y, 1, 256, 1, 1, 0, stream, p.data(),
           nullptr);
}

unsigned blocks_for(std::uint64_t n) {
  return unsigned(std::clamp<std::uint64_t>((n + 255) / 256, 1, 8192));
}

}  // namespace baton::train::cuda_step
