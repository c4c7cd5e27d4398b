// The instances of a per-device buffer (PerDevice<T>): each device that runs a
// task on it gets an instance of its own, zeroed on first use, that never
// moves and is never made coherent with the others. Data-parallel training
// keeps its gradient accumulators so: every device adds into its own.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "baton/device.hpp"

namespace baton::detail {

class DeviceInstances {
 public:
  explicit DeviceInstances(std::size_t bytes) : bytes_(bytes) {}
  ~DeviceInstances();
  DeviceInstances(const DeviceInstances&) = delete;
  DeviceInstances& operator=(const DeviceInstances&) = delete;

  // dev's instance (dev is device `index` of the runtime); on first use it is
  // allocated and zeros are queued into it on `q` (a queue of dev), whose
  // event is appended to `waits`. Called by dev's worker.
  DeviceMemory acquire(Device& dev, int index, Queue& q, std::vector<EventPtr>& waits);
  // A table in dev's memory of every instance's address, one pointer per
  // device of the runtime (`devices`), null where a device has none: for a
  // kernel that combines the instances of the devices sharing dev's memory.
  // Error(invalid_argument) where an instance sits in other memory, or dev's
  // memory has no addresses (OpenCL). Called by dev's worker.
  DeviceMemory table(Device& dev, int devices, Queue& q, std::vector<EventPtr>& waits);
  // Copies dev's instance into `out` (bytes() of it): zeros where dev never
  // touched it. Error(device_failed) when dev failed and took it along.
  void read(Device& dev, void* out);
  // `dev` failed: where its memory still answers its instance stays (and is
  // read in place); else it is gone, and reading it or a table says why.
  void drop_device(const Device& dev, const std::string& why);
  // The runtime goes: every instance is freed.
  void release_all();

 private:
  struct Instance {
    Device* device = nullptr;
    int index = -1;
    DeviceMemory memory;
    EventPtr zeroed;
  };
  struct Table {
    Device* device = nullptr;  // allocated it
    DeviceMemory memory;
    std::size_t bytes = 0;
    std::vector<void*> entries;  // as last written
    EventPtr written;
  };
  std::mutex mu_;
  std::size_t bytes_;
  std::vector<Instance> instances_;
  std::vector<Table> tables_;                                // one per memory node that asked
  std::vector<std::pair<const Device*, std::string>> lost_;  // device, why
};

}  // namespace baton::detail
