#include "memory/device_instances.hpp"

#include <algorithm>
#include <cstring>

#include "baton/error.hpp"

namespace baton::detail {

namespace {
constexpr std::size_t kZeroBlock = 1 << 20;
const char* zero_block() {
  static const std::vector<char> zeros(kZeroBlock, 0);
  return zeros.data();
}
}  // namespace

DeviceInstances::~DeviceInstances() {
  release_all();
}

DeviceMemory DeviceInstances::acquire(Device& dev, Queue& q, std::vector<EventPtr>& waits) {
  std::lock_guard lock(mu_);
  for (Instance& i : instances_)
    if (i.device == &dev) {
      if (i.zeroed) {
        if (!i.zeroed->ready())
          waits.push_back(i.zeroed);
        else
          i.zeroed = nullptr;
      }
      return i.memory;
    }
  Instance i;
  i.device = &dev;
  i.memory = dev.allocate(bytes_);
  try {
    for (std::size_t at = 0; at < bytes_; at += kZeroBlock)
      q.write(i.memory, at, zero_block(), std::min(kZeroBlock, bytes_ - at), HostKind::pageable);
    i.zeroed = q.record();
  } catch (...) {
    dev.release(i.memory);
    throw;
  }
  waits.push_back(i.zeroed);
  instances_.push_back(i);
  return i.memory;
}

void DeviceInstances::read(Device& dev, void* out) {
  Instance found;
  {
    std::lock_guard lock(mu_);
    for (const auto& [lost, why] : lost_)
      if (lost == &dev)
        raise(Errc::device_failed, dev.name(), "its per-device data is lost: " + why);
    for (const Instance& i : instances_)
      if (i.device == &dev) found = i;
  }
  if (!found.device) {
    std::memset(out, 0, bytes_);
    return;
  }
  Queue& q = dev.queue(QueueRole::copy_out);
  if (found.zeroed) q.wait(found.zeroed);
  q.read(out, found.memory, 0, bytes_, HostKind::pageable);
  q.record()->wait();
}

void DeviceInstances::drop_device(const Device& dev, const std::string& why) {
  std::lock_guard lock(mu_);
  lost_.push_back({&dev, why});
  std::erase_if(instances_, [&](Instance& i) {
    if (i.device != &dev) return false;
    try {
      i.device->release(i.memory);
    } catch (const Error&) {  // a lost device's memory is gone with it
    }
    return true;
  });
}

void DeviceInstances::release_all() {
  std::lock_guard lock(mu_);
  for (Instance& i : instances_) {
    try {
      if (i.zeroed) i.zeroed->wait();
      i.device->release(i.memory);
    } catch (const Error&) {  // a failed device's memory is moot
    }
  }
  instances_.clear();
}

}  // namespace baton::detail
