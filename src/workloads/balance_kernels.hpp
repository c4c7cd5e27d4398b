// The built-in kernels of `baton bench balance` and the tests, with code for
// every backend this build has.
#pragma once

#include "baton/kernel.hpp"

namespace baton::workloads {

// out[i] = x after `iters` steps of x = x*a + b from x = in[i]. Arguments:
// in(float), out(float), float a, float b, int iters. Compute-bound for large
// iters; its sim cost is `iters` units per item.
Kernel fma_kernel(int iters_for_sim_cost, bool with_cpu = true);
// y[i] = a*x[i] + y[i]. Arguments: float a, in(float x), inout(float y).
Kernel saxpy_kernel();
// c[i] += 1: each item counts how often it ran. Arguments: inout(int c).
Kernel count_kernel();
// Does nothing: for measuring per-chunk overhead. No arguments.
Kernel empty_kernel();

}  // namespace baton::workloads
