// Every setting of baton, declared once: its type, its field in Options, its
// environment variable, its default and what it does. Options::from_env()
// reads them all (a value that does not parse is an Error naming the
// variable); `baton devices --config` prints the same table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace baton {

// X(type, field, "ENVIRONMENT_VARIABLE", default, "what it does")
#define BATON_OPTIONS(X)                                                                         \
  X(std::string, devices, "BATON_DEVICES", "auto",                                               \
    "devices to use: 'auto' (all detected) or a spec (see baton devices --help)")                \
  X(std::string, policy, "BATON_POLICY", "ws",                                                   \
    "scheduling policy for tasks and chunks (see baton bench balance --help)")                   \
  X(std::string, topology_file, "BATON_TOPO_FILE", "",                                           \
    "JSON topology file whose links override the discovered ones")                               \
  X(std::string, perf_model_file, "BATON_PERF_MODEL_FILE", "~/.cache/baton/perf_models.json",    \
    "history performance models of the model policy: read at start, written at exit ('': none)") \
  X(std::string, fault, "BATON_FAULT", "",                                                       \
    "inject device faults, e.g. cpu1:after=100 (its 101st launch fails like a lost device)")     \
  X(bool, write_back, "BATON_WRITE_BACK", false,                                                 \
    "copy each task's results to host memory behind later work (else only when read)")           \
  X(int, cpu_threads, "BATON_CPU_THREADS", 0,                                                    \
    "threads of the host CPU to use (0: all hardware threads but one for each GPU's worker)")    \
  X(double, tail_split, "BATON_TAIL_SPLIT", 4,                                                   \
    "ws: a chunk is 1/N of the device's fair share of what is left")                             \
  X(double, min_chunk_div, "BATON_MIN_CHUNK_DIV", 16,                                            \
    "ws: smallest chunk is the largest chunk divided by N")                                      \
  X(double, min_chunk_us, "BATON_MIN_CHUNK_US", 200,                                             \
    "ws: no chunk shorter than this (us) once a device's rate is measured")                      \
  X(double, body_chunk_us, "BATON_BODY_CHUNK_US", 1000,                                          \
    "ws: before the tail, a measured device's chunks may be this long (us)")                     \
  X(double, long_chunk_us, "BATON_LONG_CHUNK_US", 1000,                                          \
    "chunks longer than this (us) keep at most one more in flight")                              \
  X(double, idle_spin_us, "BATON_IDLE_SPIN_US", 50,                                              \
    "how long an idle device worker or cpu thread looks for work before it sleeps (us)")         \
  X(double, gap_spin_us, "BATON_GAP_SPIN_US", 5000,                                              \
    "an idle GPU worker looks for work for twice its last idle time, where that is at most "     \
    "this (us): runs submitted every few ms find it awake; 0: BATON_IDLE_SPIN_US only")          \
  X(double, sim_launch_us, "BATON_SIM_LAUNCH_US", 5,                                             \
    "sim: virtual cost of one launch (us), where the machine file gives none")                   \
  X(bool, sim_execute, "BATON_SIM_EXECUTE", true,                                                \
    "sim: run kernels' cpu code and copy bytes (false: time only, to plan large machines)")      \
  X(bool, cuda_zero_copy, "BATON_CUDA_ZERO_COPY", false,                                         \
    "cuda: map host buffers into the GPU instead of copying")                                    \
  X(int, cuda_copy_threads, "BATON_CUDA_COPY_THREADS", 0,                                        \
    "cuda: threads copying pageable memory via pinned staging (0: half the cores, 2..8)")        \
  X(double, pinned_limit_gb, "BATON_PINNED_LIMIT_GB", 0,                                         \
    "cuda: buffers' host memory is pinned up to this much, then pageable (0: half the RAM)")

struct Options {
#define BATON_OPTION_FIELD(type, field, env, dflt, text) type field = dflt;
  BATON_OPTIONS(BATON_OPTION_FIELD)
#undef BATON_OPTION_FIELD

  // Every field from its BATON_* variable where set and not empty, else its
  // default. Throws Error(invalid_argument) naming a variable that does not parse.
  static Options from_env();
};

// The environment's options, read once per process: for code that runs
// without a Runtime (the CLI's defaults, process-wide pools).
const Options& env_options();

// One row per option, for `baton devices --config` and documentation.
struct OptionInfo {
  const char* env;
  std::string value;          // in `o`, as text
  std::string default_value;  // as text
  const char* description;
};
std::vector<OptionInfo> describe_options(const Options& o);

}  // namespace baton
