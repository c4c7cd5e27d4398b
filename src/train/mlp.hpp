// The model of the training benchmark: a multi-layer perceptron, Linear + bias
// + GELU for each hidden layer and a linear output layer, trained with a
// mean-square loss to imitate a fixed random teacher network. Every layer's
// parameters live in one flat fp32 array (each layer's weight, row-major
// out x in, then its bias), so that gradients are reduced and updated as one
// buffer and cut into buckets along layer boundaries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace baton::train {

struct MlpShape {
  int inputs = 64;
  int width = 256;  // of each hidden layer
  int depth = 2;    // hidden layers
  int outputs = 16;
};

struct Layer {
  int in = 0, out = 0;
  std::size_t weight = 0, bias = 0;  // offsets into the flat parameter array
  std::size_t end() const { return bias + std::size_t(out); }
};

class MlpLayout {
 public:
  static constexpr int kMaxDepth = 1 << 16;
  static constexpr double kMaxParams = double(1ull << 50);
  // Throws Error(invalid_argument) naming the field for a shape that is not
  // positive, deeper than kMaxDepth, or of more than kMaxParams parameters.
  explicit MlpLayout(MlpShape shape);

  const MlpShape& shape() const { return shape_; }
  const std::vector<Layer>& layers() const { return layers_; }
  std::size_t params() const { return params_; }
  // Floats of scratch a micro-batch of `rows` needs for forward and backward.
  std::size_t workspace(int rows) const;

 private:
  MlpShape shape_;
  std::vector<Layer> layers_;
  std::size_t params_ = 0;
};

// Weights uniform in +-1/sqrt(fan-in) (as PyTorch's Linear), biases zero;
// the same for a seed on every machine.
void init_params(const MlpLayout& layout, std::uint64_t seed, std::span<float> params);

}  // namespace baton::train
