// Calibration of devices that share a resource: run side by side as well as
// alone, the oracle counts what they do together, and a device left out of a
// kernel's work still takes it over when the others fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "workloads/balance_kernels.hpp"

using namespace baton;

namespace {

Runtime open(const std::string& devices, const std::string& fault = "") {
  Options o;
  o.devices = devices;
  o.perf_model_file = "";
  o.fault = fault;
  return Runtime(o);
}

}  // namespace

// Two cpu devices of all the host's threads each share the cores: they are
// measured side by side too, the better arrangement is used, and the oracle
// is its rate, not the sum of the two alone.
TEST(Calibration, DevicesSharingTheCoresAreMeasuredSideBySide) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  Runtime rt = open("cpu:2x" + std::to_string(threads));
  const std::size_t n = 1 << 16;
  auto x = rt.buffer<float>(n), y = rt.buffer<float>(n);
  for (std::size_t i = 0; i < n; ++i) x.host()[i] = float(i % 7);
  Kernel k = workloads::fma_kernel(256);
  const Calibration c = rt.calibrate({n}, k, in(x), out(y), 1.0f, 1.0f, 256);

  ASSERT_EQ(c.groups.size(), 1u);
  const Calibration::Group& g = c.groups[0];
  EXPECT_EQ(g.devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(g.resource, "host-cores");
  ASSERT_GT(c.alone[0], 0);
  ASSERT_GT(c.alone[1], 0);
  // Measured side by side (how far below the sum of the two alone depends on
  // how well one device alone fills the cores: bench balance shows it).
  EXPECT_GT(g.together, 0);
  EXPECT_DOUBLE_EQ(g.best_alone, std::max(c.alone[0], c.alone[1]));
  // The arrangement used is the better one, and the oracle is its rate.
  EXPECT_EQ(g.alone_wins, g.best_alone > g.together);
  EXPECT_NEAR(c.oracle_rate(), std::max(g.together, g.best_alone), 1e-6 * c.oracle_rate());
  EXPECT_EQ(int(c.left_out[0]) + int(c.left_out[1]), g.alone_wins ? 1 : 0);

  // Runs then use that arrangement: a left-out device gets no items, and
  // every result is right.
  RunStats s = rt.parallel_for({n}, k, in(x), out(y), 1.0f, 1.0f, 256, Policy::ws());
  for (int d = 0; d < 2; ++d) {
    if (c.left_out[d]) {
      EXPECT_EQ(s.devices[d].items, 0u) << s.devices[d].name;
    }
  }
  // The oracle is the items at that rate, or a hair later where rounds of
  // the devices' threads cannot end together (RunStats::waves_bound_s).
  const double at_rate = double(n) / c.oracle_rate();
  EXPECT_NEAR(s.oracle_s, std::max(at_rate, s.waves_bound_s), 1e-9 + 1e-6 * s.oracle_s);
  EXPECT_LT(s.waves_bound_s, 1.001 * at_rate);
  for (std::size_t i = 0; i < n; i += 97) ASSERT_FLOAT_EQ(y.read()[i], float(i % 7) + 256.0f);
}

// Devices that share nothing (sim devices) form no group; their rates are
// their rates alone.
TEST(Calibration, DevicesSharingNothingKeepTheirRatesAlone) {
  Runtime rt = open("sim:4,2");
  Kernel k = workloads::fma_kernel(100, false);
  const Calibration c = rt.calibrate({100000}, k);
  EXPECT_TRUE(c.groups.empty());
  EXPECT_EQ(c.used, c.alone);
  EXPECT_GT(c.alone[0], 1.5 * c.alone[1]);  // sim:4,2: twice as fast, less launch costs
}

// A device that would take long over the whole range is timed over a part of
// it: calibration stays short, and the rate is still the device's.
TEST(Calibration, ASlowDeviceIsTimedOverAPartOfALongRange) {
  Runtime rt = open("sim:1000,1");
  Kernel k = workloads::fma_kernel(1000, false);
  const std::uint64_t n = 1 << 22;  // about 4 s alone on sim1, 4 ms on sim0
  const double start = rt.clock().now();
  const Calibration c = rt.calibrate({n}, k);
  // Over the whole range: a warm-up of 1/16 and three timed runs, 12.9 s.
  // Now: warm-ups up to 20 ms, then three timed runs of about 0.2 s.
  EXPECT_LT(rt.clock().now() - start, 1.0);
  ASSERT_GT(c.alone[1], 0);
  EXPECT_NEAR(c.alone[0] / c.alone[1], 1000, 50);
}

// A device given rate 0 gets none of the kernel's work, but for a task
// pinned to it; when the device that has it fails, it takes all of it.
TEST(Calibration, ALeftOutDeviceTakesOverWhenTheOthersFail) {
  Kernel k = workloads::count_kernel();
  const std::size_t n = 4096;
  {
    Runtime rt = open("cpu:2x1");
    rt.set_standalone_rates(k, {1e6, 0});
    auto c = rt.buffer<int>(n);
    std::fill(c.host().begin(), c.host().end(), 0);
    RunStats s = rt.parallel_for({n, 64}, k, inout(c), Policy::ws());
    EXPECT_EQ(s.devices[1].items, 0u);
    rt.wait(rt.submit({n}, k, inout(c), on(1)));  // pinned: it runs there
    for (int v : c.read()) ASSERT_EQ(v, 2);
  }
  Runtime rt = open("cpu:2x1", "cpu0:after=2");
  rt.set_standalone_rates(k, {1e6, 0});
  auto c = rt.buffer<int>(n);
  std::fill(c.host().begin(), c.host().end(), 0);
  for (int round = 0; round < 4; ++round) rt.parallel_for({n, 64}, k, inout(c), Policy::ws());
  RunStats s = rt.parallel_for({n, 64}, k, inout(c), Policy::ws());
  EXPECT_TRUE(s.devices[0].failed);
  EXPECT_EQ(s.devices[1].items, n);
  for (int v : c.read()) ASSERT_EQ(v, 5);
}
