// A device's time for a span of items run in waves of what it runs at once
// (a GPU's threads, one item each): what the scheduler weighs a span by
// (sched/first_split.hpp) and what a sim device standing for a GPU takes.
#pragma once

#include <cstdint>
#include <vector>

namespace baton::detail {

struct Waves {
  double at_once = 1;  // items one wave runs
  // A part of a wave takes as long as whole steps of this many (a block on
  // every SM), and no less than `busy`; steps of more than `busy` count as
  // steps of `busy` (a rate measured on fewer items than a step tells
  // nothing of a step's time).
  double step = 1;
  // A last part of a wave takes at least as long as this many items (at
  // most at_once): a few heavy items keep a GPU as busy as many, and on an
  // H100 a seventh of a wave of 2^18-fma items took 0.16 of a wave's time.
  double busy = 1;
  double rate = 0;  // items a second, over whole waves

  // The items a span of `items` costs as: its whole waves, and a last part
  // of one as its whole steps, at least `busy` items.
  double costed(double items) const;
  double seconds(double items) const { return costed(items) / rate; }
  // The most items that end within `s` seconds (costed(x) <= s * rate).
  double most_within(double s) const;
};

// A device's waves for a span task of `items`: `parallel` items at once (no
// more than the task has, at least 1), parts in steps of `step`, at least
// `busy` items (0: not known, a whole wave), at `rate` items a second.
Waves waves_for(std::uint64_t parallel, std::uint64_t step, double busy, std::uint64_t items,
                double rate);

// The rate over whole waves of a device with `shape`'s waves and steps (its
// rate and busy items aside), given that a run of `timed` items took
// `timed / measured` seconds and a part of a wave takes no less than
// `least_s`: a run of part of a wave is as slow as its steps. 0 where the
// run tells nothing of it (no whole wave, and no longer than `least_s`).
double whole_wave_rate(const Waves& shape, double least_s, double timed, double measured);

// The least time by which the devices together can run `items`, each taking
// the most it ends by then in its waves, to within half an item at their
// summed rate; 0 where none has a rate.
double least_time_in_waves(std::uint64_t items, const std::vector<Waves>& devices);

}  // namespace baton::detail
