// The conformance suite on the cuda backend: one GPU whole, and split into
// four SM partitions (green contexts) that depend on each other by events.
#include "conformance.hpp"

namespace conformance {
INSTANTIATE_TEST_SUITE_P(cuda, Conformance, testing::Values("cuda:0", "cuda:0/64+32+16+8"));
}  // namespace conformance
