#include <algorithm>
#include <map>

#include "baton/error.hpp"
#include "baton/topology.hpp"

namespace baton {

void Topology::add_node(TopoNode node) {
  for (auto& n : nodes_)
    if (n.id == node.id) {
      n = std::move(node);
      return;
    }
  nodes_.push_back(std::move(node));
}

void Topology::add_link(TopoLink link) {
  for (auto& l : links_)
    if ((l.a == link.a && l.b == link.b) || (l.a == link.b && l.b == link.a)) {
      l = std::move(link);
      return;
    }
  links_.push_back(std::move(link));
}

bool Topology::has_node(const std::string& id) const {
  return std::any_of(nodes_.begin(), nodes_.end(), [&](const TopoNode& n) { return n.id == id; });
}

std::optional<TopoLink> Topology::link(const std::string& a, const std::string& b) const {
  for (const auto& l : links_)
    if ((l.a == a && l.b == b) || (l.a == b && l.b == a)) return l;
  return std::nullopt;
}

static int rank(LinkKind k) {  // larger is slower
  switch (k) {
    case LinkKind::virt:
      return 0;
    case LinkKind::nvlink:
      return 1;
    case LinkKind::pcie:
      return 2;
    case LinkKind::sys:
      return 3;
    case LinkKind::net:
      return 4;
  }
  return 3;
}

// Whether bytes pass through a node on their way elsewhere: host memory and
// switches forward, devices do not (a GPU does not route NVLink traffic
// between two others: on a DGX-1, two GPUs without a link of their own talk
// over PCIe).
static bool forwards(const std::vector<TopoNode>& nodes, const std::string& id) {
  for (const TopoNode& n : nodes)
    if (n.id == id)
      return n.kind != "gpu" && n.kind != "sim" && n.kind != "cpu" && n.kind != "opencl";
  return true;
}

std::optional<std::vector<std::size_t>> Topology::route(const std::string& a,
                                                        const std::string& b) const {
  std::vector<std::size_t> links;
  if (!path(a, b, &links)) return std::nullopt;
  return links;
}

// Widest path (largest bottleneck bandwidth, then least latency), by a
// Dijkstra-like relaxation; machines have tens of nodes, so this is cheap.
std::optional<PathCost> Topology::path(const std::string& a, const std::string& b,
                                       std::vector<std::size_t>* route) const {
  if (route) route->clear();
  if (a == b) return PathCost{1e9, 0, LinkKind::virt, 0};
  std::map<std::string, PathCost> best;
  std::map<std::string, std::size_t> via;  // the link each node was reached by
  std::map<std::string, bool> done;
  best[a] = PathCost{1e18, 0, LinkKind::virt, 0};
  auto better = [](const PathCost& x, const PathCost& y) {
    return x.gbps > y.gbps || (x.gbps == y.gbps && x.latency_us < y.latency_us);
  };
  for (;;) {
    const std::string* cur = nullptr;
    for (const auto& [id, c] : best)
      if (!done[id] && (!cur || better(c, best[*cur]))) cur = &id;
    if (!cur) break;
    std::string u = *cur;
    done[u] = true;
    if (u == b) break;
    if (u != a && !forwards(nodes_, u)) continue;
    for (std::size_t i = 0; i < links_.size(); ++i) {
      const TopoLink& l = links_[i];
      if (l.a != u && l.b != u) continue;
      const std::string& v = l.a == u ? l.b : l.a;
      if (done[v]) continue;
      const PathCost& cu = best[u];
      PathCost c{std::min(cu.gbps, l.gbps), cu.latency_us + l.latency_us,
                 rank(l.kind) > rank(cu.worst) ? l.kind : cu.worst, cu.hops + 1};
      auto it = best.find(v);
      if (it == best.end() || better(c, it->second)) best[v] = c, via[v] = i;
    }
  }
  auto it = best.find(b);
  if (it == best.end()) return std::nullopt;
  if (route) {
    for (std::string at = b; at != a;) {
      const TopoLink& l = links_[via.at(at)];
      route->push_back(via.at(at));
      at = l.a == at ? l.b : l.a;
    }
    std::reverse(route->begin(), route->end());
  }
  return it->second;
}

}  // namespace baton
