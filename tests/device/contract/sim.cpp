// The device contract on the sim backend: virtual devices on a virtual
// clock, each with memory of its own.
#include "contract.hpp"

namespace device_contract {
INSTANTIATE_TEST_SUITE_P(sim, DeviceContract, testing::Values("sim:2,1"));
}  // namespace device_contract
