// What the host is made of: cores, hardware threads, NUMA nodes, memory, and
// which CPUs sit next to a PCI device. hwloc where the build has it, sysconf
// and /proc otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

// The CPUs (OS numbers) of the NUMA node closest to the PCI device at
// `pci_bus_id` ("0000:19:00.0"); empty when unknown or when that is every CPU.
std::vector<unsigned> cpus_near_pci(const std::string& pci_bus_id);

}  // namespace baton::detail
