// The policies a command's --policies names: split at commas, each known.
#pragma once

#include <string>
#include <vector>

namespace baton::cli {

// Error(invalid_argument) naming --policies when the list is empty or a name
// is unknown.
std::vector<std::string> policy_list(const std::string& text);

}  // namespace baton::cli
