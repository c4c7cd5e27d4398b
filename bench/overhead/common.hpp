// What every competitor of the per-task overhead benchmark shares: the task
// counts, the task bodies and how figures are reported. Each competitor's
// file runs the same cases with the same bodies on two workers.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

namespace overhead {

inline constexpr int kWorkers = 2;
inline constexpr std::int64_t kTasks = 100000;      // empty tasks, chunks, graph nodes
inline constexpr std::int64_t kTimedTasks = 20000;  // 10 us tasks
inline constexpr double kTaskUs = 10;
inline constexpr std::int64_t kSmallRange =
    16;  // items of a parallel_for whose fixed cost is timed
inline constexpr std::int64_t kSmallCalls = 2000;

// The body of a "10 us task": spins on the clock, as a short kernel would keep a core.
inline void spin_for_us(double us) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// ns_per_task: wall time per task (per call, for the small-range parallel_for). efficiency (10 us
// tasks): the time the tasks' bodies need on kWorkers cores over the time taken.
inline void report(benchmark::State& state, std::int64_t tasks, double body_us = 0) {
  const double n = double(tasks) * double(state.iterations());
  state.SetItemsProcessed(std::int64_t(n));
  state.counters["ns_per_task"] =
      benchmark::Counter(n / 1e9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (body_us > 0)
    state.counters["efficiency"] =
        benchmark::Counter(n * body_us * 1e-6 / kWorkers, benchmark::Counter::kIsRate);
}

}  // namespace overhead
