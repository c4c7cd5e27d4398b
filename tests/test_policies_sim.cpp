// The policies on virtual devices, where times are exact: the figures the
// foundation issue asks for, and the behaviour of ws-topo on a skewed topology.
#include <gtest/gtest.h>

#include "baton/runtime.hpp"
#include "baton/sim.hpp"
#include "sched/policy.hpp"
#include "workloads/balance_kernels.hpp"

using namespace baton;

namespace {

RunStats run(Runtime& rt, const char* policy, std::uint64_t n = 1'000'000) {
  Kernel k = workloads::fma_kernel(1000, false);
  rt.calibrate(Range{n, 0}, k);
  return rt.parallel_for(Range{n, 0}, k, Policy::by_name(policy));
}

Runtime sim_rt(const std::string& spec) {
  Options o;
  o.devices = spec;
  return Runtime(o);
}

}  // namespace

TEST(PoliciesSim, StaticIsBoundByTheSlowestDeviceAndBalancersReachTheOracle) {
  auto rt = sim_rt("sim:8,4,2,1");
  RunStats st = run(rt, "static");
  EXPECT_NEAR(st.efficiency, 4.0 / 15.0, 0.01);  // 4 x the slowest's rate over the sum
  RunStats w = run(rt, "weighted");
  EXPECT_GE(w.efficiency, 0.97);
  RunStats ws = run(rt, "ws");
  EXPECT_GE(ws.efficiency, 0.97);
  EXPECT_TRUE(ws.simulated);
  std::uint64_t items = 0;
  for (const auto& d : ws.devices) items += d.items;
  EXPECT_EQ(items, ws.items);
  EXPECT_GT(ws.devices[0].items, ws.devices[3].items * 6);  // shares follow speed
}

TEST(PoliciesSim, WorkStealingAdaptsWhenADeviceSlowsDown) {
  auto rt = sim_rt("sim:8,4,2,1");
  Kernel k = workloads::fma_kernel(1000, false);
  const std::uint64_t n = 1'000'000;
  auto alone = rt.calibrate(Range{n, 0}, k);
  double half = double(n) / (alone[0] + alone[1] + alone[2] + alone[3]) / 2;
  sim::change_speed(*rt.devices()[0], half, 2.0);  // 4x slower from half-time on
  RunStats w = rt.parallel_for(Range{n, 0}, k, Policy::weighted());
  RunStats ws = rt.parallel_for(Range{n, 0}, k, Policy::ws());
  EXPECT_GE(ws.efficiency, 0.95);
  EXPECT_LT(w.efficiency, 0.7);
  EXPECT_LT(ws.makespan_s, w.makespan_s);
  EXPECT_GT(ws.devices[1].steals + ws.devices[2].steals + ws.devices[3].steals, 0u);
}

namespace {

// The victims hold all the work; the last device (weight ~0, so an empty first
// share) must steal. paths[thief][v] is the cost of moving v's data to it.
detail::Plan thief_plan(std::vector<PathCost> to_victims, double bytes_per_item) {
  detail::Plan p;
  p.items = 100000;
  p.max_chunk = 1000;
  p.min_chunk = 10;
  const std::size_t n = to_victims.size() + 1;
  p.weights.assign(n, 1.0);
  p.weights[n - 1] = 1e-12;
  p.paths.assign(n, std::vector<PathCost>(n));
  for (std::size_t v = 0; v + 1 < n; ++v) p.paths[n - 1][v] = to_victims[v];
  p.bytes_per_item = bytes_per_item;
  return p;
}

// Measured rates: the thief runs 1e6 items/s, every victim 1e5.
void teach_rates(detail::Policy& policy, int devices) {
  for (int v = 0; v + 1 < devices; ++v) policy.completed(v, Span{0, 1000}, 0.01);
  policy.completed(devices - 1, Span{0, 1000}, 0.001);
}

}  // namespace

TEST(PoliciesSim, WsTopoStealsOnlyWhenTheTransferPays) {
  const PathCost slow{0.001, 5, LinkKind::pcie, 1};  // 1 MB/s
  for (const char* name : {"ws", "ws-topo"}) {
    auto policy = detail::make_policy(name);
    policy->start(thief_plan({slow}, 1e6));
    teach_rates(*policy, 2);
    auto own = policy->next(0);  // the owner starts, leaving halves on its deque
    ASSERT_TRUE(own);
    auto stolen = policy->next(1);
    if (std::string(name) == "ws") {
      ASSERT_TRUE(stolen);
      EXPECT_EQ(stolen->victim, 0);
    } else {
      EXPECT_FALSE(stolen) << "1 MB per item over 1 MB/s never pays";
    }
  }
  auto topo = detail::make_policy("ws-topo");
  topo->start(thief_plan({PathCost{450, 2, LinkKind::nvlink, 1}}, 1e3));
  teach_rates(*topo, 2);
  ASSERT_TRUE(topo->next(0));
  auto stolen = topo->next(1);
  ASSERT_TRUE(stolen);  // cheap data over NVLink: steal
  EXPECT_GT(stolen->span.size(), 0u);
}

TEST(PoliciesSim, WsTopoPrefersTheNvlinkNeighbour) {
  auto topo = detail::make_policy("ws-topo");
  // Victim 0 over PCIe, victim 1 over NVLink; both have work.
  topo->start(
      thief_plan({PathCost{25, 10, LinkKind::pcie, 2}, PathCost{450, 2, LinkKind::nvlink, 1}}, 64));
  teach_rates(*topo, 3);
  ASSERT_TRUE(topo->next(0));
  ASSERT_TRUE(topo->next(1));
  auto stolen = topo->next(2);
  ASSERT_TRUE(stolen);
  EXPECT_EQ(stolen->victim, 1);
}

TEST(PoliciesSim, AFailedDeviceWorkIsRunElsewhere) {
  auto rt = sim_rt("sim:4,4,4");
  Kernel k = workloads::fma_kernel(1000, false);
  const std::uint64_t n = 300000;
  rt.calibrate(Range{n, 0}, k);
  sim::fail_at(*rt.devices()[1], 0.005);
  for (const char* p : {"static", "ws"}) {
    RunStats s = rt.parallel_for(Range{n, 0}, k, Policy::by_name(p));
    EXPECT_TRUE(s.devices[1].failed) << p;
    EXPECT_NE(s.devices[1].failure.find("simulated failure"), std::string::npos);
    EXPECT_EQ(s.devices[0].items + s.devices[1].items + s.devices[2].items, n) << p;
    EXPECT_GE(s.reruns, 1u) << p;
  }
}
