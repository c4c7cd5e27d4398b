// The device contract on the opencl backend (PoCL in CI, opened with two
// devices, so that one device's event orders another's work).
#include "contract.hpp"

namespace device_contract {
INSTANTIATE_TEST_SUITE_P(opencl, DeviceContract, testing::Values("opencl"));
}  // namespace device_contract
