// baton train --checkpoint, or under an MPI launcher: one training job rather
// than the comparison of policies. Every device (of every process) trains
// under the first policy, a line per step; the job's state goes to the
// checkpoint file every --checkpoint-every steps and at the end, and --resume
// goes on from it. A job that stops on an error says where its last
// checkpoint is and how to go on; in a job of several processes, the process
// that failed names its rank and host and ends the others, and a process
// ended by the launcher (another one died) says how to resume.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "collective/process_group.hpp"
#include "json_output.hpp"
#include "output_file.hpp"
#include "policy_list.hpp"
#include "report/recording.hpp"
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

// A step's line is the job's output: on stdout, at once (from the first
// process only, in a job of several).
void say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// What a process ended by a signal (the launcher ends the others when one
// dies) writes before it goes: kept current after each step, written with
// write(2), the one output a signal handler may make.
char g_last_words[1024];

void say_last_words(int sig) {
  [[maybe_unused]] const ssize_t n = ::write(2, g_last_words, std::strlen(g_last_words));
  ::_exit(128 + sig);
}

void set_last_words(const std::string& words) {
  const std::size_t n = std::min(words.size(), sizeof g_last_words - 2);
  std::memcpy(g_last_words, words.data(), n);
  g_last_words[n] = '\n';
  g_last_words[n + 1] = '\0';
}

// How to go on from the checkpoint, or that there is none.
std::string resume_hint(const TrainArgs& a, int saved) {
  if (a.checkpoint.empty()) return "no --checkpoint was given, so nothing to resume from";
  if (saved == 0 && !a.resume) return "no checkpoint was written yet";
  return "the last checkpoint (step " + std::to_string(saved) + ") is in " + a.checkpoint +
         ": the same command with --resume goes on from it";
}

void train_job(const TrainArgs& a, collective::ProcessGroup& group) {
  const bool several = group.size() > 1;
  const bool first_process = group.rank() == 0;
  if (a.checkpoint.empty() && a.resume)
    raise(Errc::invalid_argument, "--resume", "needs --checkpoint FILE to resume from");
  if (a.checkpoint_every < 1)
    raise(Errc::invalid_argument, "--checkpoint-every", "must be at least 1");
  if (a.resume && !std::filesystem::exists(a.checkpoint))
    raise(Errc::invalid_argument, "--resume", "no checkpoint at '" + a.checkpoint + "'");
  if (!a.checkpoint.empty() && !a.resume && std::filesystem::exists(a.checkpoint))
    raise(Errc::invalid_argument, "--checkpoint",
          "'" + a.checkpoint + "' exists: add --resume to go on from it, or remove it");
  check_writable(a.checkpoint, "--checkpoint");
  const std::string policy = policy_list(a.policies).front();
  Options opt = env_options();
  opt.devices = a.devices;
  // One process per GPU: "cuda:{local_rank}" is each process's own.
  if (const std::size_t at = opt.devices.find("{local_rank}"); at != std::string::npos)
    opt.devices.replace(at, 12, std::to_string(collective::launched_local_rank()));
  // The first process's runs are traced and reported (--trace, --report).
  Recording recording(first_process ? a.trace : "", first_process ? a.report : "");
  Runtime rt(opt);
  train::TrainConfig config = train_config(a, a.batch, policy);
  config.processes = &group;
  const std::string where = "rank " + std::to_string(group.rank()) + " (" + group.host() + ")";
  int saved = 0;
  try {
    train::Trainer t(rt, config);
    if (a.resume) t.restore(train::read_checkpoint(a.checkpoint));
    const int first = t.steps_done();
    saved = first;
    std::string names;
    for (int d : t.devices()) names += (names.empty() ? "" : "+") + rt.devices()[d]->name();
    // Each process's devices, as "host: cpu0+cpu1", in rank order.
    const std::vector<std::string> all = group.gather(group.host() + ": " + names);
    std::string job = names;
    if (several) {
      job = std::to_string(all.size()) + " processes:";
      for (std::size_t r = 0; r < all.size(); ++r)
        job.append(r ? "," : "")
            .append(" rank ")
            .append(std::to_string(r))
            .append(" on ")
            .append(all[r]);
    }
    // What this process says if the launcher ends it in step `s`.
    auto last_words = [&](int s) {
      set_last_words("baton: " + where + " stopped in step " + std::to_string(s) +
                     ": another process of the job ended (the launcher names it); " +
                     resume_hint(a, saved));
    };
    if (several) {
      last_words(first + 1);
      std::signal(SIGTERM, say_last_words);
      std::signal(SIGINT, say_last_words);
    }
    const bool speak = first_process && !a.json;
    recording.start(rt);
    if (speak) {
      std::printf("training on %s under %s, %d samples a step%s\n", job.c_str(), policy.c_str(),
                  a.batch, first > 0 ? (", resumed at step " + std::to_string(first)).c_str() : "");
      if (several || t.devices().size() > 1)
        std::printf("gradients summed: %s\n", t.collective().c_str());
    }

    nlohmann::json j = {{"devices", several ? nlohmann::json(all) : nlohmann::json(names)},
                        {"processes", group.size()},
                        {"process_group", group.name()},
                        {"policy", policy},
                        {"collective", t.collective()},
                        {"batch", a.batch},
                        {"resumed_from", first},
                        {"checkpoint", a.checkpoint}};
    j["steps"] = nlohmann::json::array();
    auto save = [&] {
      // Every process holds the same weights: the first one writes them.
      if (first_process) train::write_checkpoint(a.checkpoint, t.checkpoint());
      saved = t.steps_done();
    };
    for (int s = first + 1; s <= a.steps; ++s) {
      const train::StepResult r = t.step();
      nlohmann::json step = {{"step", r.step}, {"loss", r.loss}, {"seconds", r.seconds}};
      if (!r.failures.empty()) step["failures"] = r.failures;
      if (several) step["process_micro_batches"] = r.process_micro_batches;
      j["steps"].push_back(step);
      std::string split;
      for (int m : r.process_micro_batches)
        split.append(split.empty() ? "" : "+").append(std::to_string(m));
      if (speak)
        say("step " + std::to_string(r.step) + "  loss " + fixed(r.loss, 6) + "  " +
            seconds(r.seconds) + (several ? "  micro-batches per rank " + split : ""));
      if (!a.json)
        for (const auto& f : r.failures)
          say("note: " + (several ? where + ": " : "") + "step " + std::to_string(r.step) + ": " +
              f + " (left out)");
      if (!a.checkpoint.empty() && (s % a.checkpoint_every == 0 || s == a.steps)) save();
      if (several) last_words(r.step + 1);
    }
    if (several) std::signal(SIGTERM, SIG_DFL);
    recording.stop();
    if (!first_process) return;
    recording.report(j);
    if (emit_json(j, a.json, a.json_out)) return;
    if (!a.checkpoint.empty())
      say("checkpoint: " + a.checkpoint + " (step " + std::to_string(t.steps_done()) + ")");
  } catch (const Error& e) {
    if (!several && (a.checkpoint.empty() || saved == 0)) throw;
    raise(e.code(), e.where(), e.message() + "; " + resume_hint(a, saved));
  }
}

}  // namespace

void run_train_job(const TrainArgs& a) {
  const std::unique_ptr<collective::ProcessGroup> group = collective::join_processes();
  if (group->size() == 1) return train_job(a, *group);
  // In a job of several processes an error is this process's alone: it names
  // its rank and host and ends the others, which would wait for it forever.
  try {
    train_job(a, *group);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "baton: rank %d (%s) failed: %s\n", group->rank(), group->host().c_str(),
                 e.what());
    std::fflush(stderr);
    group->abort(2);
  }
}

}  // namespace baton::cli
