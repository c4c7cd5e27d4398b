// Buffers: allocation limits and host <-> device <-> device round trips, with
// offsets, through the non-blocking transfers of the device's queues.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "opencl_test_support.hpp"

namespace baton {
namespace {

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

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

TEST_F(OpenclMemory, WriteThenReadRoundTripsAtOffsets) {
  const std::size_t n = (1 << 20) + 13;
  const auto data = random_bytes(n, 1);
  DeviceMemory m = device().allocate(n + 100);
  Queue& q = device().queue(QueueRole::copy_in);
  q.write(m, 0, data.data(), n / 2, HostKind::pageable);
  q.write(m, 100 + n / 2, data.data() + n / 2, n - n / 2,
          HostKind::pageable);  // leaves bytes [n/2, n/2+100) alone
  std::vector<unsigned char> back(n);
  q.read(back.data(), m, 0, n / 2, HostKind::pageable);
  q.read(back.data() + n / 2, m, 100 + n / 2, n - n / 2, HostKind::pageable);
  q.finish();
  EXPECT_EQ(back, data);
  device().release(m);
}

TEST_F(OpenclMemory, CopyWithinAndBetweenBuffers) {
  const std::size_t n = 4096;
  const auto data = random_bytes(n, 2);
  DeviceMemory a = device().allocate(n), b = device().allocate(2 * n);
  Queue& q = device().queue(QueueRole::compute);
  q.write(a, 0, data.data(), n, HostKind::pageable);
  q.copy(b, n, a, 0, n);          // a -> second half of b
  q.copy(b, 0, b, n + 1000, 10);  // inside b, disjoint ranges
  std::vector<unsigned char> back(2 * n);
  q.read(back.data(), b, 0, 2 * n, HostKind::pageable);
  q.finish();
  EXPECT_TRUE(std::equal(data.begin(), data.end(), back.begin() + n));
  EXPECT_TRUE(std::equal(data.begin() + 1000, data.begin() + 1010, back.begin()));
  device().release(a);
  device().release(b);
}

TEST_F(OpenclMemory, ZeroBytesAreAllowedEverywhere) {
  DeviceMemory m = device().allocate(0);
  Queue& q = device().queue(QueueRole::copy_out);
  q.write(m, 0, nullptr, 0, HostKind::pageable);
  q.read(nullptr, m, 0, 0, HostKind::pageable);
  q.copy(m, 0, m, 0, 0);
  q.finish();
  device().release(m);
}

TEST_F(OpenclMemory, OverrunIsInvalidArgument) {
  DeviceMemory m = device().allocate(64);
  std::vector<unsigned char> host(128);
  Queue& q = device().queue(QueueRole::copy_in);
  try {
    q.write(m, 32, host.data(), 64, HostKind::pageable);
    FAIL() << "a write past the end was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_EQ(e.where(), device().name());
  }
  EXPECT_THROW(q.read(host.data(), m, 65, 0, HostKind::pageable), Error);
  device().release(m);
}

TEST_F(OpenclMemory, MoreThanTheDeviceHoldsIsOutOfMemory) {
  try {
    device().allocate(device().info().memory_bytes + 1);
    FAIL() << "allocated more than the device's memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::out_of_memory) << e.what();
  }
  // The failed request leaves nothing counted: a normal one still succeeds.
  device().release(device().allocate(1 << 20));
}

}  // namespace
}  // namespace baton
