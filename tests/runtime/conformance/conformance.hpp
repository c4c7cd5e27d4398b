// What every backend must do through the Runtime, written once and
// instantiated per backend (conformance/<backend>.cpp), as Kokkos
// instantiates its unit tests per execution space: tasks in graph order,
// each item exactly once under random timing, dependencies between tasks on
// different devices, usage errors raised without retiring a device, and a
// device failing in the middle of a graph with nothing lost.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <span>
#include <string>
#include <thread>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "sched/policy.hpp"
#include "support/open_runtime.hpp"
#include "workloads/balance_kernels.hpp"

namespace conformance {

using namespace baton;

class Conformance : public testing::TestWithParam<std::string> {
 protected:
  // The parameter's devices, or a skip naming why they are not here.
  std::unique_ptr<Runtime> open(const std::string& fault = "", const std::string& policy = "ws",
                                bool write_back = false) {
    Options o;
    o.devices = GetParam();
    o.perf_model_file = "";
    o.fault = fault;
    o.policy = policy;
    o.write_back = write_back;
    return test::open_or_skip(o, skip_reason_);
  }
  std::string skip_reason_;
};

#define CONFORMANCE_OPEN(rt, ...)                                        \
  auto rt = open(__VA_ARGS__);                                           \
  if (!rt) {                                                             \
    GTEST_SKIP() << "no " << GetParam() << " devices: " << skip_reason_; \
  }

inline std::vector<std::string> policy_list() {
  std::vector<std::string> names;
  for (const auto& p : detail::policies()) names.push_back(p.name);
  return names;
}

// x -> a*x + b, `steps` times, as fmaf does on every backend (GPU compilers
// contract a*x+b into an FMA; the reference does too).
inline float fma_steps(float x, float a, float b, int steps) {
  for (int i = 0; i < steps; ++i) x = std::fma(x, a, b);
  return x;
}

// A chain of tasks through two buffers, x -> y -> x -> ..., under every
// policy: each task reads what the previous one wrote, wherever it ran.
TEST_P(Conformance, TasksRunInGraphOrder) {
  CONFORMANCE_OPEN(rt);
  const std::size_t n = 4096;
  Kernel fma = workloads::fma_kernel(1);
  for (const std::string& policy : policy_list()) {
    auto x = rt->buffer<float>(n), y = rt->buffer<float>(n);
    for (std::size_t i = 0; i < n; ++i) x.host()[i] = float(i % 7) * 0.25f;
    const int steps = 24;
    for (int s = 0; s < steps; ++s) {
      auto& from = s % 2 ? y : x;
      auto& to = s % 2 ? x : y;
      rt->submit({n}, fma, in(from), out(to), 0.5f, 1.0f, 1, Policy::by_name(policy));
    }
    rt->wait_all();
    auto result = x.read();  // steps is even: the last task wrote x
    for (std::size_t i = 0; i < n; i += 97)
      ASSERT_FLOAT_EQ(result[i], fma_steps(float(i % 7) * 0.25f, 0.5f, 1.0f, steps))
          << policy << " item " << i;
  }
}

// The caller's own memory as a buffer, large enough to be pinned in place
// where a GPU is: tasks spread over the devices read and write it, and
// read() leaves the results in the caller's vector. Buffers the runtime
// allocates are pinned where a GPU backend is open.
TEST_P(Conformance, TheCallersMemoryIsWorkedInPlace) {
  CONFORMANCE_OPEN(rt);
  if (GetParam().rfind("cuda", 0) == 0) {
    EXPECT_EQ(rt->host_memory().rfind("pinned", 0), 0u) << rt->host_memory();
  }
  // Two buffers over one allocation, meeting inside a page: pinning is by
  // whole pages, so the second cannot be registered (its first page is the
  // first buffer's) and must still be copied right.
  const std::size_t n = std::size_t(1) << 18;  // 1 MiB of floats each
  std::vector<float> memory(2 * n + 1);
  const std::span<float> mine(memory.data() + 1, n), theirs(memory.data() + 1 + n, n);
  for (std::size_t i = 0; i < n; ++i) mine[i] = float(i % 13), theirs[i] = 0.0f;
  {
    auto x = rt->wrap(mine);
    auto y = rt->wrap(theirs);
    Kernel fma = workloads::fma_kernel(3);
    rt->parallel_for({n}, fma, in(x), out(y), 2.0f, 1.0f, 3);   // y = 8x + 7
    rt->parallel_for({n}, fma, in(y), out(x), 1.0f, -7.0f, 1);  // x = y - 7 = 8x
    y.read();
    x.read();
  }
  for (std::size_t i = 0; i < n; i += 101) {
    ASSERT_FLOAT_EQ(theirs[i], 8.0f * float(i % 13) + 7.0f) << i;
    ASSERT_FLOAT_EQ(mine[i], 8.0f * float(i % 13)) << i;
  }
}

// Results copied home behind each chunk (Options::write_back) are waited
// for by the host's read, though the run has ended before they land: rounds
// of different inputs, each read in full. On a virtual clock the read ends
// after the run (the last copies land then); the results on host memory
// devices are in place already.
TEST_P(Conformance, ResultsWrittenBackBehindARunAreWaitedForByTheHost) {
  CONFORMANCE_OPEN(rt, "", "ws", true);
  const std::size_t n = std::size_t(1) << 22;  // 16 MiB of floats
  auto x = rt->buffer<float>(n), y = rt->buffer<float>(n);
  Kernel fma = workloads::fma_kernel(1);
  for (int round = 0; round < 4; ++round) {
    auto h = x.host();
    for (std::size_t i = 0; i < n; ++i) h[i] = float(i % 1024 + std::size_t(round));
    const RunStats s = rt->parallel_for({n}, fma, in(x), out(y), 2.0f, 1.0f, 1);
    auto r = y.read();
    if (rt->clock().is_virtual()) {
      EXPECT_GT(rt->clock().now(), s.start_s + s.makespan_s) << "round " << round;
    }
    for (std::size_t i = 0; i < n; i += 4093)
      ASSERT_FLOAT_EQ(r[i], 2.0f * float(i % 1024 + std::size_t(round)) + 1.0f)
          << "round " << round << " element " << i;
  }
}

// Micro-batches: tasks over disjoint parts of one buffer, then one task over
// the whole of it, then the host; each part is right.
TEST_P(Conformance, PartsOfOneBufferAreTasksOfTheirOwn) {
  CONFORMANCE_OPEN(rt);
  const std::uint64_t parts = 8, per = 1000, n = parts * per;
  auto x = rt->buffer<float>(n), y = rt->buffer<float>(n);
  for (std::uint64_t i = 0; i < n; ++i) x.host()[i] = float(i / per);
  Kernel fma = workloads::fma_kernel(1);
  for (std::uint64_t p = 0; p < parts; ++p)  // y = 2x + p... each part its own task
    rt->submit(Range{per, 0, p * per}, fma, in(x), out(y), 2.0f, float(p), 1);
  rt->submit(Range{n, 0, 0}, fma, in(y), out(x), 1.0f, 1.0f, 1);  // x = y + 1, after all parts
  const RunStats s = rt->wait_all();
  EXPECT_EQ(s.tasks, parts + 1);
  auto r = x.read();
  for (std::uint64_t i = 0; i < n; i += 37) {
    const float part = float(i / per);
    ASSERT_FLOAT_EQ(r[i], std::fma(std::fma(part, 2.0f, part), 1.0f, 1.0f)) << i;
  }
}

// Every item of spread tasks and of many small tasks runs exactly once,
// whatever the chunk size, the policy and (on cpu code) random delays that
// jitter when devices finish and steal.
TEST_P(Conformance, EachItemRunsExactlyOnceUnderRandomTiming) {
  CONFORMANCE_OPEN(rt);
  std::mt19937_64 rng(7);
  Kernel count = workloads::count_kernel();
  count.cpu([](Span s, const KernelArgs& a) {
    int* c = a.ptr<int>(0);
    for (auto i = s.begin; i < s.end; ++i) c[i] += 1;
    std::mt19937_64 g(s.begin * 2654435761u);
    std::this_thread::sleep_for(std::chrono::microseconds(g() % 150));
  });
  for (const std::string& policy : policy_list()) {
    const std::uint64_t n = 3000 + rng() % 5000;
    auto counts = rt->buffer<int>(n);
    std::fill(counts.host().begin(), counts.host().end(), 0);
    RunStats s =
        rt->parallel_for(Range{n, 1 + rng() % 200}, count, inout(counts), Policy::by_name(policy));
    std::uint64_t items = 0;
    for (const auto& d : s.devices) items += d.items;
    EXPECT_EQ(items, n) << policy;
    // Small tasks over consecutive pieces, submitted while earlier ones run.
    for (std::uint64_t at = 0; at < n;) {
      const std::uint64_t len = std::min<std::uint64_t>(n - at, 1 + rng() % 300);
      rt->submit(Range{len, 0, at}, count, inout(counts), Policy::by_name(policy));
      at += len;
    }
    rt->wait_all();
    auto c = counts.read();
    std::size_t wrong = 0;
    for (std::uint64_t i = 0; i < n; ++i) wrong += c[i] != 2;
    EXPECT_EQ(wrong, 0u) << policy << ": items not run exactly once per task";
  }
}

// Per-device buffers: under every policy, the chunks each device ran add
// into its own instance, which starts zeroed and ends holding exactly the
// items RunStats counts for it; tasks pinned to one device touch only its
// instance.
TEST_P(Conformance, EachDeviceAddsIntoItsOwnInstance) {
  CONFORMANCE_OPEN(rt);
  Kernel tally = workloads::tally_kernel();
  const int devices = int(rt->devices().size());
  for (const std::string& policy : policy_list()) {
    auto counts = rt->per_device<int>(1);
    const std::uint64_t n = 20000;
    const RunStats s = rt->parallel_for(Range{n}, tally, local(counts), Policy::by_name(policy));
    std::uint64_t sum = 0;
    for (int d = 0; d < devices; ++d) {
      const int mine = rt->read(counts, d)[0];
      EXPECT_EQ(std::uint64_t(mine), s.devices[d].items) << policy << " device " << d;
      sum += std::uint64_t(mine);
    }
    EXPECT_EQ(sum, n) << policy;
    for (int d = 0; d < devices; ++d)
      rt->submit(Range{std::uint64_t(d) + 1}, tally, local(counts), on(d));
    rt->wait_all();
    for (int d = 0; d < devices; ++d)
      EXPECT_EQ(std::uint64_t(rt->read(counts, d)[0]), s.devices[d].items + std::uint64_t(d) + 1)
          << policy << " device " << d;
  }
  auto untouched = rt->per_device<float>(3);
  EXPECT_EQ(rt->read(untouched, 0), std::vector<float>(3, 0.0f));
  EXPECT_THROW(rt->read(untouched, devices), Error);
}

// Each device counts the memory buffers hold in it (here, the instance a
// task made there), and its peak.
TEST_P(Conformance, DevicesCountTheMemoryBuffersHold) {
  CONFORMANCE_OPEN(rt);
  const int devices = int(rt->devices().size());
  std::vector<std::uint64_t> before;
  for (int d = 0; d < devices; ++d) {
    rt->devices()[d]->reset_peak_held();
    before.push_back(rt->devices()[d]->held_bytes());
  }
  const std::size_t n = 1 << 16;
  auto counts = rt->per_device<int>(n);
  for (int d = 0; d < devices; ++d)
    rt->submit(Range{1}, workloads::tally_kernel(), local(counts), on(d));
  rt->wait_all();
  for (int d = 0; d < devices; ++d) {
    const Device& dev = *rt->devices()[d];
    EXPECT_GE(dev.held_bytes(), before[d] + n * sizeof(int)) << dev.name();
    EXPECT_GE(dev.peak_held_bytes(), dev.held_bytes()) << dev.name();
  }
}

// baton::instances(): a task on one device sums every device's instance in
// place where all of them share its memory; where one does not, or the
// backend has no addresses for a table, the caller gets the error and the
// device stays.
TEST_P(Conformance, InstancesAreCombinedInSharedMemory) {
  CONFORMANCE_OPEN(rt);
  const int devices = int(rt->devices().size());
  auto counts = rt->per_device<int>(1);
  const std::uint64_t n = 5000;
  const RunStats ran = rt->parallel_for(Range{n}, workloads::tally_kernel(), local(counts));
  Kernel sum = workloads::sum_instances_kernel();
  auto total = rt->buffer<int>(1);
  // The devices that ran some of it have instances: do they share device 0's memory?
  bool one_memory = true;
  for (int d = 0; d < devices; ++d)
    one_memory = one_memory &&
                 (ran.devices[d].items == 0 ||
                  rt->devices()[d]->info().memory_node == rt->devices()[0]->info().memory_node);
  if (!sum.runs_on(rt->devices()[0]->info().backend)) {
    EXPECT_THROW(rt->submit(Range{1}, sum, instances(counts), out(total), devices, on(0)), Error);
    return;
  }
  try {
    rt->submit(Range{1}, sum, instances(counts), out(total), devices, on(0));
    rt->wait_all();
    EXPECT_TRUE(one_memory) << "instances in other memory were summed";
    EXPECT_EQ(std::uint64_t(total.read()[0]), n);
  } catch (const Error& e) {
    EXPECT_FALSE(one_memory) << e.what();
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
  }
  // No device was retired: a task on each still runs.
  for (int d = 0; d < devices; ++d)
    rt->submit(Range{1}, workloads::tally_kernel(), local(counts), on(d));
  EXPECT_EQ(rt->wait_all().reruns, 0u);
}

// Producer and consumer pinned to different devices: the consumer follows
// the producer by an event its queue waits for (or, where the two devices
// cannot, once the producer is done), and sees its results.
TEST_P(Conformance, DependenciesAcrossDevices) {
  CONFORMANCE_OPEN(rt);
  const int devices = int(rt->devices().size());
  if (devices < 2) GTEST_SKIP() << GetParam() << " has one device";
  const std::size_t n = 1 << 14;
  auto a = rt->buffer<float>(n), b = rt->buffer<float>(n), c = rt->buffer<float>(n);
  for (std::size_t i = 0; i < n; ++i) a.host()[i] = float(i % 11);
  Kernel fma = workloads::fma_kernel(8);
  for (int round = 0; round < 6; ++round) {
    const int p = round % devices, q = (round + 1) % devices;
    rt->submit({n}, fma, in(a), out(b), 1.0f, 1.0f, 8, on(p));    // b = a + 8
    rt->submit({n}, fma, in(b), out(c), 1.0f, 2.0f, 8, on(q));    // c = b + 16
    rt->submit({n}, fma, in(c), out(a), 1.0f, -24.0f, 1, on(p));  // a = c - 24 = a
  }
  const RunStats s = rt->wait_all();
  for (int d = 0; d < std::min(devices, 2); ++d) EXPECT_GT(s.devices[d].tasks, 0u) << d;
  auto r = a.read();
  auto rc = c.read();
  for (std::size_t i = 0; i < n; i += 101) {
    ASSERT_FLOAT_EQ(r[i], float(i % 11)) << i;
    ASSERT_FLOAT_EQ(rc[i], float(i % 11) + 24.0f) << i;
  }
}

// A kernel whose code is wrong for the device (a missing entry point, or cpu
// code that throws) fails its task, and whoever waits for it gets the error;
// the devices stay, and the next task runs.
TEST_P(Conformance, UsageErrorsReachTheCallerAndRetireNoDevice) {
  CONFORMANCE_OPEN(rt);
  Kernel wrong_entry("wrong_entry");
  wrong_entry.cpu([](Span, const KernelArgs&) { throw std::invalid_argument("no such entry"); });
  wrong_entry.opencl("__kernel void real_name(ulong b, ulong e, __global int* c) {}", "no_such");
  wrong_entry.cuda_source(
      "extern \"C\" __global__ void real_name(unsigned long long b, "
      "unsigned long long e, int* c) {}",
      "no_such");
  const std::size_t n = 256;
  auto counts = rt->buffer<int>(n);
  std::fill(counts.host().begin(), counts.host().end(), 0);
  Task t = rt->submit({n}, wrong_entry, inout(counts));
  Task after = rt->submit({n}, workloads::count_kernel(), inout(counts));  // follows t
  try {
    rt->wait(t);
    ADD_FAILURE() << "a kernel with no such entry ran";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    // The vendor's call and code where there is one (a GPU's missing entry), else the kernel's.
    EXPECT_TRUE(what.find("no_such") != std::string::npos ||
                what.find("no such entry") != std::string::npos)
        << what;
    if (what.find("no_such") != std::string::npos) {
      EXPECT_TRUE(what.find("cuModuleGetFunction") != std::string::npos ||
                  what.find("clCreateKernel") != std::string::npos)
          << what;
    }
  }
  EXPECT_ANY_THROW(rt->wait(after));  // what depends on a failed task fails too
  EXPECT_NO_THROW(rt->wait_all());    // both were raised already
  RunStats s = rt->parallel_for({n}, workloads::count_kernel(), inout(counts));
  for (const auto& d : s.devices) EXPECT_FALSE(d.failed) << d.name << ": " << d.failure;
  for (int v : counts.read()) ASSERT_EQ(v, 1);
}

// One device fails (an injected fault, as a lost device would) after a few
// launches, in the middle of a graph of chains and spread tasks: its tasks
// and chunks run elsewhere and every result is right. Under static, so that
// the device surely gets work to fail at.
TEST_P(Conformance, ADeviceFailingMidGraphLosesNothing) {
  std::string victim;
  {
    CONFORMANCE_OPEN(probe);
    if (probe->devices().size() < 2) GTEST_SKIP() << GetParam() << " has one device";
    victim = probe->devices().back()->name();
  }
  CONFORMANCE_OPEN(rt, victim + ":after=3", "static");
  const std::size_t n = 2048, chains = 4, steps = 12;
  Kernel fma = workloads::fma_kernel(1);
  Kernel count = workloads::count_kernel();
  std::vector<Buffer<float>> x, y;
  for (std::size_t c = 0; c < chains; ++c) {
    x.push_back(rt->buffer<float>(n)), y.push_back(rt->buffer<float>(n));
    for (std::size_t i = 0; i < n; ++i) x[c].host()[i] = float(c);
  }
  auto counts = rt->buffer<int>(n * 8);
  std::fill(counts.host().begin(), counts.host().end(), 0);
  for (std::size_t s = 0; s < steps; ++s) {
    for (std::size_t c = 0; c < chains; ++c) {
      auto& from = s % 2 ? y[c] : x[c];
      auto& to = s % 2 ? x[c] : y[c];
      rt->submit({n}, fma, in(from), out(to), 1.0f, 1.0f, 1);
    }
    rt->submit(Range{n * 8, 64}, count, inout(counts), split);
  }
  const RunStats s = rt->wait_all();
  EXPECT_TRUE(s.devices.back().failed);
  EXPECT_NE(s.devices.back().failure.find("injected fault"), std::string::npos);
  for (std::size_t c = 0; c < chains; ++c) {
    auto r = x[c].read();
    for (std::size_t i = 0; i < n; i += 61) ASSERT_FLOAT_EQ(r[i], float(c) + float(steps)) << c;
  }
  for (int v : counts.read()) ASSERT_EQ(v, int(steps));
}

// A task pinned to a device that uses that device's instance of a
// per-device buffer fails with the device: run elsewhere, it would take
// another device's instance and answer wrong. A pinned task on coherent
// buffers runs elsewhere, and the other devices' instances stay.
TEST_P(Conformance, APinnedTaskOnALostInstanceFailsWithItsDevice) {
  std::string victim;
  {
    CONFORMANCE_OPEN(probe);
    if (probe->devices().size() < 2) GTEST_SKIP() << GetParam() << " has one device";
    victim = probe->devices().back()->name();
  }
  CONFORMANCE_OPEN(rt, victim + ":after=1");
  const int v = int(rt->devices().size()) - 1;
  Kernel tally = workloads::tally_kernel();
  auto counts = rt->per_device<int>(1);
  rt->wait(rt->submit(Range{5}, tally, local(counts), on(v)));  // its one launch
  try {
    rt->wait(rt->submit(Range{7}, tally, local(counts), on(v)));
    FAIL() << "a task on the lost instance of " << victim << " ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::device_failed) << e.what();
    EXPECT_NE(std::string(e.what()).find(victim + " failed"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(rt->failed(v));
  const std::size_t n = 1000;
  auto x = rt->buffer<int>(n);
  std::fill(x.host().begin(), x.host().end(), 1);
  rt->wait(rt->submit(Range{n}, workloads::count_kernel(), inout(x), on(v)));
  for (int c : x.read()) ASSERT_EQ(c, 2);
  rt->wait(rt->submit(Range{3}, tally, local(counts), on(0)));
  EXPECT_EQ(rt->read(counts, 0)[0], 3);
}

// When every device fails, the error names each one and why.
TEST_P(Conformance, WhenEveryDeviceFailsTheErrorListsEachCause) {
  std::string faults;
  {
    CONFORMANCE_OPEN(probe);
    for (const auto& d : probe->devices())
      faults += (faults.empty() ? "" : ",") + d->name() + ":after=1";
  }
  CONFORMANCE_OPEN(rt, faults);
  const std::size_t n = 4096;
  auto counts = rt->buffer<int>(n);
  std::fill(counts.host().begin(), counts.host().end(), 0);
  try {
    for (int i = 0; i < 4; ++i)
      rt->parallel_for(Range{n, 64}, workloads::count_kernel(), inout(counts));
    FAIL() << "every device failed, yet the work completed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::device_failed) << e.what();
    for (const auto& d : rt->devices())
      EXPECT_NE(std::string(e.what()).find(d->name() + ": injected fault"), std::string::npos)
          << e.what();
  }
}

}  // namespace conformance
