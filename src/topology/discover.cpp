#include "topology/discover.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

#include "topology/hwloc_topology.hpp"

namespace baton::detail {

static std::string cpu_model_from_proc() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown CPU";
}

#ifdef BATON_HAVE_HWLOC
// A topology that will not load hwloc's plugins for vendor runtimes (OpenCL,
// CUDA, NVML, ...): baton asks those itself, and the plugins would start
// them (PoCL's start is slow) and unload them again, leaving thread-local
// slots behind that LeakSanitizer trips over.
static bool init_topology(hwloc_topology_t* topo) {
  if (hwloc_topology_init(topo) != 0) return false;
  for (const char* component : {"opencl", "cuda", "nvml", "rsmi", "levelzero", "gl"})
    hwloc_topology_set_components(*topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, component);
  return true;
}
#endif

static HostInfo discover() {
  HostInfo h;
  h.cpu_model = cpu_model_from_proc();
  long threads = sysconf(_SC_NPROCESSORS_ONLN);
  h.threads = threads > 0 ? static_cast<int>(threads) : 1;
  h.cores = h.threads;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) h.memory_bytes = std::uint64_t(pages) * std::uint64_t(page);
  h.source = "sysconf";
#ifdef BATON_HAVE_HWLOC
  hwloc_topology_t topo;
  if (init_topology(&topo)) {
    if (hwloc_topology_load(topo) == 0) {
      int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
      int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
      int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
      if (cores > 0) h.cores = cores;
      if (pus > 0) h.threads = pus;
      if (numa > 0) h.numa_nodes = numa;
      h.source = "hwloc";
    }
    hwloc_topology_destroy(topo);
  }
#endif
  return h;
}

const HostInfo& host_info() {
  static const HostInfo info = discover();
  return info;
}

#ifdef BATON_HAVE_HWLOC
hwloc_topology_t io_topology() {
  static hwloc_topology_t topo = [] {
    hwloc_topology_t t = nullptr;
    if (!init_topology(&t)) return hwloc_topology_t{};
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) != 0) {
      hwloc_topology_destroy(t);
      return hwloc_topology_t{};
    }
    return t;
  }();
  return topo;
}

std::vector<unsigned> cpus_near_pci(const std::string& pci_bus_id) {
  std::vector<unsigned> cpus;
  hwloc_topology_t topo = io_topology();
  if (!topo || pci_bus_id.empty()) return cpus;
  hwloc_obj_t pci = hwloc_get_pcidev_by_busidstring(topo, pci_bus_id.c_str());
  if (!pci) return cpus;
  hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(topo, pci);
  hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topo);
  if (!near || !near->cpuset || hwloc_bitmap_isequal(near->cpuset, all)) return cpus;
  for (int i = hwloc_bitmap_first(near->cpuset); i >= 0; i = hwloc_bitmap_next(near->cpuset, i))
    cpus.push_back(unsigned(i));
  return cpus;
}
#else
std::vector<unsigned> cpus_near_pci(const std::string&) {
  return {};
}
#endif

}  // namespace baton::detail
