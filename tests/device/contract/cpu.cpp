// The device contract on the cpu backend: two devices of one thread each.
#include "contract.hpp"

namespace device_contract {
INSTANTIATE_TEST_SUITE_P(cpu, DeviceContract, testing::Values("cpu:2x1"));
}  // namespace device_contract
