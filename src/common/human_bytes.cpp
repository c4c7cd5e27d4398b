#include "common/human_bytes.hpp"

#include <cstdio>

namespace baton::detail {

std::string human_bytes(std::uint64_t bytes) {
  char text[32];
  if (bytes >= (1ull << 30))
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(1ull << 30));
  else if (bytes >= (1ull << 20))
    std::snprintf(text, sizeof text, "%.2f MiB", double(bytes) / double(1ull << 20));
  else
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  return text;
}

}  // namespace baton::detail
