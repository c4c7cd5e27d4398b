#include "train/mlp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "baton/error.hpp"
#include "train/random.hpp"

namespace baton::train {

MlpLayout::MlpLayout(MlpShape shape) : shape_(shape) {
  auto positive = [](int v, const char* what) {
    if (v <= 0) raise(Errc::invalid_argument, what, "must be at least 1, not " + std::to_string(v));
  };
  positive(shape.inputs, "model inputs");
  positive(shape.width, "model width");
  positive(shape.depth, "model depth");
  positive(shape.outputs, "model outputs");
  // Bounds that keep the layout's sizes and the bytes reckoned from them in
  // 64 bits (the memory checks then say whether the model fits).
  if (shape.depth > kMaxDepth)
    raise(Errc::invalid_argument, "model depth",
          std::to_string(shape.depth) + " hidden layers: at most " + std::to_string(kMaxDepth));
  const double w = shape.width, floats = (shape.inputs + 1.0) * w +
                                         (shape.depth - 1.0) * (w + 1) * w +
                                         (w + 1) * shape.outputs;
  if (floats > kMaxParams) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", floats);
    raise(Errc::invalid_argument, "model",
          std::string("about ") + text + " parameters: at most 2^50 (about 1.13e+15)");
  }
  int in = shape.inputs;
  for (int l = 0; l <= shape.depth; ++l) {
    const int out = l == shape.depth ? shape.outputs : shape.width;
    Layer layer{in, out, params_, params_ + std::size_t(in) * std::size_t(out)};
    params_ = layer.end();
    layers_.push_back(layer);
    in = out;
  }
}

std::size_t MlpLayout::workspace(int rows) const {
  // Per layer its pre-activation and activation, plus two gradient buffers
  // of the widest layer.
  std::size_t per_row = 0, widest = std::size_t(shape_.inputs);
  for (const Layer& l : layers_) {
    per_row += 2 * std::size_t(l.out);
    widest = std::max(widest, std::size_t(l.out));
  }
  return std::size_t(rows) * (per_row + 2 * widest);
}

void init_params(const MlpLayout& layout, std::uint64_t seed, std::span<float> params) {
  if (params.size() != layout.params())
    raise(Errc::invalid_argument, "init_params",
          std::to_string(params.size()) + " floats for " + std::to_string(layout.params()) +
              " parameters");
  for (const Layer& l : layout.layers()) {
    const float bound = 1.0f / std::sqrt(float(l.in));
    for (std::size_t i = l.weight; i < l.bias; ++i) params[i] = bound * uniform(seed, i);
    for (std::size_t i = l.bias; i < l.end(); ++i) params[i] = 0.0f;
  }
}

}  // namespace baton::train
