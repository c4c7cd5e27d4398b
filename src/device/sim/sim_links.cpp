#include "device/sim/sim_links.hpp"

#include <algorithm>

#include "device/sim/sim_device.hpp"

namespace baton::detail {

Topology sim_network(const SimMachine& m) {
  Topology net;
  net.add_node({"host", "host"});
  for (const auto& d : m.devices) net.add_node({d.id, "sim"});
  for (const auto& sw : m.switches) net.add_node({sw, "switch"});
  for (const auto& l : m.links) net.add_link(l);
  return net;
}

SimLinkLoads::SimLinkLoads(const Topology& net) : free_s_(net.links().size(), {0.0, 0.0}) {
  for (const auto& l : net.links()) gbps_.push_back(l.gbps);
}

double SimLinkLoads::cross(const std::vector<std::size_t>& route, Direction dir, double from,
                           double bytes) {
  std::lock_guard lock(mu_);
  double start = from;
  for (std::size_t i : route) start = std::max(start, free_s_[i][dir]);
  for (std::size_t i : route) free_s_[i][dir] = start + bytes / (gbps_[i] * 1e9);
  return start;
}

}  // namespace baton::detail
