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

// z = x W^T + b, a = gelu(z) for hidden layers (a = z for the output layer).
void forward(const MlpLayout& layout, const float* params, const float* x, int rows,
             const Saved& s) {
  const auto& layers = layout.layers();
  const float* in = x;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
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
    in = a;
  }
}

// Layer i's backward: dz (its output's gradient, in `dz`) gives dW and db,
// added to `grad`; below layer 0, dz for the layer under it goes to `below`.
void backward(const MlpLayout& layout, std::size_t i, const float* params, const float* x, int rows,
              const Saved& s, const float* dz, float* below, float* grad) {
  const Layer& l = layout.layers()[i];
  const float* in = i == 0 ? x : s.a[i - 1];
  // dW += dz^T in; db += the column sums of dz.
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, l.out, l.in, rows, 1.0f, dz, l.out, in, l.in,
              1.0f, grad + l.weight, l.in);
  float* db = grad + l.bias;
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < l.out; ++o) db[o] += dz[std::size_t(r) * l.out + o];
  if (i == 0) return;
  // d in = dz W, then through the previous layer's GELU.
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, l.in, l.out, 1.0f, dz, l.out,
              params + l.weight, l.in, 0.0f, below, l.in);
  const float* z = s.z[i - 1];
  const std::size_t m = std::size_t(rows) * std::size_t(l.in);
  for (std::size_t k = 0; k < m; ++k) below[k] *= gelu_grad(z[k]);
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

double backward_layer_cpu(const MlpLayout& layout, std::size_t layer, const float* params,
                          const float* x, const float* y, int rows, float* saved, const float* add,
                          float* grad) {
  const Saved s = carve(layout, rows, saved);
  const std::size_t last = layout.layers().size() - 1;
  // Layer i's dz sits in grad_a or grad_b by its distance from the last
  // layer, as the whole backward above swaps them.
  const bool even = (last - layer) % 2 == 0;
  float* dz = even ? s.grad_a : s.grad_b;
  float* below = even ? s.grad_b : s.grad_a;
  const double loss = layer == last ? output_gradient(layout, y, rows, s, dz) : 0.0;
  const Layer& l = layout.layers()[layer];
  if (add != grad) {
    if (add)
      std::copy(add + l.weight, add + l.end(), grad + l.weight);
    else
      std::fill(grad + l.weight, grad + l.end(), 0.0f);
  }
  backward(layout, layer, params, x, rows, s, dz, below, grad);
  return loss;
}

}  // namespace baton::train
