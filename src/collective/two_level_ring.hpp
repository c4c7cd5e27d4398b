// A reduce-scatter for devices in several nodes (machines joined by a
// network): first a ring inside each node over its fast links, each device
// left with its node's sum of one chunk of the bucket; then, for each place
// in the node, a ring across the nodes between the devices in that place,
// each over its own network adapter. Each device sends (g - 1) / g of a
// bucket inside its node and (n - 1) / (n g) across, where a flat ring over
// all n g devices would move (n g - 1) / (n g) of it at the network's pace.
// Weights cut the chunks as in the ring: place l's chunk by the sum of the
// weights of the devices in place l, then each device's share of it by its
// own. After the update, each device reads its place's shares from the other
// nodes (gather_reads) and the rest from the devices of its own node, which
// the coherence prefers over a holder across the network.
#pragma once

#include <vector>

#include "baton/runtime.hpp"
#include "collective/communicator.hpp"

namespace baton::collective {

// `devices` grouped by node: the parts of the topology that are joined
// without a network link, not counting host memory (one host stands for
// every node's in a simulated cluster; within one machine, devices that
// only meet there are nodes of one device each). In the order of `devices`
// first seen, each node's devices in ring order.
std::vector<std::vector<int>> network_nodes(const Runtime& rt, const std::vector<int>& devices);

class TwoLevelRing : public Communicator {
 public:
  // `nodes`: at least two of the same size, at least two devices each.
  TwoLevelRing(Runtime& rt, std::vector<std::vector<int>> nodes);

  std::string name() const override;  // "ring in 8 nodes of 8"
  const std::vector<int>& ranks() const override { return ranks_; }
  std::vector<std::pair<std::size_t, Piece>> gather_reads(
      const std::vector<Piece>& owned) const override;

 private:
  std::vector<Piece> reduce(const std::vector<Buffer<float>>& slots, Piece bucket,
                            const std::vector<double>& weights, std::vector<Task>& tasks) override;
  // Rank of the device in place l of node i.
  std::size_t rank(std::size_t node, std::size_t place) const { return node * per_node_ + place; }
  Runtime& rt_;
  std::size_t nodes_, per_node_;
  std::vector<int> ranks_;  // node after node
  Kernel add_;
};

}  // namespace baton::collective
