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

Saved carve(const MlpLayout& layout, int rows, std::vector<float>& workspace) {
  workspace.resize(layout.workspace(rows));
  Saved s;
  float* p = workspace.data();
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
  const auto& layers = layout.layers();
  const int outputs = layout.shape().outputs;

  // d loss / d prediction = prediction - target.
  float* dz = s.grad_a;
  float* other = s.grad_b;
  double loss = 0;
  const std::size_t n = std::size_t(rows) * std::size_t(outputs);
  for (std::size_t k = 0; k < n; ++k) {
    dz[k] = s.a.back()[k] - y[k];
    loss += 0.5 * double(dz[k]) * double(dz[k]);
  }
  for (std::size_t i = layers.size(); i-- > 0;) {
    const Layer& l = layers[i];
    const float* in = i == 0 ? x : s.a[i - 1];
    // dW += dz^T in; db += the column sums of dz.
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, l.out, l.in, rows, 1.0f, dz, l.out, in,
                l.in, 1.0f, grad + l.weight, l.in);
    float* db = grad + l.bias;
    for (int r = 0; r < rows; ++r)
      for (int o = 0; o < l.out; ++o) db[o] += dz[std::size_t(r) * l.out + o];
    if (i == 0) break;
    // d in = dz W, then through the previous layer's GELU.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, l.in, l.out, 1.0f, dz, l.out,
                params + l.weight, l.in, 0.0f, other, l.in);
    const float* z = s.z[i - 1];
    const std::size_t m = std::size_t(rows) * std::size_t(l.in);
    for (std::size_t k = 0; k < m; ++k) other[k] *= gelu_grad(z[k]);
    std::swap(dz, other);
  }
  return loss;
}

}  // namespace baton::train
