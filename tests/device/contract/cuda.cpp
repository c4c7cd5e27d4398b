// The device contract on the cuda backend: a whole GPU, and two SM
// partitions of it (green contexts) whose events order each other's work.
#include "contract.hpp"

namespace device_contract {
INSTANTIATE_TEST_SUITE_P(cuda, DeviceContract, testing::Values("cuda:0", "cuda:0/64+32"));
}  // namespace device_contract
