// The model's math on the host, over OpenBLAS: forward, and forward +
// backward of one micro-batch. Gradients and losses are sums over rows (not
// means), so that micro-batches on any devices add up to the whole batch's.
#pragma once

#include <vector>

#include "train/mlp.hpp"

namespace baton::train {

// The model's outputs for `rows` samples (x: rows x inputs, out: rows x outputs).
void forward_cpu(const MlpLayout& layout, const float* params, const float* x, int rows, float* out,
                 std::vector<float>& workspace);

// Adds to `grad` the gradient of 0.5 * sum((model(x) - y)^2) over the rows;
// returns that loss.
double loss_and_grad_cpu(const MlpLayout& layout, const float* params, const float* x,
                         const float* y, int rows, float* grad, std::vector<float>& workspace);

}  // namespace baton::train
