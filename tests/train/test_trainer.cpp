// The training cases on the cpu and sim backends, and what only sim shows.
#include "baton/sim.hpp"
#include "train/trainer_cases.hpp"

namespace training {

INSTANTIATE_TEST_SUITE_P(cpu, Training, testing::Values("cpu:2x1", "cpu:3x1"));
INSTANTIATE_TEST_SUITE_P(sim, Training, testing::Values("sim:4,2,1"));

namespace {

Runtime runtime_of(const std::string& devices) {
  Options o;
  o.devices = devices;
  o.perf_model_file = "";
  return Runtime(o);
}

// A small model, and micro-batches enough for a split by rates to be fine.
TrainConfig tiny(const std::string& policy, int batch) {
  TrainConfig c;
  c.shape = MlpShape{8, 32, 1, 4};
  c.batch = batch;
  c.micro_batch = 4;
  c.policy = policy;
  return c;
}

}  // namespace

// On the sim backend the step's measured rates are its devices' speeds: the
// second step's split under `weighted` already follows them.
TEST(TrainingSim, RatesAreLearnedInTheFirstStep) {
  Runtime rt = runtime_of("sim:4,2,1");
  Trainer t(rt, tiny("weighted", 1400));
  t.step();
  const StepResult second = t.step();
  const double speeds[] = {4, 2, 1};
  for (int d = 0; d < 3; ++d) {
    const double share = double(second.grad.devices[d].items) / double(second.grad.items);
    EXPECT_NEAR(share, speeds[d] / 7.0, 0.03) << "device " << d;
  }
}

// A device slowed for one step only (a burst of another job) does not swing
// the split of the steps after it: rates are the median of the last steps'.
TEST(TrainingSim, OneSlowStepDoesNotSwingTheSplit) {
  Runtime rt = runtime_of("sim:4,2,1");
  Trainer t(rt, tiny("weighted", 1400));
  for (int s = 0; s < 4; ++s) t.step();
  const StepResult before = t.step();
  rt.wait_all();
  sim::change_speed(*rt.devices()[0], rt.clock().now(), 1.0);
  t.step();  // device 0 at a quarter of its speed
  rt.wait_all();
  sim::change_speed(*rt.devices()[0], rt.clock().now(), 4.0);
  const StepResult after = t.step();
  for (int d = 0; d < 3; ++d)
    EXPECT_NEAR(double(after.grad.devices[d].items), double(before.grad.devices[d].items), 1.0)
        << "device " << d;
}

// A device that slows down after its rate was learned (another job starts on
// it): under ws the others take over its micro-batches within the next step;
// a split by the rates learned waits for it.
TEST(TrainingSim, ADeviceThatSlowsIsAbsorbedWithinTheStep) {
  auto slowed_step = [](const std::string& policy) {
    Runtime rt = runtime_of("sim:4,2,1");
    Trainer t(rt, tiny(policy, 2800));
    const StepResult first = t.step();  // rates learned: the second split is by them
    rt.wait_all();
    sim::change_speed(*rt.devices()[0], rt.clock().now(), 1.0);
    return t.step().grad.makespan_s / first.grad.makespan_s;
  };
  const double weighted = slowed_step("weighted"), ws = slowed_step("ws");
  // Device 0 (4/7 of the speed) drops to 1: the learned split takes about 4x
  // the step before; the devices' new total rate (4 of 7) allows 1.75x, ws
  // takes 2.1-2.5x (the first chunk device 0 takes runs slow to its end).
  EXPECT_GT(weighted, 3.0);
  EXPECT_LT(ws, 0.75 * weighted);
}

// A device lost while the last micro-batches run layer by layer, some
// buckets already reduced and updated: the step is done again on the others
// from the weights it started with, updating only what was not, and the
// weights are those of training on one device. Failures at several points
// of the step (before the first bucket is made, among the buckets' updates,
// at its end).
TEST(TrainingSim, ADeviceLostAmongTheBucketsUpdatesLosesNothing) {
  TrainConfig c = tiny("static", 48);
  c.shape = MlpShape{16, 512, 3, 8};  // 2 MiB of gradient: two buckets
  double step_s = 0;
  {
    Runtime rt = runtime_of("sim:4,2,1");
    Trainer t(rt, c);
    t.step();
    step_s = t.step().seconds;
  }
  Runtime ref = runtime_of("sim:4");
  Trainer one(ref, c);
  const std::vector<float> start = one.params();
  for (int s = 0; s < 3; ++s) one.step();
  for (const double at : {0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9}) {
    Runtime rt = runtime_of("sim:4,2,1");
    Trainer all(rt, c);
    all.step();
    rt.wait_all();
    sim::fail_at(*rt.devices()[1], rt.clock().now() + at * step_s);
    std::size_t failures = all.step().failures.size();
    failures += all.step().failures.size();
    EXPECT_EQ(failures, 1u) << "failed at " << at << " of a step";
    EXPECT_LT(relative_to_training(all.params(), one.params(), start), 1e-4)
        << "failed at " << at << " of a step";
  }
}

}  // namespace training
