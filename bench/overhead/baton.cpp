// baton's side of the per-task overhead comparison: empty chunks through
// parallel_for, one item each, on two single-thread CPU devices.
#include <benchmark/benchmark.h>

#include "baton/runtime.hpp"
#include "workloads/balance_kernels.hpp"

namespace {

void baton_empty_chunks(benchmark::State& state, const char* policy) {
  baton::Options o;
  o.devices = "cpu:2x1";
  o.policy = policy;
  baton::Runtime rt(o);
  baton::Kernel empty = baton::workloads::empty_kernel();
  const auto tasks = static_cast<std::uint64_t>(state.range(0));
  for (auto _ : state) {
    baton::RunStats s = rt.parallel_for(baton::Range{tasks, 1}, empty);
    benchmark::DoNotOptimize(s.makespan_s);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(tasks));
  // Rate inverted: seconds per (1e9 tasks), i.e. nanoseconds per task.
  state.counters["ns_per_task"] =
      benchmark::Counter(double(tasks) * double(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK_CAPTURE(baton_empty_chunks, ws, "ws")
    ->Arg(100000)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(baton_empty_chunks, static, "static")
    ->Arg(100000)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
