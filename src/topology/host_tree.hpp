// The host as hwloc sees it, for `baton topo`: packages, NUMA nodes and their
// memory, L3 caches and the cores under them, and the PCI tree down to the
// GPUs, NICs and storage, each under the bridges and the NUMA node it hangs
// off. Cores are summed per cache rather than listed: a 128-core host stays
// a screenful.
#pragma once

#include <string>
#include <vector>

namespace baton::detail {

struct HostTreeNode {
  int depth = 0;           // 0: the machine
  std::string kind;        // machine, package, numa, cache, cores, bridge, gpu, nic, storage, pci
  std::string label;       // what `baton topo` prints
  std::string pci_bus_id;  // "0000:19:00.0" for PCI objects
  int cores = 0;           // cores under it (package, cache, cores)
};

// Pre-order; empty where the build has no hwloc or hwloc fails.
std::vector<HostTreeNode> host_tree();

}  // namespace baton::detail
