// The host as hwloc sees it: a well-formed tree (pre-order, each node at most
// one level below the one before) that accounts for every core, with NUMA
// nodes, and PCI devices named by bus id.
#include <gtest/gtest.h>

#include "topology/discover.hpp"
#include "topology/host_tree.hpp"

using namespace baton::detail;

TEST(HostTree, AccountsForEveryCoreUnderItsPackages) {
  if (host_info().source != "hwloc") GTEST_SKIP() << "no hwloc in this build";
  const std::vector<HostTreeNode> tree = host_tree();
  ASSERT_FALSE(tree.empty());
  EXPECT_EQ(tree.front().kind, "machine");
  EXPECT_EQ(tree.front().depth, 0);
  EXPECT_EQ(tree.front().cores, host_info().cores);
  int package_cores = 0, numa = 0, depth = 0;
  for (const HostTreeNode& n : tree) {
    EXPECT_LE(n.depth, depth + 1) << n.label;
    EXPECT_GE(n.depth, 0) << n.label;
    depth = n.depth;
    if (n.kind == "package") package_cores += n.cores;
    numa += n.kind == "numa";
    if (n.kind == "gpu" || n.kind == "nic" || n.kind == "storage" || n.kind == "pci") {
      EXPECT_EQ(n.pci_bus_id.size(), 12u) << n.label;  // "0000:19:00.0"
    }
  }
  EXPECT_EQ(package_cores, host_info().cores);
  EXPECT_GE(numa, 1);
}
