// Checkpoints: a job resumed from one has the losses of a job never
// stopped; a damaged file or one of another model is refused, naming why;
// what a crash mid-write leaves behind does not spoil the last checkpoint.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "train/checkpoint.hpp"
#include "train/trainer.hpp"

namespace training {

using namespace baton;
using namespace baton::train;

namespace {

Options cpu2() {
  Options o;
  o.devices = "cpu:2x1";
  o.perf_model_file = "";
  return o;
}

TrainConfig config(const std::string& policy) {
  TrainConfig c;
  c.shape = MlpShape{16, 48, 2, 8};
  c.batch = 256;
  c.micro_batch = 8;
  c.policy = policy;
  c.optimizer.lr = 3e-3f;
  return c;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Checkpoint, AResumedJobHasTheLossesOfOneNeverStopped) {
  for (const std::string policy : {"static", "weighted"}) {
    const std::string path = "test_checkpoint_" + policy + ".ckpt";
    std::vector<double> whole, resumed;
    {
      Runtime rt(cpu2());
      Trainer t(rt, config(policy));
      for (int s = 0; s < 6; ++s) whole.push_back(t.step().loss);
    }
    {
      Runtime rt(cpu2());
      Trainer t(rt, config(policy));
      for (int s = 0; s < 3; ++s) t.step();
      write_checkpoint(path, t.checkpoint());
    }
    {
      Runtime rt(cpu2());  // a new process, as after a crash
      Trainer t(rt, config(policy));
      t.restore(read_checkpoint(path));
      EXPECT_EQ(t.steps_done(), 3);
      for (int s = 0; s < 3; ++s) resumed.push_back(t.step().loss);
    }
    // static splits the same way every step: the same sums to the bit. weighted
    // splits by rates measured on the host's clock, which differ from run to
    // run (two uninterrupted runs differ as much): the same to rounding.
    for (int s = 0; s < 3; ++s)
      if (policy == "static")
        EXPECT_DOUBLE_EQ(resumed[s], whole[3 + s]) << policy << ", step " << 4 + s;
      else
        EXPECT_NEAR(resumed[s], whole[3 + s], 1e-6 * whole[3 + s]) << policy << ", step " << 4 + s;
    std::remove(path.c_str());
  }
}

TEST(Checkpoint, ADamagedFileIsRefusedNamingWhy) {
  const std::string path = "test_checkpoint_damaged.ckpt";
  Runtime rt(cpu2());
  Trainer t(rt, config("static"));
  t.step();
  write_checkpoint(path, t.checkpoint());
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto with = [&](const std::string& content) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    return error_of([&] { read_checkpoint(path); });
  };
  std::string flipped = bytes;
  flipped[flipped.size() - 5] ^= 0x40;
  EXPECT_NE(with(flipped).find("checksum"), std::string::npos) << with(flipped);
  EXPECT_NE(with(bytes.substr(0, bytes.size() - 100)).find("cut short"), std::string::npos);
  EXPECT_NE(with("baton checkpoint 9\n{}\n").find("first line"), std::string::npos);
  EXPECT_NE(with("baton checkpoint 1\n{\"inputs\": 3}\n").find("header"), std::string::npos);
  EXPECT_NE(error_of([] { read_checkpoint("/nonexistent/x.ckpt"); }).find("cannot open"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              write_checkpoint("/nonexistent/x.ckpt", t.checkpoint());
            }).find("cannot write"),
            std::string::npos);
  std::remove(path.c_str());
}

// A crash while writing leaves at most the temporary file beside the last
// checkpoint, which still reads whole; the next write replaces both.
TEST(Checkpoint, ACrashMidWriteLeavesTheLastCheckpointWhole) {
  const std::string path = "test_checkpoint_crash.ckpt";
  Runtime rt(cpu2());
  Trainer t(rt, config("static"));
  t.step();
  write_checkpoint(path, t.checkpoint());
  std::ofstream(path + ".tmp", std::ios::binary) << "baton checkpoint 1\n{\"step\": 2";  // cut
  const Checkpoint last = read_checkpoint(path);
  EXPECT_EQ(last.step, 1);
  t.step();
  write_checkpoint(path, t.checkpoint());
  EXPECT_EQ(read_checkpoint(path).step, 2);
  EXPECT_FALSE(std::ifstream(path + ".tmp")) << "the temporary file is renamed over the old one";
  std::remove(path.c_str());
}

TEST(Checkpoint, OneOfAnotherModelIsNamed) {
  Runtime rt(cpu2());
  Trainer t(rt, config("static"));
  Checkpoint c = t.checkpoint();
  TrainConfig wider = config("static");
  wider.shape.width = 64;
  Trainer other(rt, wider);
  EXPECT_NE(error_of([&] { other.restore(c); }).find("width is 48 in the checkpoint, 64 here"),
            std::string::npos)
      << error_of([&] { other.restore(c); });
  TrainConfig reseeded = config("static");
  reseeded.seed = 7;
  Trainer third(rt, reseeded);
  EXPECT_NE(error_of([&] { third.restore(c); }).find("seed"), std::string::npos);
}

}  // namespace training
