#include "policy_list.hpp"

#include "baton/error.hpp"
#include "sched/policy.hpp"
#include "table.hpp"

namespace baton::cli {

std::vector<std::string> policy_list(const std::string& text) {
  std::vector<std::string> names = list_items(text, "--policies");
  if (names.empty())
    raise(Errc::invalid_argument, "--policies",
          "no policy named (known: " + detail::policy_names(", ") + ")");
  for (const std::string& name : names) {
    try {
      detail::find_policy(name);
    } catch (const Error& e) {
      raise(Errc::invalid_argument, "--policies", e.message());
    }
  }
  return names;
}

}  // namespace baton::cli
