// One buffer's replicas and their MSI state. Host memory (node 0) holds the
// user's copy; each other memory node gets a replica when a device there first
// touches the buffer. Per byte range, a node is Modified (valid only there),
// Shared (valid there and elsewhere) or Invalid (not in its valid map).
// Readers copy what they miss from the nearest valid holder; writers become
// the only valid holder of what they write.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "baton/device.hpp"
#include "memory/device_instances.hpp"
#include "memory/interval_map.hpp"

namespace baton::detail {

struct Transfer {
  std::uint64_t bytes_in = 0;   // copied into the acquiring node
  std::uint64_t bytes_out = 0;  // copied out to host memory
  DeviceMemory memory;          // acquire(): the acquiring node's replica
};

class BufferState;

// Told before the host touches a buffer, so it can wait for the tasks that
// write it (and, for a write, those that read it): the submission layer.
class HostAccessGuard {
 public:
  virtual ~HostAccessGuard() = default;
  // Bytes [b, e) of the buffer as tasks' accesses name them (byte_region).
  virtual void before_host_access(BufferState& buffer, std::uint64_t b, std::uint64_t e,
                                  bool for_write) = 0;
};

class BufferState {
 public:
  // `owner`: the runtime whose devices may hold replicas (memory node numbers
  // are that runtime's own); `guard`: told before host access (may be null);
  // `host_memory`: where the host copy is allocated (null: pageable).
  BufferState(std::size_t bytes, const void* owner, HostAccessGuard* guard = nullptr,
              std::shared_ptr<HostAllocator> host_memory = nullptr);
  // Over the caller's memory, which must outlive the buffer: its host copy,
  // registered with `host_memory` (pinned in place) where that can be done.
  BufferState(void* user, std::size_t bytes, const void* owner, HostAccessGuard* guard,
              std::shared_ptr<HostAllocator> host_memory);
  // A per-device buffer (PerDevice<T>): no host copy and no coherence, an
  // instance of `bytes` on each device that touches it (DeviceInstances).
  struct PerDeviceTag {};
  BufferState(PerDeviceTag, std::size_t bytes, const void* owner, HostAccessGuard* guard);
  ~BufferState();
  BufferState(const BufferState&) = delete;
  BufferState& operator=(const BufferState&) = delete;

  std::size_t bytes() const { return bytes_; }
  const void* owner() const { return owner_; }
  // Null unless this is a per-device buffer.
  DeviceInstances* instances() const { return instances_.get(); }
  // Per-device buffers: a copy of device `index`'s instance (`dev`), once the
  // tasks that write it are done.
  void read_instance(Device& dev, int index, void* out);
  void* host() { return host_; }

  // The replica on `dev`'s node, allocated on first use.
  DeviceMemory replica(Device& dev);
  // Makes bytes [b, e) valid on dev's node: copies missing pieces in on `q`
  // (a queue of dev), those from a peer on dev.copy_in_from(peer), and appends to `waits` the
  // events the reader must wait for. Returns the replica with what it moved.
  Transfer acquire(Device& dev, Queue& q, std::uint64_t b, std::uint64_t e,
                   std::vector<EventPtr>& waits);
  // dev's node becomes the only valid holder of [b, e), ready after `ready`.
  void written(Device& dev, std::uint64_t b, std::uint64_t e, EventPtr ready);
  // A device that writes host memory in place (a cpu device) claims [b, e)
  // before it runs, rather than recording the write after: host memory is
  // then the only valid holder at once, so no copy home that starts later (a
  // failed device's data saved) is taken over what it writes. `landing` gets
  // the copies into those bytes still in flight; the writer waits for them.
  void claim_host(std::uint64_t b, std::uint64_t e, std::vector<EventPtr>& landing);
  // Copies [b, e) of dev's node back to host memory on `q` (a queue of dev),
  // after `after`, keeping both valid (Shared). Returns the copy's event.
  EventPtr write_back(Device& dev, Queue& q, std::uint64_t b, std::uint64_t e,
                      const EventPtr& after);
  // Host access: [b, e) valid in host memory when this returns; for_write
  // invalidates every other replica of it.
  Transfer acquire_host(std::uint64_t b, std::uint64_t e, bool for_write);
  // What the user's host()/read() call: the guard first, then acquire_host.
  void* host_access(bool for_write);
  // After a run: drops the events that are complete, keeping the maps small;
  // copies home still in flight (write-back) are still waited for.
  void settle();
  // Brings every byte's latest copy home and frees the device replicas: for a
  // buffer that outlives the runtime (and so its devices).
  void detach_devices();
  // Every device of `node` failed: data only it holds is copied home where
  // the device still answers, and marked lost where it does not (a later
  // reader gets Error(device_failed) naming `why`); the node then holds nothing.
  void drop_node(MemoryNode node, const std::string& why);
  // The device that allocated `node`'s replica failed; `dev`, on the same
  // node, serves its copies from now on.
  void rehome(MemoryNode node, Device& dev);
  // Bytes of [b, e) valid on `node` now or once pending copies land.
  std::uint64_t valid_bytes(MemoryNode node, std::uint64_t b, std::uint64_t e);
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
  HostKind host_kind() const {
    return replicas_[kHostNode].memory.pinned ? HostKind::pinned : HostKind::pageable;
  }
  // dev's node's replica, allocated on first use. mu_ held.
  Replica& ensure(Device& dev);
  // The node, other than `except`, whose valid data covers `at_byte`: host
  // memory first, then the device with the widest direct path into `reader`
  // (none: host memory reads), where it has landed before where it has not;
  // `piece` is its valid range there. Error(device_failed) where the byte
  // was lost with a device. mu_ held.
  MemoryNode holder(std::uint64_t at_byte, MemoryNode except, const Device* reader, Span& piece,
                    EventPtr& ready, const std::string& who) const;
  // Queues a copy of `piece` from `src` home, on src's copy-out queue after
  // `src_ready`; host memory holds it once the returned event completes. mu_ held.
  EventPtr to_host(Replica& src, Span piece, const EventPtr& src_ready);
  // Copies home over [b, e) that may still be landing: into `pending`, and
  // forgotten (whoever waits for them now orders what comes after). mu_ held.
  void take_landing(std::uint64_t b, std::uint64_t e, std::vector<EventPtr>& pending);
  // A copy home over [b, e) about to be queued on `q` follows those still
  // landing there. mu_ held.
  void after_landing(Queue& q, std::uint64_t b, std::uint64_t e);

  std::mutex mu_;
  std::size_t bytes_;
  const void* owner_;
  HostAccessGuard* guard_;
  std::shared_ptr<HostAllocator> host_memory_;
  bool user_memory_ = false;  // the caller's: not ours to free
  void* host_;
  std::vector<Replica> replicas_;  // index = memory node
  // Copies home still in flight over bytes a device has written since (so no
  // longer valid at home): a later copy home or host writer must not be
  // overtaken by them.
  IntervalMap home_landing_;
  IntervalMap lost_;  // bytes whose only copy died with a device
  std::string lost_why_;
  std::unique_ptr<DeviceInstances> instances_;
};

}  // namespace baton::detail
