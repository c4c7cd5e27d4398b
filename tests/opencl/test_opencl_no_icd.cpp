// Run with OCL_ICD_VENDORS naming a folder with no driver in it (tests.cmake
// does): the backend must say it is unavailable, and why, not fail or crash.
#include <gtest/gtest.h>

#include "baton/error.hpp"
#include "device/backend.hpp"

namespace baton::detail {
namespace {

TEST(OpenclNoDriver, IsUnavailableWithTheReason) {
  Topology topo;
  BackendContext ctx(topo);
  try {
    opencl_backend().create("", ctx);
    FAIL() << "opened OpenCL devices with no driver installed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::backend_unavailable);
    EXPECT_EQ(e.where(), "opencl");
    EXPECT_NE(std::string(e.what()).find("no OpenCL platform"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CL_PLATFORM_NOT_FOUND_KHR"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace baton::detail
