// libFuzzer: the topology file reader (--topology, BATON_TOPOLOGY, --save).
// Any input either loads or is refused with a baton::Error; what loads must
// write back as JSON that loads to the same graph.
#include <cstddef>
#include <cstdint>
#include <string>

#include "baton/error.hpp"
#include "baton/topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  baton::Topology t;
  try {
    t = baton::Topology::from_json(text, "fuzz");
  } catch (const baton::Error&) {
    return 0;
  }
  const baton::Topology again = baton::Topology::from_json(t.to_json(), "round trip");
  if (again.nodes().size() != t.nodes().size() || again.links().size() != t.links().size())
    __builtin_trap();
  if (t.nodes().size() > 16) return 0;  // paths between every pair: keep each run short
  for (const auto& a : t.nodes())
    for (const auto& b : t.nodes()) {
      auto p = t.path(a.id, b.id);
      if (p && (p->gbps < 0 || p->latency_us < 0)) __builtin_trap();
    }
  return 0;
}
