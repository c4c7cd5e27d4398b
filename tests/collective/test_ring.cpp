// The ring on the cpu backend (devices that share host memory) and on sim
// devices (each a memory of its own, copies on virtual links).
#include "collective/ring_cases.hpp"

namespace ring_cases {
INSTANTIATE_TEST_SUITE_P(cpu, RingOver, testing::Values("cpu:1x1", "cpu:3x1"));
INSTANTIATE_TEST_SUITE_P(sim, RingOver, testing::Values("sim:4,2,1", "sim:1,1,1,1,1"));
}  // namespace ring_cases
