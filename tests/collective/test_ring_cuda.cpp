// The ring on CUDA: partitions of one GPU (one memory), and a GPU's
// partitions beside a cpu device (host and device memory).
#include "collective/ring_cases.hpp"

namespace ring_cases {
INSTANTIATE_TEST_SUITE_P(cuda, RingOver,
                         testing::Values("cuda:0/64+32+16", "cpu:1x1,cuda:0/64+32"));
}  // namespace ring_cases
