// How CUDA driver codes are sorted into usage errors (raised to the caller,
// the device stays) and device faults (the device is drained, its work moves).
// No GPU needed: the table is baton's.
#include <gtest/gtest.h>

#include "vendor/cuda/driver_api.hpp"

using baton::Errc;
using baton::cuda::classify;

TEST(CudaErrors, UsageErrorsNeverRetireADevice) {
  for (CUresult r : {CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_FOUND, CUDA_ERROR_INVALID_HANDLE,
                     CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, CUDA_ERROR_INVALID_CONTEXT,
                     CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, CUDA_ERROR_NOT_SUPPORTED})
    EXPECT_EQ(classify(r), Errc::invalid_argument) << int(r);
}

TEST(CudaErrors, LostOrBrokenGpusAreDeviceFaults) {
  for (CUresult r :
       {CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ECC_UNCORRECTABLE, CUDA_ERROR_ILLEGAL_ADDRESS,
        CUDA_ERROR_DEVICE_UNAVAILABLE, CUDA_ERROR_NVLINK_UNCORRECTABLE, CUDA_ERROR_UNKNOWN})
    EXPECT_EQ(classify(r), Errc::device_failed) << int(r);
}

TEST(CudaErrors, MemoryAndCodeProblemsHaveTheirOwnCodes) {
  EXPECT_EQ(classify(CUDA_ERROR_OUT_OF_MEMORY), Errc::out_of_memory);
  EXPECT_EQ(classify(CUDA_ERROR_NO_BINARY_FOR_GPU), Errc::compile_failed);
  EXPECT_EQ(classify(CUDA_ERROR_INVALID_PTX), Errc::compile_failed);
}
