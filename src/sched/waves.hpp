// A device's time for a span of items run in waves of what it runs at once
// (a GPU's threads, one item each), and the first split of a task that this
// time makes end together on every device.
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

// How many of `items` each device takes so that all end as soon as their
// waves allow: the least time by which the devices together can run them
// all, each taking the most it ends by then, what that gives beyond
// `items` taken back from the slowest first. Where nothing comes in waves,
// this is the split in proportion to the rates (give or take an item a
// device). Devices of rate 0 take none; at least one must have a rate.
std::vector<std::uint64_t> shares_ending_together(std::uint64_t items,
                                                  const std::vector<Waves>& devices);

}  // namespace baton::detail
