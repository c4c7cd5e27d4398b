#include "collective/ring.hpp"

#include <algorithm>

#include "baton/error.hpp"
#include "collective/add_kernel.hpp"

namespace baton::collective {

std::vector<int> ring_order(const Runtime& rt, std::vector<int> devices) {
  const auto& devs = rt.devices();
  auto bandwidth = [&](int a, int b) {
    if (devs[a]->info().memory_node == devs[b]->info().memory_node) return 1e300;
    const auto p = rt.topology().path(devs[a]->info().topology_id, devs[b]->info().topology_id);
    return p ? p->gbps : 0.0;
  };
  for (std::size_t i = 1; i + 1 < devices.size(); ++i) {
    const int last = devices[i - 1];
    // Ties keep the given order (stable): the device order where nothing differs.
    auto best =
        std::max_element(devices.begin() + std::ptrdiff_t(i), devices.end(),
                         [&](int a, int b) { return bandwidth(last, a) < bandwidth(last, b); });
    std::rotate(devices.begin() + std::ptrdiff_t(i), best, best + 1);
  }
  return devices;
}

Ring::Ring(Runtime& rt, std::vector<int> devices)
    : rt_(rt), ranks_(ring_order(rt, std::move(devices))), add_(add_kernel()) {
  if (ranks_.empty()) raise(Errc::invalid_argument, "ring", "a ring needs at least one device");
}

std::vector<Piece> Ring::reduce(const std::vector<Buffer<float>>& slots, Piece bucket,
                                const std::vector<double>& weights, std::vector<Task>& tasks) {
  const std::size_t k = ranks_.size();
  // Rank p ends holding chunk p + 1 (mod k), so chunk c is sized by rank c - 1's weight.
  std::vector<double> by_chunk(k);
  for (std::size_t c = 0; c < k; ++c) by_chunk[c] = weights[(c + k - 1) % k];
  const std::vector<Piece> chunks = shares(bucket, by_chunk, 4);
  // Step t: rank p adds its partial sum of chunk p - t into rank p + 1's.
  for (std::size_t t = 0; t + 1 < k; ++t)
    for (std::size_t p = 0; p < k; ++p) {
      const Piece c = chunks[(p + k - t) % k];
      if (c.size() == 0) continue;
      const std::size_t next = (p + 1) % k;
      tasks.push_back(rt_.submit(Range{c.size(), 0, c.begin}, add_,
                                 inout(slots[next], elements(c.begin, c.end)),
                                 in(slots[p], elements(c.begin, c.end)), on(ranks_[next])));
    }
  std::vector<Piece> owned(k);
  for (std::size_t p = 0; p < k; ++p) owned[p] = chunks[(p + 1) % k];
  return owned;
}

}  // namespace baton::collective
