// The bounds every backend's queue checks before a copy: a copy past a
// buffer's end is the caller's mistake, reported as such, and no backend
// reads or writes outside what it allocated.
#pragma once

#include <cstddef>
#include <string>

#include "baton/kernel.hpp"

namespace baton::detail {

// Throws Error(invalid_argument) at `where` unless [offset, offset + bytes)
// lies inside `memory`; `what` names the copy ("write", "read", "copy").
void check_copy_range(const DeviceMemory& memory, std::size_t offset, std::size_t bytes,
                      const std::string& where, const char* what);

}  // namespace baton::detail
