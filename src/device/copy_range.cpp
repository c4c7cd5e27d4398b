#include "device/copy_range.hpp"

#include "baton/error.hpp"

namespace baton::detail {

void check_copy_range(const DeviceMemory& memory, std::size_t offset, std::size_t bytes,
                      const std::string& where, const char* what) {
  if (offset > memory.bytes || bytes > memory.bytes - offset)
    raise(Errc::invalid_argument, where,
          std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " +
              std::to_string(offset) + " overruns a buffer of " + std::to_string(memory.bytes) +
              " bytes");
}

}  // namespace baton::detail
