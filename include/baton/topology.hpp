// The machine as a typed graph: nodes (host memory, CPUs, GPUs, switches, sim
// devices) and links (NVLink, PCIe, system, virtual) with bandwidth and latency.
// Serialisable to JSON so machines we do not have can be described in a file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "baton/link.hpp"

namespace baton {

class Topology {
 public:
  void add_node(TopoNode node);  // replaces a node of the same id
  void add_link(TopoLink link);  // replaces a link between the same pair
  bool has_node(const std::string& id) const;
  const std::vector<TopoNode>& nodes() const { return nodes_; }
  const std::vector<TopoLink>& links() const { return links_; }
  std::optional<TopoLink> link(const std::string& a, const std::string& b) const;
  // Best path: the direct link, else the widest path through the graph
  // (bandwidth is the narrowest link on it, latency the sum) whose inner
  // nodes forward (host memory, switches; not devices). Same node: free.
  // Its links go into `route` where that is given (as route() gives them).
  std::optional<PathCost> path(const std::string& a, const std::string& b,
                               std::vector<std::size_t>* route = nullptr) const;
  // The links of path(a, b) in order from a, as indices into links(); empty
  // for the same node, none where there is no path.
  std::optional<std::vector<std::size_t>> route(const std::string& a, const std::string& b) const;

  std::string to_json() const;
  // Throws Error(Errc::bad_topology) naming the bad field.
  static Topology from_json(const std::string& text, const std::string& origin);
  static Topology load(const std::string& path);

 private:
  std::vector<TopoNode> nodes_;
  std::vector<TopoLink> links_;
};

}  // namespace baton
