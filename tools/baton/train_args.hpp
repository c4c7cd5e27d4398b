// baton train's arguments, shared by the comparison (cmd_train.cpp) and the
// checkpointed training job (cmd_train_job.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "baton/options.hpp"
#include "train/trainer.hpp"

namespace baton::cli {

struct TrainArgs {
  std::string devices = env_options().devices;
  std::string policies = "static,weighted,ws";
  train::MlpShape shape{512, 1024, 4, 64};
  int batch = 512;
  int micro_batch = 32;
  int steps = 10;
  int warmup = 1;
  int dataset = 0;
  std::string scaling = "weak";
  std::string collective = "auto";
  bool no_overlap = false;
  std::string trace;   // Chrome/Perfetto trace-event JSON of every run
  std::string report;  // an HTML report's folder
  std::string counts;
  float lr = 1e-3f;
  std::uint64_t seed = 1;
  bool json = false;
  std::string json_out;
  std::string checkpoint;  // the job's state file; empty: the comparison
  int checkpoint_every = 50;
  bool resume = false;
};

// The trainer's configuration for `batch` samples a step under `policy`.
train::TrainConfig train_config(const TrainArgs& a, int batch, const std::string& policy);

// One training job on every device under the first policy, checkpointed.
void run_train_job(const TrainArgs& a);

}  // namespace baton::cli
