// The training cases on CUDA: a whole GPU, and partitions of one.
#include "train/trainer_cases.hpp"

namespace training {
INSTANTIATE_TEST_SUITE_P(cuda, Training, testing::Values("cuda:0", "cuda:0/64+32+16+8"));
}  // namespace training
