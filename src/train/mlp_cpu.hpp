// The model's math on the host, over OpenBLAS: forward, and forward +
// backward of one micro-batch. Gradients and losses are sums over rows (not
// means), so that micro-batches on any devices add up to the whole batch's.
#pragma once

#include <utility>
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

// The same a layer at a time, so that a layer's gradient is ready before
// the layers below it are done: forward_saved_cpu keeps in `saved` (of
// layout.workspace(rows) floats) what backward needs; then backward_layer_cpu
// for each layer from the last down to 0, each reading what the one before
// left in `saved`. Layer i's gradient, added to `add`'s (null: to zero), is
// written to `grad` over the layer's parameters (`add` may be `grad`). The
// last layer's call returns the loss, the others 0.
void forward_saved_cpu(const MlpLayout& layout, const float* params, const float* x, int rows,
                       float* saved);
// forward_saved_cpu a layer at a time, from layer 0 up: each layer needs only
// its own weights (and the output the layer below left in `saved`).
void forward_layer_cpu(const MlpLayout& layout, std::size_t layer, const float* params,
                       const float* x, int rows, float* saved);
double backward_layer_cpu(const MlpLayout& layout, std::size_t layer, const float* params,
                          const float* x, const float* y, int rows, float* saved, const float* add,
                          float* grad);
// backward_layer_cpu in parts: layer_rows_cpu for rows [begin, end) of the
// layer's weight gradient (its outputs', and the bias with the last row),
// the last rows first (the last layer's returns the loss), then
// below_layer_cpu, the gradient below a layer > 0, before the layer below's.
struct OutRows {
  int begin = 0, end = 0;
};
// The elements of layer `l`'s parameters that part `p` covers: [first, second).
inline std::pair<std::size_t, std::size_t> part_elements(const Layer& l, OutRows p) {
  return {l.weight + std::size_t(p.begin) * std::size_t(l.in),
          p.end == l.out ? l.end() : l.weight + std::size_t(p.end) * std::size_t(l.in)};
}
double layer_rows_cpu(const MlpLayout& layout, std::size_t layer, const float* x, const float* y,
                      int rows, float* saved, const float* add, float* grad, OutRows part);
void below_layer_cpu(const MlpLayout& layout, std::size_t layer, const float* params, int rows,
                     float* saved);

}  // namespace baton::train
