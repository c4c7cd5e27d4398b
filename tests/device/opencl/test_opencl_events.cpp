// Events: queues of one device ordered by each other's markers, queues of two
// devices of one context, and waits across OpenCL and a host-side event that a
// CPU device's thread completes later (in both directions).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

#include "opencl_test_support.hpp"
#include "workloads/kernels_opencl.hpp"

namespace baton {
namespace {

// Stands for a CPU device's event: complete once some host thread says so.
class HostEvent final : public Event {
 public:
  void complete() {
    std::lock_guard lock(mutex_);
    done_ = true;
    cv_.notify_all();
  }
  void wait() override {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return done_; });
  }
  bool ready() override {
    std::lock_guard lock(mutex_);
    return done_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
};

const Kernel& saxpy() {
  static const Kernel k =
      Kernel{"saxpy"}.opencl(workloads::opencl_kernels_source(), workloads::kOpenclSaxpyEntry);
  return k;
}

std::vector<float> iota_floats(std::size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

// copy_in uploads, compute runs saxpy after the upload's event, copy_out reads
// after the kernel's: the three queues of one device ordered only by events.
TEST(OpenclEvents, QueuesOfOneDeviceFollowEachOthersEvents) {
  BATON_REQUIRE_OPENCL();
  Device& device = test::cl_device(0);
  const std::size_t n = 1 << 22;  // 16 MiB: long enough that a missing wait shows
  const auto x = iota_floats(n);
  const std::vector<float> zeros(n, 0.0f);
  DeviceMemory dx = device.allocate(n * 4), dy = device.allocate(n * 4);
  Queue& in = device.queue(QueueRole::copy_in);
  Queue& compute = device.queue(QueueRole::compute);
  Queue& out = device.queue(QueueRole::copy_out);

  in.write(dy, 0, zeros.data(), n * 4, HostKind::pageable);
  in.write(dx, 0, x.data(), n * 4, HostKind::pageable);
  const EventPtr uploaded = in.record();
  compute.wait(uploaded);
  const LaunchArg args[] = {scalar_arg(2.0f), buffer_arg(dx, 4), buffer_arg(dy, 4)};
  compute.launch(saxpy(), Span{0, n}, KernelArgs(args));
  const EventPtr computed = compute.record();
  out.wait(computed);
  std::vector<float> y(n, -1.0f);
  out.read(y.data(), dy, 0, n * 4, HostKind::pageable);
  const EventPtr downloaded = out.record();
  downloaded->wait();

  EXPECT_TRUE(uploaded->ready());
  EXPECT_TRUE(computed->ready());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[i]) << "item " << i;
  device.release(dx);
  device.release(dy);
}

// The other direction: a host thread (a CPU device's worker) waits on an
// OpenCL event, then uses what the device produced.
TEST(OpenclEvents, HostThreadWaitsForAnOpenclEvent) {
  BATON_REQUIRE_OPENCL();
  Device& device = test::cl_device(0);
  const std::size_t n = 1 << 20;
  const auto x = iota_floats(n);
  std::vector<float> back(n, -1.0f);
  DeviceMemory m = device.allocate(n * 4);
  Queue& q = device.queue(QueueRole::copy_out);
  q.write(m, 0, x.data(), n * 4, HostKind::pageable);
  q.read(back.data(), m, 0, n * 4, HostKind::pageable);
  const EventPtr done = q.record();
  std::atomic<bool> matched{false};
  std::thread cpu([&] {
    done->wait();
    matched = back == x;
  });
  cpu.join();
  EXPECT_TRUE(matched.load());
  EXPECT_TRUE(done->ready());
  device.release(m);
}

// Two devices of one context: device 1's queue waits on device 0's marker on
// the device side, then copies device 0's buffer straight into its own.
TEST(OpenclEvents, DevicesOfOneContextWaitAndCopyDirectly) {
  BATON_REQUIRE_TWO_OPENCL_DEVICES();
  Device& a = test::cl_device(0);
  Device& b = test::cl_device(1);
  const std::size_t n = 1 << 20;
  const auto x = iota_floats(n);
  DeviceMemory ma = a.allocate(n * 4), mb = b.allocate(n * 4);
  Queue& qa = a.queue(QueueRole::copy_out);
  Queue& qb = b.queue(QueueRole::copy_in);
  qa.write(ma, 0, x.data(), n * 4, HostKind::pageable);
  const EventPtr written = qa.record();
  qb.wait(written);
  ASSERT_TRUE(b.copy_from_peer(qb, mb, 0, a, ma, 0, n * 4));
  std::vector<float> back(n);
  qb.read(back.data(), mb, 0, n * 4, HostKind::pageable);
  qb.finish();
  EXPECT_EQ(back, x);
  a.release(ma);
  b.release(mb);
}

TEST(OpenclEvents, NoDirectCopyFromAnotherBackend) {
  BATON_REQUIRE_OPENCL();
  // A device that is not OpenCL: only its identity matters here.
  class Other final : public Device {
   public:
    Other() : Device(DeviceInfo{}) {}
    DeviceMemory allocate(std::size_t) override { return {}; }
    void release(DeviceMemory) override {}
    Queue& queue(QueueRole) override { throw std::logic_error("unused"); }
  } other;
  Device& device = test::cl_device(0);
  EXPECT_FALSE(device.copy_from_peer(device.queue(QueueRole::copy_in), {}, 0, other, {}, 0, 16));
}

}  // namespace
}  // namespace baton
