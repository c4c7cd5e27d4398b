// Links measured, not read from a table: timed copies between host memory
// and each device, and between every two devices with memories of their own,
// set beside what the topology says the path carries. A link far below its
// kind's figure (a GPU in a narrower slot than it should be, a peer path that
// silently goes through host memory) is flagged.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "baton/devices.hpp"

namespace baton::detail {

struct LinkMeasure {
  std::string from, to;  // device names, or "host"
  std::string route;     // "direct", "peer", or "via host" (no peer path between them)
  double nominal_gbps;   // the topology's best path (0: it knows none)
  std::string kind;      // its slowest link's kind
  double measured_gbps;  // best of the repetitions
  bool slow;             // measured below half the nominal figure
};

// What a probing copy moves unless told otherwise. At 64 MiB, the best of 3,
// an H100's link both ways measured 42 GB/s each way through a partition and
// 50 at 256 MiB (2026-12-06), while runs from host memory moved 47 to 50.
constexpr std::size_t kProbeBytes = std::size_t(256) << 20;

// Copies `bytes` each way between host memory (pinned where the set offers
// it) and every device, and from every device to every other on another
// memory node; the best of `reps` timings each. Devices on virtual time are
// timed on it (their model's own figure).
std::vector<LinkMeasure> probe_links(DeviceSet& set, std::size_t bytes, int reps);

// Each link between host memory and a device memory once, through the first
// device on it (partitions of one GPU share theirs): `bytes` copied in beside
// `bytes` copied out at once, GB/s per direction, the best of `reps`; route
// "both ways". What a run from host memory asks of a link: an H100's PCIe
// carried 36 GB/s each way so, against 55 one way at a time.
std::vector<LinkMeasure> probe_host_links_both_ways(DeviceSet& set, std::size_t bytes, int reps);

}  // namespace baton::detail
