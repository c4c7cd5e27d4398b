// The one place the OpenCL headers are included from, so every unit of the
// backend (and its tests) sees the same API level.
#pragma once

// Target OpenCL 3.0 headers but keep the 1.2 entry points visible: queues are
// created with clCreateCommandQueue, which every platform (1.2 to 3.0) serves,
// whereas clCreateCommandQueueWithProperties needs a 2.0 platform.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif

#include <CL/cl.h>
#include <CL/cl_ext.h>
