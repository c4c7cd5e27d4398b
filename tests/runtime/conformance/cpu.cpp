// The conformance suite on the cpu backend: two and three single-thread devices.
#include "conformance.hpp"

namespace conformance {
INSTANTIATE_TEST_SUITE_P(cpu, Conformance, testing::Values("cpu:2x1", "cpu:3x1"));
}  // namespace conformance
