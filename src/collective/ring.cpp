#include "collective/ring.hpp"

#include <algorithm>

#include "baton/error.hpp"
#include "collective/kernels.hpp"

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

void ring_steps(Runtime& rt, const Kernel& add, const std::vector<Buffer<float>>& slots,
                const std::vector<int>& devices, const std::vector<std::size_t>& members,
                const std::vector<Piece>& pieces, std::vector<Task>& tasks) {
  const std::size_t k = members.size();
  for (std::size_t t = 0; t + 1 < k; ++t)
    for (std::size_t p = 0; p < k; ++p) {
      const Piece c = pieces[(p + 2 * k - t - 1) % k];
      if (c.size() == 0) continue;
      const std::size_t from = members[p], to = members[(p + 1) % k];
      tasks.push_back(rt.submit(Range{c.size(), 0, c.begin}, add,
                                inout(slots[to], elements(c.begin, c.end)),
                                in(slots[from], elements(c.begin, c.end)), on(devices[to])));
    }
}

std::vector<Piece> Ring::reduce(const std::vector<Buffer<float>>& slots, Piece bucket,
                                const std::vector<double>& weights, std::vector<Task>& tasks) {
  std::vector<std::size_t> members(ranks_.size());
  for (std::size_t p = 0; p < members.size(); ++p) members[p] = p;
  std::vector<Piece> owned = shares(bucket, weights, 4);
  ring_steps(rt_, add_, slots, ranks_, members, owned, tasks);
  return owned;
}

}  // namespace baton::collective
