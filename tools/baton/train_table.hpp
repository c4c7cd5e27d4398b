// What `baton train`'s comparison reports: a row per run (its rate, speed-up,
// efficiency against the oracle and a perfect split, where a step's time
// went, the memory it held), as a table or JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "baton/runtime.hpp"
#include "report/recording.hpp"
#include "train_args.hpp"
#include "train_run.hpp"

namespace baton::cli {

// The comparison's runs, with what its rows are measured against.
struct Comparison {
  std::vector<int> able;           // the devices that can train
  std::uint64_t model_bytes = 0;   // what each device holds of the model
  std::vector<double> alone;       // per device of the runtime: samples/s alone
  int fastest = 0;                 // the fastest alone: the speed-up's base
  std::vector<Run> runs;           // the alone runs first
  std::vector<std::string> notes;  // printed after the table
};

// Adds the devices and runs to `j`, hands it to the recording's report, and
// prints it as JSON (--json, --json-out) or as the table.
void report_training(const Runtime& rt, const TrainArgs& a, const Comparison& c,
                     Recording& recording, nlohmann::json& j);

}  // namespace baton::cli
