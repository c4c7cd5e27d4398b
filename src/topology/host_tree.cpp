#include "topology/host_tree.hpp"

#include <cstdio>

#include "common/human_bytes.hpp"
#include "topology/hwloc_topology.hpp"

namespace baton::detail {

#ifdef BATON_HAVE_HWLOC
namespace {

std::string cpu_list(hwloc_const_bitmap_t set) {
  char text[256];
  hwloc_bitmap_list_snprintf(text, sizeof text, set);
  return text;
}

class Walk {
 public:
  explicit Walk(hwloc_topology_t topo) : topo_(topo) {}
  std::vector<HostTreeNode> nodes;

  void visit(hwloc_obj_t obj, int depth) {
    switch (obj->type) {
      case HWLOC_OBJ_MACHINE:
        add(depth, "machine", "machine: " + cores_text(obj), obj);
        break;
      case HWLOC_OBJ_PACKAGE:
        add(depth, "package", "package " + std::to_string(obj->os_index) + ": " + cores_text(obj),
            obj);
        break;
      case HWLOC_OBJ_L3CACHE:
        add(depth, "cache",
            "L3 " + std::to_string(obj->attr->cache.size >> 20) + " MiB: " + cores_text(obj), obj);
        return;  // the cores under it are summed in its line
      default:
        --depth;  // groups, dies, L2 and below: their children take their place
    }
    for (hwloc_obj_t m = obj->memory_first_child; m; m = m->next_sibling)
      if (m->type == HWLOC_OBJ_NUMANODE)
        add(depth + 1, "numa",
            "NUMA " + std::to_string(m->os_index) + ": " +
                human_bytes(m->attr->numanode.local_memory) + ", CPUs " + cpu_list(m->cpuset),
            m);
    bool caches = false;
    for (unsigned i = 0; i < obj->arity; ++i) caches = caches || has_l3(obj->children[i]);
    if (obj->type == HWLOC_OBJ_PACKAGE && !caches) add(depth + 1, "cores", cores_text(obj), obj);
    for (unsigned i = 0; i < obj->arity; ++i) visit(obj->children[i], depth + 1);
    for (hwloc_obj_t io = obj->io_first_child; io; io = io->next_sibling) visit_io(io, depth + 1);
  }

 private:
  void add(int depth, const char* kind, std::string label, hwloc_obj_t obj) {
    HostTreeNode n;
    n.depth = depth < 0 ? 0 : depth;
    n.kind = kind;
    n.label = std::move(label);
    if (obj->cpuset && obj->type != HWLOC_OBJ_NUMANODE)
      n.cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo_, obj->cpuset, HWLOC_OBJ_CORE);
    nodes.push_back(std::move(n));
  }

  std::string cores_text(hwloc_obj_t obj) const {
    const int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo_, obj->cpuset, HWLOC_OBJ_CORE);
    const int pus = hwloc_get_nbobjs_inside_cpuset_by_type(topo_, obj->cpuset, HWLOC_OBJ_PU);
    return std::to_string(cores) + " cores, " + std::to_string(pus) + " threads (CPUs " +
           cpu_list(obj->cpuset) + ")";
  }

  static bool has_l3(hwloc_obj_t obj) {
    if (obj->type == HWLOC_OBJ_L3CACHE) return true;
    for (unsigned i = 0; i < obj->arity; ++i)
      if (has_l3(obj->children[i])) return true;
    return false;
  }

  void visit_io(hwloc_obj_t obj, int depth) {
    if (obj->type == HWLOC_OBJ_BRIDGE) {
      // Host bridges are the root of the PCI tree; PCI bridges (switches) nest it.
      const bool host = obj->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
      if (!host) add(depth, "bridge", "PCI bridge", obj);
      for (hwloc_obj_t c = obj->io_first_child; c; c = c->next_sibling)
        visit_io(c, host ? depth : depth + 1);
      return;
    }
    if (obj->type != HWLOC_OBJ_PCI_DEVICE) return;
    const auto& pci = obj->attr->pcidev;
    char bus[32];
    std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.%01x", unsigned(pci.domain), unsigned(pci.bus),
                  unsigned(pci.dev), unsigned(pci.func));
    const unsigned cls = pci.class_id >> 8;
    const char* kind = cls == 0x03 ? "gpu" : cls == 0x02 ? "nic" : cls == 0x01 ? "storage" : "pci";
    std::string label = std::string(bus) + " " + kind;
    if (obj->name) {
      label += ' ';
      label += obj->name;
    }
    std::string os;
    for (hwloc_obj_t c = obj->io_first_child; c; c = c->next_sibling)
      if (c->type == HWLOC_OBJ_OS_DEVICE && c->name) {
        if (!os.empty()) os += ", ";
        os += c->name;
      }
    if (!os.empty()) label += " (" + os + ")";
    if (pci.linkspeed > 0) {
      char speed[32];
      std::snprintf(speed, sizeof speed, ", link %.1f GB/s", double(pci.linkspeed));
      label += speed;
    }
    add(depth, kind, label, obj);
    nodes.back().pci_bus_id = bus;
  }

  hwloc_topology_t topo_;
};

}  // namespace

std::vector<HostTreeNode> host_tree() {
  hwloc_topology_t topo = io_topology();
  if (!topo) return {};
  Walk walk(topo);
  walk.visit(hwloc_get_root_obj(topo), 0);
  return std::move(walk.nodes);
}
#else
std::vector<HostTreeNode> host_tree() {
  return {};
}
#endif

}  // namespace baton::detail
