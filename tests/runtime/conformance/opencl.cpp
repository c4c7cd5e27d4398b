// The conformance suite on the opencl backend (PoCL in CI, with two devices),
// alone and next to a cpu device, where a dependency between the two is
// followed on the host since neither queue can wait for the other's events.
#include "conformance.hpp"

namespace conformance {
INSTANTIATE_TEST_SUITE_P(opencl, Conformance, testing::Values("opencl", "cpu:1x1,opencl"));
}  // namespace conformance
