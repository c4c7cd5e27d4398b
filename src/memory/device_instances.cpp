#include "memory/device_instances.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "baton/error.hpp"
#include "memory/held_memory.hpp"

namespace baton::detail {

namespace {
constexpr std::size_t kZeroBlock = 1 << 20;

// Frees memory once `pending` (a copy into it) is done; a failed device's
// memory is moot, and freeing it must not throw.
void release_quietly(Device& dev, DeviceMemory memory, std::size_t bytes, const EventPtr& pending) {
  try {
    if (pending) pending->wait();
    release_held(dev, memory, bytes);
  } catch (const Error&) {
  }
}

const char* zero_block() {
  static const std::vector<char> zeros(kZeroBlock, 0);
  return zeros.data();
}
}  // namespace

DeviceInstances::~DeviceInstances() {
  release_all();
}

DeviceMemory DeviceInstances::acquire(Device& dev, int index, Queue& q,
                                      std::vector<EventPtr>& waits) {
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
  i.index = index;
  i.memory = allocate_held(dev, bytes_);
  try {
    for (std::size_t at = 0; at < bytes_; at += kZeroBlock)
      q.write(i.memory, at, zero_block(), std::min(kZeroBlock, bytes_ - at), HostKind::pageable);
    i.zeroed = q.record();
  } catch (...) {
    release_held(dev, i.memory, bytes_);
    throw;
  }
  waits.push_back(i.zeroed);
  instances_.push_back(i);
  return i.memory;
}

DeviceMemory DeviceInstances::table(Device& dev, int devices, Queue& q,
                                    std::vector<EventPtr>& waits) {
  std::lock_guard lock(mu_);
  if (!lost_.empty())
    raise(Errc::invalid_argument, dev.name(),
          "baton::instances(): " + lost_.front().first->name() + "'s instance was lost with it (" +
              lost_.front().second + ")");
  const MemoryNode node = dev.info().memory_node;
  std::vector<void*> entries(std::size_t(devices), nullptr);
  for (Instance& i : instances_) {
    if (i.device->info().memory_node != node)
      raise(Errc::invalid_argument, dev.name(),
            "baton::instances(): " + i.device->name() + "'s instance is not in " + dev.name() +
                "'s memory");
    if (!i.memory.ptr)
      raise(Errc::invalid_argument, dev.name(),
            "baton::instances(): this device's memory has no addresses to put in a table");
    if (i.zeroed) waits.push_back(i.zeroed);
    entries[std::size_t(i.index)] = i.memory.ptr;
  }
  Table* t = nullptr;
  for (Table& x : tables_)
    if (x.device->info().memory_node == node) t = &x;
  if (!t) {
    Table fresh;
    fresh.device = &dev;
    fresh.bytes = sizeof(void*) * entries.size();
    fresh.memory = allocate_held(dev, fresh.bytes);
    tables_.push_back(std::move(fresh));
    t = &tables_.back();
  }
  if (t->entries != entries) {
    if (t->written) t->written->wait();  // its host copy is about to change
    t->entries = std::move(entries);
    q.write(t->memory, 0, t->entries.data(), sizeof(void*) * t->entries.size(), HostKind::pageable);
    t->written = q.record();
  }
  if (t->written) waits.push_back(t->written);
  return t->memory;
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
  Device* owner = nullptr;
  DeviceMemory memory;
  {
    std::lock_guard lock(mu_);
    auto it = std::find_if(instances_.begin(), instances_.end(),
                           [&](const Instance& i) { return i.device == &dev; });
    if (it == instances_.end()) return;
    owner = it->device;
    memory = it->memory;
  }
  // Its memory may still answer (host memory, a GPU that lives on): the
  // instance stays, read where it is; else it is lost, and says so. The probe
  // waits without the lock: on virtual time, a worker waiting for the lock
  // would keep the clock from reaching the probe's end.
  try {
    float probe = 0;
    Queue& q = owner->queue(QueueRole::copy_out);
    q.read(&probe, memory, 0, std::min<std::size_t>(sizeof probe, bytes_), HostKind::pageable);
    q.record()->wait();
    return;
  } catch (const Error&) {
  }
  std::lock_guard lock(mu_);
  lost_.push_back({&dev, why});
  std::erase_if(instances_, [&](const Instance& i) {
    if (i.device != &dev) return false;
    release_quietly(*owner, i.memory, bytes_, nullptr);
    return true;
  });
  // A table it allocated goes with it (another device of its memory makes a new one).
  std::erase_if(tables_, [&](const Table& t) {
    if (t.device != &dev) return false;
    release_quietly(*t.device, t.memory, t.bytes, nullptr);
    return true;
  });
}

void DeviceInstances::release_all() {
  std::lock_guard lock(mu_);
  for (Table& t : tables_) release_quietly(*t.device, t.memory, t.bytes, t.written);
  tables_.clear();
  for (Instance& i : instances_) release_quietly(*i.device, i.memory, bytes_, i.zeroed);
  instances_.clear();
}

}  // namespace baton::detail
