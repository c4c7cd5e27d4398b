#include "vendor/cuda/driver_api.hpp"

#include <dlfcn.h>

#include <algorithm>

#include "baton/error.hpp"

namespace baton::cuda {
namespace {

[[noreturn]] void unavailable(const std::string& why) {
  raise(Errc::backend_unavailable, "cuda", why);
}

using GetProcAddress = decltype(&::cuGetProcAddress);

// Resolves `name` for ABI `version`; null when this driver lacks it.
void* resolve(GetProcAddress get, const char* name, int version) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status{};
  if (get(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS ||
      status != CU_GET_PROC_ADDRESS_SUCCESS)
    return nullptr;
  return fn;
}

DriverApi load() {
  // The handle stays open for the life of the process: the driver must
  // outlive every static object that may still hold a CUDA resource.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) unavailable(std::string("libcuda.so.1 not found (no NVIDIA driver): ") + dlerror());
  // cuGetProcAddress_v2 (CUDA 12.0+) is the one entry point taken by name.
  auto get = reinterpret_cast<GetProcAddress>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!get) unavailable("the NVIDIA driver is older than CUDA 12.0 (no cuGetProcAddress_v2)");

  DriverApi api;
  auto version_fn =
      reinterpret_cast<decltype(&::cuDriverGetVersion)>(resolve(get, "cuDriverGetVersion", 12000));
  if (!version_fn || version_fn(&api.driver_version) != CUDA_SUCCESS)
    unavailable("cuDriverGetVersion failed");
  // Ask for the ABI of our header, or of the driver where that is older.
  const int abi = std::min(api.driver_version, CUDA_VERSION);

#define BATON_CUDA_RESOLVE(name)                                                               \
  api.name = reinterpret_cast<decltype(api.name)>(resolve(get, #name, abi));                   \
  if (!api.name)                                                                               \
    unavailable("the NVIDIA driver (CUDA " + std::to_string(api.driver_version / 1000) + "." + \
                std::to_string(api.driver_version % 1000 / 10) + ") has no " #name);
  BATON_CUDA_DRIVER_FUNCTIONS(BATON_CUDA_RESOLVE)
#undef BATON_CUDA_RESOLVE

  api.has_green_contexts = true;
#define BATON_CUDA_RESOLVE_OPTIONAL(name)                                    \
  api.name = reinterpret_cast<decltype(api.name)>(resolve(get, #name, abi)); \
  api.has_green_contexts = api.has_green_contexts && api.name != nullptr;
  BATON_CUDA_GREEN_FUNCTIONS(BATON_CUDA_RESOLVE_OPTIONAL)
#undef BATON_CUDA_RESOLVE_OPTIONAL

  CUresult r = api.cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE) unavailable("no GPU: the driver sees no CUDA device");
  if (r != CUDA_SUCCESS) {
    const char* text = nullptr;
    api.cuGetErrorString(r, &text);
    unavailable(std::string("driver error in cuInit: ") + (text ? text : "unknown"));
  }
  int count = 0;
  if (api.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0)
    unavailable("no GPU: the driver sees no CUDA device");
  return api;
}

}  // namespace

const DriverApi& driver() {
  // A failed load is not cached as a value: each call rethrows the same
  // reason, which is what `baton devices` prints.
  static const DriverApi api = load();
  return api;
}

std::string describe(CUresult r) {
  const DriverApi& d = driver();
  const char* name = nullptr;
  const char* text = nullptr;
  d.cuGetErrorName(r, &name);
  d.cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA_ERROR_" + std::to_string(int(r))) + ": " +
         (text ? text : "unknown error");
}

Errc classify(CUresult r) {
  switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY:
      return Errc::out_of_memory;
    // Code the GPU cannot run: a build problem of the kernel.
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_JIT_COMPILATION_DISABLED:
    case CUDA_ERROR_INVALID_SOURCE:
      return Errc::compile_failed;
    // The GPU, its context or the driver is gone or broken (the errors after
    // a faulting kernel are sticky: the context cannot go on).
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_SYSTEM_NOT_READY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_MPS_CONNECTION_FAILED:
    case CUDA_ERROR_MPS_RPC_FAILURE:
    case CUDA_ERROR_MPS_SERVER_NOT_READY:
    case CUDA_ERROR_MPS_CLIENT_TERMINATED:
    case CUDA_ERROR_EXTERNAL_DEVICE:
    case CUDA_ERROR_UNKNOWN:
      return Errc::device_failed;
    // Anything else is the caller's: a bad value, handle, name or launch size.
    default:
      return Errc::invalid_argument;
  }
}

void check(CUresult r, const char* call, const std::string& where) {
  if (r != CUDA_SUCCESS) raise(classify(r), where, std::string(call) + ": " + describe(r));
}

ContextGuard::ContextGuard(CUcontext ctx) {
  const DriverApi& d = driver();
  CUcontext current = nullptr;
  check(d.cuCtxGetCurrent(&current), "cuCtxGetCurrent", "cuda");
  if (current == ctx) return;
  check(d.cuCtxPushCurrent(ctx), "cuCtxPushCurrent", "cuda");
  pushed_ = true;
}

ContextGuard::~ContextGuard() {
  if (!pushed_) return;
  CUcontext popped = nullptr;
  driver().cuCtxPopCurrent(&popped);
}

}  // namespace baton::cuda
