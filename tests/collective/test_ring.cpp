// The ring on the cpu backend (devices that share host memory) and on sim
// devices (each a memory of its own, copies on virtual links).
#include "collective/ring_cases.hpp"

namespace ring_cases {
INSTANTIATE_TEST_SUITE_P(cpu, RingOver, testing::Values("cpu:1x1", "cpu:3x1"));
INSTANTIATE_TEST_SUITE_P(sim, RingOver, testing::Values("sim:4,2,1", "sim:1,1,1,1,1"));
}  // namespace ring_cases

namespace {

using namespace baton;

// Which communicator a kind gives, and a clear error for one that cannot serve.
TEST(Communicator, AutoIsTheRingOffCudaAndNcclIsNamedWhereItCannot) {
  Options o;
  o.devices = "sim:2,1";
  o.perf_model_file = "";
  Runtime rt(o);
  EXPECT_EQ(collective::make_communicator(rt, {0, 1}, "auto")->name(), "ring");
  EXPECT_EQ(collective::make_communicator(rt, {0, 1}, "ring")->name(), "ring");
  try {
    collective::make_communicator(rt, {0, 1}, "nccl");
    ADD_FAILURE() << "NCCL over sim devices";
  } catch (const Error& e) {
    // No NCCL here (or no CUDA in this build), or a device it cannot serve, named.
    const std::string what = e.what();
    EXPECT_TRUE(what.find("sim0") != std::string::npos || what.find("NCCL") != std::string::npos ||
                what.find("nccl") != std::string::npos)
        << what;
  }
  EXPECT_THROW(collective::make_communicator(rt, {0, 1}, "mesh"), Error);
}

}  // namespace
