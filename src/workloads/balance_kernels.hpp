// The built-in kernels of `baton bench balance` and the tests, with code for
// every backend this build has.
#pragma once

#include "baton/kernel.hpp"

namespace baton::workloads {

// out[i] = x after `iters` steps of x = x*a + b from x = in[i]. Arguments:
// in(float), out(float), float a, float b, int iters. Compute-bound for large
// iters; its sim cost is `iters` units per item.
Kernel fma_kernel(int iters_for_sim_cost, bool with_cpu = true);
// fma over rows of `width` floats: item i takes in[i*width + j] through `iters`
// steps of x = x*a + b into out[i*width + j], j < width; width 0 reads only
// in[0] and starts item i from in[0] + (i % 1024) / 1024, writing out[i].
// Arguments: in(float), out(float), float a, float b, int iters, int width.
// Moves 8*width bytes per item (4 for width 0); its sim cost is iters per
// element.
Kernel fma_rows_kernel(int iters_for_sim_cost, int width, bool with_cpu = true);
// y[i] = a*x[i] + y[i]. Arguments: float a, in(float x), inout(float y).
Kernel saxpy_kernel();
// c[i] += 1: each item counts how often it ran. Arguments: inout(int c).
Kernel count_kernel();
// c[0] += 1 atomically per item: how many items ran where, into a per-device
// buffer. Arguments: local(int c).
Kernel tally_kernel();
// out[0] = the sum of c[0] over every device's instance of a per-device
// buffer, through the table baton::instances() gives (no OpenCL code: its
// memory has no addresses). Arguments: instances(int c), out(int), int devices.
Kernel sum_instances_kernel();
// Does nothing: for measuring per-chunk overhead. No arguments.
Kernel empty_kernel();

}  // namespace baton::workloads
