// The vocabulary of links shared by the device layer (backends describe how
// their devices connect) and the topology (which builds the graph from it):
// node and link descriptions and the cost of moving bytes along a path.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace baton {

// net: a node's network adapter to the fabric between nodes (InfiniBand,
// RoCE), for machines of several nodes.
enum class LinkKind { nvlink, pcie, sys, virt, net };
inline constexpr std::size_t kLinkKinds = 5;
std::string_view to_string(LinkKind k);
// "nvlink", "pcie", "sys", "virtual", "net"; anything else is Errc::bad_topology naming `where`.
LinkKind parse_link_kind(const std::string& text, const std::string& where);

struct TopoNode {
  std::string id;    // "host", "gpu0", "sim1", "pcie0"
  std::string kind;  // "host", "cpu", "gpu", "switch", "sim", "opencl"
};

struct TopoLink {
  std::string a, b;  // node ids; links are symmetric
  LinkKind kind = LinkKind::pcie;
  double gbps = 0;        // bandwidth per direction, GB/s
  double latency_us = 0;  // one-way start-up cost of a transfer
};

// The cost of moving bytes between two nodes along the best path.
struct PathCost {
  double gbps = 0;
  double latency_us = 0;
  LinkKind worst = LinkKind::virt;  // slowest kind of link on the path
  int hops = 0;
  double seconds(double bytes) const {
    return latency_us * 1e-6 + (gbps > 0 ? bytes / (gbps * 1e9) : 0);
  }
};

}  // namespace baton
