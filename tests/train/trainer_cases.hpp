// Data-parallel training through the Runtime, written once and instantiated
// per backend (test_trainer.cpp: cpu and sim; test_trainer_cuda.cpp, _opencl): the
// reduced gradient is the one-device gradient of the whole batch, training on
// many devices keeps the weights of training on one, a device that fails is
// left out with nothing lost, reducing behind backward changes nothing, the
// loss falls, and bad configurations are named. Backends that compute in bf16 (cuda) are held to
// bf16's precision, the others to fp32's.
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "sched/policy.hpp"
#include "support/open_runtime.hpp"
#include "train/mlp_cpu.hpp"
#include "train/trainer.hpp"

namespace training {

using namespace baton;
using namespace baton::train;

// |a - b| against |reference|, as norms.
inline double relative(const std::vector<float>& a, const std::vector<float>& b,
                       const std::vector<float>& reference) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += double(a[i] - b[i]) * double(a[i] - b[i]);
    norm += double(reference[i]) * double(reference[i]);
  }
  return std::sqrt(diff / std::max(norm, 1e-30));
}

// How far weights `a` are from `b`, against how far training moved `b` from `start`.
inline double relative_to_training(const std::vector<float>& a, const std::vector<float>& b,
                                   const std::vector<float>& start) {
  std::vector<float> moved(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) moved[i] = b[i] - start[i];
  return relative(a, b, moved);
}

class Training : public testing::TestWithParam<std::string> {
 protected:
  // The parameter's devices, or null with skip_reason_ set; `fault` as BATON_FAULT.
  std::unique_ptr<Runtime> open(const std::string& fault = "") {
    Options o;
    o.devices = GetParam();
    o.perf_model_file = "";
    o.fault = fault;
    return test::open_or_skip(o, skip_reason_);
  }
  bool bf16() const { return GetParam().find("cuda") != std::string::npos; }
  static TrainConfig small(const std::string& policy) {
    TrainConfig c;
    c.shape = MlpShape{16, 48, 2, 8};
    c.batch = 384;
    c.micro_batch = 8;
    c.policy = policy;
    c.optimizer.lr = 3e-3f;
    return c;
  }
  std::string skip_reason_;
};

#define TRAINING_OPEN(rt)                                                \
  auto rt = open();                                                      \
  if (!rt) {                                                             \
    GTEST_SKIP() << "no " << GetParam() << " devices: " << skip_reason_; \
  }

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& p : detail::policies()) names.push_back(p.name);
  return names;
}

TEST_P(Training, TheReducedGradientIsTheWholeBatchsGradient) {
  TRAINING_OPEN(rt);
  for (const std::string& policy : policy_names()) {
    TrainConfig c = small(policy);
    Trainer t(*rt, c);
    const std::vector<float> reduced = t.gradient(3);
    // The same batch on the host in one piece.
    Teacher teacher(c.shape, c.seed);
    std::vector<float> x(std::size_t(c.batch) * c.shape.inputs),
        y(std::size_t(c.batch) * c.shape.outputs), p(t.layout().params()), ws;
    teacher.batch(3, 0, c.batch, x.data(), y.data());
    init_params(t.layout(), c.seed, p);
    std::vector<float> whole(p.size(), 0.0f);
    loss_and_grad_cpu(t.layout(), p.data(), x.data(), y.data(), c.batch, whole.data(), ws);
    EXPECT_LT(relative(reduced, whole, whole), bf16() ? 3e-2 : 1e-5) << policy;
  }
}

TEST_P(Training, ManyDevicesKeepTheWeightsOfOne) {
  TRAINING_OPEN(rt);
  TrainConfig c = small("static");  // which spreads even micro-batches this small
  Trainer all(*rt, c);
  c.devices = {0};
  Trainer one(*rt, c);
  const std::vector<float> start = one.params();
  for (int s = 0; s < 4; ++s) {
    const StepResult a = all.step(), b = one.step();
    EXPECT_NEAR(a.loss, b.loss, (bf16() ? 1e-2 : 1e-4) * b.loss) << "step " << a.step;
    std::size_t devices_used = 0;
    for (const auto& d : a.grad.devices) devices_used += d.items > 0;
    EXPECT_GE(devices_used, std::min<std::size_t>(2, rt->devices().size()))
        << "the micro-batches were not spread";
  }
  const auto pa = all.params(), pb = one.params();
  ASSERT_EQ(pa.size(), pb.size());
  EXPECT_LT(relative_to_training(pa, pb, start), bf16() ? 5e-2 : 1e-4)
      << "the weights differ from training on one device";
}

// A device that fails in the middle of training (BATON_FAULT's switch): the
// step it failed in is accumulated again on the others, it is left out from
// then on, and the weights are those of training on one healthy device.
TEST_P(Training, ADeviceThatFailsIsLeftOutAndNothingIsLost) {
  TRAINING_OPEN(probe);
  if (probe->devices().size() < 2) GTEST_SKIP() << GetParam() << ": one device, none to fail";
  const std::string failing = probe->devices()[1]->name();
  probe.reset();
  auto rt = open(failing + ":after=5");
  ASSERT_TRUE(rt) << skip_reason_;
  TrainConfig c = small("static");
  Trainer all(*rt, c);
  c.devices = {0};
  Trainer one(*rt, c);
  const std::vector<float> start = one.params();
  std::size_t failures = 0;
  for (int s = 0; s < 5; ++s) {
    const StepResult a = all.step(), b = one.step();
    for (const auto& f : a.failures) EXPECT_NE(f.find(failing), std::string::npos) << f;
    failures += a.failures.size();
    EXPECT_NEAR(a.loss, b.loss, (bf16() ? 1e-2 : 1e-4) * b.loss) << "step " << a.step;
  }
  EXPECT_EQ(failures, 1u);
  std::vector<int> survivors;
  for (int d = 0; d < int(rt->devices().size()); ++d)
    if (d != 1) survivors.push_back(d);
  EXPECT_EQ(all.devices(), survivors);
  EXPECT_LT(relative_to_training(all.params(), one.params(), start), bf16() ? 5e-2 : 1e-4);
}

// With overlap (the default), through a communicator each device runs its
// last micro-batch a layer at a time and the buckets are reduced and updated
// behind it: the weights are those of reducing after the whole backward.
TEST_P(Training, ReducingBehindBackwardKeepsTheWeights) {
  TRAINING_OPEN(rt);
  TrainConfig c = small("static");
  Trainer behind(*rt, c);
  c.overlap = false;
  Trainer after(*rt, c);
  const std::vector<float> start = after.params();
  for (int s = 0; s < 3; ++s) {
    const StepResult a = behind.step(), b = after.step();
    EXPECT_NEAR(a.loss, b.loss, (bf16() ? 1e-2 : 1e-5) * b.loss) << "step " << a.step;
    EXPECT_EQ(a.grad.items, b.grad.items) << "every micro-batch counted";
  }
  EXPECT_LT(relative_to_training(behind.params(), after.params(), start), bf16() ? 5e-2 : 1e-5);
}

// The same where a layer is larger than a bucket: its gradient comes in
// parts of its weights' rows, each reduced once made.
TEST_P(Training, ALayerInPartsIsReducedBehindBackwardToo) {
  TRAINING_OPEN(rt);
  TrainConfig c = small("static");
  c.bucket_bytes = 4 << 10;  // a 48 x 48 layer is 9.4 kB: two parts
  ASSERT_EQ(backward_parts(MlpLayout(c.shape), 1, c.bucket_bytes).size(), 2u);
  Trainer behind(*rt, c);
  c.overlap = false;
  Trainer after(*rt, c);
  const std::vector<float> start = after.params();
  for (int s = 0; s < 2; ++s) {
    const StepResult a = behind.step(), b = after.step();
    EXPECT_NEAR(a.loss, b.loss, (bf16() ? 1e-2 : 1e-5) * b.loss) << "step " << a.step;
  }
  EXPECT_LT(relative_to_training(behind.params(), after.params(), start), bf16() ? 5e-2 : 1e-5);
}

TEST_P(Training, TheLossFalls) {
  TRAINING_OPEN(rt);
  Trainer t(*rt, small("weighted"));
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
  TRAINING_OPEN(rt);
  Errc code = Errc::internal;
  auto message = [&](TrainConfig c) -> std::string {
    try {
      Trainer t(*rt, c);
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
  c.devices = {int(rt->devices().size())};
  EXPECT_NE(message(c).find("no device"), std::string::npos) << message(c);
  c = small("ws");
  c.shape.width = 1 << 20;  // 2^40 parameters: fits nowhere
  const std::string m = message(c);
  EXPECT_EQ(code, Errc::out_of_memory) << m;
  // Where a device's memory is known, before anything is allocated or made
  // (a model's kernels grow with it).
  if (rt->devices()[0]->info().memory_bytes > 0) {
    EXPECT_NE(m.find("on each device"), std::string::npos) << m;
  }
  c = small("no-such-policy");
  EXPECT_THROW(Trainer(*rt, c).step(), Error);
}

}  // namespace training
