#include "submit/span_size.hpp"

#include <algorithm>
#include <cmath>

#include "common/proportional_shares.hpp"
#include "memory/coherence.hpp"
#include "submit/launch.hpp"

namespace baton::detail {

SpanSize largest_span(const MachineView& m, const TaskRecord& t, const std::vector<double>& w,
                      bool write_back) {
  const std::uint64_t n = t.range.n;
  const auto able = std::count_if(w.begin(), w.end(), [](double x) { return x > 0; });
  const std::uint64_t devices = std::max<std::uint64_t>(1, std::uint64_t(able));
  // A span of at least 64 items, where there are so many: below that, a
  // trip through the source costs more than the span saves in balance.
  const std::uint64_t least =
      std::max<std::uint64_t>({1, t.range.chunk, std::min<std::uint64_t>(n, 64)});
  std::uint64_t most = std::max(least, n / (devices * 16));
  if (!t.tracked || able == 0) return {most, false};
  bool copied = false;
  // Each device's share as the policies first hand it out.
  const std::vector<Span> shares = proportional_shares(n, w);
  for (int d = 0; d < m.devices; ++d) {
    const std::uint64_t b = t.range.first + shares[std::size_t(d)].begin;
    const std::uint64_t e = t.range.first + shares[std::size_t(d)].end;
    const PathCost& link = m.host_path[std::size_t(d)];
    if (e <= b || !(link.gbps > 0)) continue;
    double in = 0, out = 0;
    for (const RunArg& a : t.args) {
      // Only what each item touches grows with the span: fixed parts are
      // copied once, before the first span, however it is cut.
      if (!a.is_buffer || a.buffer.part.per_item == 0 || a.buffer.state->instances()) continue;
      const Span r = byte_region(a.buffer, Span{b, e});
      if (a.buffer.mode != Access::out)
        in += double(r.size() - std::min(r.size(), a.buffer.state->valid_bytes(m.memory_node[d],
                                                                               r.begin, r.end)));
      if (a.buffer.mode != Access::in && write_back) out += double(r.size());
    }
    copied = copied || in > 0 || out > 0;
    const double copy_s = link.seconds(std::min(in, out));
    const double start_s = std::max(1e-6, link.latency_us * 1e-6);
    const double spans = std::min(std::sqrt(copy_s / start_s), kCopiedSpansMost);
    if (spans > 16) most = std::min(most, std::uint64_t(double(e - b) / spans));
  }
  return {std::max(least, most), copied};
}

}  // namespace baton::detail
