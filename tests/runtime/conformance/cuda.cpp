// The conformance suite on the cuda backend: one GPU split into SM partitions
// (green contexts), unequal and equal, that depend on each other by events.
// (A whole GPU is one device: the suite's cross-device cases need two.)
#include "conformance.hpp"

namespace conformance {
INSTANTIATE_TEST_SUITE_P(cuda, Conformance, testing::Values("cuda:0/64+32+16+8", "cuda:0/56+56"));
}  // namespace conformance
