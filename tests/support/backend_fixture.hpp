// A backend context as the registry makes one (default options, no host
// facts), and the topology built from what the backend described: for tests
// that open a backend directly.
#pragma once

#include "baton/options.hpp"
#include "baton/topology.hpp"
#include "device/backend.hpp"

namespace baton::test {

struct BackendFixture {
  Options options;
  detail::BackendContext ctx{options, detail::HostFacts{}};

  Topology topology() const {
    Topology t;
    t.add_node({"host", "host"});
    for (const auto& n : ctx.nodes()) t.add_node(n);
    for (const auto& l : ctx.links()) t.add_link(l);
    return t;
  }
};

}  // namespace baton::test
