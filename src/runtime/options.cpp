#include "baton/runtime.hpp"
#include "common/tunables.hpp"
#include "sched/policy.hpp"

namespace baton {

Options Options::from_env() {
  Options o;
  o.devices = detail::tunable("BATON_DEVICES");
  o.policy = detail::tunable("BATON_POLICY");
  o.topology_file = detail::tunable("BATON_TOPO_FILE");
  detail::make_policy(o.policy);  // a bad name fails here, naming the known ones
  return o;
}

}  // namespace baton
