// Data-parallel training through the Runtime, on several devices of each
// backend that can train: the reduced gradient is the one-device gradient of
// the whole batch, training on many devices keeps the weights of training on
// one, the loss falls, rates are learned, and bad configurations are named.
#include <gtest/gtest.h>

#include <cmath>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "sched/policy.hpp"
#include "train/mlp_cpu.hpp"
#include "train/trainer.hpp"

using namespace baton;
using namespace baton::train;

namespace {

class Training : public testing::TestWithParam<std::string> {
 protected:
  Runtime open() {
    Options o;
    o.devices = GetParam();
    o.perf_model_file = "";
    return Runtime(o);
  }
  static TrainConfig small(const std::string& policy) {
    TrainConfig c;
    c.shape = MlpShape{12, 48, 2, 5};
    c.batch = 384;
    c.micro_batch = 8;
    c.policy = policy;
    c.optimizer.lr = 3e-3f;
    return c;
  }
};

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& p : detail::policies()) names.push_back(p.name);
  return names;
}

}  // namespace

TEST_P(Training, TheReducedGradientIsTheWholeBatchsGradient) {
  Runtime rt = open();
  for (const std::string& policy : policy_names()) {
    TrainConfig c = small(policy);
    Trainer t(rt, c);
    const std::vector<float> reduced = t.gradient(3);
    // The same batch on the host in one piece.
    Teacher teacher(c.shape, c.seed);
    std::vector<float> x(std::size_t(c.batch) * c.shape.inputs),
        y(std::size_t(c.batch) * c.shape.outputs), p(t.layout().params()), ws;
    teacher.batch(3, 0, c.batch, x.data(), y.data());
    init_params(t.layout(), c.seed, p);
    std::vector<float> whole(p.size(), 0.0f);
    loss_and_grad_cpu(t.layout(), p.data(), x.data(), y.data(), c.batch, whole.data(), ws);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < whole.size(); ++i)
      wrong += !(std::abs(reduced[i] - whole[i]) <= 1e-4f * (1.0f + std::abs(whole[i])));
    EXPECT_EQ(wrong, 0u) << policy << ": parameters whose reduced gradient differs";
  }
}

TEST_P(Training, ManyDevicesKeepTheWeightsOfOne) {
  Runtime rt = open();
  TrainConfig c = small("static");  // which spreads even micro-batches this small
  Trainer all(rt, c);
  c.devices = {0};
  Trainer one(rt, c);
  for (int s = 0; s < 4; ++s) {
    const StepResult a = all.step(), b = one.step();
    EXPECT_NEAR(a.loss, b.loss, 1e-4 * b.loss) << "step " << a.step;
    std::uint64_t devices_used = 0;
    for (const auto& d : a.grad.devices) devices_used += d.items > 0;
    EXPECT_GE(devices_used, 2u) << "the micro-batches were not spread";
  }
  const auto pa = all.params(), pb = one.params();
  ASSERT_EQ(pa.size(), pb.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < pa.size(); ++i) wrong += !(std::abs(pa[i] - pb[i]) <= 2e-5f);
  EXPECT_EQ(wrong, 0u) << "weights that differ from training on one device";
}

TEST_P(Training, TheLossFalls) {
  Runtime rt = open();
  Trainer t(rt, small("weighted"));
  double first = 0, last = 0;
  for (int s = 0; s < 40; ++s) {
    const StepResult r = t.step();
    ASSERT_TRUE(std::isfinite(r.loss));
    if (s == 0) first = r.loss;
    last = r.loss;
  }
  EXPECT_LT(last, 0.5 * first) << "first " << first << ", last " << last;
}

TEST_P(Training, BadConfigurationsAreNamed) {
  Runtime rt = open();
  Errc code = Errc::internal;
  auto message = [&](TrainConfig c) -> std::string {
    try {
      Trainer t(rt, c);
    } catch (const Error& e) {
      code = e.code();
      return e.what();
    }
    return "accepted";
  };
  TrainConfig c = small("ws");
  c.batch = 100;
  c.micro_batch = 8;
  EXPECT_NE(message(c).find("multiple of the micro-batch"), std::string::npos) << message(c);
  c = small("ws");
  c.micro_batch = 0;
  EXPECT_NE(message(c).find("micro-batch"), std::string::npos) << message(c);
  c = small("ws");
  c.devices = {int(rt.devices().size())};
  EXPECT_NE(message(c).find("no device"), std::string::npos) << message(c);
  c = small("ws");
  c.shape.width = 1 << 20;  // 2^40 parameters: fits nowhere
  const std::string m = message(c);
  EXPECT_EQ(code, Errc::out_of_memory) << m;
  // Where a device's memory is known, before anything is allocated.
  if (rt.devices()[0]->info().memory_bytes > 0) {
    EXPECT_NE(m.find("needs about"), std::string::npos) << m;
  }
  c = small("no-such-policy");
  EXPECT_THROW(Trainer(rt, c).step(), Error);
}

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
