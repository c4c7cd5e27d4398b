// Cache-line-aligned host memory, for the devices that keep their memory on
// the host (cpu, sim) and for buffers' host copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "baton/device.hpp"
#include "baton/kernel.hpp"

namespace baton::detail {

// Throws Error(out_of_memory) naming `who`.
DeviceMemory allocate_host(const std::string& who, std::size_t bytes);
void release_host(DeviceMemory memory);
// Memory the host can give without swapping: MemAvailable, else free pages.
std::uint64_t host_available_bytes();
// The default host memory of buffers: allocate_host() and release_host().
std::shared_ptr<HostAllocator> pageable_host_memory();

}  // namespace baton::detail
