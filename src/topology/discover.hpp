// What the host is made of: cores, hardware threads, NUMA nodes, memory.
// hwloc where the build has it, sysconf and /proc otherwise.
#pragma once

#include <cstdint>
#include <string>

namespace baton::detail {

struct HostInfo {
  int cores = 1;
  int threads = 1;
  int numa_nodes = 1;
  std::uint64_t memory_bytes = 0;
  std::string cpu_model;
  std::string source;  // "hwloc" or "sysconf"
};

// Discovered once per process and cached.
const HostInfo& host_info();

}  // namespace baton::detail
