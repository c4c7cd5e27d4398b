// The one hwloc topology of the host with its important PCI devices (GPUs,
// NICs, storage), for the topology layer's files that walk it.
#pragma once

#ifdef BATON_HAVE_HWLOC
#include <hwloc.h>

namespace baton::detail {

// Loaded once per process, without hwloc's plugins for vendor runtimes;
// null where hwloc fails.
hwloc_topology_t io_topology();

}  // namespace baton::detail
#endif
