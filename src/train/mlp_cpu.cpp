#include "train/mlp_cpu.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace baton::train {

namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f, kCubic = 0.044715f;

// GELU, tanh form (as PyTorch's approximate="tanh"), and its derivative.
inline float gelu(float z) {
  return 0.5f * z * (1.0f + std::tanh(kSqrt2OverPi * (z + kCubic * z * z * z)));
}
inline float gelu_grad(float z) {
  const float t = std::tanh(kSqrt2OverPi * (z + kCubic * z * z * z));
  return 0.5f * (1.0f + t) + 0.5f * z * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3 * kCubic * z * z);
}

// Where each layer's pre-activation (z) and activation (a) sit in the workspace.
struct Saved {
  std::vector<float*> z, a;
  float *grad_a = nullptr, *grad_b = nullptr;
};

Saved carve(const MlpLayout& layout, int rows, float* p) {
  Saved s;
  std::size_t widest = std::size_t(layout.shape().inputs);
  for (const Layer& l : layout.layers()) {
    s.z.push_back(p);
    p += std::size_t(rows) * std::size_t(l.out);
    s.a.push_back(p);
    p += std::size_t(rows) * std::size_t(l.out);
    widest = std::max(widest, std::size_t(l.out));
  }
  s.grad_a = p;
  s.grad_b = p + std::size_t(rows) * widest;
  return s;
}

Saved carve(const MlpLayout& layout, int rows, std::vector<float>& workspace) {
  workspace.resize(layout.workspace(rows));
  return carve(layout, rows, workspace.data());
}

// Layer i of forward, from the layer below's output (x for the first):
// z = in W^T + b, a = gelu(z) for hidden layers (a = z for the output layer).
void forward_layer(const MlpLayout& layout, std::size_t i, const float* params, const float* x,
                   int rows, const Saved& s) {
  const auto& layers = layout.layers();
  const Layer& l = layers[i];
  const float* in = i == 0 ? x : s.a[i - 1];
  float* z = s.z[i];
  const float* bias = params + l.bias;
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < l.out; ++o) z[std::size_t(r) * l.out + o] = bias[o];
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, l.out, l.in, 1.0f, in, l.in,
              params + l.weight, l.in, 1.0f, z, l.out);
  float* a = s.a[i];
  const std::size_t n = std::size_t(rows) * std::size_t(l.out);
  const bool hidden = i + 1 < layers.size();
  for (std::size_t k = 0; k < n; ++k) a[k] = hidden ? gelu(z[k]) : z[k];
}

void forward(const MlpLayout& layout, const float* params, const float* x, int rows,
             const Saved& s) {
  for (std::size_t i = 0; i < layout.layers().size(); ++i)
    forward_layer(layout, i, params, x, rows, s);
}

// Rows [first, end) of layer i's weight gradient (its outputs'), and the bias
// gradient with the last row: dW += dz^T in; db += the column sums of dz.
void weight_rows(const MlpLayout& layout, std::size_t i, const float* x, int rows, const Saved& s,
                 const float* dz, float* grad, int first, int end) {
  const Layer& l = layout.layers()[i];
  const float* in = i == 0 ? x : s.a[i - 1];
  if (end > first)
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, end - first, l.in, rows, 1.0f, dz + first,
                l.out, in, l.in, 1.0f, grad + l.weight + std::size_t(first) * l.in, l.in);
  if (end < l.out) return;
  float* db = grad + l.bias;
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < l.out; ++o) db[o] += dz[std::size_t(r) * l.out + o];
}

// The gradient below layer i > 0: d in = dz W, through the previous layer's GELU.
void through(const MlpLayout& layout, std::size_t i, const float* params, int rows, const Saved& s,
             const float* dz, float* below) {
  const Layer& l = layout.layers()[i];
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, l.in, l.out, 1.0f, dz, l.out,
              params + l.weight, l.in, 0.0f, below, l.in);
  const float* z = s.z[i - 1];
  const std::size_t m = std::size_t(rows) * std::size_t(l.in);
  for (std::size_t k = 0; k < m; ++k) below[k] *= gelu_grad(z[k]);
}

// Layer i's backward: dz (its output's gradient, in `dz`) gives dW and db,
// added to `grad`; below layer 0, dz for the layer under it goes to `below`.
void backward(const MlpLayout& layout, std::size_t i, const float* params, const float* x, int rows,
              const Saved& s, const float* dz, float* below, float* grad) {
  weight_rows(layout, i, x, rows, s, dz, grad, 0, layout.layers()[i].out);
  if (i > 0) through(layout, i, params, rows, s, dz, below);
}

// Layer i's dz and the buffer below it in `saved`: grad_a or grad_b by the
// layer's distance from the last, as the whole backward above swaps them.
std::pair<float*, float*> layer_gradients(const MlpLayout& layout, std::size_t i, const Saved& s) {
  const bool even = (layout.layers().size() - 1 - i) % 2 == 0;
  return even ? std::pair{s.grad_a, s.grad_b} : std::pair{s.grad_b, s.grad_a};
}

// d loss / d prediction = prediction - target, into `dz`; returns the loss.
double output_gradient(const MlpLayout& layout, const float* y, int rows, const Saved& s,
                       float* dz) {
  double loss = 0;
  const std::size_t n = std::size_t(rows) * std::size_t(layout.shape().outputs);
  for (std::size_t k = 0; k < n; ++k) {
    dz[k] = s.a.back()[k] - y[k];
    loss += 0.5 * double(dz[k]) * double(dz[k]);
  }
  return loss;
}

}  // namespace

void forward_cpu(const MlpLayout& layout, const float* params, const float* x, int rows, float* out,
                 std::vector<float>& workspace) {
  const Saved s = carve(layout, rows, workspace);
  forward(layout, params, x, rows, s);
  const std::size_t n = std::size_t(rows) * std::size_t(layout.shape().outputs);
  std::copy(s.a.back(), s.a.back() + n, out);
}

double loss_and_grad_cpu(const MlpLayout& layout, const float* params, const float* x,
                         const float* y, int rows, float* grad, std::vector<float>& workspace) {
  const Saved s = carve(layout, rows, workspace);
  forward(layout, params, x, rows, s);
  float *dz = s.grad_a, *other = s.grad_b;
  const double loss = output_gradient(layout, y, rows, s, dz);
  for (std::size_t i = layout.layers().size(); i-- > 0;) {
    backward(layout, i, params, x, rows, s, dz, other, grad);
    std::swap(dz, other);
  }
  return loss;
}

void forward_saved_cpu(const MlpLayout& layout, const float* params, const float* x, int rows,
                       float* saved) {
  forward(layout, params, x, rows, carve(layout, rows, saved));
}

void forward_layer_cpu(const MlpLayout& layout, std::size_t layer, const float* params,
                       const float* x, int rows, float* saved) {
  forward_layer(layout, layer, params, x, rows, carve(layout, rows, saved));
}

double backward_layer_cpu(const MlpLayout& layout, std::size_t layer, const float* params,
                          const float* x, const float* y, int rows, float* saved, const float* add,
                          float* grad) {
  const double loss =
      layer_rows_cpu(layout, layer, x, y, rows, saved, add, grad, {0, layout.layers()[layer].out});
  if (layer > 0) below_layer_cpu(layout, layer, params, rows, saved);
  return loss;
}

double layer_rows_cpu(const MlpLayout& layout, std::size_t layer, const float* x, const float* y,
                      int rows, float* saved, const float* add, float* grad, OutRows part) {
  const Saved s = carve(layout, rows, saved);
  const Layer& l = layout.layers()[layer];
  float* dz = layer_gradients(layout, layer, s).first;
  const bool last = layer + 1 == layout.layers().size();
  const double loss = last && part.end == l.out ? output_gradient(layout, y, rows, s, dz) : 0.0;
  const auto [begin, end] = part_elements(l, part);
  if (add != grad) {
    if (add)
      std::copy(add + begin, add + end, grad + begin);
    else
      std::fill(grad + begin, grad + end, 0.0f);
  }
  weight_rows(layout, layer, x, rows, s, dz, grad, part.begin, part.end);
  return loss;
}

void below_layer_cpu(const MlpLayout& layout, std::size_t layer, const float* params, int rows,
                     float* saved) {
  const Saved s = carve(layout, rows, saved);
  const auto [dz, below] = layer_gradients(layout, layer, s);
  through(layout, layer, params, rows, s, dz, below);
}

}  // namespace baton::train
