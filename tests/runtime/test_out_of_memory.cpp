// Out of device memory: a run's buffers that do not fit one device run on the
// others and the run says so; buffers that fit no device are an error when
// the task is submitted, before any work starts. Sim devices with a
// memory_gib bound stand in for GPUs here; the CUDA backend's own fallback
// (managed memory) is tested in tests/device/cuda/test_cuda_memory.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "workloads/balance_kernels.hpp"

using namespace baton;

namespace {

// Two sim devices: a fast one of `small_mib` MiB and a slow one of `big_mib`.
struct SimPair {
  SimPair(int small_mib, int big_mib) : path(write(small_mib, big_mib)), rt(options(path)) {}
  ~SimPair() { std::remove(path.c_str()); }
  static std::string write(int small_mib, int big_mib) {
    const std::string path =
        "test_oom_" + std::to_string(small_mib) + "_" + std::to_string(big_mib) + ".json";
    std::ofstream(path) << R"({"devices": [{"id": "small", "speed": 8, "memory_gib": )"
                        << small_mib / 1024.0 << R"(}, {"id": "big", "speed": 1, "memory_gib": )"
                        << big_mib / 1024.0 << "}]}";
    return path;
  }
  static Options options(const std::string& path) {
    Options o;
    o.devices = "sim:" + path;
    return o;
  }
  std::string path;
  Runtime rt;
};

}  // namespace

TEST(OutOfMemory, ASplitRunLeavesTheDeviceItDoesNotFit) {
  SimPair pair(1, 64);
  Runtime& rt = pair.rt;
  const std::size_t n = std::size_t(1) << 20;  // 4 MiB per buffer
  auto x = rt.buffer<float>(n), y = rt.buffer<float>(n);
  for (std::size_t i = 0; i < n; ++i) x.host()[i] = float(i % 31), y.host()[i] = 1.0f;
  RunStats s = rt.parallel_for({n, 4096}, workloads::saxpy_kernel(), 2.0f, in(x), inout(y));
  auto hy = y.read();
  for (std::size_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(hy[i], 2.0f * float(i % 31) + 1.0f) << i;
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].items, 0u);
  EXPECT_EQ(s.devices[1].items, n);
  EXPECT_NE(s.devices[0].out_of_memory.find("MiB"), std::string::npos)
      << s.devices[0].out_of_memory;
  EXPECT_TRUE(s.devices[1].out_of_memory.empty());
  EXPECT_FALSE(s.devices[0].failed) << "running out of memory is not a device failure";
}

TEST(OutOfMemory, AWholeTaskRunsWhereItFits) {
  SimPair pair(1, 64);
  Runtime& rt = pair.rt;
  const std::size_t n = std::size_t(1) << 20;
  auto c = rt.buffer<int>(n);
  for (std::size_t i = 0; i < n; ++i) c.host()[i] = 0;
  for (int r = 0; r < 4; ++r) rt.submit(Range{n}, workloads::count_kernel(), inout(c));
  const RunStats all = rt.wait_all();
  EXPECT_EQ(all.devices[0].tasks, 0u);
  EXPECT_EQ(all.devices[1].tasks, 4u);
  auto hc = c.read();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hc[i], 4) << i;
  // The small device is still there for what fits it.
  auto small = rt.buffer<int>(1024);
  for (std::size_t i = 0; i < 1024; ++i) small.host()[i] = 0;
  RunStats s = rt.parallel_for({1024, 64}, workloads::count_kernel(), inout(small));
  EXPECT_EQ(s.devices[0].items + s.devices[1].items, 1024u);
  EXPECT_TRUE(s.devices[0].out_of_memory.empty());
}

TEST(OutOfMemory, BuffersLargerThanEveryDeviceAreAnErrorBeforeAnyWork) {
  SimPair pair(1, 2);
  Runtime& rt = pair.rt;
  const std::size_t n = std::size_t(1) << 20;  // 8 MiB in all: fits neither
  auto x = rt.buffer<float>(n), y = rt.buffer<float>(n);
  for (std::size_t i = 0; i < n; ++i) y.host()[i] = 5.0f;
  try {
    rt.parallel_for({n, 4096}, workloads::saxpy_kernel(), 2.0f, in(x), inout(y));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::out_of_memory);
    EXPECT_EQ(e.where(), "saxpy");
    EXPECT_NE(e.message().find("8.00 MiB"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("sim1"), std::string::npos) << e.message();
  }
  EXPECT_THROW(rt.submit(Range{n}, workloads::saxpy_kernel(), 2.0f, in(x), inout(y)), Error);
  auto hy = y.read();
  EXPECT_EQ(hy[0], 5.0f);
  EXPECT_EQ(hy[n - 1], 5.0f);
}

// Buffers let go free their device memory once their work is over, whatever
// waited for it (a run's own wait, not wait_all): a sweep of cases, each
// with buffers as large as the devices hold, runs every case on every device.
// Finished tasks' records kept their buffers until they were taken again, and
// an H100 sweep ran out of memory at its tenth case.
TEST(OutOfMemory, BuffersLetGoFreeTheirDeviceMemory) {
  SimPair pair(10, 10);
  Runtime& rt = pair.rt;
  const std::size_t n = std::size_t(1) << 20;  // 4 MiB a buffer, 8 MiB on each device
  for (int round = 0; round < 6; ++round) {
    auto x = rt.buffer<float>(n), y = rt.buffer<float>(n);
    for (std::size_t i = 0; i < n; ++i) x.host()[i] = 1.0f, y.host()[i] = 0.0f;
    rt.calibrate({n, 4096}, workloads::saxpy_kernel(), 2.0f, in(x), inout(y));
    RunStats s = rt.parallel_for({n, 4096}, workloads::saxpy_kernel(), 2.0f, in(x), inout(y));
    for (const auto& d : s.devices)
      EXPECT_TRUE(d.out_of_memory.empty()) << "round " << round << ": " << d.out_of_memory;
  }
}
