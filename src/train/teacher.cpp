#include "train/teacher.hpp"

#include "train/mlp_cpu.hpp"
#include "train/random.hpp"

namespace baton::train {

namespace {
constexpr int kTeacherWidth = 32;
}

Teacher::Teacher(const MlpShape& student, std::uint64_t seed)
    : layout_(MlpShape{student.inputs, kTeacherWidth, 1, student.outputs}), seed_(seed) {
  params_.resize(layout_.params());
  init_params(layout_, mix(seed ^ 0x7eac4e7ull), params_);
  // Biases too, so that targets are not centred on zero.
  for (const Layer& l : layout_.layers())
    for (std::size_t i = l.bias; i < l.end(); ++i) params_[i] = 0.5f * uniform(seed, i);
}

void Teacher::batch(std::uint64_t step, std::uint64_t first, int rows, float* x, float* y) const {
  const int inputs = layout_.shape().inputs;
  const std::uint64_t step_seed = mix(seed_ + step);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < inputs; ++c)
      x[std::size_t(r) * inputs + c] =
          uniform(step_seed, (first + std::uint64_t(r)) * std::uint64_t(inputs) + std::uint64_t(c));
  thread_local std::vector<float> workspace;
  forward_cpu(layout_, params_.data(), x, rows, y, workspace);
}

}  // namespace baton::train
