// baton train --checkpoint: one training job rather than the comparison of
// policies. Every device trains under the first policy, a line per step;
// the job's state goes to the checkpoint file every --checkpoint-every steps
// and at the end, and --resume goes on from it. A job that stops on an error
// says where its last checkpoint is and how to go on.
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "json_output.hpp"
#include "policy_list.hpp"
#include "table.hpp"
#include "train/checkpoint.hpp"
#include "train_args.hpp"

namespace baton::cli {

train::TrainConfig train_config(const TrainArgs& a, int batch, const std::string& policy) {
  train::TrainConfig c;
  c.shape = a.shape;
  c.batch = batch;
  c.micro_batch = a.micro_batch;
  c.policy = policy;
  c.optimizer.lr = a.lr;
  c.seed = a.seed;
  c.dataset = a.dataset;
  c.collective = a.collective;
  c.overlap = !a.no_overlap;
  return c;
}

namespace {

// A step's line is the job's output: on stdout, at once.
void say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace

void run_train_job(const TrainArgs& a) {
  if (a.checkpoint.empty())
    raise(Errc::invalid_argument, "--resume", "needs --checkpoint FILE to resume from");
  if (a.checkpoint_every < 1)
    raise(Errc::invalid_argument, "--checkpoint-every", "must be at least 1");
  if (a.resume && !std::filesystem::exists(a.checkpoint))
    raise(Errc::invalid_argument, "--resume", "no checkpoint at '" + a.checkpoint + "'");
  if (!a.resume && std::filesystem::exists(a.checkpoint))
    raise(Errc::invalid_argument, "--checkpoint",
          "'" + a.checkpoint + "' exists: add --resume to go on from it, or remove it");
  const std::string policy = policy_list(a.policies).front();
  Options opt = env_options();
  opt.devices = a.devices;
  Runtime rt(opt);
  train::Trainer t(rt, train_config(a, a.batch, policy));
  if (a.resume) t.restore(train::read_checkpoint(a.checkpoint));
  const int first = t.steps_done();
  std::string names;
  for (int d : t.devices()) names += (names.empty() ? "" : "+") + rt.devices()[d]->name();
  if (!a.json)
    std::printf("training on %s under %s, %d samples a step%s\n", names.c_str(), policy.c_str(),
                a.batch, first > 0 ? (", resumed at step " + std::to_string(first)).c_str() : "");

  nlohmann::json j = {{"devices", names},
                      {"policy", policy},
                      {"batch", a.batch},
                      {"resumed_from", first},
                      {"checkpoint", a.checkpoint}};
  j["steps"] = nlohmann::json::array();
  int saved = first;
  auto save = [&] {
    train::write_checkpoint(a.checkpoint, t.checkpoint());
    saved = t.steps_done();
  };
  try {
    for (int s = first + 1; s <= a.steps; ++s) {
      const train::StepResult r = t.step();
      nlohmann::json step = {{"step", r.step}, {"loss", r.loss}, {"seconds", r.seconds}};
      if (!r.failures.empty()) step["failures"] = r.failures;
      j["steps"].push_back(step);
      if (!a.json) {
        say("step " + std::to_string(r.step) + "  loss " + fixed(r.loss, 6) + "  " +
            seconds(r.seconds));
        for (const auto& f : r.failures)
          say("note: step " + std::to_string(r.step) + ": " + f + " (left out)");
      }
      if (s % a.checkpoint_every == 0 || s == a.steps) save();
    }
  } catch (const Error& e) {
    raise(e.code(), e.where(),
          e.message() + "; the last checkpoint (step " + std::to_string(saved) + ") is in " +
              a.checkpoint + ": the same command with --resume goes on from it");
  }
  if (emit_json(j, a.json, a.json_out)) return;
  say("checkpoint: " + a.checkpoint + " (step " + std::to_string(t.steps_done()) + ")");
}

}  // namespace baton::cli
