#include "collective/two_level_ring.hpp"

#include <map>
#include <set>

#include "baton/error.hpp"
#include "collective/kernels.hpp"
#include "collective/ring.hpp"

namespace baton::collective {

std::vector<std::vector<int>> network_nodes(const Runtime& rt, const std::vector<int>& devices) {
  const Topology& topo = rt.topology();
  std::set<std::string> hosts;
  for (const TopoNode& n : topo.nodes())
    if (n.kind == "host") hosts.insert(n.id);
  // Connected parts of the graph without network links and host memory:
  // each topology node's part is the smallest id reached from it.
  std::map<std::string, std::string> part;
  for (const TopoNode& n : topo.nodes()) part[n.id] = n.id;
  for (bool changed = true; changed;) {
    changed = false;
    for (const TopoLink& l : topo.links()) {
      if (l.kind == LinkKind::net || hosts.count(l.a) || hosts.count(l.b)) continue;
      std::string& a = part[l.a];
      std::string& b = part[l.b];
      if (a == b) continue;
      (a < b ? b : a) = std::min(a, b);
      changed = true;
    }
  }
  std::vector<std::string> order;
  std::map<std::string, std::vector<int>> grouped;
  for (int d : devices) {
    const std::string& id = rt.devices()[std::size_t(d)]->info().topology_id;
    const std::string p = part.count(id) ? part[id] : id;
    if (!grouped.count(p)) order.push_back(p);
    grouped[p].push_back(d);
  }
  std::vector<std::vector<int>> nodes;
  for (const std::string& p : order) nodes.push_back(ring_order(rt, grouped[p]));
  return nodes;
}

TwoLevelRing::TwoLevelRing(Runtime& rt, std::vector<std::vector<int>> nodes)
    : rt_(rt),
      nodes_(nodes.size()),
      per_node_(nodes.empty() ? 0 : nodes[0].size()),
      add_(add_kernel()) {
  if (nodes_ < 2 || per_node_ < 2)
    raise(Errc::invalid_argument, "ring", "a two-level ring needs two nodes of two devices");
  for (const auto& node : nodes) {
    if (node.size() != per_node_)
      raise(Errc::invalid_argument, "ring", "a two-level ring needs nodes of one size");
    ranks_.insert(ranks_.end(), node.begin(), node.end());
  }
}

std::string TwoLevelRing::name() const {
  return "ring in " + std::to_string(nodes_) + " nodes of " + std::to_string(per_node_);
}

std::vector<Piece> TwoLevelRing::reduce(const std::vector<Buffer<float>>& slots, Piece bucket,
                                        const std::vector<double>& weights,
                                        std::vector<Task>& tasks) {
  std::vector<double> by_place(per_node_, 0.0);
  for (std::size_t i = 0; i < nodes_; ++i)
    for (std::size_t l = 0; l < per_node_; ++l) by_place[l] += weights[rank(i, l)];
  const std::vector<Piece> chunks = shares(bucket, by_place, 4);
  // Inside each node: place l is left with the node's sum of chunk l.
  std::vector<std::size_t> members(per_node_);
  for (std::size_t i = 0; i < nodes_; ++i) {
    for (std::size_t l = 0; l < per_node_; ++l) members[l] = rank(i, l);
    ring_steps(rt_, add_, slots, ranks_, members, chunks, tasks);
  }
  // Across nodes, place by place: each device is left with the sum of its share of its chunk.
  std::vector<Piece> owned(ranks_.size());
  members.resize(nodes_);
  std::vector<double> across(nodes_);
  for (std::size_t l = 0; l < per_node_; ++l) {
    for (std::size_t i = 0; i < nodes_; ++i) {
      members[i] = rank(i, l);
      across[i] = weights[rank(i, l)];
    }
    if (chunks[l].size() == 0) continue;
    const std::vector<Piece> sub = shares(chunks[l], across, 4);
    ring_steps(rt_, add_, slots, ranks_, members, sub, tasks);
    for (std::size_t i = 0; i < nodes_; ++i) owned[rank(i, l)] = sub[i];
  }
  return owned;
}

std::vector<std::pair<std::size_t, Piece>> TwoLevelRing::gather_reads(
    const std::vector<Piece>& owned) const {
  std::vector<std::pair<std::size_t, Piece>> reads;
  for (std::size_t i = 0; i < nodes_; ++i)
    for (std::size_t l = 0; l < per_node_; ++l)
      for (std::size_t j = 0; j < nodes_; ++j)
        if (j != i && owned[rank(j, l)].size() > 0)
          reads.push_back({rank(i, l), owned[rank(j, l)]});
  return reads;
}

}  // namespace baton::collective
