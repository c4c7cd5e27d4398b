// A training job of several processes, run by ctest under `mpirun -np 2`:
// each process trains on its own devices, with each step's global batch cut
// between the processes. The summed gradient is the one-process gradient of
// the whole batch, the losses are one process's, every process holds the
// same weights, and a slow process gets less of the batch. Without a
// launcher every case skips.
#include <gtest/gtest.h>

#include "baton/runtime.hpp"
#include "baton/sim.hpp"
#include "collective/process_group.hpp"
#include "train/trainer.hpp"

namespace {

using namespace baton;
using namespace baton::train;

collective::ProcessGroup& group() {
  static const std::unique_ptr<collective::ProcessGroup> g = collective::join_processes();
  return *g;
}

Runtime runtime_of(const std::string& devices) {
  Options o;
  o.devices = devices;
  o.perf_model_file = "";
  return Runtime(o);
}

TrainConfig small(collective::ProcessGroup* processes) {
  TrainConfig c;
  c.shape = MlpShape{16, 48, 2, 8};
  c.batch = 384;
  c.micro_batch = 8;
  c.policy = "weighted";
  c.processes = processes;
  return c;
}

class Processes : public testing::Test {
 protected:
  void SetUp() override {
    if (group().size() < 2)
      GTEST_SKIP() << "needs several processes: mpirun -np 2 "
                   << "test_train_mpi";
  }
  // The processes have unequal devices (the first twice the second's speed),
  // so their shares of the batch differ.
  Runtime open() { return runtime_of(group().rank() == 0 ? "sim:2" : "sim:1"); }
};

double relative(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += double(a[i] - b[i]) * double(a[i] - b[i]);
    norm += double(b[i]) * double(b[i]);
  }
  return std::sqrt(diff / std::max(norm, 1e-30));
}

TEST_F(Processes, TheSummedGradientIsOneProcesssGradientOfTheWholeBatch) {
  Runtime rt = open();
  Trainer job(rt, small(&group()));
  Trainer alone(rt, small(nullptr));
  const std::vector<float> summed = job.gradient(1);
  const std::vector<float> whole = alone.gradient(1);
  EXPECT_LT(relative(summed, whole), 1e-5);
}

TEST_F(Processes, LossesAreOneProcesssAndEveryProcessHoldsTheSameWeights) {
  Runtime rt = open();
  Trainer job(rt, small(&group()));
  Trainer alone(rt, small(nullptr));
  std::vector<int> first_split;
  for (int s = 1; s <= 4; ++s) {
    const StepResult r = job.step();
    const StepResult one = alone.step();
    EXPECT_NEAR(r.loss, one.loss, 1e-5 * one.loss) << "step " << s;
    ASSERT_EQ(r.process_micro_batches.size(), 2u);
    EXPECT_EQ(r.process_micro_batches[0] + r.process_micro_batches[1], 384 / 8);
    if (s == 1) first_split = r.process_micro_batches;
  }
  // The first split follows the devices' peak figures: 2 to 1.
  EXPECT_EQ(first_split, (std::vector<int>{32, 16}));
  const std::vector<float> mine = job.params();
  const std::vector<double> as_double(mine.begin(), mine.end());
  const std::vector<double> all = group().gather(as_double);
  for (std::size_t i = 0; i < mine.size(); ++i)
    ASSERT_EQ(all[i], all[mine.size() + i]) << "weight " << i << " differs between the processes";
  EXPECT_LT(relative(mine, alone.params()), 1e-4);
}

TEST_F(Processes, ASlowProcessGetsLessOfTheBatch) {
  // Both processes start with the same device, so the same first guess; the
  // second then runs at a quarter of its speed (another job on its node).
  Runtime rt = runtime_of("sim:4");
  if (group().rank() == 1) sim::change_speed(*rt.devices()[0], 0, 1.0);
  Trainer job(rt, small(&group()));
  StepResult r;
  for (int s = 1; s <= 5; ++s) r = job.step();
  ASSERT_EQ(r.process_micro_batches.size(), 2u);
  // 4 to 1: 38 and 10 of 48 micro-batches, learned from step 1 and used from step 3.
  EXPECT_NEAR(r.process_micro_batches[0], 38, 1);
  EXPECT_NEAR(r.process_micro_batches[1], 10, 1);
}

}  // namespace
