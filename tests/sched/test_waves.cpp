#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "baton/error.hpp"
#include "sched/first_split.hpp"

using namespace baton::detail;

namespace {

double ends_s(const std::vector<Waves>& w, const std::vector<std::uint64_t>& share) {
  double last = 0;
  for (std::size_t d = 0; d < w.size(); ++d)
    if (share[d] > 0) last = std::max(last, w[d].seconds(double(share[d])));
  return last;
}

}  // namespace

TEST(Waves, ALastPartOfAWaveCostsTheItemsThatKeepTheDeviceBusy) {
  const Waves gpu{1000, 1, 200, 1e6};
  EXPECT_DOUBLE_EQ(gpu.costed(2000), 2000);  // whole waves
  EXPECT_DOUBLE_EQ(gpu.costed(2050), 2200);  // and 50 of a wave, as 200
  EXPECT_DOUBLE_EQ(gpu.costed(2500), 2500);  // 500: more than keep it busy
  EXPECT_DOUBLE_EQ(gpu.seconds(50), 200e-6);
  // most_within is costed's inverse: what ends by a time, no more.
  for (double items : {50.0, 199.0, 1000.0, 2050.0, 2500.0, 7777.0}) {
    const double s = gpu.seconds(items);
    EXPECT_GE(gpu.most_within(s * (1 + 1e-12)), items) << items;
    EXPECT_LE(gpu.costed(gpu.most_within(s)), s * gpu.rate * (1 + 1e-12)) << items;
  }
  EXPECT_DOUBLE_EQ(gpu.most_within(150e-6), 0);      // not even the part it takes as 200
  EXPECT_DOUBLE_EQ(gpu.most_within(1150e-6), 1000);  // a wave, and 150 of no use
  const Waves unknown{1000, 1, 1000, 1e6};           // busy not known: a whole wave
  EXPECT_DOUBLE_EQ(unknown.costed(1), 1000);
  const Waves idle{1000, 1, 0, 1e6};  // a least time of no items: a part as its items
  EXPECT_DOUBLE_EQ(idle.costed(1050), 1050);
  EXPECT_DOUBLE_EQ(idle.most_within(1050e-6), 1050);
}

// An H100 (132 SMs of 2048 threads, blocks of 256), items of 2^18 fma
// steps: 31 195 items took 0.723 ms, 155 748 items 2.919 ms, a wave 4.59.
TEST(Waves, APartOfAWaveTakesWholeSteps) {
  const double wave_s = 4.59e-3;
  const Waves h100{270336, 33792, 42313, 270336 / wave_s};
  EXPECT_NEAR(h100.seconds(31195), 0.723e-3, 0.01e-3);                    // as long as 42 313
  EXPECT_NEAR(h100.seconds(155748), 5 * 33792 / 270336. * wave_s, 1e-9);  // 5 steps: 2.87 ms
  EXPECT_DOUBLE_EQ(h100.costed(270336 + 1), 270336 + 42313);
  EXPECT_DOUBLE_EQ(h100.most_within(h100.seconds(155748)), 5 * 33792);
  EXPECT_DOUBLE_EQ(h100.most_within(0.7e-3), 0);  // less than the least it runs
  // Its 80-SM partition: a part of 25 551 items took 1.15 ms, two steps of
  // 80 blocks (a step 0.57 ms), though fewer items took 0.72 at least.
  const Waves p0{163840, 20480, 25700, 163840 / wave_s};
  EXPECT_NEAR(p0.seconds(25551), 2 * 20480 / 163840. * wave_s, 1e-9);
  EXPECT_NEAR(p0.seconds(12000), 25700 / 163840. * wave_s, 1e-9);
}

// The same, cut into 80 and 40 SMs, 268 411 items (1.09 waves): the 80-SM
// partition's share ends in the step that ends with its least time, as in
// proportion to the rates. Taking a part of a wave as long as its least time
// up to its items' worth (25 700), ws gave it 25 551 items past its wave,
// which took two steps, and ran at 0.93x weighted on the H100.
TEST(Waves, NoPartPastTheStepThatEndsWithTheLeastTime) {
  const double wave_s = 4.59e-3;
  const std::vector<Waves> w{{163840, 20480, 25700, 163840 / wave_s},
                             {81920, 10240, 12850, 81920 / wave_s}};
  const auto share = shares_ending_together(268411, w);
  EXPECT_LE(share[0] - 163840, 20480u) << share[0];
  EXPECT_LE(ends_s(w, share), 25700 / 163840. * wave_s + wave_s + 1e-9);
}

// An H100 cut into 48, 40, 24 and 8 SMs: each partition's steps are the
// same part of its wave, so the shares end by the step in which they end in
// proportion to the rates. Without steps, the 48-SM partition's share took
// a third step (ws 0.84x weighted on the H100).
TEST(Waves, PartitionsOfOneGpuEndInTheSameStep) {
  const double wave_s = 4.59e-3;
  std::vector<Waves> w;
  for (double sms : {48, 40, 24, 8})
    w.push_back({sms * 2048, sms * 256, 0.157 * sms * 2048, sms * 2048 / wave_s});
  const std::uint64_t items = 289837;  // 1.18 waves
  const auto share = shares_ending_together(items, w);
  EXPECT_LE(ends_s(w, share), 1.25 * wave_s * (1 + 1e-9));  // a wave and 2 steps, as weighted
  for (std::size_t d = 0; d < w.size(); ++d) {
    const double part = double(share[d]) - w[d].at_once;  // none past two steps
    EXPECT_LE(part, 2 * w[d].step) << d << ": " << share[d];
  }
}

// Nothing in waves: the split in proportion to the rates, the items left
// by rounding going where they end soonest.
TEST(Waves, WithoutWavesTheSharesFollowTheRates) {
  const std::vector<Waves> w{{1, 1, 1, 4.0}, {1, 1, 1, 1.92}, {1, 1, 1, 0.92}, {1, 1, 1, 0.41}};
  EXPECT_EQ(shares_ending_together(64, w), (std::vector<std::uint64_t>{36, 17, 8, 3}));
  const std::vector<Waves> v{{1, 1, 1, 3}, {1, 1, 1, 0}, {1, 1, 1, 1}};
  EXPECT_EQ(shares_ending_together(100, v), (std::vector<std::uint64_t>{75, 0, 25}));
  EXPECT_THROW(shares_ending_together(10, {{1, 1, 1, 0}, {1, 1, 1, 0}}), baton::Error);
  EXPECT_EQ(shares_ending_together(0, v), (std::vector<std::uint64_t>{0, 0, 0}));
}

// An H100 beside 15 cpu threads, items of 2^18 fma steps (a trace of
// 2026-12-06): a wave of 270336 items in 4.6 ms, a part of one as long as
// 42313 items; the CPU runs 15 at a time, 0.78 ms each. In proportion to
// the rates the CPU took a round more than the GPU's time; ending together,
// it takes whole rounds and ends no later than the GPU.
TEST(Waves, ASlowDeviceTakesWholeRoundsThatEndWithTheFastOne) {
  const double gpu_rate = 270336 / 4.6e-3, cpu_rate = 15 / 0.78e-3;
  const std::vector<Waves> w{{15, 1, 15, cpu_rate}, {270336, 33792, 42313, gpu_rate}};
  for (std::uint64_t items : {572105ull, 1237602ull, 144881ull}) {
    const auto share = shares_ending_together(items, w);
    EXPECT_EQ(share[0] + share[1], items);
    EXPECT_EQ(share[0] % 15, 0u) << items << " items: " << share[0];
    EXPECT_LE(w[0].seconds(double(share[0])), w[1].seconds(double(share[1]))) << items;
    // In proportion to the rates:
    const auto cpu = std::uint64_t(double(items) * cpu_rate / (cpu_rate + gpu_rate));
    EXPECT_LE(ends_s(w, share), ends_s(w, {cpu, items - cpu})) << items;
    if (items == 572105) {  // a round of the CPU past the GPU's time in proportion
      EXPECT_LT(ends_s(w, share), ends_s(w, {cpu, items - cpu}));
    }
  }
  // Fewer heavy items than a round of the CPU takes time for: all to the GPU.
  const std::vector<Waves> heavy{{15, 1, 15, 15 / 6.2e-3}, {270336, 33792, 126, 126 / 6.1e-3}};
  EXPECT_EQ(shares_ending_together(126, heavy), (std::vector<std::uint64_t>{0, 126}));
}

// Any rates and waves: every item is given once, none to a device of rate
// 0, and all end no later than in proportion to the rates.
TEST(Waves, TheSharesAddUpAndEndNoLaterThanInProportion) {
  std::uint64_t seed = 12345;
  auto next = [&] {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return seed;
  };
  for (int round = 0; round < 500; ++round) {
    const std::size_t n = 1 + next() % 6;
    std::vector<Waves> w(n);
    double total = 0;
    for (auto& d : w) {
      d.at_once = double(1 + next() % 5000);
      d.step = double(1 + next() % std::uint64_t(d.at_once));
      d.busy = double(1 + next() % std::uint64_t(d.at_once));
      d.rate = next() % 4 == 0 ? 0.0 : double(1 + next() % 1000000);
      total += d.rate;
    }
    if (!(total > 0)) total = w[0].rate = 1000;
    const std::uint64_t items = 1 + next() % 3000000;
    const auto share = shares_ending_together(items, w);
    ASSERT_EQ(std::accumulate(share.begin(), share.end(), std::uint64_t{0}), items);
    for (std::size_t d = 0; d < n; ++d)
      if (!(w[d].rate > 0)) {
        EXPECT_EQ(share[d], 0u);
      }
    // No worse than the split in proportion to the rates, in the same waves.
    std::vector<std::uint64_t> prop(n, 0);
    std::uint64_t given = 0;
    for (std::size_t d = 0; d < n; ++d)
      given += prop[d] = std::uint64_t(double(items) * w[d].rate / total);
    for (std::size_t d = 0; given < items; d = (d + 1) % n)
      if (w[d].rate > 0) ++prop[d], ++given;
    EXPECT_LE(ends_s(w, share), ends_s(w, prop) * (1 + 1e-9)) << "round " << round;
  }
}

// The oracle's bound in waves (RunStats::waves_bound_s): a wave each and a
// few items more cannot end in the time their summed rate gives, only once a
// part of a wave has run; without waves it is that time.
TEST(Waves, TheLeastTimeInWavesIsAWaveAndTheLeastPart) {
  const std::vector<Waves> two{{1000, 100, 200, 1e6}, {500, 50, 100, 0.5e6}};
  const double half_item = 0.5 / 1.5e6;  // the search's precision
  const double t = least_time_in_waves(1510, two);
  // 10 past a wave on each: the slow one's least part, 100 items, 200 us.
  EXPECT_NEAR(t, 1.2e-3, half_item);
  EXPECT_GT(t, 1510 / 1.5e6 * 1.1);
  // No split ends sooner: the split that ends together ends at that time.
  EXPECT_NEAR(ends_s(two, shares_ending_together(1510, two)), t, half_item);
  const std::vector<Waves> flat{{1, 1, 1, 1e6}, {1, 1, 1, 0.5e6}};
  EXPECT_NEAR(least_time_in_waves(1500, flat), 1500 / 1.5e6, half_item);
  EXPECT_EQ(least_time_in_waves(1500, {{1000, 100, 200, 0}}), 0);  // no rate: no bound
}

// A rate timed over a run whose last part of a wave ran as its steps is
// raised to what whole waves do; a run no longer than the least run tells
// nothing of it (the oracle's bound then is not drawn).
TEST(Waves, AWholeWaveRateTakesTheTimedRunsLastPartOut) {
  const Waves shape{1000, 100, 0, 0};  // waves of 1000 items, steps of 100
  const double per_item = 1e-6;        // a whole wave in 1 ms
  // 1250 items: a wave and 3 steps, 1.3 ms; the least run 0.2 ms.
  EXPECT_NEAR(whole_wave_rate(shape, 0.2e-3, 1250, 1250 / 1.3e-3), 1 / per_item, 1);
  // 1050 items: a wave and a part as the least run, 1.2 ms.
  EXPECT_NEAR(whole_wave_rate(shape, 0.2e-3, 1050, 1050 / 1.2e-3), 1 / per_item, 1);
  // 700 items, 7 steps in 0.7 ms, well past the least run.
  EXPECT_NEAR(whole_wave_rate(shape, 0.2e-3, 700, 700 / 0.7e-3), 1 / per_item, 1);
  // 150 items in 0.2 ms: as long as the least run, whatever the rate.
  EXPECT_EQ(whole_wave_rate(shape, 0.2e-3, 150, 150 / 0.2e-3), 0);
  // Whole waves: the rate as measured.
  EXPECT_DOUBLE_EQ(whole_wave_rate(shape, 0.2e-3, 3000, 1e6 / 1.1), 1e6 / 1.1);
}
