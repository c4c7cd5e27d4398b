#pragma once

#include <string>

#include "baton/topology.hpp"

namespace baton::detail {

// "nvlink", "pcie", "sys", "virtual"; anything else is Errc::bad_topology naming `where`.
LinkKind parse_link_kind(const std::string& text, const std::string& where);

}  // namespace baton::detail
