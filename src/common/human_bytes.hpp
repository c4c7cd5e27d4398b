// Sizes as messages say them.
#pragma once

#include <cstdint>
#include <string>

namespace baton::detail {

// "1.50 GiB", "8.00 MiB", "512 bytes".
std::string human_bytes(std::uint64_t bytes);

}  // namespace baton::detail
