// The conformance suite on the sim backend: virtual devices of unequal
// speeds on a virtual clock, running the kernels' cpu code on their own memory.
#include "conformance.hpp"

namespace conformance {
INSTANTIATE_TEST_SUITE_P(sim, Conformance, testing::Values("sim:4,2,1"));
}  // namespace conformance
