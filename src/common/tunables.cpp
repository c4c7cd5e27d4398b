#include "common/tunables.hpp"

#include <cstdlib>
#include <cstring>

#include "baton/error.hpp"

namespace baton::detail {

const std::vector<Tunable>& tunables() {
  static const std::vector<Tunable> table = {
      {"BATON_DEVICES", "auto",
       "devices to use: 'auto' (all detected) or a spec (see baton devices --help)"},
      {"BATON_POLICY", "ws", "scheduling policy: static, weighted, ws, ws-topo"},
      {"BATON_TOPO_FILE", "", "JSON topology file that overrides discovered links"},
      {"BATON_CPU_THREADS", "0", "threads of the host CPU to use (0: all hardware threads)"},
      {"BATON_TAIL_SPLIT", "4", "ws: a chunk is 1/N of the device's fair share of what is left"},
      {"BATON_MIN_CHUNK_DIV", "16", "ws: smallest chunk is the largest chunk divided by N"},
      {"BATON_MIN_CHUNK_US", "200",
       "ws: no chunk shorter than this (us) once a device's rate is measured"},
      {"BATON_LONG_CHUNK_US", "1000",
       "chunks longer than this (us) keep at most one more in flight"},
      {"BATON_STEAL_BACKOFF_US", "50",
       "longest pause of an idle worker between steal attempts (us)"},
      {"BATON_SIM_LAUNCH_US", "5", "sim: virtual cost of launching one chunk (us)"},
      {"BATON_SIM_STEAL_US", "2", "sim: virtual cost of one steal attempt (us)"},
      {"BATON_CUDA_ZERO_COPY", "0", "cuda: 1 maps host buffers into the GPU instead of copying"},
      {"BATON_CUDA_COPY_THREADS", "0",
       "cuda: threads copying pageable memory via pinned staging (0: half the cores, 2..8)"},
  };
  return table;
}

static const Tunable& find(const char* env) {
  for (const Tunable& t : tunables())
    if (std::strcmp(t.env, env) == 0) return t;
  raise(Errc::internal, env, "not a known tunable");
}

std::string tunable(const char* env) {
  const Tunable& t = find(env);
  const char* v = std::getenv(env);
  return (v && *v) ? std::string(v) : std::string(t.default_value);
}

double tunable_number(const char* env) {
  std::string v = tunable(env);
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size())
    raise(Errc::invalid_argument, env, "'" + v + "' is not a number");
  return x;
}

}  // namespace baton::detail
