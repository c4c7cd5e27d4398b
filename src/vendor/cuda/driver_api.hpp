// The CUDA driver API, loaded at run time from libcuda.so.1 so that one baton
// binary runs with or without an NVIDIA driver. Entry points are resolved
// through cuGetProcAddress, which hands out the ABI version that matches the
// toolkit header we were compiled against (cuMemAlloc -> cuMemAlloc_v2 and so
// on); the pointer types come from that same header, never written by hand.
#pragma once

#include <cuda.h>

#include <string>

#include "baton/error.hpp"

namespace baton::cuda {

// Every entry point baton and its CUDA benchmarks call (the stream capture and
// graph calls are the task benchmark's). X(name) expands once per function.
#define BATON_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuInit)                            \
  X(cuDriverGetVersion)                \
  X(cuGetErrorName)                    \
  X(cuGetErrorString)                  \
  X(cuDeviceGetCount)                  \
  X(cuDeviceGet)                       \
  X(cuDeviceGetName)                   \
  X(cuDeviceGetAttribute)              \
  X(cuDeviceTotalMem)                  \
  X(cuDeviceGetPCIBusId)               \
  X(cuDeviceCanAccessPeer)             \
  X(cuDevicePrimaryCtxRetain)          \
  X(cuDevicePrimaryCtxRelease)         \
  X(cuCtxGetCurrent)                   \
  X(cuCtxSetCurrent)                   \
  X(cuCtxPushCurrent)                  \
  X(cuCtxPopCurrent)                   \
  X(cuCtxEnablePeerAccess)             \
  X(cuMemGetInfo)                      \
  X(cuMemAlloc)                        \
  X(cuMemAllocManaged)                 \
  X(cuMemFree)                         \
  X(cuMemHostAlloc)                    \
  X(cuMemFreeHost)                     \
  X(cuMemHostGetDevicePointer)         \
  X(cuMemHostRegister)                 \
  X(cuMemHostUnregister)               \
  X(cuPointerGetAttributes)            \
  X(cuMemcpyHtoD)                      \
  X(cuMemcpyDtoH)                      \
  X(cuMemcpyHtoDAsync)                 \
  X(cuMemcpyDtoHAsync)                 \
  X(cuMemcpyDtoDAsync)                 \
  X(cuMemcpyPeerAsync)                 \
  X(cuMemsetD32Async)                  \
  X(cuStreamCreate)                    \
  X(cuStreamDestroy)                   \
  X(cuStreamSynchronize)               \
  X(cuStreamWaitEvent)                 \
  X(cuEventCreate)                     \
  X(cuEventDestroy)                    \
  X(cuEventRecord)                     \
  X(cuEventQuery)                      \
  X(cuEventSynchronize)                \
  X(cuEventElapsedTime)                \
  X(cuModuleLoadData)                  \
  X(cuModuleUnload)                    \
  X(cuModuleGetFunction)               \
  X(cuLaunchKernel)                    \
  X(cuStreamBeginCapture)              \
  X(cuStreamEndCapture)                \
  X(cuGraphInstantiateWithFlags)       \
  X(cuGraphLaunch)                     \
  X(cuGraphExecDestroy)                \
  X(cuGraphDestroy)

// Green contexts (driver >= 12.4): only needed for SM partitions, so a driver
// without them still runs whole GPUs.
#define BATON_CUDA_GREEN_FUNCTIONS(X) \
  X(cuDeviceGetDevResource)           \
  X(cuDevSmResourceSplitByCount)      \
  X(cuDevResourceGenerateDesc)        \
  X(cuGreenCtxCreate)                 \
  X(cuGreenCtxDestroy)                \
  X(cuCtxFromGreenCtx)                \
  X(cuGreenCtxStreamCreate)

struct DriverApi {
#define BATON_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  BATON_CUDA_DRIVER_FUNCTIONS(BATON_CUDA_DECLARE)
  BATON_CUDA_GREEN_FUNCTIONS(BATON_CUDA_DECLARE)
#undef BATON_CUDA_DECLARE
  int driver_version = 0;  // e.g. 13000 for CUDA 13.0
  bool has_green_contexts = false;
};

// The loaded and initialised driver (cuInit done), or
// Error(backend_unavailable, "cuda", why) when there is none.
const DriverApi& driver();

// "CUDA_ERROR_OUT_OF_MEMORY: out of memory"
std::string describe(CUresult r);

// How baton treats a failed call: out_of_memory; compile_failed for code the
// GPU cannot run; device_failed where the GPU or its context is gone or broken
// (its work moves to other devices); invalid_argument for every other code,
// a usage error raised to the caller (a bad value, handle, entry name or
// launch size never retires a device).
Errc classify(CUresult r);

// Throws Error(classify(r), where, "<call>: <name>: <text>") unless r is CUDA_SUCCESS.
void check(CUresult r, const char* call, const std::string& where);

// Makes `ctx` current on this thread for the guard's lifetime, restoring the
// previous one after; costs one cuCtxGetCurrent when `ctx` already is current.
class ContextGuard {
 public:
  explicit ContextGuard(CUcontext ctx);
  ~ContextGuard();
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;

 private:
  bool pushed_ = false;
};

}  // namespace baton::cuda

// Calls the driver through the table and checks the result:
//   BATON_CU(where, cuMemAlloc, &ptr, bytes);
#define BATON_CU(where, fn, ...) \
  ::baton::cuda::check(::baton::cuda::driver().fn(__VA_ARGS__), #fn, where)
