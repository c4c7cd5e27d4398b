// One buffer's replicas and their MSI state. Host memory (node 0) holds the
// user's copy; each other memory node gets a replica when a device there first
// touches the buffer. Per byte range, a node is Modified (valid only there),
// Shared (valid there and elsewhere) or Invalid (not in its valid map).
// Readers copy what they miss from the nearest valid holder; writers become
// the only valid holder of what they write.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "baton/device.hpp"
#include "memory/interval_map.hpp"

namespace baton::detail {

struct Transfer {
  std::uint64_t bytes_in = 0;   // copied into the acquiring node
  std::uint64_t bytes_out = 0;  // copied out to host memory
};

class BufferState {
 public:
  // `owner`: the runtime whose devices may hold replicas (memory node numbers
  // are that runtime's own).
  BufferState(std::size_t bytes, const void* owner);
  ~BufferState();
  BufferState(const BufferState&) = delete;
  BufferState& operator=(const BufferState&) = delete;

  std::size_t bytes() const { return bytes_; }
  const void* owner() const { return owner_; }
  void* host() { return host_; }

  // The replica on `dev`'s node, allocated on first use.
  DeviceMemory replica(Device& dev);
  // Makes bytes [b, e) valid on dev's node: copies missing pieces in on `q`
  // (a queue of dev) and appends to `waits` the events the reader must wait for.
  Transfer acquire(Device& dev, Queue& q, std::uint64_t b, std::uint64_t e,
                   std::vector<EventPtr>& waits);
  // dev's node becomes the only valid holder of [b, e), ready after `ready`.
  void written(Device& dev, std::uint64_t b, std::uint64_t e, EventPtr ready);
  // Copies [b, e) of dev's node back to host memory on `q` (a queue of dev),
  // after `after`, keeping both valid (Shared). Returns the copy's event.
  EventPtr write_back(Device& dev, Queue& q, std::uint64_t b, std::uint64_t e,
                      const EventPtr& after);
  // Host access: [b, e) valid in host memory when this returns; for_write
  // invalidates every other replica of it.
  Transfer acquire_host(std::uint64_t b, std::uint64_t e, bool for_write);
  // Every event is complete: drop them (keeps the maps small between runs).
  void settle();
  // Brings every byte's latest copy home and frees the device replicas: for a
  // buffer that outlives the runtime (and so its devices).
  void detach_devices();
  // True when some replica is unified memory taken as the out-of-memory fallback.
  bool any_managed();
  // Nodes holding valid data for all of [b, e); for tests and diagnostics.
  std::vector<MemoryNode> holders(std::uint64_t b, std::uint64_t e);

 private:
  struct Replica {
    Device* device = nullptr;  // allocated it; copies go through its queues
    DeviceMemory memory;
    IntervalMap valid;
  };
  Replica& at(MemoryNode node);
  // dev's node's replica, allocated on first use. mu_ held.
  Replica& ensure(Device& dev);
  // The node, other than `except`, whose valid data covers `at_byte` (host
  // memory first); `piece` is its valid range there. mu_ held.
  MemoryNode holder(std::uint64_t at_byte, MemoryNode except, Span& piece, EventPtr& ready,
                    const std::string& who) const;
  // Copies [b, e) from `src` into `dst_node` (on `q`, a queue of dst_dev, unless dst is host).
  std::uint64_t pull(Replica& src, MemoryNode src_node, Replica& dst, MemoryNode dst_node,
                     Device* dst_dev, Queue* q, Span piece, const EventPtr& src_ready);

  std::mutex mu_;
  std::size_t bytes_;
  const void* owner_;
  void* host_;
  std::vector<Replica> replicas_;  // index = memory node
};

}  // namespace baton::detail
