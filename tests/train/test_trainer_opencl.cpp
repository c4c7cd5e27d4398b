// The training cases on OpenCL (PoCL in CI): alone, and beside a cpu device.
#include "train/trainer_cases.hpp"

namespace training {
INSTANTIATE_TEST_SUITE_P(opencl, Training, testing::Values("opencl", "cpu:1x1,opencl"));
}  // namespace training
