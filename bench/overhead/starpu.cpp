// StarPU's side (1.3, Debian's libstarpu-dev): the same cases on two CPU
// workers under its eager and lws schedulers. Graph edges come from data
// access modes on one registered variable, as baton's come from buffers.
#include <starpu.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "common.hpp"

namespace {

using namespace overhead;

void empty_body(void**, void*) {}
void spin_body(void**, void*) {
  spin_for_us(kTaskUs);
}

struct StarPU {
  explicit StarPU(const char* sched) {
    setenv("STARPU_SILENT", "1", 1);
    starpu_conf conf;
    starpu_conf_init(&conf);
    conf.sched_policy_name = sched;
    conf.ncpus = kWorkers;
    conf.ncuda = 0;
    conf.nopencl = 0;
    if (starpu_init(&conf) != 0) throw std::runtime_error("starpu_init failed");
  }
  ~StarPU() { starpu_shutdown(); }
};

starpu_codelet codelet(starpu_cpu_func_t fn, int buffers, starpu_data_access_mode mode) {
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cpu_funcs[0] = fn;
  cl.nbuffers = buffers;
  if (buffers) cl.modes[0] = mode;
  return cl;
}

void starpu_empty_tasks(benchmark::State& state, const char* sched) {
  StarPU s(sched);
  starpu_codelet cl = codelet(empty_body, 0, STARPU_R);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kTasks; ++i) starpu_task_insert(&cl, 0);
    starpu_task_wait_for_all();
  }
  report(state, kTasks);
}

void starpu_10us_tasks(benchmark::State& state, const char* sched) {
  StarPU s(sched);
  starpu_codelet cl = codelet(spin_body, 0, STARPU_R);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kTimedTasks; ++i) starpu_task_insert(&cl, 0);
    starpu_task_wait_for_all();
  }
  report(state, kTimedTasks, kTaskUs);
}

void starpu_chain(benchmark::State& state, const char* sched) {
  StarPU s(sched);
  std::int64_t x = 0;
  starpu_data_handle_t h;
  starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&x), sizeof x);
  starpu_codelet cl = codelet(empty_body, 1, STARPU_RW);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kTasks; ++i) starpu_task_insert(&cl, STARPU_RW, h, 0);
    starpu_task_wait_for_all();
  }
  starpu_data_unregister(h);
  report(state, kTasks);
}

void starpu_fan(benchmark::State& state, const char* sched) {
  StarPU s(sched);
  constexpr std::int64_t kWidth = 100;
  std::int64_t x = 0;
  starpu_data_handle_t h;
  starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&x), sizeof x);
  starpu_codelet write = codelet(empty_body, 1, STARPU_RW);
  starpu_codelet read = codelet(empty_body, 1, STARPU_R);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kTasks; i += kWidth + 1) {
      starpu_task_insert(&write, STARPU_RW, h, 0);
      for (std::int64_t r = 0; r < kWidth; ++r) starpu_task_insert(&read, STARPU_R, h, 0);
    }
    starpu_task_wait_for_all();
  }
  starpu_data_unregister(h);
  report(state, kTasks);
}

}  // namespace

BENCHMARK_CAPTURE(starpu_empty_tasks, eager, "eager")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(starpu_empty_tasks, lws, "lws")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(starpu_10us_tasks, eager, "eager")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(starpu_10us_tasks, lws, "lws")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(starpu_chain, lws, "lws")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(starpu_fan, lws, "lws")->UseRealTime()->Unit(benchmark::kMillisecond);
