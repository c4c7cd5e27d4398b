// How large the spans of a task spread over devices are (Plan::max_chunk):
// 16 a device, and fewer items where a span's data crosses a link.
#pragma once

#include <cstdint>
#include <vector>

#include "submit/policy_hooks.hpp"
#include "submit/task.hpp"

namespace baton::detail {

// A run that copies its spans in and their results home (write-back) has a
// fill and a drain: while the first span is copied in nothing goes home,
// and while the last one's results go home nothing comes in. With 16 spans
// a device that left about 6 % of a run from host memory idle one way
// (sim:dgx1's links and an H100's PCIe alike). With k spans it costs the
// lesser direction's copy time T over k, and the copies' start-up L costs
// k L: a share whose data crosses its link both ways is cut in
// k = sqrt(T / L) spans, the least of the sum, at most 64 (L at least 1 us).
// A run that copies one way only keeps 16: its pipeline fills and drains
// with compute, not copies.
inline constexpr double kCopiedSpansMost = 64;

struct SpanSize {
  std::uint64_t most = 1;  // the largest span for a device of average speed
  bool copied = false;     // some device's share has data to copy in or home
};

// The largest span for a device of average speed: `t`'s range over the
// devices of weight `w` > 0, 16 spans each, or finer where a share's data
// crosses a link both ways: the bytes the device's share lacks in its
// memory in, and with `write_back` the bytes it writes home.
SpanSize largest_span(const MachineView& m, const TaskRecord& t, const std::vector<double>& w,
                      bool write_back);

}  // namespace baton::detail
