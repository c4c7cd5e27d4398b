// An OpenCL buffer is a cl_mem with no host pointer. Round trips, limits and
// overruns are the device contract's (device/contract/).
#include <gtest/gtest.h>

#include "opencl_test_support.hpp"

namespace baton {
namespace {

class OpenclMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_OPENCL();
    device_ = &test::cl_device(0);
  }
  Device& device() { return *device_; }

 private:
  Device* device_ = nullptr;
};

TEST_F(OpenclMemory, BufferIsAClMemWithoutHostPointer) {
  DeviceMemory m = device().allocate(1000);
  EXPECT_EQ(m.ptr, nullptr);
  EXPECT_NE(m.handle, 0u);
  EXPECT_EQ(m.bytes, 1000u);
  device().release(m);
}

}  // namespace
}  // namespace baton
