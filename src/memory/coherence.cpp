#include "memory/coherence.hpp"

#include <algorithm>

#include "baton/error.hpp"
#include "device/host_memory.hpp"

namespace baton::detail {

BufferState::BufferState(std::size_t bytes, const void* owner) : bytes_(bytes), owner_(owner) {
  replicas_.resize(1);
  replicas_[0].memory = allocate_host("buffer", bytes);
  host_ = replicas_[0].memory.ptr;
  replicas_[0].valid.assign(0, bytes, nullptr);
}

BufferState::~BufferState() {
  for (std::size_t n = 1; n < replicas_.size(); ++n)
    if (replicas_[n].device) replicas_[n].device->release(replicas_[n].memory);
  release_host(replicas_[0].memory);
}

BufferState::Replica& BufferState::at(MemoryNode node) {
  if (node >= static_cast<MemoryNode>(replicas_.size())) replicas_.resize(node + 1);
  return replicas_[node];
}

BufferState::Replica& BufferState::ensure(Device& dev) {
  const MemoryNode node = dev.info().memory_node;
  Replica& r = at(node);
  if (node != kHostNode && !r.device) {
    r.memory = dev.allocate(bytes_);
    r.device = &dev;
  }
  return r;
}

MemoryNode BufferState::holder(std::uint64_t at_byte, MemoryNode except, Span& piece,
                               EventPtr& ready, const std::string& who) const {
  for (MemoryNode n = 0; n < static_cast<MemoryNode>(replicas_.size()); ++n)
    if (n != except && replicas_[n].valid.find(at_byte, piece, ready)) return n;
  raise(Errc::internal, who, "no valid copy of a buffer range");
}

DeviceMemory BufferState::replica(Device& dev) {
  std::lock_guard lock(mu_);
  return ensure(dev).memory;
}

std::uint64_t BufferState::pull(Replica& src, MemoryNode src_node, Replica& dst,
                                MemoryNode dst_node, Device* dst_dev, Queue* q, Span piece,
                                const EventPtr& src_ready) {
  const std::size_t len = piece.size();
  char* host = static_cast<char*>(host_);
  if (dst_node == kHostNode) {  // device -> host, synchronous: the host reads next
    Queue& out = src.device->queue(QueueRole::copy_out);
    if (src_ready) out.wait(src_ready);
    out.read(host + piece.begin, src.memory, piece.begin, len);
    out.record()->wait();
    dst.valid.assign(piece.begin, piece.end, nullptr);
    return len;
  }
  if (src_ready) q->wait(src_ready);
  if (src_node == kHostNode) {
    q->write(dst.memory, piece.begin, host + piece.begin, len);
  } else if (!dst_dev->copy_from_peer(*q, dst.memory, piece.begin, *src.device, src.memory,
                                      piece.begin, len)) {
    // No direct path: stage through host memory, which becomes a valid holder too.
    pull(src, src_node, replicas_[kHostNode], kHostNode, nullptr, nullptr, piece, nullptr);
    q->write(dst.memory, piece.begin, host + piece.begin, len);
  }
  return len;
}

Transfer BufferState::acquire(Device& dev, Queue& q, std::uint64_t b, std::uint64_t e,
                              std::vector<EventPtr>& waits) {
  std::lock_guard lock(mu_);
  const MemoryNode node = dev.info().memory_node;
  Replica& dst = ensure(dev);
  Transfer t;
  std::vector<Span> copied;
  for (Span gap : dst.valid.gaps(b, e)) {
    // Cover the gap piece by piece from valid holders, host memory first.
    for (std::uint64_t at_byte = gap.begin; at_byte < gap.end;) {
      Span piece;
      EventPtr ready;
      const MemoryNode from = holder(at_byte, node, piece, ready, dev.name());
      Span take{at_byte, std::min(gap.end, piece.end)};
      t.bytes_in += pull(replicas_[from], from, dst, node, &dev, &q, take, ready);
      copied.push_back(take);
      at_byte = take.end;
    }
  }
  if (!copied.empty()) {
    EventPtr done = node == kHostNode ? nullptr : q.record();
    for (Span s : copied) dst.valid.assign(s.begin, s.end, done);
  }
  dst.valid.for_each(b, e, [&](Span, const EventPtr& ready) {
    if (ready && std::find(waits.begin(), waits.end(), ready) == waits.end())
      waits.push_back(ready);
  });
  return t;
}

void BufferState::written(Device& dev, std::uint64_t b, std::uint64_t e, EventPtr ready) {
  std::lock_guard lock(mu_);
  const MemoryNode node = dev.info().memory_node;
  for (MemoryNode n = 0; n < static_cast<MemoryNode>(replicas_.size()); ++n)
    if (n != node) replicas_[n].valid.erase(b, e);
  at(node).valid.assign(b, e, std::move(ready));
}

EventPtr BufferState::write_back(Device& dev, Queue& q, std::uint64_t b, std::uint64_t e,
                                 const EventPtr& after) {
  std::lock_guard lock(mu_);
  Replica& src = at(dev.info().memory_node);
  if (after) q.wait(after);
  q.read(static_cast<char*>(host_) + b, src.memory, b, e - b);
  EventPtr done = q.record();
  replicas_[kHostNode].valid.assign(b, e, done);
  return done;
}

Transfer BufferState::acquire_host(std::uint64_t b, std::uint64_t e, bool for_write) {
  std::unique_lock lock(mu_);
  Transfer t;
  Replica& host = replicas_[kHostNode];
  for (Span gap : host.valid.gaps(b, e)) {
    for (std::uint64_t at_byte = gap.begin; at_byte < gap.end;) {
      Span piece;
      EventPtr ready;
      const MemoryNode from = holder(at_byte, kHostNode, piece, ready, "host");
      Span take{at_byte, std::min(gap.end, piece.end)};
      t.bytes_out += pull(replicas_[from], from, host, kHostNode, nullptr, nullptr, take, ready);
      at_byte = take.end;
    }
  }
  std::vector<EventPtr> pending;
  host.valid.for_each(b, e, [&](Span, const EventPtr& ready) {
    if (ready) pending.push_back(ready);
  });
  for (auto& ev : pending) ev->wait();
  if (for_write) {
    for (std::size_t n = 1; n < replicas_.size(); ++n) replicas_[n].valid.erase(b, e);
    host.valid.assign(b, e, nullptr);
  }
  return t;
}

void BufferState::settle() {
  std::lock_guard lock(mu_);
  for (auto& r : replicas_) r.valid.settle();
}

void BufferState::detach_devices() {
  acquire_host(0, bytes_, true);
  std::lock_guard lock(mu_);
  for (std::size_t n = 1; n < replicas_.size(); ++n)
    if (replicas_[n].device) replicas_[n].device->release(replicas_[n].memory);
  replicas_.resize(1);
}

bool BufferState::any_managed() {
  std::lock_guard lock(mu_);
  return std::any_of(replicas_.begin(), replicas_.end(),
                     [](const Replica& r) { return r.memory.managed; });
}

std::vector<MemoryNode> BufferState::holders(std::uint64_t b, std::uint64_t e) {
  std::lock_guard lock(mu_);
  std::vector<MemoryNode> out;
  for (MemoryNode n = 0; n < static_cast<MemoryNode>(replicas_.size()); ++n)
    if (replicas_[n].valid.covers(b, e)) out.push_back(n);
  return out;
}

}  // namespace baton::detail
