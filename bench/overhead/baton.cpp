// baton's side of the per-task overhead comparison, on two single-thread CPU
// devices (cpu:2x1): independent tasks, 10 us tasks, parallel_for with
// one-item chunks, and graphs (a chain, a fan-out/fan-in) whose edges come
// from the data the tasks touch.
#include "baton/runtime.hpp"
#include "common.hpp"
#include "workloads/balance_kernels.hpp"

namespace {

using namespace overhead;

baton::Runtime make_runtime(const char* policy) {
  baton::Options o;
  o.devices = "cpu:2x1";
  o.policy = policy;
  o.perf_model_file = "";
  return baton::Runtime(o);
}

void baton_empty_tasks(benchmark::State& state, const char* policy) {
  baton::Runtime rt = make_runtime(policy);
  baton::Kernel empty = baton::workloads::empty_kernel();
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kTasks; ++i) rt.submit(baton::Range{1}, empty);
    rt.wait_all();
  }
  report(state, kTasks);
}

void baton_10us_tasks(benchmark::State& state) {
  baton::Runtime rt = make_runtime("ws");
  baton::Kernel spin("spin");
  spin.cpu([](baton::Span, const baton::KernelArgs&) { spin_for_us(kTaskUs); });
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kTimedTasks; ++i) rt.submit(baton::Range{1}, spin);
    rt.wait_all();
  }
  report(state, kTimedTasks, kTaskUs);
}

void baton_parallel_for_1(benchmark::State& state, const char* policy) {
  baton::Runtime rt = make_runtime(policy);
  baton::Kernel empty = baton::workloads::empty_kernel();
  for (auto _ : state) rt.parallel_for(baton::Range{std::uint64_t(kTasks), 1}, empty);
  report(state, kTasks);
}

// The fixed cost of one parallel_for: a range of a few items, called again and again.
void baton_parallel_for_small(benchmark::State& state) {
  baton::Runtime rt = make_runtime("ws");
  baton::Kernel empty = baton::workloads::empty_kernel();
  for (auto _ : state)
    for (std::int64_t i = 0; i < kSmallCalls; ++i)
      rt.parallel_for(baton::Range{std::uint64_t(kSmallRange)}, empty);
  report(state, kSmallCalls);
}

// Each task reads and writes the same small buffer: every task follows the previous one.
void baton_chain(benchmark::State& state) {
  baton::Runtime rt = make_runtime("ws");
  baton::Kernel touch("touch");
  touch.cpu([](baton::Span, const baton::KernelArgs& a) { ++*a.ptr<std::int64_t>(0); });
  auto x = rt.buffer<std::int64_t>(1);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kTasks; ++i)
      rt.submit(baton::Range{1}, touch, baton::inout(x, baton::whole));
    rt.wait_all();
  }
  report(state, kTasks);
}

// One writer, then readers that are independent of each other, then one
// writer that follows them all; repeated.
void baton_fan(benchmark::State& state) {
  baton::Runtime rt = make_runtime("ws");
  constexpr std::int64_t kWidth = 100;
  baton::Kernel touch("touch");
  touch.cpu([](baton::Span, const baton::KernelArgs&) {});
  auto x = rt.buffer<std::int64_t>(1);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kTasks; i += kWidth + 1) {
      rt.submit(baton::Range{1}, touch, baton::inout(x, baton::whole));
      for (std::int64_t r = 0; r < kWidth; ++r)
        rt.submit(baton::Range{1}, touch, baton::in(x, baton::whole));
    }
    rt.wait_all();
  }
  report(state, kTasks);
}

}  // namespace

BENCHMARK_CAPTURE(baton_empty_tasks, ws, "ws")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(baton_empty_tasks, static, "static")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(baton_10us_tasks)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(baton_parallel_for_1, ws, "ws")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(baton_parallel_for_1, static, "static")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(baton_parallel_for_small)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(baton_chain)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(baton_fan)->UseRealTime()->Unit(benchmark::kMillisecond);
