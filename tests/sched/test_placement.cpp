// Whole tasks placed by each policy (one table, sched/policy.hpp), and the
// model policy learning on virtual devices: it sends most work to the fast
// device once it has seen both, and a later Runtime starts informed from the file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "sched/policy.hpp"

using namespace baton;
using namespace baton::detail;

namespace {

MachineView machine(int devices) {
  MachineView m;
  m.devices = devices;
  m.paths.assign(devices, std::vector<PathCost>(devices));
  for (int d = 0; d < devices; ++d) m.identity.push_back("dev" + std::to_string(d));
  m.options.perf_model_file = "";
  return m;
}

const std::string kKernel = "k";

// A task of 100 items of kernel "k" over these weights.
TaskShape shape_of(const std::vector<double>& weights) {
  TaskShape s;
  s.kernel_name = &kKernel;
  s.items = 100;
  s.weights = weights;
  return s;
}

std::map<int, int> place_many(SchedulingPolicy& p, const std::vector<double>& weights, int n) {
  const TaskShape s = shape_of(weights);
  std::map<int, int> count;
  for (int i = 0; i < n; ++i) ++count[p.place(s)];
  return count;
}

}  // namespace

TEST(Placement, OneTableNamesEveryPolicy) {
  EXPECT_EQ(policy_names(), "static,weighted,ws,ws-topo,model");
  try {
    find_policy("fifo");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("known: static, weighted, ws, ws-topo, model"),
              std::string::npos);
  }
}

TEST(Placement, StaticGoesRoundTheDevicesThatCanRunIt) {
  auto p = find_policy("static").make(machine(3));
  auto c = place_many(*p, {5, 0, 1}, 1000);  // device 1 cannot run it
  EXPECT_EQ(c[0], 500);
  EXPECT_EQ(c[2], 500);
  EXPECT_EQ(c.count(1), 0u);
}

TEST(Placement, WeightedFollowsCapability) {
  auto p = find_policy("weighted").make(machine(3));
  auto c = place_many(*p, {6, 3, 1}, 10000);
  EXPECT_NEAR(c[0], 6000, 30);
  EXPECT_NEAR(c[1], 3000, 30);
  EXPECT_NEAR(c[2], 1000, 30);
}

TEST(Placement, WsPrefersTheDeviceHoldingTheDataElseLeavesItToTheEngine) {
  auto p = find_policy("ws").make(machine(3));
  std::vector<double> weights{1, 1, 1}, moves{5e-3, 0, 5e-3};
  TaskShape s = shape_of(weights);
  EXPECT_EQ(p->place(s), kAnyDevice);  // nothing to move anywhere
  s.transfer_s = moves;
  EXPECT_EQ(p->place(s), 1);
  std::vector<double> cheap{1e-6, 0, 1e-6};  // less than a queue hop apart
  s.transfer_s = cheap;
  EXPECT_EQ(p->place(s), kAnyDevice);
  EXPECT_TRUE(p->steals());
}

TEST(Placement, ModelPicksTheEarliestExpectedFinish) {
  auto p = find_policy("model").make(machine(2));
  std::vector<double> weights{1, 1};
  TaskShape s = shape_of(weights);
  // Device 0 takes 1 ms for such a task, device 1 4 ms.
  for (int i = 0; i < 5; ++i) p->finished(0, s, 1e-3), p->finished(1, s, 4e-3);
  auto c = place_many(*p, weights, 10);  // nothing leaves the queues: they fill
  // Finish times: device 0 at 1..8 ms for 8 tasks, device 1 at 4 and 8 ms.
  EXPECT_EQ(c[0], 8);
  EXPECT_EQ(c[1], 2);
  // Moving the data to device 0 costs 20 ms: now device 1 wins.
  std::vector<double> moves{20e-3, 0};
  s.transfer_s = moves;
  EXPECT_EQ(p->place(s), 1);
}

TEST(Placement, ModelSendsWorkWhereItIsUncalibrated) {
  auto p = find_policy("model").make(machine(2));
  std::vector<double> weights{1, 1};
  TaskShape s = shape_of(weights);
  for (int i = 0; i < 5; ++i) p->finished(0, s, 1e-3);
  EXPECT_EQ(p->place(s), 1);  // device 1 has no history: it gets the task, and learns
}

namespace {

Kernel cost_kernel() {
  Kernel k("cost");
  k.cost([](Span s) { return 1e5 * double(s.size()); });
  return k;
}

// Where 32 single tasks ran on sim:64,1 under the model policy: informed,
// it gives the slow device none (one task there would outlast all of them on
// the fast one).
std::vector<std::uint64_t> model_run(const std::string& file) {
  Options o;
  o.devices = "sim:64,1";
  o.policy = "model";
  o.perf_model_file = file;
  Runtime rt(o);
  for (int i = 0; i < 32; ++i) rt.submit({1000}, cost_kernel());
  RunStats s = rt.wait_all();
  return {s.devices[0].tasks, s.devices[1].tasks};
}

}  // namespace

TEST(Placement, ModelLearnsOnVirtualDevicesAndRemembersAcrossRuns) {
  const std::string file = "test_placement_models.json";
  std::remove(file.c_str());
  auto first = model_run(file);
  EXPECT_EQ(first[0] + first[1], 32u);
  EXPECT_GE(first[1], 1u) << "the slow device runs a few tasks to be measured";
  EXPECT_GT(first[0], first[1]);
  auto second = model_run(file);  // informed from the start: nothing to measure
  EXPECT_EQ(second[0], 32u);
  EXPECT_EQ(second[1], 0u);
  std::remove(file.c_str());
}
