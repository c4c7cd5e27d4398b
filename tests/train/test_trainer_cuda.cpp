// The training cases on CUDA: a whole GPU, partitions of one (the update
// reads their accumulators in place), and partitions beside a cpu device (the
// ring between host and device memory).
#include "train/trainer_cases.hpp"

namespace training {
INSTANTIATE_TEST_SUITE_P(cuda, Training,
                         testing::Values("cuda:0", "cuda:0/64+32+16+8", "cpu:1x1,cuda:0/64+32"));
}  // namespace training
