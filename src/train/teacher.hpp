// The synthetic task the benchmark learns: inputs uniform in [-1, 1), targets
// the outputs of a fixed random teacher MLP (one hidden layer). Row r of step
// s is the same whichever device makes it, so how a batch is split changes
// nothing, and a learner can fit it: the loss falls.
#pragma once

#include <cstdint>
#include <vector>

#include "train/mlp.hpp"

namespace baton::train {

class Teacher {
 public:
  Teacher(const MlpShape& student, std::uint64_t seed);

  // Rows [first, first + rows) of step `step`'s batch: x is rows x inputs,
  // y rows x outputs.
  void batch(std::uint64_t step, std::uint64_t first, int rows, float* x, float* y) const;

 private:
  MlpLayout layout_;
  std::uint64_t seed_;
  std::vector<float> params_;
};

}  // namespace baton::train
