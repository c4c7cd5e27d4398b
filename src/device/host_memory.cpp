#include "device/host_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "baton/error.hpp"
#include "common/human_bytes.hpp"

namespace baton::detail {

std::uint64_t host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    std::uint64_t kib = 0;
    in >> kib;
    if (key == "MemAvailable:") return kib * 1024;
    in.ignore(256, '\n');
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : ~std::uint64_t{0};
}

DeviceMemory allocate_host(const std::string& who, std::size_t bytes) {
  // The kernel would promise more than it has and end the process once the
  // pages are touched: large requests are weighed against what is free first.
  if (bytes >= (std::size_t(64) << 20)) {
    const std::uint64_t free = host_available_bytes();
    if (bytes > free)
      raise(Errc::out_of_memory, who,
            "needs " + human_bytes(bytes) + " of host memory, but " + human_bytes(free) +
                " is available");
  }
  void* p = std::aligned_alloc(64, std::max<std::size_t>(64, (bytes + 63) / 64 * 64));
  if (!p)
    raise(Errc::out_of_memory, who,
          "cannot allocate " + std::to_string(bytes) + " bytes of host memory");
  return DeviceMemory{p, 0, bytes};
}

void release_host(DeviceMemory memory) {
  std::free(memory.ptr);
}

std::shared_ptr<HostAllocator> pageable_host_memory() {
  class Pageable final : public HostAllocator {
   public:
    DeviceMemory allocate(const std::string& who, std::size_t bytes) override {
      return allocate_host(who, bytes);
    }
    void release(DeviceMemory memory) override { release_host(memory); }
    std::string describe() const override { return "pageable"; }
  };
  static const auto instance = std::make_shared<Pageable>();
  return instance;
}

}  // namespace baton::detail
