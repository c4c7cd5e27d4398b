// The property every policy must keep: each item of a range runs exactly
// once, whatever the device speeds, the steal timing or a device failure.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>

#include "baton/runtime.hpp"
#include "baton/sim.hpp"

using namespace baton;

namespace {

// counts[i] += 1 for every item; the host checks they all end at 1.
Kernel counting_kernel(std::uint64_t seed, int max_sleep_us) {
  Kernel k("count");
  k.cpu([seed, max_sleep_us](Span s, const KernelArgs& a) {
    int* c = a.ptr<int>(0);
    for (auto i = s.begin; i < s.end; ++i) c[i] += 1;
    if (max_sleep_us > 0) {  // jitter the real-time workers' steal timing
      std::mt19937_64 g(seed ^ s.begin);
      std::this_thread::sleep_for(std::chrono::microseconds(g() % max_sleep_us));
    }
  });
  k.cost([](Span s) { return 1000.0 * double(s.size()); });
  return k;
}

void expect_once(Buffer<int>& counts, const std::string& what) {
  auto c = counts.read();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < c.size(); ++i) wrong += c[i] != 1;
  EXPECT_EQ(wrong, 0u) << what;
}

const char* kPolicies[] = {"static", "weighted", "ws", "ws-topo"};

}  // namespace

TEST(ExactlyOnce, RandomSimMachinesSpeedChangesAndFailures) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 g(seed);
    const int ndev = 1 + int(g() % 8);
    std::string spec = "sim:";
    for (int d = 0; d < ndev; ++d) {
      if (d) spec += ',';
      spec += std::to_string(0.1 + double(g() % 1000) / 100);
    }
    Options o;
    o.devices = spec;
    Runtime rt(o);
    const std::uint64_t n = 1 + g() % 20000, chunk = g() % 3 == 0 ? 0 : 1 + g() % 500;
    double horizon = 1000.0 * double(n) / 1e9 / ndev;  // about one device's share of time
    for (int d = 0; d < ndev; ++d)
      if (g() % 3 == 0)
        sim::change_speed(*rt.devices()[d], horizon * double(g() % 100) / 100,
                          0.05 + double(g() % 500) / 100);
    if (ndev > 1 && g() % 4 == 0)
      sim::fail_at(*rt.devices()[g() % ndev], horizon * double(g() % 100) / 100);
    Kernel k = counting_kernel(seed, 0);
    for (const char* p : kPolicies) {
      auto counts = rt.buffer<int>(n);
      std::fill(counts.host().begin(), counts.host().end(), 0);
      rt.parallel_for(Range{n, chunk}, k, inout(counts), Policy::by_name(p));
      expect_once(counts,
                  spec + " n=" + std::to_string(n) + " chunk=" + std::to_string(chunk) + " " + p);
    }
  }
}

TEST(ExactlyOnce, RealThreadsWithRandomStealTiming) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    Options o;
    o.devices = "cpu:3x1";
    Runtime rt(o);
    std::mt19937_64 g(seed);
    const std::uint64_t n = 2000 + g() % 5000;
    Kernel k = counting_kernel(seed, 200);
    for (const char* p : kPolicies) {
      auto counts = rt.buffer<int>(n);
      std::fill(counts.host().begin(), counts.host().end(), 0);
      RunStats s = rt.parallel_for(Range{n, 1 + g() % 64}, k, inout(counts), Policy::by_name(p));
      expect_once(counts, std::string(p) + " seed " + std::to_string(seed));
      std::uint64_t items = 0;
      for (const auto& d : s.devices) items += d.items;
      EXPECT_EQ(items, n);
    }
  }
}
