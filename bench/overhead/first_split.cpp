// What a spread task's first split costs at its start, side by side: ws's
// shares that end together in each device's waves (a search) against the
// split in proportion to the rates, on an H100 cut into 64+32+16+8 SMs with
// 2^18-fma items (a wave in 4.59 ms, a block of 256 a step, the least part
// 0.157 of a wave).
#include <benchmark/benchmark.h>

#include "sched/first_split.hpp"
#include "sched/policy.hpp"

namespace {

using namespace baton::detail;

std::vector<Waves> partitions() {
  std::vector<Waves> w;
  for (double sms : {64.0, 32.0, 16.0, 8.0})
    w.push_back({sms * 2048, sms * 256, 0.157 * sms * 2048, sms * 2048 / 4.59e-3});
  return w;
}

void first_split_in_waves(benchmark::State& state) {
  const std::vector<Waves> w = partitions();
  std::uint64_t items = 1000000;
  for (auto _ : state) benchmark::DoNotOptimize(shares_ending_together(items++, w));
}

void first_split_in_proportion(benchmark::State& state) {
  std::vector<double> rates;
  for (const Waves& d : partitions()) rates.push_back(d.rate);
  std::uint64_t items = 1000000;
  for (auto _ : state) benchmark::DoNotOptimize(proportional_shares(items++, rates));
}

}  // namespace

BENCHMARK(first_split_in_waves);
BENCHMARK(first_split_in_proportion);
