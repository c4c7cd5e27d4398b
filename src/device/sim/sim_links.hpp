// The links of a sim machine as its copies use them: each device's route to
// host (its own link, or through switches), and the load on every link, so
// that devices behind one link share its bandwidth.
#pragma once

#include <array>
#include <mutex>
#include <string>
#include <vector>

#include "baton/link.hpp"

namespace baton::detail {

struct SimMachine;

// The links (indices into m.links) from device `id` to host: its direct link,
// else the widest path through switches (never through another device);
// empty where there is none.
std::vector<int> host_route(const SimMachine& m, const std::string& id);
// What moving bytes along `route` costs: the narrowest link's bandwidth, the
// sum of their start-ups.
PathCost route_cost(const SimMachine& m, const std::vector<int>& route);

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
  explicit SimLinkLoads(const SimMachine& m);
  // Reserves `route` for `bytes` in `dir` from `from` on; returns when the
  // copy starts.
  double cross(const std::vector<int>& route, Direction dir, double from, double bytes);

 private:
  std::mutex mu_;
  std::vector<double> gbps_;
  std::vector<std::array<double, 2>> free_s_;  // per link, per Direction
};

}  // namespace baton::detail
