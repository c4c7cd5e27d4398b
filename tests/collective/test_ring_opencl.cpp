// The ring on OpenCL devices, alone and beside a cpu device.
#include "collective/ring_cases.hpp"

namespace ring_cases {
INSTANTIATE_TEST_SUITE_P(opencl, RingOver, testing::Values("opencl", "cpu:1x1,opencl"));
}  // namespace ring_cases
