// The links of a sim machine as its copies use them: each device's route to
// host (its own link, or through switches), and the load on every link, so
// that devices behind one link share its bandwidth.
#pragma once

#include <array>
#include <mutex>
#include <vector>

#include "baton/topology.hpp"

namespace baton::detail {

struct SimMachine;

// The machine as a graph of its devices, switches, host memory and links: a
// device's copies to and from host take the best path on it to "host"
// (Topology::route, so the engine's view of that path is the same).
Topology sim_network(const SimMachine& m);

// When each link of a machine is free, per direction. A copy crosses its
// route from the latest of those times and its own queue's, and holds each
// link for its bytes over that link's bandwidth: two devices behind one
// 55 GB/s link move 27.5 GB/s each while both copy, as partitions of one GPU
// on its PCIe link; a wide link carries several narrow streams at once.
// Copies take the links in the order they are issued, which on the sim's
// turns is close to the order of their virtual start.
class SimLinkLoads {
 public:
  enum Direction { to_device = 0, to_host = 1 };
  explicit SimLinkLoads(const Topology& net);
  // Reserves `route` (indices into net.links()) for `bytes` in `dir` from
  // `from` on; returns when the copy starts.
  double cross(const std::vector<std::size_t>& route, Direction dir, double from, double bytes);

 private:
  std::mutex mu_;
  std::vector<double> gbps_;
  std::vector<std::array<double, 2>> free_s_;  // per link, per Direction
};

}  // namespace baton::detail
