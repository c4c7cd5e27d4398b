// The training cases on the cpu and sim backends, and what only sim shows.
#include "train/trainer_cases.hpp"

namespace training {

INSTANTIATE_TEST_SUITE_P(cpu, Training, testing::Values("cpu:2x1", "cpu:3x1"));
INSTANTIATE_TEST_SUITE_P(sim, Training, testing::Values("sim:4,2,1"));

// On the sim backend the step's measured rates are its devices' speeds: the
// second step's split under `weighted` already follows them.
TEST(TrainingSim, RatesAreLearnedInTheFirstStep) {
  Options o;
  o.devices = "sim:4,2,1";
  o.perf_model_file = "";
  Runtime rt(o);
  TrainConfig c;
  c.shape = MlpShape{8, 32, 1, 4};
  c.batch = 1400;
  c.micro_batch = 4;
  c.policy = "weighted";
  Trainer t(rt, c);
  t.step();
  const StepResult second = t.step();
  const double speeds[] = {4, 2, 1};
  for (int d = 0; d < 3; ++d) {
    const double share = double(second.grad.devices[d].items) / double(second.grad.items);
    EXPECT_NEAR(share, speeds[d] / 7.0, 0.03) << "device " << d;
  }
}

}  // namespace training
