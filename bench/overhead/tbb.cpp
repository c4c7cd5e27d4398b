// oneTBB's side: the same number of empty tasks through task_group::run on an
// arena of two threads.
#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

namespace {

void tbb_task_group_empty(benchmark::State& state) {
  tbb::task_arena arena(2);
  const auto tasks = state.range(0);
  for (auto _ : state) {
    arena.execute([&] {
      tbb::task_group g;
      for (std::int64_t i = 0; i < tasks; ++i) g.run([] {});
      g.wait();
    });
  }
  state.SetItemsProcessed(state.iterations() * tasks);
  // Rate inverted: seconds per (1e9 tasks), i.e. nanoseconds per task.
  state.counters["ns_per_task"] =
      benchmark::Counter(double(tasks) * double(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK(tbb_task_group_empty)->Arg(100000)->UseRealTime()->Unit(benchmark::kMillisecond);
