#include "device/host_memory.hpp"

#include <algorithm>
#include <cstdlib>

#include "baton/error.hpp"

namespace baton::detail {

DeviceMemory allocate_host(const std::string& who, std::size_t bytes) {
  void* p = std::aligned_alloc(64, std::max<std::size_t>(64, (bytes + 63) / 64 * 64));
  if (!p)
    raise(Errc::out_of_memory, who,
          "cannot allocate " + std::to_string(bytes) + " bytes of host memory");
  return DeviceMemory{p, 0, bytes};
}

void release_host(DeviceMemory memory) {
  std::free(memory.ptr);
}

}  // namespace baton::detail
