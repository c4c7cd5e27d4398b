#include "device/sim/sim_links.hpp"

#include <algorithm>
#include <map>

#include "device/sim/sim_device.hpp"

namespace baton::detail {

std::vector<int> host_route(const SimMachine& m, const std::string& id) {
  for (std::size_t i = 0; i < m.links.size(); ++i) {
    const TopoLink& l = m.links[i];
    if ((l.a == id && l.b == "host") || (l.b == id && l.a == "host")) return {int(i)};
  }
  // Widest path (then fewest start-ups) from the device to host, forwarded
  // by switches only.
  struct Best {
    double gbps = 0, latency_us = 0;
    int via = -1;  // the link it was reached by
  };
  std::map<std::string, Best> best{{id, {1e18, 0, -1}}};
  std::map<std::string, bool> done;
  auto forwards = [&](const std::string& node) {
    return node == id || std::find(m.switches.begin(), m.switches.end(), node) != m.switches.end();
  };
  for (;;) {
    std::string u;
    for (const auto& [node, b] : best)
      if (!done[node] && (u.empty() || b.gbps > best[u].gbps ||
                          (b.gbps == best[u].gbps && b.latency_us < best[u].latency_us)))
        u = node;
    if (u.empty() || u == "host") break;
    done[u] = true;
    if (!forwards(u)) continue;
    for (std::size_t i = 0; i < m.links.size(); ++i) {
      const TopoLink& l = m.links[i];
      if (l.a != u && l.b != u) continue;
      const std::string& v = l.a == u ? l.b : l.a;
      if (done[v]) continue;
      const Best c{std::min(best[u].gbps, l.gbps), best[u].latency_us + l.latency_us, int(i)};
      auto it = best.find(v);
      if (it == best.end() || c.gbps > it->second.gbps ||
          (c.gbps == it->second.gbps && c.latency_us < it->second.latency_us))
        best[v] = c;
    }
  }
  std::vector<int> route;
  if (!best.count("host")) return route;
  for (std::string at = "host"; at != id;) {
    const int i = best[at].via;
    route.push_back(i);
    at = m.links[std::size_t(i)].a == at ? m.links[std::size_t(i)].b : m.links[std::size_t(i)].a;
  }
  std::reverse(route.begin(), route.end());
  return route;
}

PathCost route_cost(const SimMachine& m, const std::vector<int>& route) {
  PathCost c{1e18, 0, LinkKind::virt, int(route.size())};
  for (int i : route) {
    const TopoLink& l = m.links[std::size_t(i)];
    if (l.gbps < c.gbps) c.gbps = l.gbps, c.worst = l.kind;
    c.latency_us += l.latency_us;
  }
  return c;
}

SimLinkLoads::SimLinkLoads(const SimMachine& m) : free_s_(m.links.size(), {0.0, 0.0}) {
  for (const auto& l : m.links) gbps_.push_back(l.gbps);
}

double SimLinkLoads::cross(const std::vector<int>& route, Direction dir, double from,
                           double bytes) {
  std::lock_guard lock(mu_);
  double start = from;
  for (int i : route) start = std::max(start, free_s_[std::size_t(i)][dir]);
  for (int i : route) free_s_[std::size_t(i)][dir] = start + bytes / (gbps_[std::size_t(i)] * 1e9);
  return start;
}

}  // namespace baton::detail
