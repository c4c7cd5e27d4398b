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

  // dev's instance; on first use it is allocated and zeros are queued into it
  // on `q` (a queue of dev), whose event is appended to `waits`. Called by
  // dev's worker.
  DeviceMemory acquire(Device& dev, Queue& q, std::vector<EventPtr>& waits);
  // Copies dev's instance into `out` (bytes() of it): zeros where dev never
  // touched it. Error(device_failed) when dev failed and took it along.
  void read(Device& dev, void* out);
  // `dev` failed: its instance is gone, and reading it says why.
  void drop_device(const Device& dev, const std::string& why);
  // The runtime goes: every instance is freed.
  void release_all();

 private:
  struct Instance {
    Device* device = nullptr;
    DeviceMemory memory;
    EventPtr zeroed;
  };
  std::mutex mu_;
  std::size_t bytes_;
  std::vector<Instance> instances_;
  std::vector<std::pair<const Device*, std::string>> lost_;  // device, why
};

}  // namespace baton::detail
