// What every backend's devices must do, written once against the Device
// interface and instantiated per backend (device/contract/<backend>.cpp), as
// the conformance suite is for the Runtime: copies that round-trip at
// offsets, zero-byte copies, an overrun refused, more memory than the device
// holds refused, a kernel the device cannot run named as such, and
// events that order a device's queues, a queue after a host thread, and one
// device's work after another's.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "baton/devices.hpp"
#include "baton/error.hpp"
#include "support/held_event.hpp"

namespace device_contract {

using namespace baton;

inline std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

class DeviceContract : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    try {
      set_ = open_devices(GetParam());
    } catch (const Error& e) {
      if (e.code() != Errc::backend_unavailable) throw;
      GTEST_SKIP() << "no " << GetParam() << " devices: " << e.what();
    }
  }
  Device& device(std::size_t i = 0) { return *set_.devices.at(i); }
  std::size_t count() const { return set_.devices.size(); }

 private:
  DeviceSet set_;
};

TEST_P(DeviceContract, WritesAndReadsRoundTripAtOffsets) {
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

TEST_P(DeviceContract, CopiesWithinAndBetweenBuffers) {
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

TEST_P(DeviceContract, ZeroBytesAreAllowedEverywhere) {
  DeviceMemory m = device().allocate(0);
  Queue& q = device().queue(QueueRole::copy_out);
  q.write(m, 0, nullptr, 0, HostKind::pageable);
  q.read(nullptr, m, 0, 0, HostKind::pageable);
  q.copy(m, 0, m, 0, 0);
  q.finish();
  device().release(m);
}

TEST_P(DeviceContract, ACopyPastTheEndIsInvalidArgument) {
  DeviceMemory m = device().allocate(64);
  std::vector<unsigned char> host(128);
  Queue& q = device().queue(QueueRole::copy_in);
  try {
    q.write(m, 32, host.data(), 64, HostKind::pageable);
    FAIL() << "a write past the end was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
    EXPECT_EQ(e.where(), device().name());
  }
  EXPECT_THROW(q.read(host.data(), m, 65, 0, HostKind::pageable), Error);
  q.finish();
  device().release(m);
}

// A device without a bound of its own (memory_bytes 0: it takes host memory)
// is asked for more than any host has.
TEST_P(DeviceContract, MoreThanTheDeviceHoldsIsOutOfMemory) {
  const std::uint64_t holds = device().info().memory_bytes;
  try {
    device().allocate(holds ? holds + 1 : std::uint64_t(1) << 50);
    FAIL() << "allocated more than the device's memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::out_of_memory) << e.what();
    EXPECT_EQ(e.where(), device().name());
  }
  // The failed request leaves nothing counted: a normal one still succeeds.
  device().release(device().allocate(1 << 20));
}

// A kernel the device cannot run (Kernel::runs_on) is a usage error, named as
// such and by the device, which stays usable. A device that runs every kernel
// (a sim device takes a kernel's cost in virtual time) launches it.
TEST_P(DeviceContract, AKernelTheDeviceCannotRunHasNoImplementation) {
  const Kernel nothing("no_code_anywhere");
  Queue& q = device().queue(QueueRole::compute);
  if (nothing.runs_on(device().info().backend)) {
    EXPECT_NO_THROW(q.launch(nothing, {0, 1}, KernelArgs({})));
    q.finish();
    return;
  }
  try {
    q.launch(nothing, {0, 1}, KernelArgs({}));
    FAIL() << "launched a kernel with no code";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::no_implementation) << e.what();
    EXPECT_EQ(e.where(), device().name());
  }
  device().release(device().allocate(64));
}

// copy_in uploads, compute copies after the upload's event, copy_out reads
// after the copy's: a device's three queues ordered only by events.
TEST_P(DeviceContract, EventsOrderTheQueuesOfOneDevice) {
  const std::size_t n = 1 << 16;
  const auto data = random_bytes(n, 3);
  DeviceMemory a = device().allocate(n), b = device().allocate(n);
  Queue& in = device().queue(QueueRole::copy_in);
  Queue& compute = device().queue(QueueRole::compute);
  Queue& out = device().queue(QueueRole::copy_out);
  in.write(a, 0, data.data(), n, HostKind::pageable);
  compute.wait(in.record());
  compute.copy(b, 0, a, 0, n);
  out.wait(compute.record());
  std::vector<unsigned char> back(n);
  out.read(back.data(), b, 0, n, HostKind::pageable);
  out.record()->wait();
  EXPECT_EQ(back, data);
  device().release(a);
  device().release(b);
}

// A host thread fills host memory, then completes its event; the queue waits
// on that event, still pending when wait() is called, before uploading.
TEST_P(DeviceContract, AQueueWaitsForAHostThreadsEvent) {
  const std::size_t n = 1 << 16;
  std::vector<float> host(n, 0.0f);
  DeviceMemory m = device().allocate(n * sizeof(float));
  Queue& q = device().queue(QueueRole::copy_in);
  auto filled = std::make_shared<test::HeldEvent>();
  const auto t0 = std::chrono::steady_clock::now();
  std::thread filler([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (std::size_t i = 0; i < n; ++i) host[i] = float(i) + 0.5f;
    filled->complete();
  });
  ASSERT_FALSE(filled->ready());
  q.wait(filled);
  q.write(m, 0, host.data(), n * sizeof(float), HostKind::pageable);
  std::vector<float> back(n);
  q.read(back.data(), m, 0, n * sizeof(float), HostKind::pageable);
  q.finish();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(40));
  filler.join();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], float(i) + 0.5f) << "item " << i;
  device().release(m);
}

// Device 0 reads its result into host memory; device 1 uploads that host
// memory once device 0's event says the read is done.
TEST_P(DeviceContract, AnotherDevicesEventOrdersItsWorkBeforeThis) {
  if (count() < 2) GTEST_SKIP() << GetParam() << " opens one device";
  const std::size_t n = 1 << 18;
  const auto data = random_bytes(n, 4);
  std::vector<unsigned char> middle(n), back(n);
  DeviceMemory m0 = device(0).allocate(n), m1 = device(1).allocate(n);
  Queue& q0 = device(0).queue(QueueRole::copy_out);
  q0.write(m0, 0, data.data(), n, HostKind::pageable);
  q0.read(middle.data(), m0, 0, n, HostKind::pageable);
  EventPtr done0 = q0.record();
  Queue& q1 = device(1).queue(QueueRole::copy_in);
  q1.wait(done0);
  q1.write(m1, 0, middle.data(), n, HostKind::pageable);
  q1.read(back.data(), m1, 0, n, HostKind::pageable);
  q1.finish();
  EXPECT_EQ(back, data);
  device(0).release(m0);
  device(1).release(m1);
}

}  // namespace device_contract
