// oneTBB's side: the same cases on an arena of two threads. Independent tasks
// through task_group, parallel_for with grain 1 and the simple partitioner
// (one task per item), and the graphs as flow graphs of continue_nodes.
#include <tbb/flow_graph.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <memory>
#include <vector>

#include "common.hpp"

namespace {

using namespace overhead;

void tbb_empty_tasks(benchmark::State& state) {
  tbb::task_arena arena(kWorkers);
  for (auto _ : state)
    arena.execute([&] {
      tbb::task_group g;
      for (std::int64_t i = 0; i < kTasks; ++i) g.run([] {});
      g.wait();
    });
  report(state, kTasks);
}

void tbb_10us_tasks(benchmark::State& state) {
  tbb::task_arena arena(kWorkers);
  for (auto _ : state)
    arena.execute([&] {
      tbb::task_group g;
      for (std::int64_t i = 0; i < kTimedTasks; ++i) g.run([] { spin_for_us(kTaskUs); });
      g.wait();
    });
  report(state, kTimedTasks, kTaskUs);
}

void tbb_parallel_for_1(benchmark::State& state) {
  tbb::task_arena arena(kWorkers);
  for (auto _ : state)
    arena.execute([&] {
      tbb::parallel_for(
          tbb::blocked_range<std::int64_t>(0, kTasks, 1),
          [](const tbb::blocked_range<std::int64_t>& r) { benchmark::DoNotOptimize(r.begin()); },
          tbb::simple_partitioner());
    });
  report(state, kTasks);
}

void tbb_parallel_for_small(benchmark::State& state) {
  tbb::task_arena arena(kWorkers);
  for (auto _ : state)
    arena.execute([&] {
      for (std::int64_t i = 0; i < kSmallCalls; ++i)
        tbb::parallel_for(std::int64_t(0), kSmallRange,
                          [](std::int64_t k) { benchmark::DoNotOptimize(k); });
    });
  report(state, kSmallCalls);
}

using Node = tbb::flow::continue_node<tbb::flow::continue_msg>;

void tbb_chain(benchmark::State& state) {
  tbb::task_arena arena(kWorkers);
  std::int64_t x = 0;
  for (auto _ : state)
    arena.execute([&] {
      tbb::flow::graph g;
      std::vector<std::unique_ptr<Node>> nodes;
      nodes.reserve(kTasks);
      for (std::int64_t i = 0; i < kTasks; ++i) {
        nodes.push_back(std::make_unique<Node>(g, [&](tbb::flow::continue_msg) { ++x; }));
        if (i) tbb::flow::make_edge(*nodes[i - 1], *nodes[i]);
      }
      nodes.front()->try_put(tbb::flow::continue_msg());
      g.wait_for_all();
    });
  benchmark::DoNotOptimize(x);
  report(state, kTasks);
}

void tbb_fan(benchmark::State& state) {
  tbb::task_arena arena(kWorkers);
  constexpr std::int64_t kWidth = 100;
  for (auto _ : state)
    arena.execute([&] {
      tbb::flow::graph g;
      std::vector<std::unique_ptr<Node>> nodes;
      nodes.reserve(kTasks + 1);
      auto body = [](tbb::flow::continue_msg) {};
      Node* last_writer = nullptr;
      std::vector<Node*> readers;
      for (std::int64_t i = 0; i < kTasks; i += kWidth + 1) {
        nodes.push_back(std::make_unique<Node>(g, body));
        Node* writer = nodes.back().get();
        if (last_writer) tbb::flow::make_edge(*last_writer, *writer);
        for (Node* r : readers) tbb::flow::make_edge(*r, *writer);
        readers.clear();
        for (std::int64_t r = 0; r < kWidth; ++r) {
          nodes.push_back(std::make_unique<Node>(g, body));
          tbb::flow::make_edge(*writer, *nodes.back());
          readers.push_back(nodes.back().get());
        }
        last_writer = writer;
      }
      nodes.front()->try_put(tbb::flow::continue_msg());
      g.wait_for_all();
    });
  report(state, kTasks);
}

}  // namespace

BENCHMARK(tbb_empty_tasks)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(tbb_10us_tasks)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(tbb_parallel_for_1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(tbb_parallel_for_small)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(tbb_chain)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(tbb_fan)->UseRealTime()->Unit(benchmark::kMillisecond);
