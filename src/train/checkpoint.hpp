// A training job's state on disk: the weights, AdamW's moments, the step
// reached and the rates learned per device, so that a job resumed from it
// goes on with the losses it would have had. Written atomically (a temporary
// file, flushed to the disk, renamed over the old one): a crash mid-write
// leaves the previous checkpoint whole. A checksum over the arrays catches a
// file damaged since.
//
// Format: a line "baton checkpoint 1", a line of JSON (the model's shape,
// seed, batch, step, rates, per-process rates, array length and checksum), then three arrays of
// little-endian fp32: weights, first moments, second moments.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "train/mlp.hpp"

namespace baton::train {

struct Checkpoint {
  MlpShape shape;
  std::uint64_t seed = 0;
  int batch = 0;
  int micro_batch = 0;
  int step = 0;                         // steps done
  std::map<std::string, double> rates;  // micro-batches/s by device name
  // A job of several processes: micro-batches/s per process (rank order), as
  // learned; written by the first process, whose devices `rates` names.
  std::vector<double> process_rates;
  std::vector<float> params, m, v;
};

// Throws Error(invalid_argument, path) when it cannot be written.
void write_checkpoint(const std::string& path, const Checkpoint& c);
// Throws Error(invalid_argument, path) naming what is wrong with the file.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace baton::train
