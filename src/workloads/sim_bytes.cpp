#include "workloads/sim_bytes.hpp"

#include "baton/sim.hpp"

namespace baton::workloads {

LinkBytes sim_bytes_moved(const Runtime& rt, const std::vector<int>& devices) {
  LinkBytes by_kind{};
  auto add = [&](const Device& dev) {
    if (dev.info().backend != BackendKind::sim) return;
    for (std::size_t k = 0; k < kLinkKinds; ++k) by_kind[k] += sim::bytes_moved(dev, LinkKind(k));
  };
  if (devices.empty())
    for (const auto& d : rt.devices()) add(*d);
  for (int d : devices) add(*rt.devices()[std::size_t(d)]);
  return by_kind;
}

LinkBytes bytes_between(const LinkBytes& before, const LinkBytes& after) {
  LinkBytes d{};
  for (std::size_t k = 0; k < kLinkKinds; ++k) d[k] = after[k] - before[k];
  return d;
}

}  // namespace baton::workloads
